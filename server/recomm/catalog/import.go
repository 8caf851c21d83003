package catalog

import (
	"context"
	"database/sql"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/harkhq/hark/server/apierr"
)

// Codes of not-added entries (the document's names).
const (
	CodeAlreadyExists   = "EntityAlreadyExistsException"
	CodeInvalidArgument = "InvalidArgumentException"
)

// Import formats.
const (
	FormatCSV  = "csv"
	FormatJSON = "json"
)

// ChunkRows is how many elements one import transaction holds: large
// enough that commits do not dominate, small enough that a writer waiting
// behind an import waits milliseconds.
const ChunkRows = 5000

// chunkRows is ChunkRows; tests lower it to cross chunk boundaries with
// small files.
var chunkRows = ChunkRows

// MaxNotAdded bounds the not-added list kept for a status answer, so a
// file full of errors keeps memory flat; NotAddedCount counts them all.
const MaxNotAdded = 10000

// NotAdded is one element an import skipped.
type NotAdded struct {
	ErrorID string `json:"errorId"`
	Code    string `json:"code"`
	Message string `json:"message"`
}

// ImportResult is the outcome of an import that ran to the end of its file.
type ImportResult struct {
	Added         int
	NotAddedCount int
	NotAdded      []NotAdded // nil when logging is off
}

// ImportOptions shapes an import.
type ImportOptions struct {
	Format  string // FormatCSV or FormatJSON
	Update  bool   // PATCH: change existing entities instead of adding
	Logging bool   // keep the not-added list
	// Label names the import in the journal and the logs (a job id).
	Label string
	// Settle, when set, runs inside the transaction that publishes the
	// import, or that undoes it after a failure (err non-nil), so what
	// tracks the import (a job's status) changes together with the table.
	Settle func(tx *sql.Tx, res ImportResult, err error) error
}

func (o ImportOptions) check() error {
	if o.Format != FormatCSV && o.Format != FormatJSON {
		return apierr.InvalidArgumentf("format must be csv or json, not %q", o.Format)
	}
	return nil
}

func (r *ImportResult) skip(opts ImportOptions, id, code, msg string) {
	r.NotAddedCount++
	if opts.Logging && len(r.NotAdded) < MaxNotAdded {
		r.NotAdded = append(r.NotAdded, NotAdded{ErrorID: id, Code: code, Message: msg})
	}
}

// chunker runs elements in transactions of ChunkRows elements.
type chunker struct {
	ctx     context.Context
	db      *sql.DB
	tx      *sql.Tx
	n       int
	begin   func(tx *sql.Tx) error // prepares statements for a new transaction
	release func()                 // closes the statements
	// before, when set, runs last in every transaction before its commit
	// (writes what is buffered, advances generations: see gens.go)
	before func(tx *sql.Tx) error
	err    error // a commit that failed while idle
	// committed, when set, is called after each commit (records become visible chunk by chunk)
	committed func()
}

func (k *chunker) next() (*sql.Tx, error) {
	if k.err != nil {
		return nil, k.err
	}
	if k.tx != nil && k.n >= chunkRows {
		if err := k.commit(); err != nil {
			return nil, err
		}
	}
	if k.tx == nil {
		if err := k.ctx.Err(); err != nil {
			return nil, err
		}
		tx, err := k.db.BeginTx(k.ctx, nil)
		if err != nil {
			return nil, err
		}
		if err := k.begin(tx); err != nil {
			tx.Rollback()
			return nil, err
		}
		k.tx, k.n = tx, 0
	}
	k.n++
	return k.tx, nil
}

func (k *chunker) commit() error {
	if k.tx == nil {
		return nil
	}
	var err error
	if k.before != nil {
		err = k.before(k.tx)
	}
	k.release()
	if err != nil {
		k.tx.Rollback()
	} else {
		err = k.tx.Commit()
	}
	k.tx = nil
	if k.committed != nil {
		k.committed()
	}
	return err
}

// idle commits the open chunk while the importer waits for its source. A
// failed commit is kept for the next row, whose next() then reports it.
func (k *chunker) idle() {
	if k.tx != nil && k.err == nil {
		k.err = k.commit()
	}
}

// publish runs fn in the transaction of the last chunk (a new one when
// the last chunk is already committed) and commits it.
func (k *chunker) publish(fn func(tx *sql.Tx) error) error {
	tx := k.tx
	if tx == nil {
		var err error
		if tx, err = k.db.BeginTx(k.ctx, nil); err != nil {
			return err
		}
		if err := k.begin(tx); err != nil {
			tx.Rollback()
			return err
		}
	}
	var err error
	if k.before != nil {
		err = k.before(tx)
	}
	k.release()
	k.tx = nil
	if err == nil {
		err = fn(tx)
	}
	if err != nil {
		tx.Rollback()
		return err
	}
	err = tx.Commit()
	if k.committed != nil {
		k.committed()
	}
	return err
}

// finishImport publishes a load that read its whole file, or undoes it
// when the load or the publishing failed. A failed import adds nothing, so
// its result counts no element as added.
func (c *Catalog) finishImport(ctx context.Context, k *chunker, j importJournal, res *ImportResult, opts ImportOptions, err error) error {
	if err == nil {
		err = k.err
	}
	if cerr := ctx.Err(); err != nil && cerr != nil {
		// a cancelled context rolls the open transaction back under the
		// importer, whose next statement then fails for that reason
		err = cerr
	}
	if err == nil {
		err = k.publish(func(tx *sql.Tx) error {
			if err := j.publish(ctx, tx); err != nil {
				return err
			}
			if opts.Settle != nil {
				return opts.Settle(tx, *res, nil)
			}
			return nil
		})
		if err == nil {
			return nil
		}
	}
	k.abort()
	res.Added = 0
	var settle func(*sql.Tx) error
	if opts.Settle != nil {
		settle = func(tx *sql.Tx) error { return opts.Settle(tx, *res, err) }
	}
	if uerr := c.failImport(ctx, j, settle); uerr != nil {
		// the journal keeps the import: it is undone when the catalog
		// opens next
		slog.Error("recomm: undo of a failed import", "job", opts.Label, "err", uerr)
	}
	return err
}

func (k *chunker) abort() {
	if k.tx != nil {
		k.release()
		k.tx.Rollback()
		k.tx = nil
	}
}

// ImportEntities loads items (scope = table) or users (scope = Users) from
// r, streaming: memory stays flat whatever the file size. Elements that
// fail are skipped and listed; an error return means the load failed as a
// whole (unreadable file, missing id column), and then the table is as it
// was before (see journal.go).
func (c *Catalog) ImportEntities(ctx context.Context, ws int64, scope string, r io.Reader, opts ImportOptions) (ImportResult, error) {
	var res ImportResult
	if err := opts.check(); err != nil {
		return res, err
	}
	s, err := c.schema(ctx, c.db, ws, scope)
	if err != nil {
		return res, err
	}
	j, err := c.beginImport(ctx, ws, scope, journalEntities, opts.Label)
	if err != nil {
		return res, err
	}
	idField := entityKind(scope) + "Id"
	var w *entityWriter
	k := &chunker{ctx: ctx, db: c.db,
		begin: func(tx *sql.Tx) (err error) {
			if err := j.hold(ctx, c, tx); err != nil {
				return err
			}
			if w, err = c.newEntityWriter(ctx, tx, ws, s); err != nil {
				return err
			}
			w.job = j.key
			if opts.Update {
				w.save, err = tx.PrepareContext(ctx, `INSERT INTO recomm_import_undo(import, eid, doc) VALUES($1, $2, $3) ON CONFLICT DO NOTHING`)
			}
			return err
		},
		release: func() { w.close() },
		before:  func(tx *sql.Tx) error { return c.bumpTx(ctx, tx, ws, scope, recordsScope) },
	}
	defer c.changed(ws, scope)
	src := newIdleReader(r, k.idle)
	defer src.close()
	r = src
	store := func(id string, values map[string]any) error {
		if _, err := k.next(); err != nil {
			return err
		}
		if err := validateEntityID(scope, id); err != nil {
			res.skip(opts, id, CodeInvalidArgument, describe(err))
			return nil
		}
		var err error
		if opts.Update {
			err = w.patch(id, values)
		} else {
			err = w.add(id, values)
		}
		switch {
		case err == nil:
			res.Added++
		case err == errExists:
			res.skip(opts, id, CodeAlreadyExists, fmt.Sprintf("%s %q already exists", entityKind(scope), id))
		case err == sql.ErrNoRows:
			res.skip(opts, id, CodeInvalidArgument, fmt.Sprintf("%s %q does not exist", entityKind(scope), id))
		default:
			return err
		}
		return nil
	}
	if opts.Format == FormatCSV {
		err = c.entitiesFromCSV(r, s, idField, &res, opts, store)
	} else {
		err = entitiesFromJSON(r, s, idField, &res, opts, store)
	}
	// finishImport settles res (the last batch, a failure's zero added)
	// before res is read: a return naming both leaves the order unspecified
	err = c.finishImport(ctx, k, j, &res, opts, err)
	return res, err
}

func describe(err error) string {
	if e, ok := apierr.As(err); ok {
		return e.Description
	}
	return err.Error()
}

func newCSVReader(r io.Reader) *csv.Reader {
	cr := csv.NewReader(r)
	cr.ReuseRecord = true
	cr.FieldsPerRecord = -1 // a short row is an element error, not a file error
	return cr
}

func (c *Catalog) entitiesFromCSV(r io.Reader, s *schema, idField string, res *ImportResult, opts ImportOptions,
	store func(string, map[string]any) error) error {
	cr := newCSVReader(r)
	header, err := cr.Read()
	if err == io.EOF {
		return nil
	}
	if err != nil {
		return readError("CSV header", err)
	}
	header = append([]string(nil), header...) // ReuseRecord would overwrite it
	if len(header) > 0 {
		header[0] = strings.TrimPrefix(header[0], "\ufeff")
	}
	idCol := -1
	for i, h := range header {
		if h == idField {
			idCol = i
		} else if _, ok := s.byID[h]; !ok {
			// the file may be anything the URL answered: say where, never what
			return apierr.InvalidArgumentf("column %d of the CSV header is neither %s nor an attribute (attributes must be defined before values are stored; defined: %s)",
				i+1, idField, s.attributeList())
		}
	}
	if idCol < 0 {
		return apierr.InvalidArgumentf("the CSV header has no %s column", idField)
	}
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return readError("CSV", err)
		}
		line, _ := cr.FieldPos(0)
		if len(rec) != len(header) {
			res.skip(opts, fmt.Sprintf("line %d", line), CodeInvalidArgument,
				fmt.Sprintf("line %d has %d fields, the header %d", line, len(rec), len(header)))
			continue
		}
		id := rec[idCol]
		values := make(map[string]any, len(rec)-1)
		var bad error
		for i, cell := range rec {
			if i == idCol || cell == "" {
				continue
			}
			v, err := s.convertText(header[i], cell)
			if err != nil {
				bad = err
				break
			}
			values[header[i]] = v
		}
		if bad != nil {
			res.skip(opts, id, CodeInvalidArgument, bad.Error())
			continue
		}
		if err := store(id, values); err != nil {
			return err
		}
	}
}

// jsonList walks a JSON array element by element with a token-streaming
// decoder; each element is decoded on its own, so memory stays flat.
func jsonList(r io.Reader, each func(dec *json.Decoder, index int) error) error {
	dec := json.NewDecoder(r)
	dec.UseNumber()
	tok, err := dec.Token()
	if err == io.EOF {
		return nil
	}
	if err != nil {
		return readError("JSON", err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return apierr.InvalidArgumentf("a JSON import file is a list of objects")
	}
	for i := 0; dec.More(); i++ {
		if err := each(dec, i); err != nil {
			return err
		}
	}
	if _, err := dec.Token(); err != nil {
		return readError("JSON", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return apierr.InvalidArgumentf("data after the end of the JSON list")
	}
	return nil
}

// decodeObject decodes one element, telling a malformed file (error) from
// an element that is valid JSON but not an object (ok false).
func decodeObject(dec *json.Decoder) (map[string]any, bool, error) {
	var raw any
	if err := dec.Decode(&raw); err != nil {
		return nil, false, readError("JSON", err)
	}
	obj, ok := raw.(map[string]any)
	return obj, ok, nil
}

func entitiesFromJSON(r io.Reader, s *schema, idField string, res *ImportResult, opts ImportOptions,
	store func(string, map[string]any) error) error {
	return jsonList(r, func(dec *json.Decoder, i int) error {
		obj, ok, err := decodeObject(dec)
		if err != nil {
			return err
		}
		if !ok {
			res.skip(opts, fmt.Sprintf("element %d", i), CodeInvalidArgument, "element is not an object")
			return nil
		}
		id, ok := obj[idField].(string)
		if !ok {
			res.skip(opts, fmt.Sprintf("element %d", i), CodeInvalidArgument, fmt.Sprintf("element has no string %s", idField))
			return nil
		}
		delete(obj, idField)
		values, err := s.convertValues(obj, opts.Update)
		if err != nil {
			res.skip(opts, id, CodeInvalidArgument, describe(err))
			return nil
		}
		return store(id, values)
	})
}

// Interaction file columns.
var interactionColumns = []string{"userId", "itemId", "timestamp", "interactionName", "value"}

// interactionLoader holds what an interaction import resolves ids against.
type interactionLoader struct {
	users, items map[string]int64
	defs         map[string]storedInteraction
	now          int64
}

func (c *Catalog) ids(ctx context.Context, ws int64, scope string) (map[string]int64, error) {
	rows, err := c.db.QueryContext(ctx, `SELECT id, eid FROM recomm_entities WHERE ws = $1 AND scope = $2`, ws, scope)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	m := map[string]int64{}
	for rows.Next() {
		var id string
		var eid int64
		if err := rows.Scan(&id, &eid); err != nil {
			return nil, err
		}
		m[id] = eid
	}
	return m, rows.Err()
}

// ImportInteractions loads user-item interaction records from r (columns
// userId, itemId, timestamp in epoch ms (empty: now), interactionName,
// value). Users and items must exist; they are resolved against an
// in-memory id map, so each row costs one upsert.
func (c *Catalog) ImportInteractions(ctx context.Context, ws int64, table string, r io.Reader, opts ImportOptions) (ImportResult, error) {
	var res ImportResult
	if err := opts.check(); err != nil {
		return res, err
	}
	defs, err := c.interactionDefs(ctx, c.db, ws, table)
	if err != nil {
		return res, err
	}
	l := interactionLoader{defs: map[string]storedInteraction{}, now: time.Now().UnixMilli()}
	for _, d := range defs {
		l.defs[d.ID] = d
	}
	if l.users, err = c.ids(ctx, ws, Users); err != nil {
		return res, err
	}
	if l.items, err = c.ids(ctx, ws, table); err != nil {
		return res, err
	}
	j, err := c.beginImport(ctx, ws, table, journalInteractions, opts.Label)
	if err != nil {
		return res, err
	}
	// SQLite: one-row statements; multi-row VALUES measured no faster,
	// because SQLite then keeps a statement journal for every insert.
	// PostgreSQL: a batch of records per statement (recordBatcher), as each
	// statement is a round trip to the server.
	var insert *sql.Stmt
	var batch *recordBatcher
	k := &chunker{ctx: ctx, db: c.db,
		begin: func(tx *sql.Tx) (err error) {
			if err := j.hold(ctx, c, tx); err != nil {
				return err
			}
			if c.d.recordBatch > 1 {
				batch.tx = tx
				return nil
			}
			insert, err = tx.PrepareContext(ctx, importRecord)
			return err
		},
		release: func() {
			if insert != nil {
				insert.Close()
				insert = nil
			}
		},
		before: func(tx *sql.Tx) error {
			if err := batch.flush(); err != nil {
				return err
			}
			return c.bumpTx(ctx, tx, ws, recordsScope)
		},
		committed: func() { c.recordsChanged(ws) },
	}
	batch = &recordBatcher{ctx: ctx, size: c.d.recordBatch, job: j.key, res: &res, opts: opts}
	defer c.recordsChanged(ws) // after an undone import too
	src := newIdleReader(r, k.idle)
	defer src.close()
	r = src
	store := func(userID, itemID, ts, name, value string) error {
		errID := userID + "/" + itemID
		skip := func(code, msg string) error {
			batch.skip(errID, code, msg)
			return nil
		}
		d, ok := l.defs[name]
		if !ok {
			return skip(CodeInvalidArgument, "the interaction type is not defined in the table")
		}
		user, ok := l.users[userID]
		if !ok {
			return skip(CodeInvalidArgument, "the user does not exist")
		}
		item, ok := l.items[itemID]
		if !ok {
			return skip(CodeInvalidArgument, "the item does not exist in the table")
		}
		t := l.now
		if ts != "" {
			n, err := strconv.ParseInt(ts, 10, 64)
			if err != nil {
				return skip(CodeInvalidArgument, "the timestamp is not epoch milliseconds")
			}
			t = n
		}
		var vp *float64
		if value != "" {
			f, err := strconv.ParseFloat(value, 64)
			if err != nil {
				return skip(CodeInvalidArgument, "the value is not a number")
			}
			vp = &f
		}
		v, err := d.CheckValue(vp)
		if err != nil {
			return skip(CodeInvalidArgument, err.Error())
		}
		if _, err := k.next(); err != nil {
			return err
		}
		r := record{def: d.key, user: user, item: item, ts: t, value: v, errID: errID}
		if batch.size > 1 {
			return batch.add(r)
		}
		// A record identical to a stored one (user, item, type and
		// timestamp; stored before or earlier in this file) is not added
		// (DECISIONS §12), whatever the type's rule for repeated records
		// sent one by one. DO NOTHING rather than a unique violation: see
		// entityWriter.
		res2, err := insert.ExecContext(ctx, r.def, r.user, r.item, r.ts, r.value, j.key)
		if err != nil {
			return fmt.Errorf("store interaction: %w", err)
		}
		if n, err := res2.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return skip(CodeAlreadyExists, duplicateRecord)
		}
		res.Added++
		return nil
	}
	if opts.Format == FormatCSV {
		err = interactionsFromCSV(r, &res, opts, store)
	} else {
		err = interactionsFromJSON(r, &res, opts, store)
	}
	// finishImport settles res (the last batch, a failure's zero added)
	// before res is read: a return naming both leaves the order unspecified
	err = c.finishImport(ctx, k, j, &res, opts, err)
	return res, err
}

// importRecord adds one record of an import, tagged with the import.
const importRecord = `INSERT INTO recomm_interactions(def, "user", item, ts, value, job) VALUES($1, $2, $3, $4, $5, $6)
	ON CONFLICT(def, "user", item, ts) DO NOTHING`

const duplicateRecord = "the same interaction (user, item, type and timestamp) is already stored"

// pgRecordBatch is the records per INSERT on PostgreSQL: a chunk's worth.
// MovieLens (100,004 ratings) on a loaded 2-core machine: one row per
// statement 15k rows/s; VALUES lists of 500 rows 50-100k rows/s; arrays
// through unnest 95-113k rows/s in batches of 500, 130-135k in batches of
// 5000 (SQLite, one prepared row at a time: 125-145k in the same runs).
const pgRecordBatch = 5000

// record is one record of an interaction import, resolved.
type record struct {
	def, user, item, ts int64
	value               float64
	errID               string
}

// recordBatcher buffers the records of an interaction import and writes
// them with one INSERT per size records (on PostgreSQL). Which
// records were duplicates is only known when the batch is written, so the
// rows skipped for other reasons wait in the same queue: the not-added
// list keeps the order of the file, as the row-at-a-time insert gives.
type recordBatcher struct {
	ctx     context.Context
	tx      *sql.Tx
	size    int
	job     int64
	res     *ImportResult
	opts    ImportOptions
	queue   []queued
	records int // records in queue
}

// queued is a record, or (rec nil) a skipped row.
type queued struct {
	rec              *record
	errID, code, msg string
}

func (b *recordBatcher) skip(errID, code, msg string) {
	if len(b.queue) == 0 {
		b.res.skip(b.opts, errID, code, msg)
		return
	}
	b.queue = append(b.queue, queued{errID: errID, code: code, msg: msg})
}

func (b *recordBatcher) add(r record) error {
	b.queue = append(b.queue, queued{rec: &r})
	b.records++
	if b.records >= b.size {
		return b.flush()
	}
	return nil
}

// insertRecords adds a batch of records given as one array per column:
// six arguments whatever the batch size, which PostgreSQL binds and plans
// far cheaper than a VALUES list of thousands of placeholders. unnest reads
// the arrays in order, so rows are inserted in file order.
const insertRecords = `INSERT INTO recomm_interactions(def, "user", item, ts, value, job)
	SELECT d, u, i, t, v, $6 FROM unnest($1::bigint[], $2::bigint[], $3::bigint[], $4::bigint[], $5::float8[]) AS r(d, u, i, t, v)
	ON CONFLICT(def, "user", item, ts) DO NOTHING RETURNING def, "user", item, ts`

type recordKey struct{ def, user, item, ts int64 }

// flush writes the queued records and settles the queue in order: a record
// whose key the INSERT returned was added (the first of the batch to carry
// the key: rows are inserted in VALUES order, and a later one with the same
// key hits the conflict), any other is a duplicate.
func (b *recordBatcher) flush() error {
	if b == nil || len(b.queue) == 0 {
		return nil
	}
	inserted := map[recordKey]bool{}
	if b.records > 0 {
		defs, users, items, tss := make([]int64, 0, b.records), make([]int64, 0, b.records), make([]int64, 0, b.records), make([]int64, 0, b.records)
		values := make([]float64, 0, b.records)
		for _, q := range b.queue {
			if r := q.rec; r != nil {
				defs, users, items, tss = append(defs, r.def), append(users, r.user), append(items, r.item), append(tss, r.ts)
				values = append(values, r.value)
			}
		}
		rows, err := b.tx.QueryContext(b.ctx, insertRecords, defs, users, items, tss, values, b.job)
		if err != nil {
			return fmt.Errorf("store interactions: %w", err)
		}
		for rows.Next() {
			var k recordKey
			if err := rows.Scan(&k.def, &k.user, &k.item, &k.ts); err != nil {
				rows.Close()
				return err
			}
			inserted[k] = true
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fmt.Errorf("store interactions: %w", err)
		}
	}
	for _, q := range b.queue {
		if q.rec == nil {
			b.res.skip(b.opts, q.errID, q.code, q.msg)
			continue
		}
		k := recordKey{q.rec.def, q.rec.user, q.rec.item, q.rec.ts}
		if inserted[k] {
			delete(inserted, k)
			b.res.Added++
		} else {
			b.res.skip(b.opts, q.rec.errID, CodeAlreadyExists, duplicateRecord)
		}
	}
	b.queue, b.records = b.queue[:0], 0
	return nil
}

// readError describes a file that cannot be read as a whole. It names the
// place, never the text: an import file may be whatever a URL answered.
func readError(what string, err error) error {
	var pe *csv.ParseError
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &pe):
		return apierr.InvalidArgumentf("the %s is malformed at line %d, column %d: %v", what, pe.Line, pe.Column, pe.Err)
	case errors.As(err, &se):
		return apierr.InvalidArgumentf("the %s is malformed at byte %d", what, se.Offset)
	case errors.As(err, &te):
		return apierr.InvalidArgumentf("the %s has a value of the wrong kind at byte %d", what, te.Offset)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return apierr.InvalidArgumentf("the %s stops short (a download cut off, or a truncated file)", what)
	}
	return fmt.Errorf("read %s: %w", what, err)
}

func interactionsFromCSV(r io.Reader, res *ImportResult, opts ImportOptions, store func(u, i, ts, name, v string) error) error {
	cr := newCSVReader(r)
	header, err := cr.Read()
	if err == io.EOF {
		return nil
	}
	if err != nil {
		return readError("CSV header", err)
	}
	col := map[string]int{}
	for i, h := range header {
		h = strings.TrimPrefix(h, "\ufeff")
		if h == "interactionId" { // the name the rest of the API uses
			h = "interactionName"
		}
		col[h] = i
	}
	var at [5]int
	for j, name := range interactionColumns {
		i, ok := col[name]
		if !ok && name != "timestamp" && name != "value" {
			return apierr.InvalidArgumentf("the CSV header has no %s column", name)
		}
		if !ok {
			i = -1
		}
		at[j] = i
	}
	cell := func(rec []string, j int) string {
		if at[j] < 0 || at[j] >= len(rec) {
			return ""
		}
		return rec[at[j]]
	}
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return readError("CSV", err)
		}
		if len(rec) != len(header) {
			line, _ := cr.FieldPos(0)
			res.skip(opts, fmt.Sprintf("line %d", line), CodeInvalidArgument,
				fmt.Sprintf("line %d has %d fields, the header %d", line, len(rec), len(header)))
			continue
		}
		if err := store(cell(rec, 0), cell(rec, 1), cell(rec, 2), cell(rec, 3), cell(rec, 4)); err != nil {
			return err
		}
	}
}

func interactionsFromJSON(r io.Reader, res *ImportResult, opts ImportOptions, store func(u, i, ts, name, v string) error) error {
	return jsonList(r, func(dec *json.Decoder, i int) error {
		obj, ok, err := decodeObject(dec)
		if err != nil {
			return err
		}
		if !ok {
			res.skip(opts, fmt.Sprintf("element %d", i), CodeInvalidArgument, "element is not an object")
			return nil
		}
		if _, ok := obj["interactionName"]; !ok {
			obj["interactionName"] = obj["interactionId"]
		}
		var f [5]string
		for j, name := range interactionColumns {
			switch v := obj[name].(type) {
			case nil:
			case string:
				f[j] = v
			case json.Number:
				f[j] = v.String()
			default:
				res.skip(opts, fmt.Sprintf("element %d", i), CodeInvalidArgument, fmt.Sprintf("%s must be a string or a number", name))
				return nil
			}
		}
		return store(f[0], f[1], f[2], f[3], f[4])
	})
}

// attributeList names the scope's attributes for an error description.
func (s *schema) attributeList() string {
	if len(s.list) == 0 {
		return "none"
	}
	ids := make([]string, len(s.list))
	for i, a := range s.list {
		ids[i] = a.ID
	}
	return strings.Join(ids, ", ")
}

// idleReader reads the import file ahead in its own goroutine. When the
// parser has waited idleAfter for the source (a slow download), idle runs:
// the importer commits its open chunk then, so it never holds the
// database's write lock while it waits for the network. (Committing at
// every momentary starvation instead would commit every few rows.)
type idleReader struct {
	pieces chan []byte
	err    error // set before pieces closes
	cur    []byte
	idle   func()
	stop   chan struct{}
}

// idleAfter is how long an import waits for its source while holding a
// chunk's transaction open.
const idleAfter = 20 * time.Millisecond

func newIdleReader(r io.Reader, idle func()) *idleReader {
	ir := &idleReader{pieces: make(chan []byte, 4), idle: idle, stop: make(chan struct{})}
	go func() {
		defer close(ir.pieces)
		for {
			buf := make([]byte, 64<<10)
			n, err := r.Read(buf)
			if n > 0 {
				select {
				case ir.pieces <- buf[:n]:
				case <-ir.stop:
					return
				}
			}
			if err != nil {
				ir.err = err
				return
			}
		}
	}()
	return ir
}

func (ir *idleReader) Read(p []byte) (int, error) {
	if len(ir.cur) == 0 {
		var ok bool
		select {
		case ir.cur, ok = <-ir.pieces:
		default:
			t := time.NewTimer(idleAfter)
			select {
			case ir.cur, ok = <-ir.pieces:
			case <-t.C:
				ir.idle()
				ir.cur, ok = <-ir.pieces
			}
			t.Stop()
		}
		if !ok {
			return 0, ir.err
		}
	}
	n := copy(p, ir.cur)
	ir.cur = ir.cur[n:]
	return n, nil
}

// close stops the read-ahead; the caller closes the source, which ends a
// read in progress.
func (ir *idleReader) close() { close(ir.stop) }
