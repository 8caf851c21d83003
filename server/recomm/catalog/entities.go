package catalog

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/harkhq/hark/server/apierr"
	"github.com/harkhq/hark/server/recomm/rsql"
	"github.com/harkhq/hark/server/store"
)

// stmt is a statement with its arguments.
type stmt struct {
	q    string
	args []any
}

// Entity is an item or a user: its id and attribute values in their Go
// form (see rsql.Type).
type Entity struct {
	ID     string
	Values map[string]any
}

// Value implements rsql.Values.
func (e Entity) Value(attr string) (any, bool) {
	v, ok := e.Values[attr]
	return v, ok
}

// entityWriter writes entities and their index rows inside one transaction;
// imports reuse one writer for a whole chunk.
type entityWriter struct {
	ctx    context.Context
	tx     *sql.Tx
	s      *schema
	ws     int64
	insert *sql.Stmt
	update *sql.Stmt
	find   *sql.Stmt
	unidx  *sql.Stmt
	idx    *sql.Stmt
	// An import sets job to its key, which tags the rows it adds, and
	// save, which keeps the documents it changes (see journal.go).
	job  any
	save *sql.Stmt
}

func (c *Catalog) newEntityWriter(ctx context.Context, tx *sql.Tx, ws int64, s *schema) (*entityWriter, error) {
	w := &entityWriter{ctx: ctx, tx: tx, s: s, ws: ws}
	for _, p := range []struct {
		dst **sql.Stmt
		q   string
	}{
		// DO NOTHING, not a unique violation: on PostgreSQL a failed statement
		// would end the transaction of an import, which goes on past a taken id
		{&w.insert, `INSERT INTO recomm_entities(ws, scope, id, doc, job) VALUES($1, $2, $3, $4, $5)
			ON CONFLICT(ws, scope, id) DO NOTHING RETURNING eid`},
		{&w.update, `UPDATE recomm_entities SET doc = $1 WHERE eid = $2`},
		{&w.find, `SELECT eid, doc FROM recomm_entities WHERE ws = $1 AND scope = $2 AND id = $3`},
		{&w.unidx, `DELETE FROM recomm_index WHERE eid = $1`},
		{&w.idx, `INSERT INTO recomm_index(attr, num, txt, eid) VALUES($1, $2, $3, $4)`},
	} {
		st, err := tx.PrepareContext(ctx, p.q)
		if err != nil {
			return nil, err
		}
		*p.dst = st
	}
	return w, nil
}

func (w *entityWriter) close() {
	for _, st := range []*sql.Stmt{w.insert, w.update, w.find, w.unidx, w.idx, w.save} {
		if st != nil {
			st.Close()
		}
	}
}

// errExists marks an add of an id that is already there.
var errExists = fmt.Errorf("already exists")

// add inserts a new entity; it returns errExists when the id is taken.
func (w *entityWriter) add(id string, values map[string]any) error {
	doc, err := encodeDoc(values)
	if err != nil {
		return err
	}
	var eid int64
	err = w.insert.QueryRowContext(w.ctx, w.ws, w.s.scope, id, doc, w.job).Scan(&eid)
	if err == sql.ErrNoRows {
		return errExists
	}
	if err != nil {
		return err
	}
	return w.index(eid, values)
}

// patch merges values into an existing entity; a nil value removes the
// attribute. It returns sql.ErrNoRows when the entity does not exist.
func (w *entityWriter) patch(id string, values map[string]any) error {
	var eid int64
	var doc string
	if err := w.find.QueryRowContext(w.ctx, w.ws, w.s.scope, id).Scan(&eid, &doc); err != nil {
		return err
	}
	if w.save != nil {
		if _, err := w.save.ExecContext(w.ctx, w.job, eid, doc); err != nil {
			return err
		}
	}
	merged, err := w.s.decodeDoc(doc)
	if err != nil {
		return err
	}
	for k, v := range values {
		if v == nil {
			delete(merged, k)
		} else {
			merged[k] = v
		}
	}
	enc, err := encodeDoc(merged)
	if err != nil {
		return err
	}
	if _, err := w.update.ExecContext(w.ctx, enc, eid); err != nil {
		return err
	}
	if _, err := w.unidx.ExecContext(w.ctx, eid); err != nil {
		return err
	}
	return w.index(eid, merged)
}

// restore puts back an entity's stored document and its index rows,
// unless the entity has been deleted since.
func (w *entityWriter) restore(eid int64, doc string) error {
	values, err := w.s.decodeDoc(doc)
	if err != nil {
		return err
	}
	res, err := w.update.ExecContext(w.ctx, doc, eid)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return err
	}
	if _, err := w.unidx.ExecContext(w.ctx, eid); err != nil {
		return err
	}
	return w.index(eid, values)
}

func (w *entityWriter) index(eid int64, values map[string]any) error {
	for attr, v := range values {
		a := w.s.byID[attr]
		if a == nil || !a.Indexed {
			continue
		}
		var err error
		switch x := v.(type) {
		case int64:
			_, err = w.idx.ExecContext(w.ctx, a.key, x, nil, eid)
		case float64:
			_, err = w.idx.ExecContext(w.ctx, a.key, x, nil, eid)
		case bool:
			_, err = w.idx.ExecContext(w.ctx, a.key, store.Flag(x), nil, eid)
		case string:
			_, err = w.idx.ExecContext(w.ctx, a.key, nil, x, eid)
		case []string:
			for _, m := range dedupe(x) {
				if _, err = w.idx.ExecContext(w.ctx, a.key, nil, m, eid); err != nil {
					break
				}
			}
		}
		if err != nil {
			return fmt.Errorf("index %s: %w", attr, err)
		}
	}
	return nil
}

func encodeDoc(values map[string]any) (string, error) {
	if len(values) == 0 {
		return "{}", nil
	}
	b, err := json.Marshal(values)
	return string(b), err
}

// decodeDoc reads a stored document back into Go forms; values of
// attributes no longer defined are dropped.
func (s *schema) decodeDoc(doc string) (map[string]any, error) {
	dec := json.NewDecoder(strings.NewReader(doc))
	dec.UseNumber()
	var raw map[string]any
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("decode stored values: %w", err)
	}
	out := make(map[string]any, len(raw))
	for k, v := range raw {
		a, ok := s.byID[k]
		if !ok {
			continue
		}
		x, err := rsql.FromJSON(a.Type, v)
		if err != nil {
			continue // a value stored under a type the attribute no longer has
		}
		out[k] = x
	}
	return out, nil
}

// convertValues checks a request's raw JSON values against the schema.
func (s *schema) convertValues(raw map[string]any, allowNull bool) (map[string]any, error) {
	out := make(map[string]any, len(raw))
	for k, v := range raw {
		if v == nil {
			if !allowNull {
				return nil, apierr.InvalidArgumentf("attribute %q: null is not a value", k)
			}
			if _, ok := s.byID[k]; !ok {
				return nil, apierr.InvalidArgumentf("unknown attribute %q", k)
			}
			out[k] = nil
			continue
		}
		x, err := s.convert(k, v)
		if err != nil {
			return nil, apierr.InvalidArgumentf("%v", err)
		}
		out[k] = x
	}
	return out, nil
}

func validateEntityID(scope, id string) error {
	return validateID(entityKind(scope)+"Id", id, MaxEntityIDLen)
}

// AddEntity adds an item (scope = table) or a user (scope = Users) with
// raw JSON attribute values (as decoded by encoding/json).
func (c *Catalog) AddEntity(ctx context.Context, ws int64, scope, id string, raw map[string]any) error {
	if err := validateEntityID(scope, id); err != nil {
		return err
	}
	return c.writeEntity(ctx, ws, scope, func(w *entityWriter) error {
		values, err := w.s.convertValues(raw, false)
		if err != nil {
			return err
		}
		if err := w.add(id, values); err == errExists {
			return apierr.Conflictf("%s %q already exists", entityKind(scope), id)
		} else {
			return err
		}
	})
}

// UpdateEntity changes the given attribute values of an entity; a JSON
// null removes a value.
func (c *Catalog) UpdateEntity(ctx context.Context, ws int64, scope, id string, raw map[string]any) error {
	if err := validateEntityID(scope, id); err != nil {
		return err
	}
	return c.writeEntity(ctx, ws, scope, func(w *entityWriter) error {
		values, err := w.s.convertValues(raw, true)
		if err != nil {
			return err
		}
		if err := w.patch(id, values); err == sql.ErrNoRows {
			return apierr.NotFoundf("%s %q not found", entityKind(scope), id)
		} else {
			return err
		}
	})
}

func (c *Catalog) writeEntity(ctx context.Context, ws int64, scope string, fn func(*entityWriter) error) error {
	tx, err := c.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	s, err := c.schema(ctx, tx, ws, scope)
	if err != nil {
		return err
	}
	w, err := c.newEntityWriter(ctx, tx, ws, s)
	if err != nil {
		return err
	}
	defer w.close()
	if err := fn(w); err != nil {
		return err
	}
	return c.commit(ctx, tx, ws, scope)
}

// Entity returns one item or user.
func (c *Catalog) Entity(ctx context.Context, ws int64, scope, id string) (Entity, error) {
	if err := validateEntityID(scope, id); err != nil {
		return Entity{}, err
	}
	s, err := c.schema(ctx, c.db, ws, scope)
	if err != nil {
		return Entity{}, err
	}
	var doc string
	err = c.db.QueryRowContext(ctx, `SELECT doc FROM recomm_entities WHERE ws = $1 AND scope = $2 AND id = $3`, ws, scope, id).Scan(&doc)
	if err == sql.ErrNoRows {
		return Entity{}, apierr.NotFoundf("%s %q not found", entityKind(scope), id)
	}
	if err != nil {
		return Entity{}, err
	}
	values, err := s.decodeDoc(doc)
	return Entity{ID: id, Values: values}, err
}

// DeleteEntity deletes an item or a user with its values, interactions and
// (users) keywords.
func (c *Catalog) DeleteEntity(ctx context.Context, ws int64, scope, id string) error {
	if err := validateEntityID(scope, id); err != nil {
		return err
	}
	tx, err := c.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := c.scopeExists(ctx, tx, ws, scope); err != nil {
		return err
	}
	var eid int64
	err = tx.QueryRowContext(ctx, `SELECT eid FROM recomm_entities WHERE ws = $1 AND scope = $2 AND id = $3`, ws, scope, id).Scan(&eid)
	if err == sql.ErrNoRows {
		return apierr.NotFoundf("%s %q not found", entityKind(scope), id)
	}
	if err != nil {
		return err
	}
	// each statement gets exactly the arguments it names: PostgreSQL
	// refuses more, or a gap in the numbers
	stmts := []stmt{
		{`DELETE FROM recomm_index WHERE eid = $1`, []any{eid}},
		{`DELETE FROM recomm_entities WHERE eid = $1`, []any{eid}},
	}
	if scope == Users {
		stmts = append(stmts,
			stmt{`DELETE FROM recomm_interactions WHERE def IN (SELECT key FROM recomm_interaction_defs WHERE ws = $2) AND "user" = $1`, []any{eid, ws}},
			stmt{`DELETE FROM recomm_keywords WHERE ws = $1 AND "user" = $2`, []any{ws, id}})
	} else {
		stmts = append(stmts,
			stmt{`DELETE FROM recomm_interactions WHERE def IN (SELECT key FROM recomm_interaction_defs WHERE ws = $2 AND tbl = $3) AND item = $1`, []any{eid, ws, scope}})
	}
	for _, s := range stmts {
		if _, err := tx.ExecContext(ctx, s.q, s.args...); err != nil {
			return fmt.Errorf("delete %s %s: %w", entityKind(scope), id, err)
		}
	}
	return c.commit(ctx, tx, ws, scope)
}

// DeleteAllUsers deletes every user of a workspace with their values,
// interactions and keywords.
func (c *Catalog) DeleteAllUsers(ctx context.Context, ws int64) error {
	if err := c.checkUnlocked(ws, Users); err != nil {
		return err
	}
	tx, err := c.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, q := range []string{
		`DELETE FROM recomm_interactions WHERE def IN (SELECT key FROM recomm_interaction_defs WHERE ws = $1)`,
		`DELETE FROM recomm_index WHERE eid IN (SELECT eid FROM recomm_entities WHERE ws = $1 AND scope = '')`,
		`DELETE FROM recomm_entities WHERE ws = $1 AND scope = ''`,
		`DELETE FROM recomm_keywords WHERE ws = $1`,
	} {
		if _, err := tx.ExecContext(ctx, q, ws); err != nil {
			return fmt.Errorf("delete users: %w", err)
		}
	}
	return c.commit(ctx, tx, ws, Users)
}

// ListQuery selects and pages entities. Filter and Sort are RSQL; Limit 0
// means DefaultLimit; AfterID continues after that id in the order.
type ListQuery struct {
	Filter  string
	Sort    string
	Limit   int
	AfterID string
	// Search keeps the entities whose display attribute (DisplayAttribute) or id contains it, in any
	// case.
	Search string
}

// CheckLimit applies the default and the bounds of a limit.
func CheckLimit(limit int) (int, error) {
	switch {
	case limit == 0:
		return DefaultLimit, nil
	case limit < 0 || limit > MaxLimit:
		return 0, apierr.InvalidArgumentf("limit must be between 1 and %d", MaxLimit)
	}
	return limit, nil
}

// List returns the entities of a scope that satisfy the filter, in id
// order or in the sort order (ties by id). A filter naming only indexed
// attributes is answered from the index without walking the scope; a
// sorted listing sorts the matching entities in memory.
func (c *Catalog) List(ctx context.Context, ws int64, scope string, q ListQuery) ([]Entity, error) {
	limit, err := CheckLimit(q.Limit)
	if err != nil {
		return nil, err
	}
	s, err := c.schema(ctx, c.db, ws, scope)
	if err != nil {
		return nil, err
	}
	var keys []rsql.SortKey
	if q.Sort != "" {
		if keys, err = rsql.ParseSort(q.Sort, s.rsqlSchema()); err != nil {
			return nil, apierr.InvalidArgumentf("sort: %v", err)
		}
	}
	search := strings.ToLower(strings.TrimSpace(q.Search))
	display := ""
	if search != "" {
		if display, err = c.DisplayAttribute(ctx, ws, scope); err != nil {
			return nil, err
		}
	}
	query, args, err := c.listSQL(s, ws, q.Filter, q.AfterID, keys == nil && search == "", limit)
	if err != nil {
		return nil, err
	}
	rows, err := c.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("list %ss: %w", entityKind(scope), err)
	}
	defer rows.Close()
	out := []Entity{}
	for rows.Next() {
		var id, doc string
		if err := rows.Scan(&id, &doc); err != nil {
			return nil, err
		}
		values, err := s.decodeDoc(doc)
		if err != nil {
			return nil, err
		}
		if search != "" && !matches(search, id, values[display]) {
			continue
		}
		out = append(out, Entity{ID: id, Values: values})
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if keys == nil && search == "" {
		return out, nil
	}
	slices.SortStableFunc(out, func(a, b Entity) int {
		if r := rsql.Compare(keys, a, b); r != 0 {
			return r
		}
		return CompareIDs(a.ID, b.ID)
	})
	return page(out, q.AfterID, limit, func(e Entity) string { return e.ID })
}

// matches reports whether a lowercased search text is in an id or a display value.
func matches(search, id string, display any) bool {
	if strings.Contains(strings.ToLower(id), search) {
		return true
	}
	switch v := display.(type) {
	case string:
		return strings.Contains(strings.ToLower(v), search)
	case []string:
		return slices.ContainsFunc(v, func(x string) bool { return strings.Contains(strings.ToLower(x), search) })
	}
	return false
}

// page cuts the page after afterID; an afterID not in the list is a 400.
func page[T any](list []T, afterID string, limit int, id func(T) string) ([]T, error) {
	start := 0
	if afterID != "" {
		i := slices.IndexFunc(list, func(x T) bool { return id(x) == afterID })
		if i < 0 {
			return nil, apierr.InvalidArgumentf("afterId %q is not in the result", afterID)
		}
		start = i + 1
	}
	end := min(start+limit, len(list))
	return list[start:end], nil
}

// listSQL builds the statement List runs; a paged one orders and limits in SQL.
func (c *Catalog) listSQL(s *schema, ws int64, filter, afterID string, paged bool, limit int) (string, []any, error) {
	var b bytes.Buffer
	var args []any
	var f *rsql.Filter
	if filter != "" {
		var err error
		if f, err = rsql.ParseChecked(filter, s.rsqlSchema()); err != nil {
			return "", nil, apierr.InvalidArgumentf("filter: %v", err)
		}
	}
	// ws and scope are $1 and $2, the filter's arguments follow
	args = []any{ws, s.scope}
	next := func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	layout := s.layout()
	layout.FirstArg = 3
	if f != nil && f.Indexed(layout) {
		set, setArgs := f.IDSetSQL(layout)
		b.WriteString("SELECT e.id, e.doc FROM (" + set + ") AS m " + c.d.idSetJoin + " recomm_entities AS e ON e.eid = m.eid WHERE e.ws = $1 AND e.scope = $2")
		args = append(args, setArgs...)
	} else {
		b.WriteString("SELECT e.id, e.doc FROM recomm_entities AS e WHERE e.ws = $1 AND e.scope = $2")
		if f != nil {
			w, wArgs := f.WhereSQL(layout)
			b.WriteString(" AND " + w)
			args = append(args, wArgs...)
		}
	}
	if paged {
		if afterID != "" {
			n := next(utf8.RuneCountInString(afterID))
			b.WriteString(" AND (length(e.id) > " + n + " OR (length(e.id) = " + n + " AND e.id > " + next(afterID) + "))")
		}
		b.WriteString(" ORDER BY length(e.id), e.id LIMIT " + next(limit))
	}
	return b.String(), args, nil
}
