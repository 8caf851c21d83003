package catalog

import "slices"

// The history cache. Every items-to-user answer leaves out what the user has already interacted
// with, so every request used to read the user's records from SQLite: with precomputed candidates
// that read was most of what an unfiltered request cost. The catalog now keeps the histories it has
// read, per workspace generation: every write of records (one record, a deletion, an import chunk,
// a change or deletion of an interaction type, the deletion of an entity or a table, an undone
// import) bumps the workspace's records generation, and an entry of an older generation is read
// again. The generation is read before the SQL read, so a history read while a write commits is
// kept under the old generation and dropped at once. How generations are kept per engine, so that
// on PostgreSQL another process's write invalidates this process's cache, is in gens.go.
//
// A busy stream of single records invalidates every history of the workspace at each record; the
// cache then only saves the requests between two records, which is still correct, and the candidate
// lists themselves are refreshed per user (recommend/online.go).

// maxHistoryEvents bounds the events kept in memory (about 100 bytes each); past it the cache
// starts over.
const maxHistoryEvents = 2_000_000

type historyKey struct {
	ws               int64
	table, scope, id string
}

type historyEntry struct {
	gen    uint64
	events []Event
}

// cachedHistory returns a copy of a history held in memory if it was read at generation gen, the
// current one.
func (c *Catalog) cachedHistory(k historyKey, gen uint64) ([]Event, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.histories[k]
	if !ok || e.gen != gen {
		return nil, false
	}
	return slices.Clone(e.events), true
}

// keepHistory keeps a history read at generation gen, unless a write happened since.
func (c *Catalog) keepHistory(k historyKey, gen uint64, events []Event) {
	if c.NoHistoryCache {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.current(k.ws, recordsScope, gen) {
		return
	}
	if c.histories == nil || c.historyEvents+len(events) > maxHistoryEvents {
		c.histories, c.historyEvents = map[historyKey]historyEntry{}, 0
	}
	if old, ok := c.histories[k]; ok {
		c.historyEvents -= len(old.events)
	}
	c.histories[k] = historyEntry{gen: gen, events: events}
	c.historyEvents += len(events)
}
