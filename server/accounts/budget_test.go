package accounts

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/harkhq/hark/server/apierr"
	"github.com/harkhq/hark/server/store/storetest"
	"github.com/harkhq/hark/server/workspaces"
)

// With the hashing budget spent, a login waits HashWait, then answers 503
// Unavailable with Retry-After instead of hashing beyond the budget; a
// registration too.
func TestHashBudgetAnswersBusy(t *testing.T) {
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
	s, err := New(ctx, db, wss, Config{HashMemory: 2 * HashBytes, HashWait: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if cap(s.hashing) != 2 || HashesAtOnce(128<<20) != 6 || HashesAtOnce(1) != 1 {
		t.Fatalf("budget sizes: %d, %d, %d", cap(s.hashing), HashesAtOnce(128<<20), HashesAtOnce(1))
	}
	s.hashing <- struct{}{}
	s.hashing <- struct{}{}
	start := time.Now()
	_, err = s.Login(ctx, LoginRequest{APIKey: ws.PublicKey, Email: "a@example.com", Password: "whatever"})
	var e *apierr.Error
	if !errors.As(err, &e) || e.Status != 503 || e.Code != apierr.Unavailable || e.RetryAfter != 1 {
		t.Fatalf("login with the budget spent: %v", err)
	}
	if waited := time.Since(start); waited < 50*time.Millisecond {
		t.Fatalf("gave up after %s, before HashWait", waited)
	}
	_, err = s.Register(ctx, RegisterRequest{APIKey: ws.PublicKey, Email: "b@example.com", Password: "long enough"})
	if !errors.As(err, &e) || e.Status != 503 {
		t.Fatalf("registration with the budget spent: %v", err)
	}
	// The abandoned login left no failure behind.
	if len(s.fails) != 0 {
		t.Fatalf("failure records after busy answers: %v", s.fails)
	}
	<-s.hashing
	if _, err := s.Register(ctx, RegisterRequest{APIKey: ws.PublicKey, Email: "b@example.com", Password: "long enough"}); err != nil {
		t.Fatalf("registration with room again: %v", err)
	}
}
