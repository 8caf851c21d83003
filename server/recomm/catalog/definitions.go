package catalog

import (
	"maps"
	"slices"
)

// The definitions cache. Every recommendation request reads its table's description (engines,
// ensemble, display attribute, training configurations) and its interaction types; from SQL these
// reads were about half of what an answer from precomputed candidates cost in process. They are
// kept in memory under the same per-workspace generation as the histories (histories.go): every
// write of recomm_tables, recomm_train_configs or recomm_interaction_defs (creating or deleting a
// table, engines, ensemble, display attribute, a recorded training, creating, changing or deleting
// an interaction type) bumps it (gens.go), and an entry of an older generation is read again.
// Only successful reads are kept, so an unknown table is answered from SQL each time.

type tableKey struct {
	ws    int64
	table string
}

type tableEntry struct {
	tableGen, defsGen uint64
	hasTable, hasDefs bool
	table             Table
	defs              []storedInteraction
}

// cloneTable copies what a caller could change in place (maps and slices).
func cloneTable(t Table) Table {
	t.Engines = maps.Clone(t.Engines)
	t.Ensemble = slices.Clone(t.Ensemble)
	t.TrainConfig = slices.Clone(t.TrainConfig)
	for i := range t.TrainConfig {
		t.TrainConfig[i].Configuration = maps.Clone(t.TrainConfig[i].Configuration)
	}
	return t
}

func (c *Catalog) cachedTable(k tableKey, gen uint64) (Table, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.tableDefs[k]
	if !ok || !e.hasTable || e.tableGen != gen {
		return Table{}, false
	}
	return cloneTable(e.table), true
}

// keepTable keeps a description read at generation gen, unless a write happened since.
func (c *Catalog) keepTable(k tableKey, gen uint64, t Table) {
	if c.NoHistoryCache {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.current(k.ws, recordsScope, gen) {
		return
	}
	e := c.defsEntry(k)
	e.table, e.tableGen, e.hasTable = cloneTable(t), gen, true
	c.tableDefs[k] = e
}

func (c *Catalog) cachedDefs(k tableKey, gen uint64) ([]storedInteraction, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.tableDefs[k]
	if !ok || !e.hasDefs || e.defsGen != gen {
		return nil, false
	}
	return slices.Clone(e.defs), true
}

// keepDefs keeps interaction types read at generation gen, unless a write happened since.
func (c *Catalog) keepDefs(k tableKey, gen uint64, defs []storedInteraction) {
	if c.NoHistoryCache {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.current(k.ws, recordsScope, gen) {
		return
	}
	e := c.defsEntry(k)
	e.defs, e.defsGen, e.hasDefs = slices.Clone(defs), gen, true
	c.tableDefs[k] = e
}

// defsEntry returns the entry of k, dropping every entry of a stale generation first once the map
// grows past a bound, so deleted tables and old workspaces do not stay in memory (on PostgreSQL,
// where this process does not know the others' writes, every entry). c.mu is held.
func (c *Catalog) defsEntry(k tableKey) tableEntry {
	if c.tableDefs == nil || (c.d.shared && len(c.tableDefs) > 10_000) {
		c.tableDefs = map[tableKey]tableEntry{}
	}
	if len(c.tableDefs) > 10_000 {
		for key, e := range c.tableDefs {
			g := c.gens[scopeKey{key.ws, recordsScope}]
			if (!e.hasTable || e.tableGen != g) && (!e.hasDefs || e.defsGen != g) {
				delete(c.tableDefs, key)
			}
		}
	}
	return c.tableDefs[k]
}
