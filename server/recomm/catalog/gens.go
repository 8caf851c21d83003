package catalog

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"sync"
)

// Write generations. The catalog caches what recommendations read on every
// request: scope snapshots (snapshot.go), histories (histories.go), table
// descriptions and interaction types (definitions.go). Each entry carries
// the generation it was read at; every write advances the generations it
// affects, and an entry of an older generation is read again. The
// generation is read before the data, so data read while a write commits is
// kept under the older generation and dropped at the next read.
//
// Two generations per write: the scope's (a table or Users: attribute
// values, for snapshots) and the workspace's records generation
// (recordsScope: records, tables and interaction types, for histories and
// definitions). Writing entities advances both, since deleting an entity or
// a table deletes records too.
//
// On SQLite one harkd process writes the store, so the generations are
// counters in its memory, advanced after each commit. On PostgreSQL several
// processes share the database, and a request may reach another process
// right after a write (a load balancer gives no affinity): the generations
// are rows of recomm_generations, advanced inside the transaction of each
// write, and a cached read first reads the current generation with one
// primary-key lookup. Read-your-writes then holds across processes.

// recordsScope is the scope of a workspace's records generation; '*' is
// in no table id (server/ident), so it names no table.
const recordsScope = "*records"

// generation returns the current generation of a scope of a workspace.
func (c *Catalog) generation(ctx context.Context, ws int64, scope string) (uint64, error) {
	if !c.d.shared {
		c.mu.Lock()
		defer c.mu.Unlock()
		return c.gens[scopeKey{ws, scope}], nil
	}
	if m, ok := ctx.Value(memoKey{}).(*genMemo); ok {
		return m.generation(ctx, c, ws, scope)
	}
	var gen int64
	err := c.db.QueryRowContext(ctx, `SELECT gen FROM recomm_generations WHERE ws = $1 AND scope = $2`, ws, scope).Scan(&gen)
	if err == sql.ErrNoRows {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("read generation: %w", err)
	}
	return uint64(gen), nil
}

// ReadOnce returns a context under which the catalog reads, on PostgreSQL,
// every write generation of a workspace once, with its first cached read,
// instead of once per cached read: an items-to-user answer reads the table
// description, two snapshots, the interaction types and a history, five
// round trips to the database for their generations without it, one with
// it. Everything read under the context is then at least as new as that
// first read, so a write finished before the request began is seen (read-
// your-writes holds); a write during the request may be seen by some reads
// and not others, as without it. For one request, not for a long-lived
// context: later writes would go unseen. Nothing changes on SQLite.
func ReadOnce(ctx context.Context) context.Context {
	return context.WithValue(ctx, memoKey{}, &genMemo{})
}

type memoKey struct{}

// genMemo holds the generations read under a ReadOnce context.
type genMemo struct {
	mu   sync.Mutex
	gens map[int64]map[string]uint64
}

func (m *genMemo) generation(ctx context.Context, c *Catalog, ws int64, scope string) (uint64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if g, ok := m.gens[ws]; ok {
		return g[scope], nil
	}
	rows, err := c.db.QueryContext(ctx, `SELECT scope, gen FROM recomm_generations WHERE ws = $1`, ws)
	if err != nil {
		return 0, fmt.Errorf("read generations: %w", err)
	}
	defer rows.Close()
	g := map[string]uint64{}
	for rows.Next() {
		var s string
		var gen int64
		if err := rows.Scan(&s, &gen); err != nil {
			return 0, fmt.Errorf("read generations: %w", err)
		}
		g[s] = uint64(gen)
	}
	if err := rows.Err(); err != nil {
		return 0, fmt.Errorf("read generations: %w", err)
	}
	if m.gens == nil {
		m.gens = map[int64]map[string]uint64{}
	}
	m.gens[ws] = g
	return g[scope], nil
}

// current reports whether gen, read before a load, is still the generation
// of the scope, so that what was loaded may be kept. On PostgreSQL the
// check would cost a query; keeping an entry that is already stale costs
// only a reload, because every read compares generations first.
func (c *Catalog) current(ws int64, scope string, gen uint64) bool {
	return c.d.shared || c.gens[scopeKey{ws, scope}] == gen // c.mu is held
}

// bumpTx advances generations inside a write's transaction, on PostgreSQL
// only. It runs last before the commit: its row locks are then held the
// shortest time, and always taken after the write's own, in one order
// (scopes sorted), so writers cannot deadlock on them.
func (c *Catalog) bumpTx(ctx context.Context, q querier, ws int64, scopes ...string) error {
	if !c.d.shared {
		return nil
	}
	scopes = slices.Clone(scopes)
	slices.Sort(scopes)
	for _, s := range slices.Compact(scopes) {
		if _, err := q.ExecContext(ctx, `INSERT INTO recomm_generations(ws, scope, gen) VALUES($1, $2, 1)
			ON CONFLICT(ws, scope) DO UPDATE SET gen = recomm_generations.gen + 1`, ws, s); err != nil {
			return fmt.Errorf("advance generation: %w", err)
		}
	}
	return nil
}

// commit commits a write that changed the values of scope (and so maybe
// records), advancing its generations.
func (c *Catalog) commit(ctx context.Context, tx *sql.Tx, ws int64, scope string) error {
	if err := c.bumpTx(ctx, tx, ws, scope, recordsScope); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	c.changed(ws, scope)
	return nil
}

// commitRecords commits a write of records, tables or interaction types.
func (c *Catalog) commitRecords(ctx context.Context, tx *sql.Tx, ws int64) error {
	if err := c.bumpTx(ctx, tx, ws, recordsScope); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	c.recordsChanged(ws)
	return nil
}

// execRecords runs one statement that writes records, tables or
// interaction types. On PostgreSQL it runs in a transaction with the
// generation's advance; on SQLite alone, with the generation advanced
// after it, even when it failed (a failed statement changed nothing, and
// the reload costs little).
func (c *Catalog) execRecords(ctx context.Context, ws int64, q string, args ...any) (sql.Result, error) {
	if !c.d.shared {
		defer c.recordsChanged(ws)
		return c.db.ExecContext(ctx, q, args...)
	}
	tx, err := c.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	res, err := tx.ExecContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	return res, c.commitRecords(ctx, tx, ws)
}

// changed marks a scope's values as changed in memory, after the commit.
func (c *Catalog) changed(ws int64, scope string) {
	c.mu.Lock()
	c.gens[scopeKey{ws, scope}]++
	c.mu.Unlock()
	c.recordsChanged(ws) // deleting entities or a table deletes their records too
}

// recordsChanged marks every history, table description and interaction
// type list of a workspace as stale in memory, after the commit.
func (c *Catalog) recordsChanged(ws int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gens[scopeKey{ws, recordsScope}]++
}

// changedNow advances a scope's generations outside any transaction: for
// an import whose undo failed, whose committed chunks stay visible until
// the undo runs again.
func (c *Catalog) changedNow(ctx context.Context, ws int64, scope string) {
	if c.d.shared {
		c.bumpTx(context.WithoutCancel(ctx), c.db, ws, scope, recordsScope)
	}
	c.changed(ws, scope)
}
