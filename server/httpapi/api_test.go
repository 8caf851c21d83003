package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/harkhq/hark/server/apierr"
)

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

type fixedTokens struct{}

func (fixedTokens) Authenticate(_ context.Context, token string) (Principal, error) {
	if token == "secret-token-value" {
		return Principal{WorkspaceID: 1, UserID: 7}, nil
	}
	return Principal{}, apierr.New(401, apierr.TokenExpired, "unknown token")
}

func newTestAPI(log io.Writer) *API {
	return New(Config{Logger: slog.New(slog.NewJSONHandler(log, nil)), Tokens: fixedTokens{}})
}

func TestPanicBecomesInternalWithoutDetails(t *testing.T) {
	var log syncBuffer
	a := newTestAPI(&log)
	a.Handle("GET /v2/boom", Public, func(w http.ResponseWriter, r *http.Request) error {
		panic("secret internal path /var/lib/x")
	})
	a.Handle("GET /v2/fail", Public, func(w http.ResponseWriter, r *http.Request) error {
		return errors.New("open /var/lib/hark/db: permission denied")
	})
	for _, path := range []string{"/v2/boom", "/v2/fail"} {
		rec := httptest.NewRecorder()
		a.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
		if rec.Code != 500 {
			t.Fatalf("%s: status %d", path, rec.Code)
		}
		var body map[string]string
		json.Unmarshal(rec.Body.Bytes(), &body)
		if body["code"] != "Internal" || strings.Contains(rec.Body.String(), "/var/lib") {
			t.Fatalf("%s: body %s", path, rec.Body.String())
		}
	}
	if !strings.Contains(log.String(), "secret internal path") {
		t.Fatal("the panic is not in the log")
	}
}

func TestTokenAuthAndLogs(t *testing.T) {
	var log syncBuffer
	a := newTestAPI(&log)
	a.Handle("GET /v2/me", Token, func(w http.ResponseWriter, r *http.Request) error {
		return WriteJSON(w, 200, map[string]int64{"user": User(r.Context()), "ws": Workspace(r.Context())})
	})
	for _, h := range []string{"", "Basic", "Basic wrong", "Digest secret-token-value"} {
		req := httptest.NewRequest("GET", "/v2/me", nil)
		req.Header.Set("Authorization", h)
		rec := httptest.NewRecorder()
		a.ServeHTTP(rec, req)
		if rec.Code != 401 || !strings.Contains(rec.Body.String(), "TokenExpired") {
			t.Fatalf("Authorization %q: %d %s", h, rec.Code, rec.Body.String())
		}
	}
	for _, scheme := range []string{"Basic", "Bearer", "basic"} {
		req := httptest.NewRequest("GET", "/v2/me", nil)
		req.Header.Set("Authorization", scheme+" secret-token-value")
		rec := httptest.NewRecorder()
		a.ServeHTTP(rec, req)
		if rec.Code != 200 || rec.Body.String() != `{"user":7,"ws":1}` {
			t.Fatalf("%s: %d %s", scheme, rec.Code, rec.Body.String())
		}
	}
	out := log.String()
	if strings.Contains(out, "secret-token-value") {
		t.Fatal("the log holds a token")
	}
	for _, want := range []string{`"request_id"`, `"method":"GET"`, `"path":"/v2/me"`, `"status":200`, `"duration_ms"`} {
		if !strings.Contains(out, want) {
			t.Fatalf("the log lacks %s: %s", want, out)
		}
	}
}

func TestDrain(t *testing.T) {
	a := newTestAPI(io.Discard)
	started := make(chan struct{})
	release := make(chan struct{})
	a.Handle("GET /v2/slow", Public, func(w http.ResponseWriter, r *http.Request) error {
		close(started)
		<-release
		return WriteJSON(w, 200, "done")
	})
	srv := httptest.NewServer(a)
	defer srv.Close()

	slow := make(chan int)
	go func() {
		resp, err := http.Get(srv.URL + "/v2/slow")
		if err != nil {
			slow <- 0
			return
		}
		resp.Body.Close()
		slow <- resp.StatusCode
	}()
	<-started
	drained := make(chan error)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		drained <- a.Drain(ctx)
	}()
	// New work is refused while the slow request is still in flight.
	var code int
	for i := 0; i < 100; i++ {
		resp, err := http.Get(srv.URL + "/v2/anything")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if code = resp.StatusCode; code == 503 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if code != 503 {
		t.Fatalf("a new request during drain answered %d", code)
	}
	close(release)
	if got := <-slow; got != 200 {
		t.Fatalf("the in-flight request answered %d", got)
	}
	if err := <-drained; err != nil {
		t.Fatal(err)
	}
}

func TestDrainIsBounded(t *testing.T) {
	a := newTestAPI(io.Discard)
	started := make(chan struct{})
	a.Handle("GET /v2/stuck", Public, func(w http.ResponseWriter, r *http.Request) error {
		close(started)
		<-r.Context().Done()
		return nil
	})
	srv := httptest.NewServer(a)
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+"/v2/stuck", nil)
	go http.DefaultClient.Do(req)
	<-started
	dctx, dcancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer dcancel()
	if err := a.Drain(dctx); err == nil {
		t.Fatal("Drain returned nil with a request stuck in flight")
	}
}

func TestParseBool(t *testing.T) {
	for s, want := range map[string]bool{"true": true, "TRUE": true, "Yes": true, "1": true, "false": false, "No": false, "0": false} {
		if got, ok := ParseBool(s); !ok || got != want {
			t.Errorf("ParseBool(%q) = %v, %v", s, got, ok)
		}
	}
	for _, s := range []string{"", "2", "maybe", "truee", "y"} {
		if _, ok := ParseBool(s); ok {
			t.Errorf("ParseBool(%q) accepted", s)
		}
	}
	var v struct{ A, B, C Bool }
	if err := json.Unmarshal([]byte(`{"A": true, "B": "yes", "C": "0"}`), &v); err != nil || !v.A || !v.B || v.C {
		t.Fatalf("lenient booleans: %+v %v", v, err)
	}
	if err := json.Unmarshal([]byte(`{"A": "perhaps"}`), &v); err == nil {
		t.Fatal("accepted \"perhaps\" as a boolean")
	}
}
