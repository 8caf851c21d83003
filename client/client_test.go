package client_test

import (
	"context"
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
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
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
