package main

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"

	"github.com/harkhq/hark/server/store"
	"github.com/harkhq/hark/server/store/storetest"
)

// TestMigrateAndWorkspaceOnPostgres runs harkd migrate twice on a new
// PostgreSQL database (the second run is a no-op), creates a workspace in
// it, and finds both in the database, with nothing of the services' tables
// written under --data.
func TestMigrateAndWorkspaceOnPostgres(t *testing.T) {
	url := storetest.PostgresURL(t)
	for range 2 {
		if err := run([]string{"migrate", "--store", url}, io.Discard, io.Discard); err != nil {
			t.Fatal(err)
		}
	}
	data := t.TempDir()
	var out bytes.Buffer
	if err := run([]string{"workspace", "create", "--data", data, "--store", url, "--name", "demo"}, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	db, err := store.OpenPostgres(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var components, spaces int
	if err := db.QueryRow(`SELECT count(*) FROM schema_migrations`).Scan(&components); err != nil || components != 7 {
		t.Fatalf("%d components migrated (%v), want 7", components, err)
	}
	if err := db.QueryRow(`SELECT count(*) FROM workspaces WHERE name = 'demo'`).Scan(&spaces); err != nil || spaces != 1 {
		t.Fatalf("%d workspaces named demo (%v)", spaces, err)
	}
}

// TestServeOnPostgres starts the harkd binary with HARKD_STORE naming a
// PostgreSQL database, registers an account, then starts another harkd on
// the same database with a different, empty data directory: the account
// logs in there, so it lived in PostgreSQL and not under --data. The log
// says where the recommendation catalog stays.
func TestServeOnPostgres(t *testing.T) {
	t.Setenv("HARKD_STORE", storetest.PostgresURL(t))
	ctx := context.Background()
	var log1 syncBuffer
	h1 := startHarkdLogging(t, &log1, serveArgs(t.TempDir())...)
	if _, err := h1.client(t).Auth.Register(ctx, "ana@example.com", "correct horse", "Ana", "dev-1"); err != nil {
		t.Fatal(err)
	}
	h2 := startHarkd(t, serveArgs(t.TempDir())...)
	if _, err := h2.client(t).Auth.Login(ctx, "ana@example.com", "correct horse", "dev-2"); err != nil {
		t.Fatalf("login on a second harkd sharing the database: %v", err)
	}
	if !strings.Contains(log1.String(), "recommendation catalog stays in SQLite") {
		t.Fatalf("no notice of the SQLite recommendation catalog in the log:\n%s", log1.String())
	}
}

func TestMigrateRefusesUnknownStore(t *testing.T) {
	if err := run([]string{"migrate", "--store", "mysql://x@y/z"}, io.Discard, io.Discard); err == nil {
		t.Fatal("migrate accepted a mysql:// store")
	}
	if err := run([]string{"migrate"}, io.Discard, io.Discard); err == nil {
		t.Fatal("migrate without --store or --data succeeded")
	}
}
