package httpapi

import (
	"context"
	"encoding/base64"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
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
