package accounts

import (
	"context"
	"testing"

	"github.com/harkhq/hark/server/store/storetest"
	"github.com/harkhq/hark/server/workspaces"
)

// A login answers the same username as the registration: the handle other services (the
// recommendation service's user id of the person) know them by, whichever way they signed in.
func TestLoginAnswersTheUsername(t *testing.T) {
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
	s, err := New(ctx, db, wss, Config{})
	if err != nil {
		t.Fatal(err)
	}
	reg, err := s.Register(ctx, RegisterRequest{APIKey: ws.PublicKey, Email: "c@example.com", Password: "long enough"})
	if err != nil {
		t.Fatal(err)
	}
	tok, err := s.Login(ctx, LoginRequest{APIKey: ws.PublicKey, Email: "c@example.com", Password: "long enough"})
	if err != nil {
		t.Fatal(err)
	}
	if reg.Username == "" || tok.Username != reg.Username {
		t.Fatalf("login username %q, registration %q", tok.Username, reg.Username)
	}
}
