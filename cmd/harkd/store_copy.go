package main

import (
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/harkhq/hark/server"
	"github.com/harkhq/hark/server/store"
)

const storeCopyUsage = `usage: harkd store copy --from sqlite:DIR --to postgres://USER@HOST/DB?sslmode=disable

Copies the tables of an embedded platform (DIR is its --data directory, the
one holding harkd.db) into an empty PostgreSQL database: migrates the
database as harkd migrate does, copies every table in one transaction (a
failure leaves it empty) and resets the identity sequences. Stop the harkd
serving DIR first; DIR itself is only read. Storage files, spoken answers'
audio and recommendation models stay in DIR: start every harkd on the
PostgreSQL store with --data DIR (a directory they all share).
`

// storeCommand runs "harkd store SUBCOMMAND".
func storeCommand(args []string, stdout, stderr io.Writer) error {
	if len(args) >= 1 && args[0] == "copy" {
		return storeCopy(args[1:], stdout, stderr)
	}
	if len(args) == 1 && (args[0] == "-h" || args[0] == "-help" || args[0] == "--help") {
		fmt.Fprint(stdout, storeCopyUsage)
		return nil
	}
	fmt.Fprint(stderr, storeCopyUsage)
	return errors.New("store: unknown subcommand (harkd store copy)")
}

func storeCopy(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("store copy", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	from := fs.String("from", "", "sqlite:DIR, the --data directory of the embedded platform")
	to := fs.String("to", "", "postgres://USER@HOST/DB?sslmode=disable, an empty database")
	printUsage := func(w io.Writer) {
		fmt.Fprint(w, storeCopyUsage+"\nflags:\n")
		fs.SetOutput(w)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			printUsage(stdout)
			return nil
		}
		printUsage(stderr)
		return fmt.Errorf("store copy: %w", err)
	}
	dir, ok := strings.CutPrefix(*from, "sqlite:")
	if !ok || dir == "" || fs.NArg() > 0 {
		printUsage(stderr)
		return errors.New("store copy: --from sqlite:DIR is required (the --data directory of the embedded platform, after sqlite:)")
	}
	if !store.IsPostgresURL(*to) {
		printUsage(stderr)
		return errors.New("store copy: --to postgres://… is required")
	}
	return copyStore(context.Background(), dir, *to, stdout)
}

// copyTable is one table to copy: its columns by name, with the target's
// type of each.
type copyTable struct {
	name  string
	cols  []string
	types []string // information_schema data_type on the target
}

func copyStore(ctx context.Context, dir, url string, out io.Writer) error {
	start := time.Now()
	src, err := openSource(dir)
	if err != nil {
		return err
	}
	defer src.Close()
	// One read transaction gives a consistent snapshot of the source (WAL
	// lets it read while nothing else holds it, and pins what it sees).
	stx, err := src.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("store copy: source %s: %w", dir, err)
	}
	defer stx.Rollback()
	srcVersions, err := componentVersions(ctx, stx)
	if err != nil {
		return fmt.Errorf("store copy: %s is not a harkd database: %w", filepath.Join(dir, "harkd.db"), err)
	}
	srcTables, err := sourceTables(ctx, stx)
	if err != nil {
		return fmt.Errorf("store copy: source %s/harkd.db: %w", dir, err)
	}

	dst, err := store.OpenPostgres(ctx, url)
	if err != nil {
		return fmt.Errorf("store copy: target: %w", err)
	}
	defer dst.Close()
	// Refused before migrating, so a live platform given by mistake is
	// not even migrated.
	if err := refuseData(ctx, dst); err != nil {
		return err
	}
	if err := server.Migrate(ctx, url, ""); err != nil {
		return fmt.Errorf("store copy: migrate target: %w", err)
	}
	dstVersions, err := componentVersions(ctx, dst)
	if err != nil {
		return fmt.Errorf("store copy: target: %w", err)
	}
	for _, c := range sortedKeys(srcVersions) {
		have, ok := dstVersions[c]
		switch {
		case !ok:
			return fmt.Errorf("store copy: the source has %s tables, which this harkd does not know: copy with the harkd that wrote them", c)
		case srcVersions[c] < have:
			return fmt.Errorf("store copy: the source's %s tables are at version %d and this harkd's at %d: run this harkd's serve (or migrate --data %s) on the source once, then copy",
				c, srcVersions[c], have, dir)
		case srcVersions[c] > have:
			return fmt.Errorf("store copy: the source's %s tables are at version %d, newer than this harkd's %d: copy with the harkd that wrote them",
				c, srcVersions[c], have)
		}
	}
	dstCols, err := targetColumns(ctx, dst)
	if err != nil {
		return fmt.Errorf("store copy: target: %w", err)
	}
	var tables []copyTable
	for _, name := range srcTables {
		cols, ok := dstCols[name]
		if !ok {
			// Every component is at the same version on both sides: a
			// table the target lacks is no harkd's, and data is never
			// silently left behind.
			return fmt.Errorf("store copy: table %s of the source is missing on the target after migrating it", name)
		}
		names, err := sourceColumns(ctx, stx, name)
		if err != nil {
			return fmt.Errorf("store copy: source table %s: %w", name, err)
		}
		t := copyTable{name: name}
		for _, c := range names {
			typ, ok := cols[c]
			if !ok {
				return fmt.Errorf("store copy: column %s.%s of the source is missing on the target", name, c)
			}
			t.cols = append(t.cols, c)
			t.types = append(t.types, typ)
		}
		tables = append(tables, t)
	}
	if tables, err = parentsFirst(ctx, dst, tables); err != nil {
		return fmt.Errorf("store copy: target: %w", err)
	}

	counts := make([]int64, len(tables))
	conn, err := dst.Conn(ctx)
	if err != nil {
		return fmt.Errorf("store copy: target: %w", err)
	}
	defer conn.Close()
	err = conn.Raw(func(dc any) error {
		pg := dc.(*stdlib.Conn).Conn()
		tx, err := pg.Begin(ctx)
		if err != nil {
			return err
		}
		defer tx.Rollback(ctx)
		// A harkd already serving the target would hold its tables;
		// waiting a while for it, then failing, beats hanging.
		if _, err := tx.Exec(ctx, `SET LOCAL lock_timeout = '10s'`); err != nil {
			return err
		}
		if len(tables) > 0 {
			names := make([]string, len(tables))
			for i, t := range tables {
				names[i] = pgx.Identifier{t.name}.Sanitize()
			}
			if _, err := tx.Exec(ctx, `LOCK TABLE `+strings.Join(names, ", ")+` IN EXCLUSIVE MODE`); err != nil {
				return fmt.Errorf("lock the target's tables: %w", err)
			}
		}
		// Checked again under the locks: something may have written
		// between the first check and now.
		if err := refuseDataTx(ctx, tx); err != nil {
			return err
		}
		for i, t := range tables {
			n, err := copyOne(ctx, stx, tx, t)
			if err != nil {
				return fmt.Errorf("table %s: %w", t.name, err)
			}
			counts[i] = n
		}
		if err := resetSequences(ctx, tx, tables); err != nil {
			return err
		}
		return tx.Commit(ctx)
	})
	if err != nil {
		return fmt.Errorf("store copy: %w (the target is left as it was, migrated and empty)", err)
	}

	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	var total int64
	for i, t := range tables {
		unit := "rows"
		if counts[i] == 1 {
			unit = "row"
		}
		fmt.Fprintf(tw, "%s\t%d %s\t\n", t.name, counts[i], unit)
		total += counts[i]
	}
	tw.Flush()
	abs, _ := filepath.Abs(dir)
	fmt.Fprintf(out, "copied %d rows in %d tables from %s/harkd.db in %s\n", total, len(tables), abs,
		time.Since(start).Round(time.Millisecond))
	fmt.Fprintf(out, "storage files, spoken answers' audio and recommendation models stay in %s: start every harkd with\n"+
		"  harkd serve --data %s --store URL\n(that directory, or a copy of it on a filesystem all of them share)\n", abs, abs)
	return nil
}

// openSource opens DIR/harkd.db read-only: the copy never writes to the
// platform it moves, and an absent file is an error rather than a new,
// empty database.
func openSource(dir string) (*sql.DB, error) {
	path := filepath.Join(dir, "harkd.db")
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("store copy: no embedded platform in %s: %w", dir, err)
	}
	if fi.IsDir() {
		return nil, fmt.Errorf("store copy: %s is a directory, not a database", path)
	}
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro&_pragma=busy_timeout(10000)")
	if err != nil {
		return nil, fmt.Errorf("store copy: open %s: %w", path, err)
	}
	// The snapshot is one transaction on one connection.
	db.SetMaxOpenConns(1)
	if err := db.Ping(); err != nil {
		db.Close()
		return nil, fmt.Errorf("store copy: %s is not a harkd database: %w", path, err)
	}
	return db, nil
}

type querier interface {
	QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error)
}

func componentVersions(ctx context.Context, q querier) (map[string]int, error) {
	rows, err := q.QueryContext(ctx, `SELECT component, version FROM schema_migrations`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var c string
		var v int
		if err := rows.Scan(&c, &v); err != nil {
			return nil, err
		}
		out[c] = v
	}
	return out, rows.Err()
}

// sourceTables lists the source's tables but SQLite's own and the
// migrations' bookkeeping (the target has its own, just migrated).
func sourceTables(ctx context.Context, q querier) ([]string, error) {
	rows, err := q.QueryContext(ctx, `SELECT name FROM sqlite_master WHERE type = 'table'
		AND name NOT LIKE 'sqlite\_%' ESCAPE '\' AND name <> 'schema_migrations' ORDER BY name`)
	if err != nil {
		return nil, err
	}
	return scanStrings(rows)
}

func sourceColumns(ctx context.Context, q querier, table string) ([]string, error) {
	rows, err := q.QueryContext(ctx, `SELECT name FROM pragma_table_info($1) ORDER BY cid`, table)
	if err != nil {
		return nil, err
	}
	return scanStrings(rows)
}

func scanStrings(rows *sql.Rows) ([]string, error) {
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// targetColumns maps each table of the target's schema to its writable
// columns and their types (generated columns are computed, never copied).
func targetColumns(ctx context.Context, db *sql.DB) (map[string]map[string]string, error) {
	rows, err := db.QueryContext(ctx, `SELECT c.table_name, c.column_name, c.data_type
		FROM information_schema.columns c JOIN information_schema.tables t
		  ON t.table_schema = c.table_schema AND t.table_name = c.table_name
		WHERE c.table_schema = current_schema() AND t.table_type = 'BASE TABLE' AND c.is_generated = 'NEVER'`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]map[string]string{}
	for rows.Next() {
		var t, c, typ string
		if err := rows.Scan(&t, &c, &typ); err != nil {
			return nil, err
		}
		if out[t] == nil {
			out[t] = map[string]string{}
		}
		out[t][c] = typ
	}
	return out, rows.Err()
}

// nonEmptyQuery names the first table of the target's schema holding a
// row, schema_migrations aside (harkd migrate fills it in an empty
// database too).
const nonEmptyQuery = `SELECT table_name FROM information_schema.tables
	WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' AND table_name <> 'schema_migrations'
	ORDER BY table_name`

func refuseData(ctx context.Context, db *sql.DB) error {
	rows, err := db.QueryContext(ctx, nonEmptyQuery)
	if err != nil {
		return fmt.Errorf("store copy: target: %w", err)
	}
	names, err := scanStrings(rows)
	if err != nil {
		return fmt.Errorf("store copy: target: %w", err)
	}
	for _, n := range names {
		var any bool
		if err := db.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM `+pgx.Identifier{n}.Sanitize()+`)`).Scan(&any); err != nil {
			return fmt.Errorf("store copy: target table %s: %w", n, err)
		}
		if any {
			return refusal(n)
		}
	}
	return nil
}

func refuseDataTx(ctx context.Context, tx pgx.Tx) error {
	rows, err := tx.Query(ctx, nonEmptyQuery)
	if err != nil {
		return err
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return err
	}
	for _, n := range names {
		var any bool
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM `+pgx.Identifier{n}.Sanitize()+`)`).Scan(&any); err != nil {
			return err
		}
		if any {
			return refusal(n)
		}
	}
	return nil
}

func refusal(table string) error {
	return fmt.Errorf("store copy: the target database already holds data (table %s has rows); "+
		"store copy only fills an empty database and never merges into a platform: give it a new database", table)
}

// parentsFirst orders tables so that each comes after the tables its
// foreign keys reference (rows are checked as they arrive), by name
// otherwise.
func parentsFirst(ctx context.Context, db *sql.DB, tables []copyTable) ([]copyTable, error) {
	rows, err := db.QueryContext(ctx, `SELECT cl.relname, fl.relname FROM pg_constraint c
		JOIN pg_class cl ON cl.oid = c.conrelid JOIN pg_class fl ON fl.oid = c.confrelid
		JOIN pg_namespace n ON n.oid = c.connamespace
		WHERE c.contype = 'f' AND n.nspname = current_schema() AND c.conrelid <> c.confrelid`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	parents := map[string][]string{}
	for rows.Next() {
		var child, parent string
		if err := rows.Scan(&child, &parent); err != nil {
			return nil, err
		}
		parents[child] = append(parents[child], parent)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	byName := map[string]copyTable{}
	for _, t := range tables {
		byName[t.name] = t
	}
	var out []copyTable
	state := map[string]int{} // 1 visiting, 2 done
	var visit func(name string) error
	visit = func(name string) error {
		switch state[name] {
		case 1:
			return fmt.Errorf("foreign keys form a cycle through table %s", name)
		case 2:
			return nil
		}
		state[name] = 1
		ps := append([]string(nil), parents[name]...)
		sort.Strings(ps)
		for _, p := range ps {
			if _, ok := byName[p]; ok {
				if err := visit(p); err != nil {
					return err
				}
			}
		}
		state[name] = 2
		out = append(out, byName[name])
		return nil
	}
	for _, t := range tables { // already sorted by name
		if err := visit(t.name); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// copyOne streams one table from the source into the target with COPY.
func copyOne(ctx context.Context, src *sql.Tx, dst pgx.Tx, t copyTable) (int64, error) {
	quoted := make([]string, len(t.cols))
	for i, c := range t.cols {
		// SQLite quotes identifiers with double quotes too; "user" is one
		// column that needs it.
		quoted[i] = `"` + strings.ReplaceAll(c, `"`, `""`) + `"`
	}
	rows, err := src.QueryContext(ctx, `SELECT `+strings.Join(quoted, ", ")+` FROM "`+strings.ReplaceAll(t.name, `"`, `""`)+`"`)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	s := &rowSource{rows: rows, t: t, vals: make([]any, len(t.cols)), ptrs: make([]any, len(t.cols))}
	for i := range s.vals {
		s.ptrs[i] = &s.vals[i]
	}
	n, err := dst.CopyFrom(ctx, pgx.Identifier{t.name}, t.cols, s)
	if err == nil {
		err = rows.Err()
	}
	return n, err
}

// rowSource feeds COPY from the source's rows, converting each value to
// the target column's type.
type rowSource struct {
	rows *sql.Rows
	t    copyTable
	vals []any
	ptrs []any
	row  int64
	err  error
}

func (s *rowSource) Next() bool {
	if !s.rows.Next() {
		return false
	}
	s.row++
	if err := s.rows.Scan(s.ptrs...); err != nil {
		s.err = err
		return false
	}
	return true
}

func (s *rowSource) Values() ([]any, error) {
	out := make([]any, len(s.vals))
	for i, v := range s.vals {
		c, err := convert(v, s.t.types[i])
		if err != nil {
			return nil, fmt.Errorf("row %d, column %s: %w", s.row, s.t.cols[i], err)
		}
		out[i] = c
	}
	return out, nil
}

func (s *rowSource) Err() error {
	if s.err != nil {
		return s.err
	}
	return s.rows.Err()
}

// convert maps a value as SQLite's driver reads it (int64, float64,
// string, []byte, time.Time or nil, whatever the column's declared type,
// SQLite being dynamically typed) to what pgx encodes into a column of
// PostgreSQL type typ.
func convert(v any, typ string) (any, error) {
	if v == nil {
		return nil, nil
	}
	switch typ {
	case "boolean":
		switch x := v.(type) {
		case int64:
			if x == 0 || x == 1 {
				return x == 1, nil
			}
		case string:
			if b, err := strconv.ParseBool(x); err == nil {
				return b, nil
			}
		}
	case "bytea":
		switch x := v.(type) {
		case []byte:
			return x, nil
		case string:
			return []byte(x), nil
		}
	case "smallint", "integer", "bigint":
		switch x := v.(type) {
		case int64:
			return x, nil
		case float64:
			if x == math.Trunc(x) && math.Abs(x) < 1<<63 {
				return int64(x), nil
			}
		case string:
			if n, err := strconv.ParseInt(strings.TrimSpace(x), 10, 64); err == nil {
				return n, nil
			}
		}
	case "double precision", "real", "numeric":
		switch x := v.(type) {
		case float64:
			return x, nil
		case int64:
			return float64(x), nil
		case string:
			if f, err := strconv.ParseFloat(strings.TrimSpace(x), 64); err == nil {
				return f, nil
			}
		}
	case "text", "character varying", "character", "json", "jsonb":
		switch x := v.(type) {
		case string:
			return x, nil
		case []byte:
			return string(x), nil
		case int64:
			return strconv.FormatInt(x, 10), nil
		case float64:
			return strconv.FormatFloat(x, 'g', -1, 64), nil
		case time.Time:
			return x.Format(time.RFC3339Nano), nil
		}
	default:
		// Types harkd's migrations do not use today (timestamps and the
		// like): pgx encodes what it can and names what it cannot.
		return v, nil
	}
	return nil, fmt.Errorf("%T %v does not fit a %s column", v, v, typ)
}

// resetSequences moves every identity or serial sequence of the copied
// tables past the largest key copied, so the next row the platform
// inserts does not collide with a copied one.
func resetSequences(ctx context.Context, tx pgx.Tx, tables []copyTable) error {
	for _, t := range tables {
		rows, err := tx.Query(ctx, `SELECT column_name, pg_get_serial_sequence($1, column_name)
			FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $2
			  AND pg_get_serial_sequence($1, column_name) IS NOT NULL`, pgx.Identifier{t.name}.Sanitize(), t.name)
		if err != nil {
			return fmt.Errorf("sequences of %s: %w", t.name, err)
		}
		type seq struct{ col, name string }
		seqs, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (seq, error) {
			var s seq
			return s, r.Scan(&s.col, &s.name)
		})
		if err != nil {
			return fmt.Errorf("sequences of %s: %w", t.name, err)
		}
		for _, s := range seqs {
			// is_called false: the next nextval returns exactly max+1.
			q := `SELECT setval($1, COALESCE(max(` + pgx.Identifier{s.col}.Sanitize() + `), 0) + 1, false) FROM ` + pgx.Identifier{t.name}.Sanitize()
			if _, err := tx.Exec(ctx, q, s.name); err != nil {
				return fmt.Errorf("reset sequence %s: %w", s.name, err)
			}
		}
	}
	return nil
}

func sortedKeys(m map[string]int) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
