// Package store opens harkd's SQLite database and runs the schema
// migrations of every service. Each service owns its tables and passes its
// own ordered list of migrations to Migrate, so services evolve their
// schemas independently while sharing one database file and one
// transaction log.
package store

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"runtime"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

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
	if _, err := db.Exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
		component TEXT NOT NULL PRIMARY KEY,
		version   INTEGER NOT NULL)`); err != nil {
		db.Close()
		return nil, fmt.Errorf("create schema_migrations: %w", err)
	}
	return db, nil
}

// Migrate applies, in order, the migrations of component that have not run
// yet. Migrations are append-only: step i (0-based) is version i+1, and a
// step once released is never edited.
func Migrate(ctx context.Context, db *sql.DB, component string, steps []string) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("migrate %s: %w", component, err)
	}
	defer tx.Rollback()
	var have int
	err = tx.QueryRowContext(ctx, `SELECT version FROM schema_migrations WHERE component = ?`, component).Scan(&have)
	if err != nil && err != sql.ErrNoRows {
		return fmt.Errorf("migrate %s: %w", component, err)
	}
	if have > len(steps) {
		return fmt.Errorf("migrate %s: database is at version %d, this harkd knows %d", component, have, len(steps))
	}
	for i := have; i < len(steps); i++ {
		if _, err := tx.ExecContext(ctx, steps[i]); err != nil {
			return fmt.Errorf("migrate %s to version %d: %w", component, i+1, err)
		}
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations(component, version) VALUES(?, ?)
		ON CONFLICT(component) DO UPDATE SET version = excluded.version`, component, len(steps)); err != nil {
		return fmt.Errorf("migrate %s: %w", component, err)
	}
	return tx.Commit()
}
