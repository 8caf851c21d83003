package catalog

import (
	"context"
	"database/sql"
	"slices"
)

// Event is one stored interaction record with its definition, for
// training and for the history of a subject.
type Event struct {
	Def       InteractionDef
	UserID    string
	ItemID    string
	Timestamp int64
	Value     float64
}

// EachRecord calls fn for every interaction record of a table, ordered by
// interaction, user, item and timestamp, so callers can fold repeated
// records of one pair as they stream by.
func (c *Catalog) EachRecord(ctx context.Context, ws int64, table string, fn func(Event) error) error {
	defs, err := c.interactionDefs(ctx, c.db, ws, table)
	if err != nil {
		return err
	}
	for _, d := range defs {
		if err := c.eachRecordOf(ctx, d, `r.def = $1`, []any{d.key}, fn); err != nil {
			return err
		}
	}
	return nil
}

func (c *Catalog) eachRecordOf(ctx context.Context, d storedInteraction, where string, args []any, fn func(Event) error) error {
	rows, err := c.db.QueryContext(ctx, `SELECT u.id, i.id, r.ts, r.value FROM recomm_interactions r
		JOIN recomm_entities u ON u.eid = r."user" JOIN recomm_entities i ON i.eid = r.item
		WHERE `+where+` ORDER BY r.user, r.item, r.ts`, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		e := Event{Def: d.InteractionDef}
		if err := rows.Scan(&e.UserID, &e.ItemID, &e.Timestamp, &e.Value); err != nil {
			return err
		}
		if err := fn(e); err != nil {
			return err
		}
	}
	return rows.Err()
}

// History returns the records of a table that involve one user (scope
// Users) or one item (scope = the table).
//
// Histories are kept in memory (histories.go): a request answered from precomputed candidates then
// reads no SQL to leave out what the user has seen. The returned slice is the caller's own.
func (c *Catalog) History(ctx context.Context, ws int64, table, scope, id string) ([]Event, error) {
	if c.NoHistoryCache {
		return c.loadHistory(ctx, ws, table, scope, id)
	}
	key := historyKey{ws, table, scope, id}
	gen, err := c.generation(ctx, ws, recordsScope)
	if err != nil {
		return nil, err
	}
	if out, ok := c.cachedHistory(key, gen); ok {
		return out, nil
	}
	out, err := c.loadHistory(ctx, ws, table, scope, id)
	if err != nil {
		return nil, err
	}
	c.keepHistory(key, gen, out)
	return slices.Clone(out), nil
}

func (c *Catalog) loadHistory(ctx context.Context, ws int64, table, scope, id string) ([]Event, error) {
	defs, err := c.interactionDefs(ctx, c.db, ws, table)
	if err != nil {
		return nil, err
	}
	var eid int64
	if err := c.db.QueryRowContext(ctx, `SELECT eid FROM recomm_entities WHERE ws = $1 AND scope = $2 AND id = $3`,
		ws, scope, id).Scan(&eid); err == sql.ErrNoRows {
		return nil, nil // an unknown entity has no history; callers check existence themselves
	} else if err != nil {
		return nil, err
	}
	side := `r."user"`
	if scope != Users {
		side = "r.item"
	}
	var out []Event
	for _, d := range defs {
		err := c.eachRecordOf(ctx, d, `r.def = $1 AND `+side+` = $2`, []any{d.key, eid}, func(e Event) error {
			out = append(out, e)
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Popularity counts the records of a table per item and per user.
func (c *Catalog) Popularity(ctx context.Context, ws int64, table string) (items, users map[string]int, err error) {
	items, users = map[string]int{}, map[string]int{}
	// grouped on the row ids, then named: PostgreSQL allows selecting the
	// names only for grouped columns, and the ids group cheaper anyway
	rows, err := c.db.QueryContext(ctx, `SELECT i.id, u.id, r.n FROM (SELECT item, "user", count(*) AS n FROM recomm_interactions
		WHERE def IN (SELECT key FROM recomm_interaction_defs WHERE ws = $1 AND tbl = $2) GROUP BY item, "user") AS r
		JOIN recomm_entities u ON u.eid = r."user" JOIN recomm_entities i ON i.eid = r.item`, ws, table)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var item, user string
		var n int
		if err := rows.Scan(&item, &user, &n); err != nil {
			return nil, nil, err
		}
		items[item] += n
		users[user] += n
	}
	return items, users, rows.Err()
}
