package catalog

import (
	"context"
	"database/sql"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
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
}

func (k *chunker) next() (*sql.Tx, error) {
	if k.tx != nil && k.n >= ChunkRows {
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
	k.release()
	err := k.tx.Commit()
	k.tx = nil
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
// whole (unreadable file, missing id column); chunks committed before the
// failure stay.
func (c *Catalog) ImportEntities(ctx context.Context, ws int64, scope string, r io.Reader, opts ImportOptions) (ImportResult, error) {
	var res ImportResult
	if err := opts.check(); err != nil {
		return res, err
	}
	s, err := c.schema(ctx, c.db, ws, scope)
	if err != nil {
		return res, err
	}
	idField := entityKind(scope) + "Id"
	var w *entityWriter
	k := &chunker{ctx: ctx, db: c.db,
		begin: func(tx *sql.Tx) (err error) {
			w, err = c.newEntityWriter(ctx, tx, ws, s)
			return err
		},
		release: func() { w.close() },
	}
	defer k.abort()
	defer c.changed(ws, scope)
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
	if err != nil {
		return res, err
	}
	return res, k.commit()
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
		return fmt.Errorf("read CSV header: %w", err)
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
			return apierr.InvalidArgumentf("CSV column %q is not an attribute (attributes must be defined before values are stored)", h)
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
			return fmt.Errorf("read CSV: %w", err)
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
		return fmt.Errorf("read JSON: %w", err)
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
		return fmt.Errorf("read JSON: %w", err)
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
		return nil, false, fmt.Errorf("read JSON: %w", err)
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
	rows, err := c.db.QueryContext(ctx, `SELECT id, eid FROM recomm_entities WHERE ws = ? AND scope = ?`, ws, scope)
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
	// one-row statements: multi-row VALUES measured no faster, because
	// SQLite then keeps a statement journal for every insert
	var insert, replace, add *sql.Stmt
	k := &chunker{ctx: ctx, db: c.db,
		begin: func(tx *sql.Tx) (err error) {
			if insert, err = tx.PrepareContext(ctx, insertRecord); err != nil {
				return err
			}
			if replace, err = tx.PrepareContext(ctx, upsertReplace); err != nil {
				return err
			}
			add, err = tx.PrepareContext(ctx, upsertAdd)
			return err
		},
		release: func() { insert.Close(); replace.Close(); add.Close() },
	}
	defer k.abort()
	store := func(userID, itemID, ts, name, value string) error {
		errID := userID + "/" + itemID
		d, ok := l.defs[name]
		if !ok {
			res.skip(opts, errID, CodeInvalidArgument, fmt.Sprintf("unknown interaction %q", name))
			return nil
		}
		user, ok := l.users[userID]
		if !ok {
			res.skip(opts, errID, CodeInvalidArgument, fmt.Sprintf("unknown user %q", userID))
			return nil
		}
		item, ok := l.items[itemID]
		if !ok {
			res.skip(opts, errID, CodeInvalidArgument, fmt.Sprintf("unknown item %q", itemID))
			return nil
		}
		t := l.now
		if ts != "" {
			n, err := strconv.ParseInt(ts, 10, 64)
			if err != nil {
				res.skip(opts, errID, CodeInvalidArgument, fmt.Sprintf("timestamp %q is not epoch milliseconds", ts))
				return nil
			}
			t = n
		}
		var vp *float64
		if value != "" {
			f, err := strconv.ParseFloat(value, 64)
			if err != nil {
				res.skip(opts, errID, CodeInvalidArgument, fmt.Sprintf("value %q is not a number", value))
				return nil
			}
			vp = &f
		}
		v, err := d.CheckValue(vp)
		if err != nil {
			res.skip(opts, errID, CodeInvalidArgument, err.Error())
			return nil
		}
		if _, err := k.next(); err != nil {
			return err
		}
		// a plain insert first: most records are new, and it skips the
		// conflict check that an upsert pays on every row
		_, err = insert.ExecContext(ctx, d.key, user, item, t, v)
		if isUniqueViolation(err) {
			st := replace
			if d.Cumulative {
				st = add
			}
			_, err = st.ExecContext(ctx, d.key, user, item, t, v)
		}
		if err != nil {
			return fmt.Errorf("store interaction: %w", err)
		}
		res.Added++
		return nil
	}
	if opts.Format == FormatCSV {
		err = interactionsFromCSV(r, &res, opts, store)
	} else {
		err = interactionsFromJSON(r, &res, opts, store)
	}
	if err != nil {
		return res, err
	}
	return res, k.commit()
}

func interactionsFromCSV(r io.Reader, res *ImportResult, opts ImportOptions, store func(u, i, ts, name, v string) error) error {
	cr := newCSVReader(r)
	header, err := cr.Read()
	if err == io.EOF {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read CSV header: %w", err)
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
			return fmt.Errorf("read CSV: %w", err)
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
