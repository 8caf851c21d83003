package client_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/harkhq/hark/client"
	"github.com/harkhq/hark/server"
	"github.com/harkhq/hark/server/servertest"
)

// newClient starts a real harkd and a client for its default workspace.
func newClient(t testing.TB, cfg server.Config) (*client.Client, *servertest.Platform) {
	t.Helper()
	p := servertest.Start(t, cfg)
	return clientFor(t, p, p.PublicKey, p.PrivateKey), p
}

func clientFor(t testing.TB, p *servertest.Platform, pub, priv string) *client.Client {
	t.Helper()
	c, err := client.New(client.Config{BaseURL: p.BaseURL, PublicKey: pub, PrivateKey: priv})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func ctxT(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // a bound against hangs, wide for the race detector on a loaded machine
	t.Cleanup(cancel)
	return ctx
}

// wantCode fails unless err is an *APIError with that status and code.
func wantCode(t testing.TB, err error, status int, code string) {
	t.Helper()
	apiErr, ok := err.(*client.APIError)
	if !ok {
		t.Fatalf("error = %v (%T), want APIError %d %s", err, err, status, code)
	}
	if apiErr.Status != status || apiErr.Code != code {
		t.Fatalf("error = %d %s (%s), want %d %s", apiErr.Status, apiErr.Code, apiErr.Description, status, code)
	}
	if apiErr.Description == "" {
		t.Fatalf("error %d %s has no description", apiErr.Status, apiErr.Code)
	}
}

func TestNewRejectsBadURLs(t *testing.T) {
	for _, u := range []string{"", "localhost:8700", "ftp://x/v2", "http://"} {
		if _, err := client.New(client.Config{BaseURL: u}); err == nil {
			t.Errorf("New(BaseURL %q) succeeded", u)
		}
	}
}

func servertestStart(t testing.TB) *servertest.Platform { return servertest.Start(t, server.Config{}) }

// The client waits out a 429's Retry-After and then succeeds.
func TestRetryHonoursRetryAfter(t *testing.T) {
	c, _ := newClient(t, server.Config{RatePerSecond: 2, RateBurst: 1})
	ctx := ctxT(t)
	if _, err := c.Storage.TotalSize(ctx); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if _, err := c.Storage.TotalSize(ctx); err != nil {
		t.Fatalf("the retried call failed: %v", err)
	}
	if waited := time.Since(start); waited < 900*time.Millisecond {
		t.Fatalf("the retry came after %s, before Retry-After (1 s)", waited)
	}
	// With retries off the 429 reaches the caller, with its Retry-After.
	noRetry, _ := client.New(client.Config{BaseURL: c.Config().BaseURL, PublicKey: c.Config().PublicKey,
		PrivateKey: c.Config().PrivateKey, MaxRetries: -1})
	noRetry.Storage.TotalSize(ctx)
	_, err := noRetry.Storage.TotalSize(ctx)
	wantCode(t, err, 429, "TooManyRequests")
	if err.(*client.APIError).RetryAfter != time.Second {
		t.Fatalf("RetryAfter %s", err.(*client.APIError).RetryAfter)
	}
}

// Garbage from a server is an error, never a panic.
func TestGarbageAnswers(t *testing.T) {
	for _, body := range []string{"<html>oops</html>", `{"code": 5}`, ""} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(500)
			io.WriteString(w, body)
		}))
		c, _ := client.New(client.Config{BaseURL: srv.URL + "/v2", MaxRetries: -1})
		_, err := c.Storage.Folders(ctxT(t))
		e, ok := err.(*client.APIError)
		if !ok || e.Status != 500 || e.Code == "" {
			t.Errorf("500 %q: %v", body, err)
		}
		srv.Close()
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "[not json")
	}))
	defer srv.Close()
	c, _ := client.New(client.Config{BaseURL: srv.URL + "/v2"})
	if _, err := c.Storage.Folders(ctxT(t)); err == nil || !strings.Contains(err.Error(), "malformed JSON") {
		t.Fatalf("malformed 200: %v", err)
	}
}
