package catalog

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"time"

	"github.com/harkhq/hark/server/store"
)

// An import runs in chunks of ChunkRows, each its own transaction, so a
// writer waiting behind a long import waits milliseconds. To make the
// import as a whole all-or-nothing, every row it adds carries the import's
// key (column job), and the entities it changes keep their previous
// document in recomm_import_undo. The import's row in recomm_imports is
// removed in the transaction of its last chunk: that commit publishes it.
// An import that fails removes its rows and restores what it changed in
// one transaction; one that a crash interrupted is undone when the catalog
// opens again. Keys are AUTOINCREMENT so a published import's tag is never
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

func (c *Catalog) migrateImports(ctx context.Context) error {
	return store.Migrate(ctx, c.db, "recomm-imports", importMigrations)
}

// beginImport records an import as in progress, committed before its
// first row is written.
func (c *Catalog) beginImport(ctx context.Context, ws int64, scope, kind, label string) (importJournal, error) {
	res, err := c.db.ExecContext(ctx, `INSERT INTO recomm_imports(ws, scope, kind, label, started) VALUES(?, ?, ?, ?, ?)`,
		ws, scope, kind, label, time.Now().UnixMilli())
	if err != nil {
		return importJournal{}, fmt.Errorf("start import: %w", err)
	}
	key, err := res.LastInsertId()
	return importJournal{key: key, ws: ws, scope: scope, kind: kind}, err
}

// publish makes the import's rows permanent, inside the transaction of
// its last chunk.
func (j importJournal) publish(ctx context.Context, tx *sql.Tx) error {
	for _, q := range []string{`DELETE FROM recomm_import_undo WHERE import = ?`, `DELETE FROM recomm_imports WHERE key = ?`} {
		if _, err := tx.ExecContext(ctx, q, j.key); err != nil {
			return fmt.Errorf("publish import: %w", err)
		}
	}
	return nil
}

// undo removes the rows the import added, restores the entities it
// changed, and forgets the import, all inside tx.
func (c *Catalog) undo(ctx context.Context, tx *sql.Tx, j importJournal) error {
	var stmts []string
	if j.kind == journalInteractions {
		stmts = []string{`DELETE FROM recomm_interactions WHERE def IN
			(SELECT key FROM recomm_interaction_defs WHERE ws = ?2 AND tbl = ?3) AND job = ?1`}
	} else {
		// records and keywords that name an entity about to go, added
		// meanwhile through the API, go with it, as DeleteEntity does
		if j.scope == Users {
			stmts = append(stmts,
				`DELETE FROM recomm_interactions WHERE def IN (SELECT key FROM recomm_interaction_defs WHERE ws = ?2)
					AND user IN (SELECT eid FROM recomm_entities WHERE job = ?1)`,
				`DELETE FROM recomm_keywords WHERE ws = ?2 AND user IN (SELECT id FROM recomm_entities WHERE job = ?1)`)
		} else {
			stmts = append(stmts, `DELETE FROM recomm_interactions WHERE def IN
				(SELECT key FROM recomm_interaction_defs WHERE ws = ?2 AND tbl = ?3)
				AND item IN (SELECT eid FROM recomm_entities WHERE job = ?1)`)
		}
		stmts = append(stmts,
			`DELETE FROM recomm_index WHERE eid IN (SELECT eid FROM recomm_entities WHERE job = ?1)`,
			`DELETE FROM recomm_entities WHERE job = ?1`)
	}
	for _, q := range stmts {
		if _, err := tx.ExecContext(ctx, q, j.key, j.ws, j.scope); err != nil {
			return fmt.Errorf("undo import: %w", err)
		}
	}
	if j.kind == journalEntities {
		if err := c.restoreChanged(ctx, tx, j); err != nil {
			return err
		}
	}
	for _, q := range []string{`DELETE FROM recomm_import_undo WHERE import = ?`, `DELETE FROM recomm_imports WHERE key = ?`} {
		if _, err := tx.ExecContext(ctx, q, j.key); err != nil {
			return fmt.Errorf("undo import: %w", err)
		}
	}
	return nil
}

// restoreChanged puts back the documents and index rows of the entities
// an update import changed.
func (c *Catalog) restoreChanged(ctx context.Context, tx *sql.Tx, j importJournal) error {
	rows, err := tx.QueryContext(ctx, `SELECT eid, doc FROM recomm_import_undo WHERE import = ?`, j.key)
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
	if err := c.undo(ctx, tx, j); err != nil {
		return err
	}
	if settle != nil {
		if err := settle(tx); err != nil {
			return err
		}
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	c.changed(j.ws, j.scope)
	return nil
}

// recoverImports undoes the imports a crash left in progress. The catalog
// has one process writing it, so every import still in the journal when
// it opens was interrupted.
func (c *Catalog) recoverImports(ctx context.Context) error {
	rows, err := c.db.QueryContext(ctx, `SELECT key, ws, scope, kind, label FROM recomm_imports ORDER BY key`)
	if err != nil {
		return fmt.Errorf("recover imports: %w", err)
	}
	var left []importJournal
	var labels []string
	for rows.Next() {
		var j importJournal
		var label string
		if err := rows.Scan(&j.key, &j.ws, &j.scope, &j.kind, &label); err != nil {
			rows.Close()
			return err
		}
		left = append(left, j)
		labels = append(labels, label)
	}
	rows.Close()
	for i, j := range left {
		if err := c.failImport(ctx, j, nil); err != nil {
			return fmt.Errorf("recover import %s: %w", labels[i], err)
		}
		slog.Info("recomm: undid an import interrupted by a restart", "job", labels[i], "ws", j.ws, "scope", j.scope)
	}
	return nil
}
