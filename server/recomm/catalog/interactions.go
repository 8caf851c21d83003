package catalog

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/harkhq/hark/server/apierr"
	"github.com/harkhq/hark/server/recomm/rsql"
	"github.com/harkhq/hark/server/store"
)

// Interaction types and polarities.
const (
	Unary       = "unary"
	Binary      = "binary"
	Categorical = "categorical"
	Continuous  = "continuous"
	Positive    = "positive"
	Negative    = "negative"
)

// InteractionDef is an interaction definition of a table. Min and Max are
// nil when not given; Normalize fills the defaults of the type.
type InteractionDef struct {
	ID         string
	Weight     float64
	Cumulative bool
	Type       string
	Polarity   string
	Min, Max   *float64
}

// Bounds returns the value range (±Inf for an open continuous range).
func (d InteractionDef) Bounds() (float64, float64) {
	lo, hi := math.Inf(-1), math.Inf(1)
	if d.Min != nil {
		lo = *d.Min
	}
	if d.Max != nil {
		hi = *d.Max
	}
	return lo, hi
}

func fptr(f float64) *float64 { return &f }

// Normalize checks a definition and fills the defaults of its type.
func (d *InteractionDef) Normalize() error {
	if err := validateID("interactionId", d.ID, MaxAttributeIDLen); err != nil {
		return err
	}
	if math.IsNaN(d.Weight) || d.Weight < 0 || d.Weight > 10 {
		return apierr.InvalidArgumentf("weight must be between 0.0 and 10.0")
	}
	switch d.Polarity {
	case "":
		d.Polarity = Positive
	case Positive, Negative:
	default:
		return apierr.InvalidArgumentf("polarity must be positive or negative, not %q", d.Polarity)
	}
	for _, p := range []*float64{d.Min, d.Max} {
		if p != nil && math.IsNaN(*p) {
			return apierr.InvalidArgumentf("minValue and maxValue must be numbers")
		}
	}
	switch d.Type {
	case Unary:
		if d.Min == nil && d.Max == nil {
			d.Min, d.Max = fptr(1), fptr(1)
		} else if d.Min == nil {
			d.Min = fptr(*d.Max)
		} else if d.Max == nil {
			d.Max = fptr(*d.Min)
		}
		if *d.Min != *d.Max {
			return apierr.InvalidArgumentf("a unary interaction has one value: minValue and maxValue must be equal")
		}
	case Binary:
		if d.Min == nil {
			d.Min = fptr(0)
		}
		if d.Max == nil {
			d.Max = fptr(1)
		}
		if *d.Min >= *d.Max {
			return apierr.InvalidArgumentf("a binary interaction has two values: minValue must be less than maxValue")
		}
	case Categorical:
		if d.Min == nil || d.Max == nil {
			return apierr.InvalidArgumentf("a categorical interaction needs minValue and maxValue")
		}
		if *d.Min != math.Trunc(*d.Min) || *d.Max != math.Trunc(*d.Max) || math.IsInf(*d.Min, 0) || math.IsInf(*d.Max, 0) {
			return apierr.InvalidArgumentf("minValue and maxValue of a categorical interaction must be integers")
		}
	case Continuous:
	default:
		return apierr.InvalidArgumentf("type must be unary, binary, categorical or continuous, not %q", d.Type)
	}
	lo, hi := d.Bounds()
	if lo > hi {
		return apierr.InvalidArgumentf("minValue must be less than or equal to maxValue")
	}
	return nil
}

// CheckValue validates one recorded value against the definition; a
// unary interaction takes its single value when none is given.
func (d InteractionDef) CheckValue(v *float64) (float64, error) {
	if v == nil {
		if d.Type == Unary {
			return *d.Min, nil
		}
		return 0, fmt.Errorf("value is required for a %s interaction", d.Type)
	}
	x := *v
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return 0, fmt.Errorf("value must be a finite number")
	}
	lo, hi := d.Bounds()
	switch d.Type {
	case Unary, Binary:
		if x != lo && x != hi {
			return 0, fmt.Errorf("value %v is not a value of %s interaction %q (%v or %v)", x, d.Type, d.ID, lo, hi)
		}
	case Categorical:
		if x != math.Trunc(x) {
			return 0, fmt.Errorf("value %v of categorical interaction %q must be an integer", x, d.ID)
		}
		fallthrough
	default:
		if x < lo || x > hi {
			return 0, fmt.Errorf("value %v of interaction %q is outside [%v, %v]", x, d.ID, lo, hi)
		}
	}
	return x, nil
}

// CreateInteraction adds an interaction definition to a table.
func (c *Catalog) CreateInteraction(ctx context.Context, ws int64, table string, d InteractionDef) error {
	if err := c.tableExists(ctx, c.db, ws, table); err != nil {
		return err
	}
	if err := d.Normalize(); err != nil {
		return err
	}
	if err := c.checkUnlocked(ws, table); err != nil {
		return err
	}
	// the cached interaction types (definitions.go)
	_, err := c.execRecords(ctx, ws, `INSERT INTO recomm_interaction_defs(ws, tbl, id, weight, cumulative, type, polarity, minv, maxv)
		VALUES($1, $2, $3, $4, $5, $6, $7, $8, $9)`, ws, table, d.ID, d.Weight, store.Flag(d.Cumulative), d.Type, d.Polarity, d.Min, d.Max)
	if isUniqueViolation(err) {
		return apierr.Conflictf("interaction %q already exists", d.ID)
	}
	return err
}

// UpdateInteraction changes the weight and/or renames a definition.
func (c *Catalog) UpdateInteraction(ctx context.Context, ws int64, table, id string, weight *float64, newID string) error {
	if weight == nil && newID == "" {
		return apierr.InvalidArgumentf("weight or interactionId is required")
	}
	d, err := c.Interaction(ctx, ws, table, id)
	if err != nil {
		return err
	}
	if weight != nil {
		d.Weight = *weight
	}
	if newID != "" {
		d.ID = newID
	}
	if err := d.Normalize(); err != nil {
		return err
	}
	// histories carry the definition
	_, err = c.execRecords(ctx, ws, `UPDATE recomm_interaction_defs SET id = $1, weight = $2 WHERE ws = $3 AND tbl = $4 AND id = $5`,
		d.ID, d.Weight, ws, table, id)
	if isUniqueViolation(err) {
		return apierr.Conflictf("interaction %q already exists", d.ID)
	}
	return err
}

// Interaction returns one definition.
func (c *Catalog) Interaction(ctx context.Context, ws int64, table, id string) (InteractionDef, error) {
	defs, err := c.interactionDefs(ctx, c.db, ws, table)
	if err != nil {
		return InteractionDef{}, err
	}
	for _, d := range defs {
		if d.ID == id {
			return d.InteractionDef, nil
		}
	}
	return InteractionDef{}, apierr.NotFoundf("interaction %q not found", id)
}

// Interactions lists a table's definitions by id.
func (c *Catalog) Interactions(ctx context.Context, ws int64, table string) ([]InteractionDef, error) {
	defs, err := c.interactionDefs(ctx, c.db, ws, table)
	if err != nil {
		return nil, err
	}
	out := make([]InteractionDef, len(defs))
	for i, d := range defs {
		out[i] = d.InteractionDef
	}
	return out, nil
}

// DeleteInteraction deletes a definition with all its records.
func (c *Catalog) DeleteInteraction(ctx context.Context, ws int64, table, id string) error {
	d, err := c.storedInteraction(ctx, ws, table, id)
	if err != nil {
		return err
	}
	if err := c.checkUnlocked(ws, table); err != nil {
		return err
	}
	tx, err := c.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `DELETE FROM recomm_interactions WHERE def = $1`, d.key); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM recomm_interaction_defs WHERE key = $1`, d.key); err != nil {
		return err
	}
	return c.commitRecords(ctx, tx, ws)
}

type storedInteraction struct {
	InteractionDef
	key int64
}

func (c *Catalog) storedInteraction(ctx context.Context, ws int64, table, id string) (storedInteraction, error) {
	defs, err := c.interactionDefs(ctx, c.db, ws, table)
	if err != nil {
		return storedInteraction{}, err
	}
	for _, d := range defs {
		if d.ID == id {
			return d, nil
		}
	}
	return storedInteraction{}, apierr.NotFoundf("interaction %q not found", id)
}

// interactionDefs lists a table's interaction types; read through c.db they come from memory while
// the workspace has had no write since they were read (definitions.go). A transaction reads SQL.
func (c *Catalog) interactionDefs(ctx context.Context, q querier, ws int64, table string) ([]storedInteraction, error) {
	if q != querier(c.db) {
		return c.loadInteractionDefs(ctx, q, ws, table)
	}
	if c.NoHistoryCache {
		return c.loadInteractionDefs(ctx, q, ws, table)
	}
	k := tableKey{ws, table}
	gen, err := c.generation(ctx, ws, recordsScope)
	if err != nil {
		return nil, err
	}
	if defs, ok := c.cachedDefs(k, gen); ok {
		return defs, nil
	}
	defs, err := c.loadInteractionDefs(ctx, q, ws, table)
	if err != nil {
		return nil, err
	}
	c.keepDefs(k, gen, defs)
	return slices.Clone(defs), nil
}

func (c *Catalog) loadInteractionDefs(ctx context.Context, q querier, ws int64, table string) ([]storedInteraction, error) {
	if err := c.tableExists(ctx, q, ws, table); err != nil {
		return nil, err
	}
	rows, err := q.QueryContext(ctx, `SELECT key, id, weight, cumulative, type, polarity, minv, maxv
		FROM recomm_interaction_defs WHERE ws = $1 AND tbl = $2 ORDER BY id`, ws, table)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []storedInteraction
	for rows.Next() {
		var d storedInteraction
		var lo, hi sql.NullFloat64
		if err := rows.Scan(&d.key, &d.ID, &d.Weight, &d.Cumulative, &d.Type, &d.Polarity, &lo, &hi); err != nil {
			return nil, err
		}
		if lo.Valid {
			d.Min = fptr(lo.Float64)
		}
		if hi.Valid {
			d.Max = fptr(hi.Float64)
		}
		out = append(out, d)
	}
	return out, rows.Err()
}

// Record is one stored user-item interaction, as listings return it.
type Record struct {
	UserID    string
	ItemID    string
	Timestamp int64
	Value     float64
}

// recordValues exposes a record's fields to RSQL filters and sorts.
type recordValues struct{ r Record }

func (rv recordValues) Value(attr string) (any, bool) {
	r := rv.r
	switch attr {
	case "userId":
		return r.UserID, true
	case "itemId":
		return r.ItemID, true
	case "timestamp":
		return r.Timestamp, true
	case "value":
		return r.Value, true
	}
	return nil, false
}

var recordSchema = rsql.Schema{"userId": rsql.String, "itemId": rsql.String, "timestamp": rsql.Timestamp, "value": rsql.Double}

// upsert statements: a repeated record (same user, item, timestamp) adds
// its value when the interaction is cumulative and replaces it otherwise.
// The record then belongs to this write, not to an import in progress
// that added it (job, see journal.go), so undoing that import keeps it.
const (
	upsertReplace = `INSERT INTO recomm_interactions(def, "user", item, ts, value) VALUES($1, $2, $3, $4, $5)
		ON CONFLICT(def, "user", item, ts) DO UPDATE SET value = excluded.value, job = NULL`
	upsertAdd = `INSERT INTO recomm_interactions(def, "user", item, ts, value) VALUES($1, $2, $3, $4, $5)
		ON CONFLICT(def, "user", item, ts) DO UPDATE SET value = recomm_interactions.value + excluded.value, job = NULL`
)

// AddRecord records one interaction; timestamp nil means now.
func (c *Catalog) AddRecord(ctx context.Context, ws int64, table, interactionID, userID, itemID string, timestamp *int64, value *float64) error {
	d, err := c.storedInteraction(ctx, ws, table, interactionID)
	if err != nil {
		return err
	}
	v, err := d.CheckValue(value)
	if err != nil {
		return apierr.InvalidArgumentf("%v", err)
	}
	ts := time.Now().UnixMilli()
	if timestamp != nil {
		ts = *timestamp
	}
	user, item, err := c.pair(ctx, ws, table, userID, itemID)
	if err != nil {
		return err
	}
	// the pair's latest value so far, which training uses for a type that is not cumulative
	var latestTS sql.NullInt64
	var latest float64
	if c.Recorded != nil && !d.Cumulative {
		err := c.db.QueryRowContext(ctx, `SELECT ts, value FROM recomm_interactions WHERE def = $1 AND "user" = $2 AND item = $3
			ORDER BY ts DESC LIMIT 1`, d.key, user, item).Scan(&latestTS, &latest)
		if err != nil && err != sql.ErrNoRows {
			return err
		}
	}
	q := upsertReplace
	if d.Cumulative {
		q = upsertAdd
	}
	if _, err := c.execRecords(ctx, ws, q, d.key, user, item, ts, v); err != nil {
		return fmt.Errorf("record interaction: %w", err)
	}
	if c.Recorded != nil {
		change := v
		switch {
		case !latestTS.Valid || d.Cumulative:
		case ts < latestTS.Int64:
			change = 0 // an older record: the latest value stays
		default:
			change = v - latest
		}
		c.Recorded(ws, table, Event{Def: d.InteractionDef, UserID: userID, ItemID: itemID, Timestamp: ts, Value: change})
	}
	return nil
}

// pair resolves a user and an item to their row ids, 404 when unknown.
func (c *Catalog) pair(ctx context.Context, ws int64, table, userID, itemID string) (int64, int64, error) {
	if err := validateEntityID(Users, userID); err != nil {
		return 0, 0, err
	}
	if err := validateEntityID(table, itemID); err != nil {
		return 0, 0, err
	}
	var user, item int64
	err := c.db.QueryRowContext(ctx, `SELECT eid FROM recomm_entities WHERE ws = $1 AND scope = '' AND id = $2`, ws, userID).Scan(&user)
	if err == sql.ErrNoRows {
		return 0, 0, apierr.NotFoundf("user %q not found", userID)
	}
	if err != nil {
		return 0, 0, err
	}
	err = c.db.QueryRowContext(ctx, `SELECT eid FROM recomm_entities WHERE ws = $1 AND scope = $2 AND id = $3`, ws, table, itemID).Scan(&item)
	if err == sql.ErrNoRows {
		return 0, 0, apierr.NotFoundf("item %q not found", itemID)
	}
	return user, item, err
}

// DeleteRecord deletes the record identified by user, item and timestamp.
func (c *Catalog) DeleteRecord(ctx context.Context, ws int64, table, interactionID, userID, itemID string, timestamp int64) error {
	d, err := c.storedInteraction(ctx, ws, table, interactionID)
	if err != nil {
		return err
	}
	user, item, err := c.pair(ctx, ws, table, userID, itemID)
	if err != nil {
		return err
	}
	res, err := c.execRecords(ctx, ws, `DELETE FROM recomm_interactions WHERE def = $1 AND "user" = $2 AND item = $3 AND ts = $4`,
		d.key, user, item, timestamp)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return apierr.NotFoundf("no %s interaction of user %q with item %q at %d", interactionID, userID, itemID, timestamp)
	}
	return nil
}

// ItemRecords lists the records of one interaction on an item (the user
// side is filled), filtered on userId, timestamp and value.
func (c *Catalog) ItemRecords(ctx context.Context, ws int64, table, itemID, interactionID string, q ListQuery) ([]Record, error) {
	return c.records(ctx, ws, table, interactionID, table, itemID, q)
}

// UserRecords lists the records of one interaction by a user (the item
// side is filled), filtered on itemId, timestamp and value.
func (c *Catalog) UserRecords(ctx context.Context, ws int64, table, userID, interactionID string, q ListQuery) ([]Record, error) {
	return c.records(ctx, ws, table, interactionID, Users, userID, q)
}

func (c *Catalog) records(ctx context.Context, ws int64, table, interactionID, scope, id string, q ListQuery) ([]Record, error) {
	limit, err := CheckLimit(q.Limit)
	if err != nil {
		return nil, err
	}
	d, err := c.storedInteraction(ctx, ws, table, interactionID)
	if err != nil {
		return nil, err
	}
	if err := validateEntityID(scope, id); err != nil {
		return nil, err
	}
	var f *rsql.Filter
	if q.Filter != "" {
		if f, err = rsql.ParseChecked(q.Filter, recordSchema); err != nil {
			return nil, apierr.InvalidArgumentf("filter: %v", err)
		}
	}
	var keys []rsql.SortKey
	if q.Sort != "" {
		if keys, err = rsql.ParseSort(q.Sort, recordSchema); err != nil {
			return nil, apierr.InvalidArgumentf("sort: %v", err)
		}
	}
	var eid int64
	err = c.db.QueryRowContext(ctx, `SELECT eid FROM recomm_entities WHERE ws = $1 AND scope = $2 AND id = $3`, ws, scope, id).Scan(&eid)
	if err == sql.ErrNoRows {
		return nil, apierr.NotFoundf("%s %q not found", entityKind(scope), id)
	}
	if err != nil {
		return nil, err
	}
	query := `SELECT u.id, i.id, r.ts, r.value FROM recomm_interactions r
		JOIN recomm_entities u ON u.eid = r."user" JOIN recomm_entities i ON i.eid = r.item
		WHERE r.def = $1 AND r."user" = $2`
	if scope != Users {
		query = `SELECT u.id, i.id, r.ts, r.value FROM recomm_interactions r
		JOIN recomm_entities u ON u.eid = r."user" JOIN recomm_entities i ON i.eid = r.item
		WHERE r.def = $1 AND r.item = $2`
	}
	rows, err := c.db.QueryContext(ctx, query, d.key, eid)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []Record{}
	for rows.Next() {
		var r Record
		if err := rows.Scan(&r.UserID, &r.ItemID, &r.Timestamp, &r.Value); err != nil {
			return nil, err
		}
		if f == nil || f.Eval(recordValues{r}) {
			out = append(out, r)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	other := func(r Record) string { return r.ItemID }
	if scope != Users {
		other = func(r Record) string { return r.UserID }
	}
	// a record's key within the listing: the other side and the timestamp
	key := func(r Record) string { return fmt.Sprintf("%s\x00%020d", other(r), r.Timestamp) }
	slices.SortStableFunc(out, func(a, b Record) int {
		if r := rsql.Compare(keys, recordValues{a}, recordValues{b}); r != 0 {
			return r
		}
		return strings.Compare(key(a), key(b))
	})
	return page(out, q.AfterID, limit, other)
}
