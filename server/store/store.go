// Package store opens harkd's database and runs the schema migrations of
// every service. Two engines sit behind the same *sql.DB: SQLite, the
// embedded default (one file under the data directory), and PostgreSQL
// through pgx's database/sql driver, for a platform whose database lives
// on its own server. Each service owns its tables and passes its own
// ordered list of migrations to Migrate, so services evolve their schemas
// independently while sharing one database.
//
// Services write SQL that both engines accept: $N placeholders, ON
// CONFLICT upserts, RETURNING instead of LastInsertId. Where the engines
// differ (identity columns, blob/bytea, 64-bit integers, time functions)
// a migration carries one form per engine, and a query asks EngineOf.
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// Engine names a database engine.
type Engine string

const (
	SQLite   Engine = "sqlite"
	Postgres Engine = "postgres"
)

// EngineOf reports which engine db runs on.
func EngineOf(db *sql.DB) Engine {
	if _, ok := db.Driver().(*stdlib.Driver); ok {
		return Postgres
	}
	return SQLite
}

// IsPostgresURL reports whether spec names a PostgreSQL database
// (postgres:// or postgresql:// URL) rather than the embedded store.
func IsPostgresURL(spec string) bool {
	return strings.HasPrefix(spec, "postgres://") || strings.HasPrefix(spec, "postgresql://")
}

// Connect opens the store spec names: empty for SQLite under dataDir, or a
// postgres:// URL.
func Connect(ctx context.Context, spec, dataDir string) (*sql.DB, error) {
	switch {
	case spec == "" || spec == "sqlite":
		if dataDir == "" {
			return nil, errors.New("store: the SQLite store needs a data directory")
		}
		return Open(dataDir)
	case IsPostgresURL(spec):
		return OpenPostgres(ctx, spec)
	}
	return nil, fmt.Errorf("store: %q is neither empty (SQLite under the data directory) nor a postgres:// URL", redact(spec))
}

// Open opens (creating if needed) the database at dir/harkd.db in WAL mode.
// WAL lets readers proceed while one writer commits; busy_timeout makes a
// writer wait for the lock instead of failing at once under contention.
func Open(dir string) (*sql.DB, error) {
	return OpenFile(filepath.Join(dir, "harkd.db"))
}

// OpenFile opens the database at path with harkd's pragmas.
func OpenFile(path string) (*sql.DB, error) {
	dsn := "file:" + path + "?_pragma=journal_mode(WAL)&_pragma=busy_timeout(10000)" +
		"&_pragma=foreign_keys(ON)&_pragma=synchronous(NORMAL)&_txlock=immediate"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	// database/sql keeps only 2 idle connections by default, so a burst of
	// requests would open and close SQLite connections (and rerun the
	// pragmas) all the time; and more connections than cores only add
	// lock contention for writers. A small, fixed pool avoids both.
	conns := 2*runtime.NumCPU() + 2
	db.SetMaxOpenConns(conns)
	db.SetMaxIdleConns(conns)
	if err := db.Ping(); err != nil {
		db.Close()
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	if err := createMigrationsTable(context.Background(), db); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// OpenPostgres opens the PostgreSQL database url names.
func OpenPostgres(ctx context.Context, url string) (*sql.DB, error) {
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("store %s: %w", redact(url), err)
	}
	db := stdlib.OpenDB(*cfg)
	// Unlike SQLite, PostgreSQL runs writers in parallel, but each
	// connection is a server process: a pool a few times the cores keeps
	// requests from queueing without flooding the server.
	conns := 4*runtime.NumCPU() + 4
	db.SetMaxOpenConns(conns)
	db.SetMaxIdleConns(conns)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("store %s: %w", redact(url), err)
	}
	if err := createMigrationsTable(ctx, db); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// redact drops the password of a URL before it reaches a log or an error.
func redact(url string) string {
	scheme, rest, ok := strings.Cut(url, "://")
	if !ok {
		return url
	}
	creds, host, ok := strings.Cut(rest, "@")
	if !ok {
		return url
	}
	if user, _, hasPass := strings.Cut(creds, ":"); hasPass {
		return scheme + "://" + user + ":xxxxx@" + host
	}
	return url
}

func createMigrationsTable(ctx context.Context, db *sql.DB) error {
	q := `CREATE TABLE IF NOT EXISTS schema_migrations (
		component TEXT NOT NULL PRIMARY KEY,
		version   INTEGER NOT NULL)`
	if EngineOf(db) == Postgres {
		// Two processes starting at once on a new database would both try
		// to create the table; the advisory lock makes one wait.
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return fmt.Errorf("create schema_migrations: %w", err)
		}
		defer tx.Rollback()
		if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(hashtext('schema_migrations'))`); err != nil {
			return fmt.Errorf("create schema_migrations: %w", err)
		}
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("create schema_migrations: %w", err)
		}
		return tx.Commit()
	}
	if _, err := db.ExecContext(ctx, q); err != nil {
		return fmt.Errorf("create schema_migrations: %w", err)
	}
	return nil
}

// Step is one migration in the form of each engine. Postgres left empty
// means the SQLite form runs on both.
type Step struct {
	SQLite   string
	Postgres string
}

// Same is a step whose SQL both engines accept.
func Same(sql string) Step { return Step{SQLite: sql} }

// Migrate applies, in order, the migrations of component that have not run
// yet, with the same SQL on both engines. Migrations are append-only: step
// i (0-based) is version i+1, and a step once released is never edited.
func Migrate(ctx context.Context, db *sql.DB, component string, steps []string) error {
	both := make([]Step, len(steps))
	for i, s := range steps {
		both[i] = Same(s)
	}
	return MigrateSteps(ctx, db, component, both)
}

// MigrateSteps is Migrate for steps whose SQL differs between engines.
func MigrateSteps(ctx context.Context, db *sql.DB, component string, steps []Step) error {
	engine := EngineOf(db)
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("migrate %s: %w", component, err)
	}
	defer tx.Rollback()
	if engine == Postgres {
		// Serialises processes migrating the same component at once; the
		// lock ends with the transaction.
		if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(hashtext($1))`, "harkd-migrate-"+component); err != nil {
			return fmt.Errorf("migrate %s: %w", component, err)
		}
	}
	var have int
	err = tx.QueryRowContext(ctx, `SELECT version FROM schema_migrations WHERE component = $1`, component).Scan(&have)
	if err != nil && err != sql.ErrNoRows {
		return fmt.Errorf("migrate %s: %w", component, err)
	}
	if have > len(steps) {
		return fmt.Errorf("migrate %s: database is at version %d, this harkd knows %d", component, have, len(steps))
	}
	for i := have; i < len(steps); i++ {
		q := steps[i].SQLite
		if engine == Postgres && steps[i].Postgres != "" {
			q = steps[i].Postgres
		}
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("migrate %s to version %d: %w", component, i+1, err)
		}
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations(component, version) VALUES($1, $2)
		ON CONFLICT(component) DO UPDATE SET version = excluded.version`, component, len(steps)); err != nil {
		return fmt.Errorf("migrate %s: %w", component, err)
	}
	return tx.Commit()
}

// Flag is the value of an INTEGER 0/1 column: SQLite's driver stores a Go
// bool as 0 or 1, but pgx refuses to encode a bool into an integer column.
func Flag(b bool) int64 {
	if b {
		return 1
	}
	return 0
}
