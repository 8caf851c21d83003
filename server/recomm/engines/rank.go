package engines

import (
	"container/heap"
	"math"
	"slices"
	"sort"
)

// candidate is one entity in a ranking. key decides the order: the raw score when the query has no
// multiplier (every unit map is monotone, so this is the order of relevance, with ties that the map
// would create broken by the raw score), else the relevance unit(raw)·multiplier. raw is the engine
// score.
type candidate struct {
	idx int32
	key float64
	raw float64
}

// before reports whether a ranks before b: higher key, then higher raw score, then lower index, so
// that every ranking is a strict total order and afterId paging is stable.
func before(a, b candidate) bool {
	if a.key != b.key {
		return a.key > b.key
	}
	if a.raw != b.raw {
		return a.raw > b.raw
	}
	return a.idx < b.idx
}

// scoring describes the raw scores of every entity of one side and how they map to relevance.
type scoring struct {
	ids  []string
	raw  func(i int32) float64
	unit func(raw float64) float64 // monotone map of a raw score to [0,1]
	self int32                     // entity to leave out (the subject of a similar-entity query), or -1
	// sim, when set, is the similarity of two entities used by MMR diversity.
	sim func(a, b int32) float64
}

func (q Query) limit() int {
	switch {
	case q.Limit <= 0:
		return DefaultLimit
	case q.Limit > MaxLimit:
		return MaxLimit
	}
	return q.Limit
}

func (q Query) multiplier(id string) float64 {
	if q.Multiplier == nil {
		return 1
	}
	m := q.Multiplier(id)
	if math.IsNaN(m) || m < 0 {
		return 0
	}
	return min(m, math.MaxFloat64)
}

// candidate scores entity i, or reports that the query leaves it out.
func (s scoring) candidate(i int32, q Query) (candidate, bool) {
	if i == s.self || (q.Accept != nil && !q.Accept(s.ids[i])) {
		return candidate{}, false
	}
	raw := s.raw(i)
	if math.IsNaN(raw) {
		return candidate{}, false
	}
	if q.Multiplier == nil {
		return candidate{idx: i, key: raw, raw: raw}, true
	}
	m := q.multiplier(s.ids[i])
	return candidate{idx: i, key: clamp01(s.unit(raw)) * m, raw: raw}, true
}

// relevance is the relevance in [0,1] of a candidate, the match divided by 100.
func (s scoring) relevance(c candidate, q Query) float64 {
	return clamp01(clamp01(s.unit(c.raw)) * q.multiplier(s.ids[c.idx]))
}

// top returns the best q.limit() candidates after the q.After id, best first.
func (s scoring) top(q Query) []Scored { return s.topN(q, q.limit()) }

// each calls fn with every entity the query lets the ranking consider: the members of q.Among, or all.
func (s scoring) each(q Query, fn func(i int32)) {
	if q.Among != nil {
		for _, i := range q.Among.positions(s.ids) {
			fn(i)
		}
		return
	}
	for i := range s.ids {
		fn(int32(i))
	}
}

// topN is top with an explicit limit (candidate lists go past MaxLimit).
func (s scoring) topN(q Query, limit int) []Scored {
	var bound candidate
	if q.After != "" {
		i := slices.Index(s.ids, q.After)
		if i < 0 {
			return []Scored{}
		}
		if q.Among != nil && !q.Among.has(q.After) {
			return []Scored{}
		}
		c, ok := s.candidate(int32(i), q)
		if !ok {
			return []Scored{}
		}
		bound = c
	}
	h := make(minHeap, 0, min(limit, len(s.ids)))
	s.each(q, func(i int32) {
		c, ok := s.candidate(i, q)
		if !ok || (q.After != "" && !before(bound, c)) {
			return
		}
		if len(h) < limit {
			heap.Push(&h, c)
		} else if before(c, h[0]) {
			h[0] = c
			heap.Fix(&h, 0)
		}
	})
	best := []candidate(h)
	sort.Slice(best, func(a, b int) bool { return before(best[a], best[b]) })
	return s.results(best, q)
}

func (s scoring) results(cs []candidate, q Query) []Scored {
	out := make([]Scored, len(cs))
	for k, c := range cs {
		out[k] = Scored{ID: s.ids[c.idx], Score: c.raw * q.multiplier(s.ids[c.idx]), Match: math.Round(1000*s.relevance(c, q)) / 10}
	}
	return out
}

// minHeap keeps the worst of the kept candidates on top.
type minHeap []candidate

func (h minHeap) Len() int           { return len(h) }
func (h minHeap) Less(i, j int) bool { return before(h[j], h[i]) }
func (h minHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *minHeap) Push(x any)        { *h = append(*h, x.(candidate)) }
func (h *minHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

func clamp01(x float64) float64 {
	switch {
	case x < 0 || math.IsNaN(x):
		return 0
	case x > 1:
		return 1
	}
	return x
}

// logisticUnit maps an unbounded score to (0,1).
func logisticUnit(x float64) float64 { return 1 / (1 + math.Exp(-x)) }

// indexOf builds the id-to-index map of one side of a model.
func indexOf(ids []string) map[string]int32 {
	m := make(map[string]int32, len(ids))
	for i, id := range ids {
		m[id] = int32(i)
	}
	return m
}

// mmr ranks with maximal marginal relevance: each next entity maximises
// (1−λ)·relevance − λ·(largest similarity to an entity already ranked), λ = q.Diversity. The pool is
// the most relevant candidates (three times the page, or the largest page when paging with After).
func (s scoring) mmr(q Query) []Scored {
	var cands []candidate
	s.each(q, func(i int32) {
		if c, ok := s.candidate(i, q); ok {
			cands = append(cands, c)
		}
	})
	sort.Slice(cands, func(a, b int) bool { return before(cands[a], cands[b]) })
	limit := q.limit()
	pool := 3*limit + 100
	if q.After != "" {
		pool = 3*MaxLimit + 100
	}
	cands = cands[:min(len(cands), pool)]
	lambda := min(q.Diversity, 1)
	rel := make([]float64, len(cands))
	for i, c := range cands {
		rel[i] = s.relevance(c, q)
	}
	maxSim := make([]float64, len(cands))
	for i := range maxSim {
		maxSim[i] = math.Inf(-1)
	}
	used := make([]bool, len(cands))
	var order []candidate
	afterSeen := q.After == ""
	var page []candidate
	for len(page) < limit && len(order) < len(cands) {
		best, bestScore := -1, math.Inf(-1)
		for i := range cands {
			if used[i] {
				continue
			}
			penalty := 0.0
			if len(order) > 0 {
				penalty = maxSim[i]
			}
			if v := (1-lambda)*rel[i] - lambda*penalty; v > bestScore {
				best, bestScore = i, v
			}
		}
		used[best] = true
		chosen := cands[best]
		order = append(order, chosen)
		for i, c := range cands {
			if !used[i] {
				maxSim[i] = max(maxSim[i], s.sim(chosen.idx, c.idx))
			}
		}
		if afterSeen {
			page = append(page, chosen)
		} else if s.ids[chosen.idx] == q.After {
			afterSeen = true
		}
	}
	return s.results(page, q)
}

// Kind is one of the four recommendation directions of the document.
type Kind int

const (
	ItemsToUser Kind = iota // items for a user
	UsersToItem             // users likely to be interested in an item
	ItemsToItem             // items related to an item
	UsersToUser             // users similar to a user
)

// SubjectIsUser reports whether the subject of this kind of query is a user.
func (k Kind) SubjectIsUser() bool { return k == ItemsToUser || k == UsersToUser }

// AnswersUsers reports whether this kind of query ranks users.
func (k Kind) AnswersUsers() bool { return k == UsersToItem || k == UsersToUser }

// scorer is implemented by every model: it scores all entities of the answer side for a subject.
type scorer interface {
	score(kind Kind, sub Subject) (scoring, error)
}

// recommend ranks a scorer's answer with the query: MMR when diversity is asked and the engine gives
// a similarity, plain top-k otherwise.
func recommend(m scorer, kind Kind, sub Subject, q Query) ([]Scored, error) {
	sc, err := m.score(kind, sub)
	if err != nil {
		return nil, err
	}
	if q.Diversity > 0 && sc.sim != nil {
		return sc.mmr(q), nil
	}
	return sc.top(q), nil
}
