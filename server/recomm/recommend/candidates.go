package recommend

import (
	"context"
	"log/slog"
	"sync"

	"github.com/harkhq/hark/server/recomm/catalog"
	"github.com/harkhq/hark/server/recomm/engines"
)

// Precomputed candidates (README "How items-to-user answers are served"). After a model is saved or loaded,
// a background build ranks every item for every user the model knows and keeps, per user, the best
// N + h items with nothing left out, h being the user's records at build time (so the items a user
// already has do not use up the N). An items-to-user request is answered from the list by keeping, in
// list order, the items its checks accept (filter, expiry, what the user interacted with since) until
// the page is full: the same answer as ranking every item, because every accepted item missing from
// the list ranks below the whole list. When the list runs out first (and does not hold every item;
// sort and afterId ask for up to 1000), when the request re-ranks (attributeId, diversity), or for a
// user the model does not know, a content_based model or an ensemble, the request ranks every item.

// DefaultCandidates is N, the candidates kept per user beyond the user's records.
const DefaultCandidates = 100

// userList is one user's precomputed ranking.
type userList struct {
	items    []engines.Scored
	complete bool // holds every item the model ranks
	records  int  // the h it was built with
}

// candidateSet holds the lists of one model.
type candidateSet struct {
	ws    int64
	table string
	model engines.Model
	n     int

	mu    sync.RWMutex
	lists map[string]*userList
	// stamps count the invalidations of each user's list, epoch those of the whole set: a list
	// computed before an invalidation it did not see is not stored.
	stamps map[string]uint64
	epoch  uint64
	// updating counts the online updates of a user under way: the user's list is neither used nor
	// stored meanwhile.
	updating map[string]int
	gone     bool // the model was replaced or its table deleted
}

// candidateStore holds the candidate sets of the current models, by model.
type candidateStore struct {
	mu     sync.Mutex
	sets   map[engines.Model]*candidateSet
	builds sync.WaitGroup
}

// buildSlot lets one build run at a time in the whole process: a build uses at most one core.
var buildSlot = make(chan struct{}, 1)

func (st *candidateStore) get(m engines.Model) *candidateSet {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.sets[m]
}

// drop forgets the sets whose model is no longer current.
func (st *candidateStore) drop(keep func(*candidateSet) bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	for m, s := range st.sets {
		if !keep(s) {
			s.mu.Lock()
			s.gone = true
			s.mu.Unlock()
			delete(st.sets, m)
		}
	}
}

// candidateN is N, or 0 when the recommender keeps no candidates.
func (r *Recommender) candidateN() int {
	switch {
	case r.Candidates < 0:
		return 0
	case r.Candidates == 0:
		return DefaultCandidates
	}
	return r.Candidates
}

// watch has the model store tell the recommender of every model saved or loaded, and builds the
// candidates of the models already loaded. It runs once, at the recommender's first use: the store
// is opened before the recommender exists.
func (r *Recommender) watch() {
	r.watchOnce.Do(func() {
		if r.candidateN() == 0 {
			return
		}
		r.Models.setReplaced(func(ws int64, table string, m engines.Model) { r.buildCandidates(ws, table, m) })
		for _, k := range r.Models.keys() {
			if m := r.Models.Get(k.ws, k.table, k.engine); m != nil {
				r.buildCandidates(k.ws, k.table, m)
			}
		}
	})
}

// buildCandidates starts the background build of a model's candidates, replacing the sets of the
// models no longer current.
func (r *Recommender) buildCandidates(ws int64, table string, m engines.Model) {
	n := r.candidateN()
	if n == 0 || !precomputable(m) {
		return
	}
	st := &r.Models.cands
	st.drop(func(s *candidateSet) bool { return r.Models.current(s.ws, s.table, s.model) })
	set := &candidateSet{ws: ws, table: table, model: m, n: n, lists: map[string]*userList{},
		stamps: map[string]uint64{}, updating: map[string]int{}}
	st.mu.Lock()
	if st.sets == nil {
		st.sets = map[engines.Model]*candidateSet{}
	}
	if st.sets[m] != nil {
		st.mu.Unlock()
		return
	}
	st.sets[m] = set
	st.builds.Add(1)
	st.mu.Unlock()
	go r.fillLogged(set, 0)
}

// refill builds a set's lists again in the background after invalidateAll returned epoch.
func (r *Recommender) refill(set *candidateSet, epoch uint64) {
	r.Models.cands.builds.Add(1)
	go r.fillLogged(set, epoch)
}

func (r *Recommender) fillLogged(set *candidateSet, epoch uint64) {
	defer r.Models.cands.builds.Done()
	if err := r.fill(set, epoch); err != nil {
		slog.Warn("recomm: building the candidates failed; requests rank every item", "table", set.table, "err", err)
	}
}

// precomputable reports whether an engine's items-to-user answer for a known user is fixed between
// trainings (and online updates), so that it can be computed ahead.
func precomputable(m engines.Model) bool {
	switch m.Engine() {
	case engines.Hybrid, engines.FM, engines.ISVD, engines.Popular:
		return true
	}
	return false
}

// fill builds the list of every user of the catalog the model knows, unless the set has been
// invalidated past epoch (a newer build then does the work).
func (r *Recommender) fill(set *candidateSet, epoch uint64) error {
	buildSlot <- struct{}{}
	defer func() { <-buildSlot }()
	set.mu.RLock()
	stale := set.gone || set.epoch != epoch
	set.mu.RUnlock()
	if stale {
		return nil
	}
	ctx := context.Background()
	users, err := r.Catalog.Snapshot(ctx, set.ws, catalog.Users)
	if err != nil {
		return err
	}
	_, counts, err := r.Catalog.Popularity(ctx, set.ws, set.table)
	if err != nil {
		return err
	}
	for _, u := range users.IDs {
		set.mu.RLock()
		gone, stamp := set.gone || set.epoch != epoch, set.stamps[u]
		set.mu.RUnlock()
		if gone {
			return nil
		}
		if err := set.compute(u, counts[u], stamp, epoch); err != nil {
			return err
		}
	}
	return nil
}

// compute ranks one user's list and stores it unless it was invalidated meanwhile.
func (set *candidateSet) compute(user string, records int, stamp, epoch uint64) error {
	list, complete, ok, err := engines.TopItems(set.model, user, set.n+records)
	if err != nil || !ok {
		return err
	}
	set.mu.Lock()
	defer set.mu.Unlock()
	if set.gone || set.epoch != epoch || set.stamps[user] != stamp || set.updating[user] > 0 {
		return nil
	}
	set.lists[user] = &userList{items: list, complete: complete, records: records}
	return nil
}

// list returns a user's list, or nil.
func (set *candidateSet) list(user string) *userList {
	set.mu.RLock()
	defer set.mu.RUnlock()
	if set.updating[user] > 0 {
		return nil
	}
	return set.lists[user]
}

// invalidate forgets one user's list before an online update changes the user's scores; done, called
// after the update, returns what the new list must be built with.
func (set *candidateSet) invalidate(user string) (done func() (records int, stamp, epoch uint64)) {
	set.mu.Lock()
	defer set.mu.Unlock()
	records := 0
	if l := set.lists[user]; l != nil {
		records = l.records
	}
	delete(set.lists, user)
	set.stamps[user]++
	set.updating[user]++
	return func() (int, uint64, uint64) {
		set.mu.Lock()
		defer set.mu.Unlock()
		if set.updating[user]--; set.updating[user] == 0 {
			delete(set.updating, user)
		}
		set.stamps[user]++ // a list computed during the update is not stored
		return records, set.stamps[user], set.epoch
	}
}

// invalidateAll forgets every list (before an online update changes the scores of all users) and
// returns the epoch a new build must be started for.
func (set *candidateSet) invalidateAll() uint64 {
	set.mu.Lock()
	defer set.mu.Unlock()
	set.lists = map[string]*userList{}
	set.epoch++
	return set.epoch
}

// fromCandidates answers a page from a user's list when the list can: accept is the request's check
// of one item. ok is false when the request must rank every item.
func fromCandidates(l *userList, limit int, accept func(id string) bool) (out []engines.Scored, ok bool) {
	for _, s := range l.items {
		if accept(s.ID) {
			out = append(out, s)
			if len(out) == limit {
				return out, true
			}
		}
	}
	return out, l.complete
}

// WaitCandidates returns once the candidate builds started so far have finished (tests, benchmarks).
func (r *Recommender) WaitCandidates() { r.Models.cands.builds.Wait() }

// CandidateEntries counts the entries of the candidate lists held (for reporting memory).
func (r *Recommender) CandidateEntries() (users, entries int) {
	st := &r.Models.cands
	st.mu.Lock()
	defer st.mu.Unlock()
	for _, s := range st.sets {
		s.mu.RLock()
		for _, l := range s.lists {
			users++
			entries += len(l.items)
		}
		s.mu.RUnlock()
	}
	return users, entries
}
