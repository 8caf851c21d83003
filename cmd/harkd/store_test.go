package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/harkhq/hark/client"
	"github.com/harkhq/hark/server/httpapi"

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
	// workspaces, accounts, surveys, tracking, onboarding, conversations, spoken, speakers,
	// recomm, recomm-imports, recomm-jobs
	if err := db.QueryRow(`SELECT count(*) FROM schema_migrations`).Scan(&components); err != nil || components != 11 {
		t.Fatalf("%d components migrated (%v), want 11", components, err)
	}
	if err := db.QueryRow(`SELECT count(*) FROM workspaces WHERE name = 'demo'`).Scan(&spaces); err != nil || spaces != 1 {
		t.Fatalf("%d workspaces named demo (%v)", spaces, err)
	}
}

// TestServeOnPostgres starts the harkd binary with HARKD_STORE naming a
// PostgreSQL database, registers an account and creates a recommendation
// table, then starts another harkd on the same database with a different,
// empty data directory: the account logs in there and the table is listed,
// so both lived in PostgreSQL and not under --data.
func TestServeOnPostgres(t *testing.T) {
	t.Setenv("HARKD_STORE", storetest.PostgresURL(t))
	ctx := context.Background()
	h1 := startHarkd(t, serveArgs(t.TempDir())...)
	c1 := h1.client(t)
	if _, err := c1.Auth.Register(ctx, "ana@example.com", "correct horse", "Ana", "dev-1"); err != nil {
		t.Fatal(err)
	}
	if err := c1.Recomm.CreateTable(ctx, client.NewTable{TableID: "books", Engines: client.Engines{client.SlotDefault: client.EngineHybrid}}); err != nil {
		t.Fatal(err)
	}
	h2 := startHarkd(t, serveArgs(t.TempDir())...)
	c2 := h2.client(t)
	if _, err := c2.Auth.Login(ctx, "ana@example.com", "correct horse", "dev-2"); err != nil {
		t.Fatalf("login on a second harkd sharing the database: %v", err)
	}
	if tables, err := c2.Recomm.Tables(ctx); err != nil || len(tables) != 1 || tables[0] != "books" {
		t.Fatalf("recommendation tables on a second harkd sharing the database: %v %v", tables, err)
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

// TestSharingOnPostgres runs two harkd on one PostgreSQL database and
// checks what must hold across them: a signed request accepted by one is
// refused as a replay by the other, and a token logged out on one is
// refused by the other at once, though the other had just accepted it.
func TestSharingOnPostgres(t *testing.T) {
	t.Setenv("HARKD_STORE", storetest.PostgresURL(t))
	ctx := context.Background()
	var logA syncBuffer
	a := startHarkdLogging(t, &logA, serveArgs(t.TempDir())...)
	defer func() {
		if t.Failed() {
			t.Logf("log of A:\n%s", logA.String())
		}
	}()
	b := startHarkd(t, serveArgs(t.TempDir())...)

	t.Run("nonce", func(t *testing.T) {
		path := "/v2/storage/file/list"
		ts := strconv.FormatInt(time.Now().UnixMilli(), 10)
		nonce := "replayed-nonce-1"
		mac := base64.StdEncoding.EncodeToString(httpapi.Sign("sk_crash", path, ts, nonce))
		send := func(h *harkd) (int, string) {
			return get(t, "http://"+h.addr+path, map[string]string{
				httpapi.HeaderAPIKey: "pk_crash", httpapi.HeaderTimestamp: ts,
				httpapi.HeaderNonce: nonce, httpapi.HeaderHMAC: mac,
			})
		}
		if code, body := send(a); code != http.StatusOK {
			t.Fatalf("first use on A: %d %s", code, body)
		}
		for _, h := range []*harkd{b, a} {
			if code, body := send(h); code != http.StatusUnauthorized || !strings.Contains(body, `"ReplayedNonce"`) {
				t.Fatalf("replay: %d %s, want 401 ReplayedNonce", code, body)
			}
		}
	})

	t.Run("logout", func(t *testing.T) {
		ca := a.client(t)
		tok, err := ca.Auth.Register(ctx, "bea@example.com", "correct horse", "Bea", "dev-1")
		if err != nil {
			t.Fatal(err)
		}
		surveys := func(h *harkd) (int, string) {
			return get(t, "http://"+h.addr+"/v2/surveys", map[string]string{"Authorization": "Basic " + tok.Token})
		}
		// B accepts the token first, so a cache there would hold it.
		if code, body := surveys(b); code != http.StatusOK {
			t.Fatalf("token on B before logout: %d %s", code, body)
		}
		if err := ca.Auth.Logout(ctx); err != nil {
			t.Fatal(err)
		}
		if code, body := surveys(b); code != http.StatusUnauthorized || !strings.Contains(body, `"TokenExpired"`) {
			t.Fatalf("token on B after logout on A: %d %s, want 401 TokenExpired", code, body)
		}
	})
}

// TestRateSharedOnPostgres starts two harkd told they are 2 processes, with
// a workspace burst of 10 and next to no refill: a client alternating
// between them is served 10 signed requests in all, 5 by each, then gets
// 429 from both, so the pair keeps the configured limit.
func TestRateSharedOnPostgres(t *testing.T) {
	t.Setenv("HARKD_STORE", storetest.PostgresURL(t))
	ctx := context.Background()
	args := append(serveArgs(t.TempDir()), "--processes", "2", "--rate", "0.001", "--burst", "10")
	hs := []*harkd{startHarkd(t, args...)}
	args = append(serveArgs(t.TempDir()), "--processes", "2", "--rate", "0.001", "--burst", "10")
	hs = append(hs, startHarkd(t, args...))
	served := make([]int, 2)
	for i := range 16 {
		_, err := hs[i%2].client(t).Storage.List(ctx, "", client.ListOptions{})
		switch {
		case err == nil:
			served[i%2]++
		case client.IsCode(err, "TooManyRequests"):
		default:
			t.Fatalf("request %d: %v", i, err)
		}
	}
	if served[0] != 5 || served[1] != 5 {
		t.Fatalf("served %v, want 5 by each (burst 10 shared by 2 processes)", served)
	}
}

// get sends a GET with the given headers and returns the status and body.
func get(t *testing.T, url string, header map[string]string) (int, string) {
	t.Helper()
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}
