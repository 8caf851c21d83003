// Package servertest starts a real in-process harkd for tests of other
// packages (client, ui, cmd): the real handler and store in a temporary
// directory, behind an httptest server on loopback.
package servertest

import (
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"testing"

	"github.com/harkhq/hark/server"
	"github.com/harkhq/hark/server/store/storetest"
)

// Platform is a running harkd.
type Platform struct {
	Server     *server.Server
	HTTP       *httptest.Server
	URL        string // http://127.0.0.1:PORT
	BaseURL    string // URL + "/v2"
	RecommURL  string // BaseURL + "/recomm"
	PublicKey  string
	PrivateKey string
	DataDir    string
}

// Start runs harkd until the test ends. cfg may be zero; DataDir, keys and
// a quiet logger are filled in when empty. Its speech workers start with
// the first request that needs them (server.Config.SpeechOnDemand; most
// tests never speak, and starting them cost the race-detector pass
// minutes of CPU); Server.SpeechWorkers starts them too.
func Start(t testing.TB, cfg server.Config) *Platform {
	t.Helper()
	cfg.SpeechOnDemand = true
	if cfg.DataDir == "" {
		cfg.DataDir = t.TempDir()
	}
	if cfg.Store == "" {
		// HARK_TEST_STORE=postgres runs every test that starts a platform
		// on a fresh PostgreSQL database.
		cfg.Store = storetest.Spec(t)
	}
	if cfg.PublicKey == "" {
		cfg.PublicKey, cfg.PrivateKey = "pk_test", "test-private-key"
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if cfg.RatePerSecond == 0 {
		cfg.RatePerSecond, cfg.RateBurst = 1e6, 1e6
	}
	if cfg.AuthRate == 0 {
		cfg.AuthRate, cfg.AuthBurst = 1e6, 1e6
	}
	if cfg.AuthWorkspaceRate == 0 {
		cfg.AuthWorkspaceRate, cfg.AuthWorkspaceBurst = 1e6, 1e6
	}
	// The listener comes first so the server knows its own address, which
	// dataset and import fetches may always name.
	hs := httptest.NewUnstartedServer(nil)
	cfg.FetchAllow = append(cfg.FetchAllow, hs.Listener.Addr().String())
	srv, err := server.New(context.Background(), cfg)
	if err != nil {
		hs.Close()
		t.Fatalf("start harkd: %v", err)
	}
	hs.Config.Handler = srv.Handler()
	hs.Start()
	t.Cleanup(func() {
		hs.Close()
		srv.Close()
	})
	return &Platform{
		Server: srv, HTTP: hs, URL: hs.URL, BaseURL: hs.URL + "/v2", RecommURL: hs.URL + "/v2/recomm",
		PublicKey: cfg.PublicKey, PrivateKey: cfg.PrivateKey, DataDir: cfg.DataDir,
	}
}
