package httpapi

import (
	"context"
	"encoding/base64"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"
)

type oneKey struct{}

func (oneKey) WorkspaceKey(_ context.Context, key string) (int64, string, error) {
	return 1, "bench-secret", nil
}

func benchAPI() *API {
	a := New(Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Keys: oneKey{}, RatePerSecond: 1e12, RateBurst: 1e12})
	ok := func(w http.ResponseWriter, r *http.Request) error { w.WriteHeader(204); return nil }
	a.Handle("GET /v2/storage/file/exists/{file}", Signed, ok)
	a.Handle("GET /v2/public/{file}", Public, ok)
	return a
}

// BenchmarkSignedRequest is verify + route + a trivial handler; compare it
// with BenchmarkPublicRequest (route + handler) for the signature's cost.
func BenchmarkSignedRequest(b *testing.B) {
	a := benchAPI()
	req := httptest.NewRequest("GET", "/v2/storage/file/exists/a.txt", nil)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		ts := strconv.FormatInt(time.Now().UnixMilli(), 10)
		nonce := strconv.Itoa(i)
		req.Header.Set(HeaderAPIKey, "pk")
		req.Header.Set(HeaderTimestamp, ts)
		req.Header.Set(HeaderNonce, nonce)
		req.Header.Set(HeaderHMAC, base64.StdEncoding.EncodeToString(Sign("bench-secret", "/v2/storage/file/exists/a.txt", ts, nonce)))
		rec := httptest.NewRecorder()
		a.ServeHTTP(rec, req)
		if rec.Code != 204 {
			b.Fatalf("status %d: %s", rec.Code, rec.Body.String())
		}
	}
}

func BenchmarkPublicRequest(b *testing.B) {
	a := benchAPI()
	req := httptest.NewRequest("GET", "/v2/public/a.txt", nil)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		rec := httptest.NewRecorder()
		a.ServeHTTP(rec, req)
		if rec.Code != 204 {
			b.Fatalf("status %d", rec.Code)
		}
	}
}

// BenchmarkJSONBody posts a small JSON body over loopback with the body
// pace rule off and on, in the same run: the rule's cost per request (a
// read deadline per body read, its bookkeeping, the in-flight registry).
func BenchmarkJSONBody(b *testing.B) {
	for _, rule := range []struct {
		name string
		rate BodyRate
	}{{"rule-off", BodyRate{BytesPerSecond: -1}}, {"rule-on", DefaultBodyRate}} {
		b.Run(rule.name, func(b *testing.B) {
			a := New(Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), BodyRate: rule.rate})
			a.Handle("POST /v2/echo", Public, func(w http.ResponseWriter, r *http.Request) error {
				var v map[string]any
				if err := DecodeJSON(r, 1<<20, &v); err != nil {
					return err
				}
				return WriteJSON(w, 200, v)
			})
			hs := httptest.NewServer(a)
			defer hs.Close()
			body := `{"query": "what is the weather in Madrid tomorrow", "lang": "en", "ref": 12345}`
			b.ReportAllocs()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					resp, err := hs.Client().Post(hs.URL+"/v2/echo", "application/json", strings.NewReader(body))
					if err != nil {
						b.Error(err)
						return
					}
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if resp.StatusCode != 200 {
						b.Errorf("status %d", resp.StatusCode)
						return
					}
				}
			})
		})
	}
}
