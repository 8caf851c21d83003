package engines

import (
	"sync"
	"unsafe"
)

// Subset is a set of entities named by a predicate on their ids, for Query.Among. It remembers the
// positions of its members in the entity lists of the models it was used with, so that a filter is
// evaluated once per model, not once per request. Safe for concurrent use.
type Subset struct {
	keep func(id string) bool

	mu  sync.Mutex
	pos map[subsetKey][]int32
}

// subsetKey identifies one entity list by its backing array and length: a model that grows (isvd
// folding a new item in) or an ensemble that builds a new list per query gets new positions.
type subsetKey struct {
	first *string
	n     int
}

// maxSubsetLists bounds the lists a Subset remembers; it forgets them all when full.
const maxSubsetLists = 8

// NewSubset makes the subset of the entities for which keep returns true.
func NewSubset(keep func(id string) bool) *Subset { return &Subset{keep: keep} }

func (s *Subset) has(id string) bool { return s.keep(id) }

// positions returns the indices in ids of the members, ascending.
func (s *Subset) positions(ids []string) []int32 {
	if len(ids) == 0 {
		return nil
	}
	k := subsetKey{unsafe.SliceData(ids), len(ids)}
	s.mu.Lock()
	p, ok := s.pos[k]
	s.mu.Unlock()
	if ok {
		return p
	}
	p = []int32{}
	for i, id := range ids {
		if s.keep(id) {
			p = append(p, int32(i))
		}
	}
	s.mu.Lock()
	if s.pos == nil || len(s.pos) >= maxSubsetLists {
		s.pos = map[subsetKey][]int32{}
	}
	s.pos[k] = p
	s.mu.Unlock()
	return p
}

// TopItems ranks every item for a user and returns the best n with no exclusions, exactly as
// Recommend(ItemsToUser) with no Accept, Multiplier, After or Diversity would rank them (n may exceed
// MaxLimit). It is the source of precomputed candidates: ok is false when the answer for this user
// depends on what a request passes in Subject and so cannot be computed ahead (content_based builds
// every profile from the request's history; a user the model does not know is folded in from it).
// complete reports that the list holds every item the model ranks.
func TopItems(m Model, userID string, n int) (list []Scored, complete, ok bool, err error) {
	var sc scorer
	switch x := m.(type) {
	case *hybridModel:
		_, ok = x.userIdx[userID]
		sc = x
	case *fmModel:
		_, ok = x.userIdx[userID]
		sc = x
	case *isvdModel:
		x.mu.RLock()
		defer x.mu.RUnlock()
		_, ok = x.userIdx[userID]
		sc = x
	case *popularModel:
		ok, sc = true, x // the same list for every user
	}
	if !ok || n <= 0 {
		return nil, false, false, nil
	}
	s, err := sc.score(ItemsToUser, Subject{ID: userID})
	if err != nil {
		return nil, false, false, err
	}
	list = s.topN(Query{}, n)
	return list, len(list) < n, true, nil
}

// FoldsItem reports whether an online update (Updatable) with an interaction on this item changes
// the scores of users other than the one who interacted: isvd refreshes the vector of an item it
// did not train on whenever the item gets interactions. Other updates change only that user's scores.
func FoldsItem(m Model, itemID string) bool {
	x, ok := m.(*isvdModel)
	if !ok {
		return false
	}
	x.mu.RLock()
	defer x.mu.RUnlock()
	i, known := x.itemIdx[itemID]
	return !known || x.S.Folded[i]
}
