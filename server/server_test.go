package server_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/harkhq/hark/server"
	"github.com/harkhq/hark/server/httpapi"
	"github.com/harkhq/hark/server/servertest"
)

type signed struct {
	key, secret, resource, nonce string
	at                           time.Time
}

func (s signed) apply(req *http.Request) {
	ts := strconv.FormatInt(s.at.UnixMilli(), 10)
	req.Header.Set("X-Service-apikey", s.key)
	req.Header.Set("X-Service-timestamp", ts)
	req.Header.Set("X-Service-nonce", s.nonce)
	req.Header.Set("x-service-HMAC", base64.StdEncoding.EncodeToString(httpapi.Sign(s.secret, s.resource, ts, s.nonce)))
}

func errorBody(t *testing.T, resp *http.Response) (code, desc string) {
	t.Helper()
	defer resp.Body.Close()
	var body struct{ Code, Description string }
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatalf("error body is not JSON: %v", err)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Fatalf("error Content-Type = %q", ct)
	}
	return body.Code, body.Description
}

func TestSignatures(t *testing.T) {
	p := servertest.Start(t, server.Config{})
	path := "/v2/storage/folder/list"
	good := signed{key: p.PublicKey, secret: p.PrivateKey, resource: path, nonce: "n-1", at: time.Now()}
	cases := []struct {
		name   string
		sig    *signed
		url    string
		status int
		code   string
	}{
		{"missing", nil, path, 401, "MissingSignature"},
		{"unknown key", &signed{key: "pk_nope", secret: "x", resource: path, nonce: "n-2", at: time.Now()}, path, 401, "UnknownApiKey"},
		{"stale", &signed{key: p.PublicKey, secret: p.PrivateKey, resource: path, nonce: "n-3", at: time.Now().Add(-11 * time.Second)}, path, 401, "ExpiredSignature"},
		{"future", &signed{key: p.PublicKey, secret: p.PrivateKey, resource: path, nonce: "n-4", at: time.Now().Add(11 * time.Second)}, path, 401, "ExpiredSignature"},
		{"forged", &signed{key: p.PublicKey, secret: "not the key", resource: path, nonce: "n-5", at: time.Now()}, path, 401, "InvalidSignature"},
		{"other path", &signed{key: p.PublicKey, secret: p.PrivateKey, resource: "/v2/storage/total-size", nonce: "n-6", at: time.Now()}, path, 401, "InvalidSignature"},
		{"good", &good, path, 200, ""},
		{"replayed", &good, path, 401, "ReplayedNonce"},
		{"path only with query", &signed{key: p.PublicKey, secret: p.PrivateKey, resource: "/v2/storage/file/list", nonce: "n-7", at: time.Now()}, "/v2/storage/file/list?prefix=a", 200, ""},
		{"path with query", &signed{key: p.PublicKey, secret: p.PrivateKey, resource: "/v2/storage/file/list?prefix=a", nonce: "n-8", at: time.Now()}, "/v2/storage/file/list?prefix=a", 200, ""},
		{"query tampered", &signed{key: p.PublicKey, secret: p.PrivateKey, resource: "/v2/storage/file/list?prefix=a", nonce: "n-9", at: time.Now()}, "/v2/storage/file/list?prefix=b", 401, "InvalidSignature"},
	}
	for _, tc := range cases {
		req, _ := http.NewRequest("GET", p.URL+tc.url, nil)
		if tc.sig != nil {
			tc.sig.apply(req)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != tc.status {
			t.Errorf("%s: status %d, want %d", tc.name, resp.StatusCode, tc.status)
		}
		if tc.code != "" {
			if code, desc := errorBody(t, resp); code != tc.code || desc == "" {
				t.Errorf("%s: code %q (%q), want %s", tc.name, code, desc, tc.code)
			}
		} else {
			resp.Body.Close()
		}
	}
}

func post(t *testing.T, url, contentType string, body io.Reader) *http.Response {
	t.Helper()
	resp, err := http.Post(url, contentType, body)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

func TestBadBodies(t *testing.T) {
	p := servertest.Start(t, server.Config{})
	for name, body := range map[string]string{
		"malformed":  `{"apiKey": "pk_test", "email": `,
		"not json":   `apiKey=pk_test`,
		"trailing":   `{"apiKey": "pk_test"} {}`,
		"wrong type": `{"apiKey": 42}`,
		"empty":      ``,
	} {
		resp := post(t, p.BaseURL+"/auth/login", "application/json", strings.NewReader(body))
		if code, _ := errorBody(t, resp); resp.StatusCode != 400 || code != "BadRequest" {
			t.Errorf("%s: %d %s, want 400 BadRequest", name, resp.StatusCode, code)
		}
	}
	big := `{"apiKey": "` + strings.Repeat("x", 2<<20) + `"}`
	resp := post(t, p.BaseURL+"/auth/register", "application/json", strings.NewReader(big))
	if code, _ := errorBody(t, resp); resp.StatusCode != 400 || code != "PayloadTooLarge" {
		t.Errorf("oversized: %d %s, want 400 PayloadTooLarge", resp.StatusCode, code)
	}
	resp = post(t, p.BaseURL+"/no/such/endpoint", "application/json", strings.NewReader("{}"))
	if code, _ := errorBody(t, resp); resp.StatusCode != 404 || code != "EntityNotFound" {
		t.Errorf("unknown endpoint: %d %s", resp.StatusCode, code)
	}
}

func TestRateLimit(t *testing.T) {
	p := servertest.Start(t, server.Config{RatePerSecond: 1, RateBurst: 3})
	var limited *http.Response
	for i := 0; i < 10 && limited == nil; i++ {
		req, _ := http.NewRequest("GET", p.BaseURL+"/storage/total-size", nil)
		signed{key: p.PublicKey, secret: p.PrivateKey, resource: "/v2/storage/total-size", nonce: "rate-" + strconv.Itoa(i), at: time.Now()}.apply(req)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode == http.StatusTooManyRequests {
			limited = resp
		} else {
			resp.Body.Close()
		}
	}
	if limited == nil {
		t.Fatal("10 requests at once passed a burst of 3")
	}
	if ra, err := strconv.Atoi(limited.Header.Get("Retry-After")); err != nil || ra < 1 {
		t.Fatalf("Retry-After = %q", limited.Header.Get("Retry-After"))
	}
	if code, _ := errorBody(t, limited); code != "TooManyRequests" {
		t.Fatalf("code %q", code)
	}
}

func TestHealthz(t *testing.T) {
	p := servertest.Start(t, server.Config{})
	resp, err := http.Get(p.URL + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !bytes.Equal(body, []byte("ok\n")) {
		t.Fatalf("healthz: %d %q", resp.StatusCode, body)
	}
}
