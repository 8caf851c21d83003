package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"modernc.org/sqlite"
)

// Notices between harkd processes (PostgreSQL LISTEN/NOTIFY). Several
// processes on one PostgreSQL database tell each other of changes to state
// they keep in memory (a newly trained recommendation model, for one):
// Notify sends a short text on a channel, and every process that Listens
// on that channel, the sender included, receives it once the sending
// transaction commits. Notices are a hint, not a log: one sent while a
// listener was reconnecting is lost, which is why Listen tells its caller
// of every (re)connection, so that it can resync from the source of truth.
//
// On SQLite there is only one process (the database file is harkd's own),
// so there is nobody to tell: Notify does nothing and Listen returns at once.

// MaxPayload is the longest payload a notice carries, in bytes: PostgreSQL
// refuses payloads of 8000 bytes or more.
const MaxPayload = 7999

// maxChannel is PostgreSQL's identifier length (NAMEDATALEN-1): LISTEN
// would silently truncate a longer channel name and pg_notify refuses it.
const maxChannel = 63

// Execer runs a statement: a *sql.DB, *sql.Conn or *sql.Tx.
type Execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

func init() {
	// Notify inside a *sql.Tx cannot ask the transaction which engine it
	// runs on, so on SQLite the same statement runs and this no-op answers
	// it: one process, nobody to tell.
	sqlite.MustRegisterScalarFunction("pg_notify", 2, func(*sqlite.FunctionContext, []driver.Value) (driver.Value, error) {
		return "", nil
	})
}

func checkChannel(channel string) error {
	if channel == "" || len(channel) > maxChannel {
		return fmt.Errorf("store: notice channel %q must have 1 to %d bytes", channel, maxChannel)
	}
	return nil
}

// Notify sends payload on channel to every process listening on it
// (SELECT pg_notify). Run on a *sql.Tx, the notice is sent when the
// transaction commits and not at all if it rolls back, so listeners never
// hear of a change they cannot see yet. A payload of more than MaxPayload
// bytes is refused. On SQLite it does nothing.
func Notify(ctx context.Context, q Execer, channel, payload string) error {
	if err := checkChannel(channel); err != nil {
		return err
	}
	if len(payload) > MaxPayload {
		return fmt.Errorf("store: notice payload of %d bytes on %s exceeds the %d-byte limit", len(payload), channel, MaxPayload)
	}
	if db, ok := q.(*sql.DB); ok && EngineOf(db) == SQLite {
		return nil
	}
	if _, err := q.ExecContext(ctx, `SELECT pg_notify($1, $2)`, channel, payload); err != nil {
		return fmt.Errorf("store: notify %s: %w", channel, err)
	}
	return nil
}

// Listen calls fn with the payload of every notice sent on channel until
// ctx ends, then returns nil. It holds one connection of db's pool for the
// purpose. Each time it has connected and is listening (at first, and
// after a lost connection, retried with a backoff of up to listenMaxBackoff)
// it calls fn("") first: notices sent while it was not listening are lost,
// and the caller resyncs from the source of truth. fn runs on Listen's
// goroutine, one call at a time; notices wait while it runs.
//
// On SQLite, Listen returns nil at once: no other process shares the
// database, so no notice can come. It returns an error only for an
// invalid channel name.
func Listen(ctx context.Context, db *sql.DB, channel string, fn func(payload string)) error {
	if err := checkChannel(channel); err != nil {
		return err
	}
	if EngineOf(db) != Postgres {
		return nil
	}
	backoff := listenMinBackoff
	for {
		listened, err := listenOnce(ctx, db, channel, fn)
		if ctx.Err() != nil {
			return nil
		}
		if listened {
			backoff = listenMinBackoff
		}
		slog.Warn("store: listening for notices failed; listening again", "channel", channel, "in", backoff, "err", err)
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, listenMaxBackoff)
	}
}

// The backoff between attempts to listen again: short at first (a
// terminated backend reconnects at once), capped so that a database back
// from an outage is heard from within seconds.
const (
	listenMinBackoff = 50 * time.Millisecond
	listenMaxBackoff = 5 * time.Second
)

// listenOnce listens on one connection until it fails or ctx ends;
// listened reports whether LISTEN succeeded (the backoff then restarts).
func listenOnce(ctx context.Context, db *sql.DB, channel string, fn func(string)) (listened bool, err error) {
	conn, err := db.Conn(ctx)
	if err != nil {
		return false, err
	}
	defer conn.Close()
	err = conn.Raw(func(dc any) error {
		sc, ok := dc.(*stdlib.Conn)
		if !ok {
			return fmt.Errorf("store: listen needs a pgx connection, not %T", dc)
		}
		pc := sc.Conn()
		if _, err := pc.Exec(ctx, "LISTEN "+pgx.Identifier{channel}.Sanitize()); err != nil {
			return errors.Join(err, driver.ErrBadConn)
		}
		listened = true
		fn("")
		for {
			n, err := pc.WaitForNotification(ctx)
			if err != nil {
				// The connection still listens, or is broken: either
				// way it must not go back to the pool, where another
				// user would collect the notices.
				return errors.Join(err, driver.ErrBadConn)
			}
			if n.Channel == channel {
				fn(n.Payload)
			}
		}
	})
	return listened, err
}
