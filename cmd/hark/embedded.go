package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"time"

	"github.com/harkhq/hark/server"
	"github.com/harkhq/hark/server/recomm/jobs"
	"github.com/harkhq/hark/server/speechworker"
)

// embedded is harkd running inside hark on a loopback port.
type embedded struct {
	BaseURL    string
	PublicKey  string
	PrivateKey string
	// Ready yields nil once the platform serves, or why it could not.
	Ready <-chan error
	stop  context.CancelFunc
	done  chan error

	opened chan struct{}  // closed once the store is open, or could not be
	srv    *server.Server // the platform, once opened; nil if it could not be
}

// workspaceKeys is the local workspace remembered between runs.
type workspaceKeys struct {
	PublicKey  string `json:"publicKey"`
	PrivateKey string `json:"privateKey"`
}

// speechOnDemand is set by the tests, which start an embedded platform
// per command and mostly never speak (server.Config.SpeechOnDemand); a
// person's hark has the speech engines loading from the start.
var speechOnDemand bool

// startEmbedded serves the platform of dataDir/harkd on 127.0.0.1 with a
// free port. The first run opens the store, creates the local workspace
// and remembers its keys (in the secrets store); later runs know the keys
// and the port at once, so the console draws while the store opens in the
// background: requests made meanwhile wait in the listener's backlog.
func startEmbedded(ctx context.Context, dataDir string, sec secrets, logger *slog.Logger) (*embedded, error) {
	dir := filepath.Join(dataDir, "harkd")
	secretName := "embedded-workspace:" + dir
	var keys workspaceKeys
	if v, ok, err := sec.Get(secretName); err == nil && ok {
		json.Unmarshal([]byte(v), &keys)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("embedded platform: %w", err)
	}
	sctx, stop := context.WithCancel(context.WithoutCancel(ctx))
	ready := make(chan error, 1)
	e := &embedded{BaseURL: "http://" + ln.Addr().String() + "/v2", Ready: ready, stop: stop, done: make(chan error, 1),
		opened: make(chan struct{})}

	open := func() (*server.Server, error) {
		// The platform fetches its own published datasets (Places), so its
		// own address, port included, is on the fetch allowlist.
		srv, err := server.New(sctx, server.Config{DataDir: dir, Logger: logger, DrainTimeout: 2 * time.Second,
			FetchAllow: []string{ln.Addr().String()}, TuningBudget: jobs.DefaultTuningBudget, SpeechOnDemand: speechOnDemand})
		if err != nil {
			return nil, err
		}
		if keys.PublicKey != "" {
			// The store may have been wiped since the keys were kept.
			if _, err := srv.Workspaces.Ensure(sctx, "local", keys.PublicKey, keys.PrivateKey); err != nil {
				srv.Close()
				return nil, fmt.Errorf("the remembered local workspace: %w", err)
			}
			return srv, nil
		}
		all, err := srv.Workspaces.All(sctx)
		if err == nil && len(all) > 0 {
			keys = workspaceKeys{all[0].PublicKey, all[0].PrivateKey}
		} else if err == nil {
			created, cerr := srv.Workspaces.Create(sctx, "local")
			keys, err = workspaceKeys{created.PublicKey, created.PrivateKey}, cerr
		}
		if err != nil {
			srv.Close()
			return nil, fmt.Errorf("create the local workspace: %w", err)
		}
		if b, err := json.Marshal(keys); err == nil {
			if err := sec.Set(secretName, string(b)); err != nil {
				logger.Warn("could not remember the local workspace", "where", sec.Where(), "err", err)
			}
		}
		return srv, nil
	}
	serve := func(srv *server.Server) {
		e.srv = srv
		close(e.opened)
		logger.Info("embedded platform ready", "url", e.BaseURL, "data", dir)
		ready <- nil
		e.done <- srv.Serve(sctx, ln)
	}

	if keys.PublicKey == "" {
		srv, err := open()
		if err != nil {
			ln.Close()
			stop()
			close(e.opened)
			return nil, fmt.Errorf("embedded platform: %w", err)
		}
		e.PublicKey, e.PrivateKey = keys.PublicKey, keys.PrivateKey
		go serve(srv)
		return e, nil
	}
	e.PublicKey, e.PrivateKey = keys.PublicKey, keys.PrivateKey
	go func() {
		srv, err := open()
		if err != nil {
			logger.Error("embedded platform failed", "err", err)
			close(e.opened)
			ln.Close()
			ready <- fmt.Errorf("embedded platform: %w", err)
			e.done <- err
			return
		}
		serve(srv)
	}()
	return e, nil
}

// SpeechReady waits until the platform's speech engines have started (on a
// new machine they first build their language models, about 20 s) and says
// whether they could.
func (e *embedded) SpeechReady(ctx context.Context) error {
	select {
	case <-e.opened:
	case <-ctx.Done():
		return ctx.Err()
	}
	if e.srv == nil {
		return errors.New("the embedded platform did not start")
	}
	_, err := e.srv.Recognizer(ctx)
	return err
}

// Close stops serving and closes the store. A platform still opening when
// the command is over stops there: that is no failure of the command.
func (e *embedded) Close() error {
	e.stop()
	if err := <-e.done; !errors.Is(err, context.Canceled) {
		return err
	}
	return nil
}

// speechWorkerCommand is the hidden subcommand that runs a speech worker:
// the embedded platform runs its speech engines in workers of hark's own
// binary, so a native crash cannot take the terminal down.
const speechWorkerCommand = speechworker.Subcommand

func runSpeechWorker(args []string) int {
	if err := speechworker.Main(args); err != nil {
		fmt.Fprintln(os.Stderr, "hark speech-worker:", err)
		return 1
	}
	return 0
}
