// Package catalog keeps the recommendation service's data in SQLite: tables
// with their engines, item and user attributes, items, users, interaction
// definitions and records, and user keywords, all keyed by workspace.
//
// Layout. Every item and user is one row of recomm_entities holding its
// attribute values as a JSON document (users live in the scope "", items in
// the scope of their table). The values of indexed attributes are also
// copied to recomm_index, one row per value (per member for lists), indexed
// on (attr, num) and (attr, txt): a filter that names only indexed
// attributes is compiled to index lookups combined with INTERSECT/UNION and
// drives the listing from that id set, so it never walks the table.
// Non-indexed comparisons read the JSON document. Recommendations filter
// candidates in memory against a per-scope Snapshot of the values, rebuilt
// when the scope has changed.
package catalog

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"sync"

	"github.com/harkhq/hark/server/apierr"
	"github.com/harkhq/hark/server/ident"
	"github.com/harkhq/hark/server/store"
)

// Users is the scope of users and user attributes; a table id is never empty.
const Users = ""

// Limits of ids (the table limit is the document's; the others are harkd's).
const (
	MaxTableIDLen     = 15
	MaxAttributeIDLen = 64
	MaxEntityIDLen    = 255
	MaxIndexed        = 32
	DefaultLimit      = 500
	MaxLimit          = 1000
)

var migrations = []string{`
CREATE TABLE recomm_tables (
	ws       INTEGER NOT NULL,
	id       TEXT NOT NULL,
	engines  TEXT NOT NULL,
	ensemble TEXT,
	PRIMARY KEY (ws, id)
);
CREATE TABLE recomm_attributes (
	key     INTEGER PRIMARY KEY,
	ws      INTEGER NOT NULL,
	scope   TEXT NOT NULL,
	id      TEXT NOT NULL,
	type    TEXT NOT NULL,
	indexed INTEGER NOT NULL,
	vals    TEXT,
	UNIQUE (ws, scope, id)
);
CREATE TABLE recomm_entities (
	eid   INTEGER PRIMARY KEY,
	ws    INTEGER NOT NULL,
	scope TEXT NOT NULL,
	id    TEXT NOT NULL,
	doc   TEXT NOT NULL,
	UNIQUE (ws, scope, id)
);
CREATE TABLE recomm_index (
	attr INTEGER NOT NULL,
	num  REAL,
	txt  TEXT,
	eid  INTEGER NOT NULL
);
CREATE INDEX recomm_index_num ON recomm_index (attr, num, eid);
CREATE INDEX recomm_index_txt ON recomm_index (attr, txt, eid);
CREATE INDEX recomm_index_eid ON recomm_index (eid);
CREATE TABLE recomm_interaction_defs (
	key        INTEGER PRIMARY KEY,
	ws         INTEGER NOT NULL,
	tbl        TEXT NOT NULL,
	id         TEXT NOT NULL,
	weight     REAL NOT NULL,
	cumulative INTEGER NOT NULL,
	type       TEXT NOT NULL,
	polarity   TEXT NOT NULL,
	minv       REAL,
	maxv       REAL,
	UNIQUE (ws, tbl, id)
);
CREATE TABLE recomm_interactions (
	def   INTEGER NOT NULL,
	user  INTEGER NOT NULL,
	item  INTEGER NOT NULL,
	ts    INTEGER NOT NULL,
	value REAL NOT NULL,
	PRIMARY KEY (def, user, item, ts)
) WITHOUT ROWID;
CREATE INDEX recomm_interactions_item ON recomm_interactions (def, item, user);
CREATE TABLE recomm_keywords (
	ws      INTEGER NOT NULL,
	user    TEXT NOT NULL,
	keyword TEXT NOT NULL,
	PRIMARY KEY (ws, user, keyword)
);
CREATE TABLE recomm_train_configs (
	ws          INTEGER NOT NULL,
	tbl         TEXT NOT NULL,
	interaction TEXT NOT NULL,
	engine      TEXT NOT NULL,
	finished    INTEGER NOT NULL,
	config      TEXT NOT NULL,
	PRIMARY KEY (ws, tbl, interaction, engine)
);`, `
ALTER TABLE recomm_tables ADD COLUMN display TEXT;
CREATE INDEX recomm_entities_order ON recomm_entities (ws, scope, length(id), id);`}

// Catalog is the recommendation data of every workspace.
type Catalog struct {
	db *sql.DB

	// Busy, when set, reports whether an import or training of the scope
	// is processing; schema changes then answer 423 Locked. The jobs
	// package sets it.
	Busy func(ws int64, scope string) bool
	// Recorded, when set, is told of every interaction recorded one at a time (AddRecord), after it
	// is stored, so that models which learn online fold it in. The event's Value is the change of
	// the value training uses for the pair: the recorded value for a cumulative type (training adds
	// them up); for another type (training keeps the latest) the difference from the latest earlier
	// record, or 0 when the new record is older than it.
	Recorded func(ws int64, table string, e Event)

	// NoHistoryCache reads every history, table description and interaction type list from SQL
	// (the benchmarks' baseline; see histories.go and definitions.go).
	NoHistoryCache bool

	d dialect

	mu sync.Mutex
	// gens are the write generations of this process's writes (SQLite;
	// see gens.go): per scope, and per workspace under recordsScope.
	gens      map[scopeKey]uint64
	snapshots map[scopeKey]*Snapshot
	// histories (histories.go)
	histories     map[historyKey]historyEntry
	historyEvents int
	// table descriptions and interaction types (definitions.go), same generations
	tableDefs map[tableKey]tableEntry
}

type scopeKey struct {
	ws    int64
	scope string
}

// Open migrates the catalog's tables in db. On SQLite, whose one harkd
// process is the only writer, it also undoes the imports a crash
// interrupted; on PostgreSQL other live processes may be running the
// imports of the journal, so a process taking over a job undoes that
// job's imports (UndoJobImports) instead.
func Open(ctx context.Context, db *sql.DB) (*Catalog, error) {
	if err := Migrate(ctx, db); err != nil {
		return nil, err
	}
	c := &Catalog{db: db, d: dialectOf(db), gens: map[scopeKey]uint64{}, snapshots: map[scopeKey]*Snapshot{}}
	if !c.d.shared {
		if err := c.recoverImports(ctx); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// Migrate applies the catalog's migrations (its tables and the import
// journal) without opening it, for harkd migrate.
func Migrate(ctx context.Context, db *sql.DB) error {
	if err := store.MigrateSteps(ctx, db, "recomm", recommSteps); err != nil {
		return err
	}
	return store.MigrateSteps(ctx, db, "recomm-imports", importSteps)
}

func (c *Catalog) checkUnlocked(ws int64, scope string) error {
	if c.Busy != nil && c.Busy(ws, scope) {
		if scope == Users {
			return apierr.Lockedf("an import of users is processing")
		}
		return apierr.Lockedf("an import or training of table %q is processing", scope)
	}
	return nil
}

// validateID checks the identifier rule (server/ident) and a length of 1 to
// max bytes.
func validateID(kind, id string, max int) error {
	if err := ident.Check(kind, id, max); err != nil {
		return apierr.InvalidArgumentf("%v", err)
	}
	return nil
}

// reservedTableIDs would make paths such as /users/{userId} ambiguous.
var reservedTableIDs = []string{"users", "tables"}

func validateTableID(id string) error {
	if slices.Contains(reservedTableIDs, id) {
		return apierr.InvalidArgumentf("tableId %q is reserved by the API's paths", id)
	}
	return validateID("tableId", id, MaxTableIDLen)
}

// tableExists answers 404 for an unknown table.
func (c *Catalog) tableExists(ctx context.Context, q querier, ws int64, table string) error {
	if err := validateTableID(table); err != nil {
		return err
	}
	var one int
	err := q.QueryRowContext(ctx, `SELECT 1 FROM recomm_tables WHERE ws = $1 AND id = $2`, ws, table).Scan(&one)
	if err == sql.ErrNoRows {
		return apierr.NotFoundf("table %q not found", table)
	}
	if err != nil {
		return fmt.Errorf("find table %s: %w", table, err)
	}
	return nil
}

// scopeExists checks a scope: users always exist, a table must.
func (c *Catalog) scopeExists(ctx context.Context, q querier, ws int64, scope string) error {
	if scope == Users {
		return nil
	}
	return c.tableExists(ctx, q, ws, scope)
}

type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

func entityKind(scope string) string {
	if scope == Users {
		return "user"
	}
	return "item"
}
