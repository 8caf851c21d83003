package store_test

import (
	"context"
	"database/sql"
	"strings"
	"testing"
	"time"

	"github.com/harkhq/hark/server/store"
	"github.com/harkhq/hark/server/store/storetest"
)

// listener runs store.Listen on channel and hands over what fn receives.
type listener struct {
	got  chan string
	done chan error
	stop context.CancelFunc
}

func listen(t *testing.T, db *sql.DB, channel string) *listener {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	l := &listener{got: make(chan string, 100), done: make(chan error, 1), stop: cancel}
	go func() { l.done <- store.Listen(ctx, db, channel, func(p string) { l.got <- p }) }()
	t.Cleanup(func() {
		cancel()
		<-l.done
	})
	return l
}

// next returns the next payload, failing the test after 5 s.
func (l *listener) next(t *testing.T) string {
	t.Helper()
	select {
	case p := <-l.got:
		return p
	case <-time.After(5 * time.Second):
		t.Fatal("no notice within 5 s")
		return ""
	}
}

// none checks that no payload arrives within d.
func (l *listener) none(t *testing.T, d time.Duration) {
	t.Helper()
	select {
	case p := <-l.got:
		t.Fatalf("unexpected notice %.40q", p)
	case <-time.After(d):
	}
}

func TestNotifyDelivers(t *testing.T) {
	db := storetest.Reopen(t, storetest.PostgresURL(t), t.TempDir())
	ctx := context.Background()
	l := listen(t, db, "hark_test")
	if p := l.next(t); p != "" {
		t.Fatalf("first call = %q, want the empty resync call", p)
	}
	other := listen(t, db, "hark_other")
	other.next(t)

	must(t, store.Notify(ctx, db, "hark_test", "hello"))
	if p := l.next(t); p != "hello" {
		t.Fatalf("payload = %q, want hello", p)
	}

	// Inside a transaction the notice leaves with the commit, and never
	// after a rollback.
	tx, err := db.BeginTx(ctx, nil)
	must(t, err)
	must(t, store.Notify(ctx, tx, "hark_test", "rolled back"))
	must(t, tx.Rollback())
	tx, err = db.BeginTx(ctx, nil)
	must(t, err)
	must(t, store.Notify(ctx, tx, "hark_test", "committed"))
	l.none(t, 200*time.Millisecond)
	must(t, tx.Commit())
	if p := l.next(t); p != "committed" {
		t.Fatalf("payload = %q, want committed (the rolled-back notice must not arrive)", p)
	}

	// The longest payload PostgreSQL carries arrives whole; a longer one is refused.
	long := strings.Repeat("x", store.MaxPayload)
	must(t, store.Notify(ctx, db, "hark_test", long))
	if p := l.next(t); p != long {
		t.Fatalf("payload of %d bytes arrived as %d bytes", len(long), len(p))
	}
	err = store.Notify(ctx, db, "hark_test", long+"x")
	if err == nil || !strings.Contains(err.Error(), "limit") {
		t.Fatalf("Notify of %d bytes = %v, want the limit error", len(long)+1, err)
	}
	if err := store.Notify(ctx, db, strings.Repeat("c", 64), "x"); err == nil {
		t.Fatal("Notify on a 64-byte channel name succeeded; PostgreSQL would refuse or truncate it")
	}
	l.none(t, 200*time.Millisecond)
	other.none(t, 0)

	// Ending ctx ends Listen and gives its connection back (closed).
	l.stop()
	select {
	case err := <-l.done:
		if err != nil {
			t.Fatalf("Listen returned %v after its context ended, want nil", err)
		}
		l.done <- nil // for the cleanup
	case <-time.After(5 * time.Second):
		t.Fatal("Listen did not return within 5 s of its context ending")
	}
	other.stop()
	<-other.done
	other.done <- nil
	if inUse := db.Stats().InUse; inUse != 0 {
		t.Fatalf("%d connections still in use after both listeners ended", inUse)
	}
}

// A listener whose connection dies listens again, says so with fn(""),
// and hears later notices.
func TestListenReconnects(t *testing.T) {
	db := storetest.Reopen(t, storetest.PostgresURL(t), t.TempDir())
	ctx := context.Background()
	l := listen(t, db, "hark_reconnect")
	l.next(t)
	for round := range 2 {
		res, err := db.ExecContext(ctx, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
			WHERE datname = current_database() AND query LIKE 'LISTEN %' AND pid <> pg_backend_pid()`)
		must(t, err)
		if n, _ := res.RowsAffected(); n != 1 {
			t.Fatalf("round %d: terminated %d listening backends, want 1", round, n)
		}
		if p := l.next(t); p != "" {
			t.Fatalf("round %d: after the connection died got %q, want the resync call", round, p)
		}
		must(t, store.Notify(ctx, db, "hark_reconnect", "after"))
		if p := l.next(t); p != "after" {
			t.Fatalf("round %d: payload = %q, want after", round, p)
		}
	}
}

// On SQLite nobody else can listen: Listen returns at once and Notify,
// alone or in a transaction, does nothing and succeeds.
func TestNotifySQLite(t *testing.T) {
	db := storetest.Reopen(t, "", t.TempDir())
	ctx := context.Background()
	done := make(chan error, 1)
	go func() { done <- store.Listen(ctx, db, "hark_test", func(string) { t.Error("fn called on SQLite") }) }()
	select {
	case err := <-done:
		must(t, err)
	case <-time.After(5 * time.Second):
		t.Fatal("Listen on SQLite did not return")
	}
	must(t, store.Notify(ctx, db, "hark_test", "x"))
	tx, err := db.BeginTx(ctx, nil)
	must(t, err)
	must(t, store.Notify(ctx, tx, "hark_test", "x"))
	must(t, tx.Commit())
	if err := store.Notify(ctx, db, "hark_test", strings.Repeat("x", store.MaxPayload+1)); err == nil {
		t.Fatal("an over-long payload passed on SQLite; it would fail on PostgreSQL")
	}
	if err := store.Listen(ctx, db, "", func(string) {}); err == nil {
		t.Fatal("Listen accepted an empty channel name")
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
