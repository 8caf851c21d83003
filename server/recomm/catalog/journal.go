package catalog

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"time"
)

// An import runs in chunks of ChunkRows, each its own transaction, so a
// writer waiting behind a long import waits milliseconds. To make the
// import as a whole all-or-nothing, every row it adds carries the import's
// key (column job), and the entities it changes keep their previous
// document in recomm_import_undo. The import's row in recomm_imports is
// removed in the transaction of its last chunk: that commit publishes it.
// An import that fails removes its rows and restores what it changed in
// one transaction. One that a crash interrupted is undone when the catalog
// opens again on SQLite (one process owns every import); on PostgreSQL,
// where other processes run their own imports, when a process takes over
// the interrupted import's job (UndoJobImports). Keys are AUTOINCREMENT so a published import's tag is never
// taken by a later import, whose undo would otherwise remove its rows.
var importMigrations = []string{`
ALTER TABLE recomm_entities ADD COLUMN job INTEGER;
ALTER TABLE recomm_interactions ADD COLUMN job INTEGER;
CREATE TABLE recomm_imports (
	key     INTEGER PRIMARY KEY AUTOINCREMENT,
	ws      INTEGER NOT NULL,
	scope   TEXT NOT NULL,
	kind    TEXT NOT NULL,
	label   TEXT NOT NULL,
	started INTEGER NOT NULL
);
CREATE TABLE recomm_import_undo (
	import INTEGER NOT NULL,
	eid    INTEGER NOT NULL,
	doc    TEXT NOT NULL,
	PRIMARY KEY (import, eid)
) WITHOUT ROWID;`}

// Kinds of import in the journal.
const (
	journalEntities     = "entities"
	journalInteractions = "interactions"
)

// importJournal is one import in progress.
type importJournal struct {
	key   int64
	ws    int64
	scope string
	kind  string
}

type jobKey struct{}

// WithJob marks the imports run under ctx as belonging to the job jobID,
// for UndoJobImports.
func WithJob(ctx context.Context, jobID string) context.Context {
	return context.WithValue(ctx, jobKey{}, jobID)
}

// jobOf is the job WithJob named, or NULL.
func jobOf(ctx context.Context) any {
	if id, ok := ctx.Value(jobKey{}).(string); ok {
		return id
	}
	return nil
}

// beginImport records an import as in progress, committed before its
// first row is written.
func (c *Catalog) beginImport(ctx context.Context, ws int64, scope, kind, label string) (importJournal, error) {
	var key int64
	err := c.db.QueryRowContext(ctx, `INSERT INTO recomm_imports(ws, scope, kind, label, started, job_id)
		VALUES($1, $2, $3, $4, $5, $6) RETURNING key`,
		ws, scope, kind, label, time.Now().UnixMilli(), jobOf(ctx)).Scan(&key)
	if err != nil {
		return importJournal{}, fmt.Errorf("start import: %w", err)
	}
	return importJournal{key: key, ws: ws, scope: scope, kind: kind}, nil
}

// errTakenOver stops an import whose journal row is gone: another process
// took its job over and undid it.
var errTakenOver = errors.New("the import was undone by a process that took its job over")

// hold, at the start of each transaction of an import on PostgreSQL, takes
// the import's journal row until the commit (see dialect.lockImport).
func (j importJournal) hold(ctx context.Context, c *Catalog, tx *sql.Tx) error {
	var one int
	err := tx.QueryRowContext(ctx, c.d.lockImport, j.key).Scan(&one)
	if err == sql.ErrNoRows {
		return errTakenOver
	}
	return err
}

// UndoJobImports undoes the unfinished imports of a job, for a process
// that takes over the job after its lease expired: the rows they added go
// and the entities they changed get their documents back, as if the
// imports had failed. An import that its process publishes meanwhile is
// left alone; one still running stops at its next chunk (errTakenOver).
func (c *Catalog) UndoJobImports(ctx context.Context, jobID string) error {
	left, labels, err := c.journal(ctx, `WHERE job_id = $1`, jobID)
	if err != nil {
		return fmt.Errorf("undo imports of job %s: %w", jobID, err)
	}
	for i, j := range left {
		if err := c.failImport(ctx, j, nil); err != nil {
			return fmt.Errorf("undo import %s of job %s: %w", labels[i], jobID, err)
		}
		slog.Info("recomm: undid the unfinished import of a job taken over", "job", jobID, "import", labels[i], "ws", j.ws, "scope", j.scope)
	}
	return nil
}

// journal lists the imports in progress that where selects.
func (c *Catalog) journal(ctx context.Context, where string, args ...any) ([]importJournal, []string, error) {
	rows, err := c.db.QueryContext(ctx, `SELECT key, ws, scope, kind, label FROM recomm_imports `+where+` ORDER BY key`, args...)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	var left []importJournal
	var labels []string
	for rows.Next() {
		var j importJournal
		var label string
		if err := rows.Scan(&j.key, &j.ws, &j.scope, &j.kind, &label); err != nil {
			return nil, nil, err
		}
		left = append(left, j)
		labels = append(labels, label)
	}
	return left, labels, rows.Err()
}

// publish makes the import's rows permanent, inside the transaction of
// its last chunk.
func (j importJournal) publish(ctx context.Context, tx *sql.Tx) error {
	for _, q := range []string{`DELETE FROM recomm_import_undo WHERE import = $1`, `DELETE FROM recomm_imports WHERE key = $1`} {
		if _, err := tx.ExecContext(ctx, q, j.key); err != nil {
			return fmt.Errorf("publish import: %w", err)
		}
	}
	return nil
}

// undo removes the rows the import added, restores the entities it
// changed, and forgets the import, all inside tx.
func (c *Catalog) undo(ctx context.Context, tx *sql.Tx, j importJournal) error {
	var stmts []stmt
	keyWsScope := []any{j.key, j.ws, j.scope}
	if j.kind == journalInteractions {
		stmts = []stmt{{`DELETE FROM recomm_interactions WHERE def IN
			(SELECT key FROM recomm_interaction_defs WHERE ws = $2 AND tbl = $3) AND job = $1`, keyWsScope}}
	} else {
		// records and keywords that name an entity about to go, added
		// meanwhile through the API, go with it, as DeleteEntity does
		if j.scope == Users {
			stmts = append(stmts,
				stmt{`DELETE FROM recomm_interactions WHERE def IN (SELECT key FROM recomm_interaction_defs WHERE ws = $2)
					AND "user" IN (SELECT eid FROM recomm_entities WHERE job = $1)`, []any{j.key, j.ws}},
				stmt{`DELETE FROM recomm_keywords WHERE ws = $2 AND "user" IN (SELECT id FROM recomm_entities WHERE job = $1)`, []any{j.key, j.ws}})
		} else {
			stmts = append(stmts, stmt{`DELETE FROM recomm_interactions WHERE def IN
				(SELECT key FROM recomm_interaction_defs WHERE ws = $2 AND tbl = $3)
				AND item IN (SELECT eid FROM recomm_entities WHERE job = $1)`, keyWsScope})
		}
		stmts = append(stmts,
			stmt{`DELETE FROM recomm_index WHERE eid IN (SELECT eid FROM recomm_entities WHERE job = $1)`, []any{j.key}},
			stmt{`DELETE FROM recomm_entities WHERE job = $1`, []any{j.key}})
	}
	for _, s := range stmts {
		if _, err := tx.ExecContext(ctx, s.q, s.args...); err != nil {
			return fmt.Errorf("undo import: %w", err)
		}
	}
	if j.kind == journalEntities {
		if err := c.restoreChanged(ctx, tx, j); err != nil {
			return err
		}
	}
	for _, q := range []string{`DELETE FROM recomm_import_undo WHERE import = $1`, `DELETE FROM recomm_imports WHERE key = $1`} {
		if _, err := tx.ExecContext(ctx, q, j.key); err != nil {
			return fmt.Errorf("undo import: %w", err)
		}
	}
	return nil
}

// restoreChanged puts back the documents and index rows of the entities
// an update import changed.
func (c *Catalog) restoreChanged(ctx context.Context, tx *sql.Tx, j importJournal) error {
	rows, err := tx.QueryContext(ctx, `SELECT eid, doc FROM recomm_import_undo WHERE import = $1`, j.key)
	if err != nil {
		return fmt.Errorf("undo import: %w", err)
	}
	type saved struct {
		eid int64
		doc string
	}
	var all []saved
	for rows.Next() {
		var s saved
		if err := rows.Scan(&s.eid, &s.doc); err != nil {
			rows.Close()
			return err
		}
		all = append(all, s)
	}
	rows.Close()
	if err := rows.Err(); err != nil || len(all) == 0 {
		return err
	}
	s, err := c.schema(ctx, tx, j.ws, j.scope)
	if err != nil {
		return fmt.Errorf("undo import: %w", err)
	}
	w, err := c.newEntityWriter(ctx, tx, j.ws, s)
	if err != nil {
		return err
	}
	defer w.close()
	for _, x := range all {
		if err := w.restore(x.eid, x.doc); err != nil {
			return fmt.Errorf("undo import: %w", err)
		}
	}
	return nil
}

// failImport undoes an import that ended in error; settle runs in the same
// transaction. It runs whatever became of the import's context.
func (c *Catalog) failImport(ctx context.Context, j importJournal, settle func(*sql.Tx) error) error {
	ctx = context.WithoutCancel(ctx)
	tx, err := c.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	// waits for a chunk of the import in progress (PostgreSQL), then finds
	// the row gone if the import was published or undone meanwhile
	var one int
	err = tx.QueryRowContext(ctx, c.d.undoLock, j.key).Scan(&one)
	if err == sql.ErrNoRows {
		return nil
	}
	if err != nil {
		return err
	}
	if err := c.undo(ctx, tx, j); err != nil {
		return err
	}
	if settle != nil {
		if err := settle(tx); err != nil {
			return err
		}
	}
	return c.commit(ctx, tx, j.ws, j.scope)
}

// recoverImports undoes the imports a crash left in progress. The catalog
// has one process writing it, so every import still in the journal when
// it opens was interrupted.
func (c *Catalog) recoverImports(ctx context.Context) error {
	left, labels, err := c.journal(ctx, ``)
	if err != nil {
		return fmt.Errorf("recover imports: %w", err)
	}
	for i, j := range left {
		if err := c.failImport(ctx, j, nil); err != nil {
			return fmt.Errorf("recover import %s: %w", labels[i], err)
		}
		slog.Info("recomm: undid an import interrupted by a restart", "job", labels[i], "ws", j.ws, "scope", j.scope)
	}
	return nil
}
