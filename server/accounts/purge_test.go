package accounts

import (
	"context"
	"testing"
	"time"

	"github.com/harkhq/hark/server/store/storetest"
	"github.com/harkhq/hark/server/workspaces"
)

func TestPurgeExpiredKeepsOnlyUsableTokens(t *testing.T) {
	ctx := context.Background()
	db, err := storetest.Open(t, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	wss, err := workspaces.New(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	ws, err := wss.Create(ctx, "test")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	s, err := New(ctx, db, wss, Config{TokenTTL: time.Hour, Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	login := func(id string) Token {
		tok, _, err := s.Anonymous(ctx, ws.ID, AnonymousRequest{ExternalID: id, Device: "d", Name: "n"})
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	login("old")
	revoked := login("revoked")
	if err := s.Logout(ctx, revoked.Token); err != nil {
		t.Fatal(err)
	}
	now = now.Add(50 * time.Minute)
	fresh := login("fresh")
	now = now.Add(20 * time.Minute) // old has expired, fresh has not
	if err := s.PurgeExpired(ctx); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM tokens`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 1 {
		t.Fatalf("%d tokens left, want only the fresh one", n)
	}
	if _, err := s.Authenticate(ctx, fresh.Token); err != nil {
		t.Fatalf("the fresh token stopped working: %v", err)
	}
}
