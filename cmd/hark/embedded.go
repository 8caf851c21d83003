package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"path/filepath"
	"time"

	"github.com/harkhq/hark/server"
)

// embedded is harkd running inside hark on a loopback port.
type embedded struct {
	BaseURL    string
	PublicKey  string
	PrivateKey string
	stop       context.CancelFunc
	done       chan error
}

// startEmbedded opens the platform under dataDir/harkd, makes sure a local
// workspace exists (the first one of the store is reused on later runs) and
// serves it on 127.0.0.1 with a free port.
func startEmbedded(ctx context.Context, dataDir string, logger *slog.Logger) (*embedded, error) {
	srv, err := server.New(ctx, server.Config{DataDir: filepath.Join(dataDir, "harkd"), Logger: logger, DrainTimeout: 2 * time.Second})
	if err != nil {
		return nil, fmt.Errorf("embedded platform: %w", err)
	}
	all, err := srv.Workspaces.All(ctx)
	if err != nil {
		srv.Close()
		return nil, fmt.Errorf("embedded platform: %w", err)
	}
	ws := server.Config{}
	if len(all) > 0 {
		ws.PublicKey, ws.PrivateKey = all[0].PublicKey, all[0].PrivateKey
	} else {
		created, err := srv.Workspaces.Create(ctx, "local")
		if err != nil {
			srv.Close()
			return nil, fmt.Errorf("embedded platform: create the local workspace: %w", err)
		}
		ws.PublicKey, ws.PrivateKey = created.PublicKey, created.PrivateKey
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		srv.Close()
		return nil, fmt.Errorf("embedded platform: %w", err)
	}
	sctx, stop := context.WithCancel(context.WithoutCancel(ctx))
	e := &embedded{
		BaseURL:   "http://" + ln.Addr().String() + "/v2",
		PublicKey: ws.PublicKey, PrivateKey: ws.PrivateKey,
		stop: stop, done: make(chan error, 1),
	}
	go func() { e.done <- srv.Serve(sctx, ln) }()
	logger.Info("embedded platform ready", "url", e.BaseURL, "data", dataDir)
	return e, nil
}

// Close stops serving and closes the store.
func (e *embedded) Close() error {
	e.stop()
	return <-e.done
}
