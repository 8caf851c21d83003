package catalog

import (
	"context"

	"github.com/harkhq/hark/server/recomm/rsql"
)

// Snapshot is an immutable in-memory copy of the attribute values of one
// scope, for evaluating RSQL filters on recommendation candidates without
// a query per candidate. Catalog.Snapshot rebuilds it only after the scope
// has changed.
type Snapshot struct {
	gen    uint64
	Schema rsql.Schema
	// Attributes are the definitions, for engines that need types.
	Attributes []Attribute
	IDs        []string
	values     []map[string]any
	pos        map[string]int
}

// Values returns an entity's values; ok is false for an unknown id.
func (s *Snapshot) Values(id string) (rsql.MapValues, bool) {
	i, ok := s.pos[id]
	if !ok {
		return nil, false
	}
	return s.values[i], true
}

// Index returns the position of an id in IDs.
func (s *Snapshot) Index(id string) (int, bool) {
	i, ok := s.pos[id]
	return i, ok
}

// At returns the values of the entity at a position of IDs.
func (s *Snapshot) At(i int) rsql.MapValues { return s.values[i] }

// Expired reports whether an item's expiration is at or before now (epoch ms).
func (s *Snapshot) Expired(id string, now int64) bool {
	v, ok := s.Values(id)
	if !ok {
		return false
	}
	exp, ok := v[ExpirationAttribute].(int64)
	return ok && exp <= now
}

// Snapshot returns the current snapshot of a scope.
func (c *Catalog) Snapshot(ctx context.Context, ws int64, scope string) (*Snapshot, error) {
	key := scopeKey{ws, scope}
	gen, err := c.generation(ctx, ws, scope)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	if s := c.snapshots[key]; s != nil && s.gen == gen {
		c.mu.Unlock()
		return s, nil
	}
	c.mu.Unlock()

	sc, err := c.schema(ctx, c.db, ws, scope)
	if err != nil {
		return nil, err
	}
	snap := &Snapshot{gen: gen, Schema: sc.rsqlSchema(), pos: map[string]int{}}
	for _, a := range sc.list {
		snap.Attributes = append(snap.Attributes, a.Attribute)
	}
	rows, err := c.db.QueryContext(ctx, `SELECT id, doc FROM recomm_entities WHERE ws = $1 AND scope = $2 ORDER BY id`, ws, scope)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id, doc string
		if err := rows.Scan(&id, &doc); err != nil {
			return nil, err
		}
		values, err := sc.decodeDoc(doc)
		if err != nil {
			return nil, err
		}
		snap.pos[id] = len(snap.IDs)
		snap.IDs = append(snap.IDs, id)
		snap.values = append(snap.values, values)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	c.mu.Lock()
	// a write that raced with the load bumped gen: keep the older gen so
	// the next call rebuilds
	if cur := c.snapshots[key]; cur == nil || cur.gen <= gen {
		c.snapshots[key] = snap
	}
	c.mu.Unlock()
	return snap, nil
}
