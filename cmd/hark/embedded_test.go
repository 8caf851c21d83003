package main

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/harkhq/hark/client"
)

// The embedded platform fetches the datasets it publishes itself, as the
// Places screen asks it to: its own address (port included) is on its
// fetch allowlist. It used to answer "host 127.0.0.1:PORT is not on the
// dataset allowlist".
func TestEmbeddedPlatformFetchesItsOwnDatasets(t *testing.T) {
	home := isolate(t)
	ctx := context.Background()
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	emb, err := startEmbedded(ctx, filepath.Join(home, "data"), openSecrets(filepath.Join(home, "config")), logger)
	if err != nil {
		t.Fatal(err)
	}
	defer emb.Close()
	if err := <-emb.Ready; err != nil {
		t.Fatal(err)
	}
	c, err := client.New(client.Config{BaseURL: emb.BaseURL, PublicKey: emb.PublicKey, PrivateKey: emb.PrivateKey, MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Auth.Register(ctx, "places@example.com", "correct horse", "Pat", "test"); err != nil {
		t.Fatal(err)
	}
	job, err := c.Tracking.Upload(ctx, c.Tracking.DatasetURL("london"))
	if err != nil {
		t.Fatalf("uploading the platform's own dataset: %v", err)
	}
	wctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	done, err := c.Tracking.Wait(wctx, job.RequestID, 50*time.Millisecond, nil)
	if err != nil || done.Status == "error" {
		t.Fatalf("the dataset job: %+v %v", done, err)
	}
}
