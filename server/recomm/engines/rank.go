package engines

import (
	"container/heap"
	"math"
	"sort"
)

// candidate is one entity in a ranking: rel is its relevance in [0,1] after the multiplier (it decides
// the order and the match), raw the engine score after the multiplier.
type candidate struct {
	idx int32
	rel float64
	raw float64
}

// before reports whether a ranks before b: higher relevance, then higher raw score, then lower index,
// so that every ranking is a strict total order and afterId paging is stable.
func before(a, b candidate) bool {
	if a.rel != b.rel {
		return a.rel > b.rel
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
	return m
}

// candidates scores every accepted entity.
func (s scoring) candidates(q Query) []candidate {
	out := make([]candidate, 0, len(s.ids))
	for i := range s.ids {
		i := int32(i)
		if i == s.self || (q.Accept != nil && !q.Accept(s.ids[i])) {
			continue
		}
		raw := s.raw(i)
		if math.IsNaN(raw) {
			continue
		}
		m := q.multiplier(s.ids[i])
		out = append(out, candidate{idx: i, rel: clamp01(s.unit(raw)) * m, raw: raw * m})
	}
	return out
}

// top returns the best limit candidates after the q.After id, best first.
func (s scoring) top(q Query) []Scored {
	cands := s.candidates(q)
	limit := q.limit()
	var bound *candidate
	if q.After != "" {
		found := false
		for _, c := range cands {
			if s.ids[c.idx] == q.After {
				c := c
				bound, found = &c, true
				break
			}
		}
		if !found {
			return []Scored{}
		}
	}
	h := &minHeap{}
	for _, c := range cands {
		if bound != nil && !before(*bound, c) {
			continue
		}
		if h.Len() < limit {
			heap.Push(h, c)
		} else if before(c, (*h)[0]) {
			(*h)[0] = c
			heap.Fix(h, 0)
		}
	}
	best := []candidate(*h)
	sort.Slice(best, func(a, b int) bool { return before(best[a], best[b]) })
	return s.results(best)
}

func (s scoring) results(cs []candidate) []Scored {
	out := make([]Scored, len(cs))
	for k, c := range cs {
		out[k] = Scored{ID: s.ids[c.idx], Score: c.raw, Match: math.Round(1000*clamp01(c.rel)) / 10}
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

// cosineUnit maps a cosine similarity in [-1,1] to [0,1].
func cosineUnit(c float64) float64 { return (c + 1) / 2 }

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
	cands := s.candidates(q)
	sort.Slice(cands, func(a, b int) bool { return before(cands[a], cands[b]) })
	limit := q.limit()
	pool := 3*limit + 100
	if q.After != "" {
		pool = 3*MaxLimit + 100
	}
	cands = cands[:min(len(cands), pool)]
	lambda := min(q.Diversity, 1)
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
		for i, c := range cands {
			if used[i] {
				continue
			}
			penalty := 0.0
			if len(order) > 0 {
				penalty = maxSim[i]
			}
			if v := (1-lambda)*c.rel - lambda*penalty; v > bestScore {
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
	return s.results(page)
}

// queryKind is one of the four recommendation directions.
type queryKind int

const (
	itemsForUser queryKind = iota
	usersForItem
	similarItems
	similarUsers
)

// scorer is implemented by every model: it scores all entities of the answer side for a subject.
type scorer interface {
	score(kind queryKind, sub Subject) (scoring, error)
}

// recommend ranks a scorer's answer with the query: MMR when diversity is asked and the engine gives
// a similarity, plain top-k otherwise.
func recommend(m scorer, kind queryKind, sub Subject, q Query) ([]Scored, error) {
	sc, err := m.score(kind, sub)
	if err != nil {
		return nil, err
	}
	if q.Diversity > 0 && sc.sim != nil {
		return sc.mmr(q), nil
	}
	return sc.top(q), nil
}
