package catalog

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/harkhq/hark/server/apierr"
	"github.com/harkhq/hark/server/recomm/rsql"
	"github.com/harkhq/hark/server/store"
)

// ExpirationAttribute is the timestamp every table has; an item whose
// expiration has passed is never recommended.
const ExpirationAttribute = "expiration"

// Attribute is an item or user attribute definition.
type Attribute struct {
	ID      string
	Type    rsql.Type
	Indexed bool
	// Values restricts a category or categoryList attribute; nil accepts any string.
	Values []string
}

func (a Attribute) validate() error {
	if err := validateID("attributeId", a.ID, MaxAttributeIDLen); err != nil {
		return err
	}
	if a.Type == rsql.Invalid {
		return apierr.InvalidArgumentf("attribute %q: type is required (int, double, string, boolean, timestamp, set, category, categoryList, image, imageList)", a.ID)
	}
	if a.Indexed && (a.Type == rsql.Set || a.Type == rsql.ImageList) {
		return apierr.InvalidArgumentf("attribute %q: %s attributes cannot be indexed", a.ID, a.Type)
	}
	if a.Values != nil && a.Type != rsql.Category && a.Type != rsql.CategoryList {
		return apierr.InvalidArgumentf("attribute %q: values apply only to category and categoryList attributes", a.ID)
	}
	for _, v := range a.Values {
		if v == "" {
			return apierr.InvalidArgumentf("attribute %q: empty category value", a.ID)
		}
	}
	return nil
}

// AddAttributes defines attributes of a scope (a table, or Users).
func (c *Catalog) AddAttributes(ctx context.Context, ws int64, scope string, attrs []Attribute) error {
	if len(attrs) == 0 {
		return apierr.InvalidArgumentf("attributes: at least one attribute is required")
	}
	if err := c.scopeExists(ctx, c.db, ws, scope); err != nil {
		return err
	}
	if err := c.checkUnlocked(ws, scope); err != nil {
		return err
	}
	tx, err := c.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := c.addAttributes(ctx, tx, ws, scope, attrs); err != nil {
		return err
	}
	return c.commit(ctx, tx, ws, scope)
}

func (c *Catalog) addAttributes(ctx context.Context, tx *sql.Tx, ws int64, scope string, attrs []Attribute) error {
	var indexed int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM recomm_attributes WHERE ws = $1 AND scope = $2 AND indexed = 1`,
		ws, scope).Scan(&indexed); err != nil {
		return err
	}
	seen := map[string]bool{}
	for _, a := range attrs {
		if err := a.validate(); err != nil {
			return err
		}
		if seen[a.ID] {
			return apierr.InvalidArgumentf("attribute %q is given twice", a.ID)
		}
		seen[a.ID] = true
		if a.Indexed {
			indexed++
			if indexed > MaxIndexed {
				return apierr.InvalidArgumentf("at most %d attributes of a %s may be indexed", MaxIndexed, entityKind(scope))
			}
		}
		var vals any
		if a.Values != nil {
			enc, _ := json.Marshal(dedupe(a.Values))
			vals = string(enc)
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO recomm_attributes(ws, scope, id, type, indexed, vals) VALUES($1, $2, $3, $4, $5, $6)`,
			ws, scope, a.ID, a.Type.String(), store.Flag(a.Indexed), vals)
		if isUniqueViolation(err) {
			return apierr.Conflictf("attribute %q already exists", a.ID)
		}
		if err != nil {
			return fmt.Errorf("add attribute %s: %w", a.ID, err)
		}
	}
	return nil
}

func dedupe(vs []string) []string {
	out := make([]string, 0, len(vs))
	for _, v := range vs {
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

// AddAttributeValues adds allowed values to a categorical attribute.
func (c *Catalog) AddAttributeValues(ctx context.Context, ws int64, scope, id string, values []string) error {
	if len(values) == 0 {
		return apierr.InvalidArgumentf("values: at least one value is required")
	}
	a, err := c.Attribute(ctx, ws, scope, id)
	if err != nil {
		return err
	}
	if a.Type != rsql.Category && a.Type != rsql.CategoryList {
		return apierr.InvalidArgumentf("attribute %q is %s; values apply only to category and categoryList attributes", id, a.Type)
	}
	if err := c.checkUnlocked(ws, scope); err != nil {
		return err
	}
	for _, v := range values {
		if v == "" {
			return apierr.InvalidArgumentf("values: empty category value")
		}
	}
	enc, _ := json.Marshal(dedupe(append(a.Values, values...)))
	tx, err := c.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `UPDATE recomm_attributes SET vals = $1 WHERE ws = $2 AND scope = $3 AND id = $4`,
		string(enc), ws, scope, id); err != nil {
		return err
	}
	return c.commit(ctx, tx, ws, scope)
}

// Attribute returns one attribute definition.
func (c *Catalog) Attribute(ctx context.Context, ws int64, scope, id string) (Attribute, error) {
	s, err := c.schema(ctx, c.db, ws, scope)
	if err != nil {
		return Attribute{}, err
	}
	a, ok := s.byID[id]
	if !ok {
		return Attribute{}, apierr.NotFoundf("attribute %q not found", id)
	}
	return a.Attribute, nil
}

// Attributes lists a scope's attribute definitions in creation order.
func (c *Catalog) Attributes(ctx context.Context, ws int64, scope string) ([]Attribute, error) {
	s, err := c.schema(ctx, c.db, ws, scope)
	if err != nil {
		return nil, err
	}
	out := make([]Attribute, len(s.list))
	for i, a := range s.list {
		out[i] = a.Attribute
	}
	return out, nil
}

// DeleteAttribute removes an attribute and its values.
func (c *Catalog) DeleteAttribute(ctx context.Context, ws int64, scope, id string) error {
	s, err := c.schema(ctx, c.db, ws, scope)
	if err != nil {
		return err
	}
	a, ok := s.byID[id]
	if !ok {
		return apierr.NotFoundf("attribute %q not found", id)
	}
	if scope != Users && id == ExpirationAttribute {
		return apierr.InvalidArgumentf("attribute %q belongs to every table and cannot be deleted", id)
	}
	if err := c.checkUnlocked(ws, scope); err != nil {
		return err
	}
	tx, err := c.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `DELETE FROM recomm_index WHERE attr = $1`, a.key); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE recomm_entities SET doc = `+c.d.removeAttribute+` WHERE ws = $2 AND scope = $3`,
		id, ws, scope); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM recomm_attributes WHERE key = $1`, a.key); err != nil {
		return err
	}
	return c.commit(ctx, tx, ws, scope)
}

// schema is the attribute definitions of a scope, as the entity code needs them.
type schema struct {
	scope    string
	postgres bool // filters compile for PostgreSQL
	list     []storedAttribute
	byID     map[string]*storedAttribute
}

type storedAttribute struct {
	Attribute
	key int64
}

func (c *Catalog) schema(ctx context.Context, q querier, ws int64, scope string) (*schema, error) {
	if err := c.scopeExists(ctx, q, ws, scope); err != nil {
		return nil, err
	}
	rows, err := q.QueryContext(ctx, `SELECT key, id, type, indexed, vals FROM recomm_attributes
		WHERE ws = $1 AND scope = $2 ORDER BY key`, ws, scope)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	s := &schema{scope: scope, postgres: c.d.shared, byID: map[string]*storedAttribute{}}
	for rows.Next() {
		var a storedAttribute
		var typ string
		var vals sql.NullString
		if err := rows.Scan(&a.key, &a.ID, &typ, &a.Indexed, &vals); err != nil {
			return nil, err
		}
		a.Type, _ = rsql.ParseType(typ)
		if vals.Valid {
			if err := json.Unmarshal([]byte(vals.String), &a.Values); err != nil {
				return nil, fmt.Errorf("attribute %s values: %w", a.ID, err)
			}
		}
		s.list = append(s.list, a)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for i := range s.list {
		s.byID[s.list[i].ID] = &s.list[i]
	}
	return s, nil
}

// rsqlSchema is the schema a filter on this scope is checked against.
func (s *schema) rsqlSchema() rsql.Schema {
	out := make(rsql.Schema, len(s.list))
	for _, a := range s.list {
		out[a.ID] = a.Type
	}
	return out
}

func (s *schema) layout() rsql.SQLLayout {
	return rsql.SQLLayout{EntityID: "e.eid", Doc: "e.doc", IndexTable: "recomm_index", Postgres: s.postgres,
		IndexKey: func(attr string) (int64, bool) {
			a, ok := s.byID[attr]
			if !ok || !a.Indexed {
				return 0, false
			}
			return a.key, true
		}}
}

// convert turns one value from a request body or a JSON file into its Go
// form, checking the type and the allowed category values.
func (s *schema) convert(attr string, raw any) (any, error) {
	a, ok := s.byID[attr]
	if !ok {
		return nil, fmt.Errorf("unknown attribute %q (attributes must be defined before values are stored)", attr)
	}
	v, err := rsql.FromJSON(a.Type, raw)
	if err != nil {
		return nil, fmt.Errorf("attribute %q: %v", attr, err)
	}
	return a.checkAllowed(v)
}

// convertText turns one CSV cell into its Go form.
func (s *schema) convertText(attr, text string) (any, error) {
	a, ok := s.byID[attr]
	if !ok {
		return nil, fmt.Errorf("unknown attribute %q (attributes must be defined before values are stored)", attr)
	}
	v, err := rsql.ParseValue(a.Type, text)
	if err != nil {
		return nil, fmt.Errorf("attribute %q: %v", attr, err)
	}
	return a.checkAllowed(v)
}

func (a *storedAttribute) checkAllowed(v any) (any, error) {
	if a.Values == nil {
		return v, nil
	}
	var members []string
	switch x := v.(type) {
	case string:
		members = []string{x}
	case []string:
		members = x
	}
	for _, m := range members {
		if !slices.Contains(a.Values, m) {
			return nil, fmt.Errorf("attribute %q: %q is not one of its values", a.ID, m)
		}
	}
	return v, nil
}
