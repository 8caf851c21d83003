// Package evaluate measures the offline quality of the recommendation engines: a per-user hold-out
// split, full ranking of the items a user has not interacted with in training, and precision, recall,
// NDCG, hit rate at k plus catalog coverage.
//
// Protocol on MovieLens latest-small (../shared/data/movielens-small): every rating is a positive
// interaction (value = stars, weight 1); 20% of each user's rated movies are held out with a fixed
// seed; every engine ranks all movies the user did not rate in training and the top 10 are scored.
// Hyperparameters were tuned on a second 80/20 split carved from the training part (TestTune), never
// on the test split. Run:
//
//	go test ./server/recomm/evaluate -run 'TestQuality$' -v                        targets (no -race)
//	HARK_QUALITY_REPORT=1 go test ./server/recomm/evaluate -run TestQualityReport -v  every engine
//	go test ./server/recomm/evaluate -run X -bench .                                  times, latency
package evaluate

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sort"
	"sync"

	"github.com/harkhq/hark/server/recomm/engines"
)

// Split holds a training dataset and the held-out items of each user (by item index).
type Split struct {
	Train *engines.Dataset
	Test  [][]int32 // per user index; nil for users with nothing held out
}

// SplitByUser holds out, for every user with at least two distinct positive items, a fraction of them
// (at least one) chosen at random with seed; all interactions on a held-out pair leave the training
// set. Attributes and keywords are shared with ds.
func SplitByUser(ds *engines.Dataset, testFraction float64, seed uint64) (*Split, error) {
	if !(testFraction > 0 && testFraction < 1) {
		return nil, fmt.Errorf("evaluate: test fraction %v outside (0,1)", testFraction)
	}
	if len(ds.Interactions) == 0 {
		return nil, engines.ErrNoInteractions
	}
	itemsOf := make([][]int32, len(ds.UserIDs))
	seen := make(map[uint64]bool, len(ds.Interactions))
	for _, in := range ds.Interactions {
		key := uint64(uint32(in.User))<<32 | uint64(uint32(in.Item))
		if in.Positive && !seen[key] {
			seen[key] = true
			itemsOf[in.User] = append(itemsOf[in.User], in.Item)
		}
	}
	rng := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	held := make(map[uint64]bool)
	test := make([][]int32, len(ds.UserIDs))
	for u, items := range itemsOf {
		if len(items) < 2 {
			continue
		}
		items = append([]int32(nil), items...)
		sort.Slice(items, func(a, b int) bool { return items[a] < items[b] })
		rng.Shuffle(len(items), func(a, b int) { items[a], items[b] = items[b], items[a] })
		n := max(1, int(math.Round(testFraction*float64(len(items)))))
		test[u] = items[:n]
		for _, it := range items[:n] {
			held[uint64(uint32(u))<<32|uint64(uint32(it))] = true
		}
	}
	train := *ds
	train.Interactions = make([]engines.Interaction, 0, len(ds.Interactions))
	for _, in := range ds.Interactions {
		if !held[uint64(uint32(in.User))<<32|uint64(uint32(in.Item))] {
			train.Interactions = append(train.Interactions, in)
		}
	}
	return &Split{Train: &train, Test: test}, nil
}

// Metrics are averaged over the users with held-out items; Coverage is the share of the catalog that
// appears in at least one top-k list.
type Metrics struct {
	Precision, Recall, NDCG, HitRate, Coverage float64
	Users                                      int
	// UserNDCG is each evaluated user's NDCG@k, in user order, for paired comparisons of two models
	// on the same split.
	UserNDCG []float64
}

func (m Metrics) String() string {
	return fmt.Sprintf("P@k %.4f  R@k %.4f  NDCG@k %.4f  HR@k %.4f  coverage %.4f  (%d users)",
		m.Precision, m.Recall, m.NDCG, m.HitRate, m.Coverage, m.Users)
}

// Evaluate ranks, for every user with held-out items, all items the user did not interact with in
// training and scores the top k against the held-out items.
func Evaluate(m engines.Model, s *Split, k int) (Metrics, error) { return EvaluateDiverse(m, s, k, 0) }

// EvaluateDiverse is Evaluate with the ranking re-ranked for diversity (engines.Query.Diversity, MMR;
// engines without a similarity ignore it).
func EvaluateDiverse(m engines.Model, s *Split, k int, diversity float64) (Metrics, error) {
	if k <= 0 {
		return Metrics{}, errors.New("evaluate: k must be positive")
	}
	ds := s.Train
	itemIndex := make(map[string]int32, len(ds.ItemIDs))
	for i, id := range ds.ItemIDs {
		itemIndex[id] = int32(i)
	}
	// small per-user sets keyed by id: the ranking asks once per catalog item, and a lookup in a
	// few dozen entries is much cheaper than one through the index of the whole catalog
	trainItems := make([]map[string]struct{}, len(ds.UserIDs))
	for _, in := range ds.Interactions {
		if len(s.Test[in.User]) == 0 {
			continue
		}
		if trainItems[in.User] == nil {
			trainItems[in.User] = map[string]struct{}{}
		}
		trainItems[in.User][ds.ItemIDs[in.Item]] = struct{}{}
	}
	results := make([]userResult, len(ds.UserIDs))
	users := make(chan int, len(ds.UserIDs))
	for u := range ds.UserIDs {
		if len(s.Test[u]) > 0 {
			users <- u
		}
	}
	close(users)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for u := range users {
				seen := trainItems[u]
				// asking for k more than the user's training items and dropping those afterwards
				// gives the same top k as a filter, without a lookup for every item of the catalog
				q := engines.Query{Limit: k + len(seen), Diversity: diversity}
				if q.Limit > engines.MaxLimit || diversity > 0 {
					// MMR ranks each next item against the ones already ranked, so the items the
					// user has seen must be left out before ranking, not dropped after
					q = engines.Query{Limit: k, Diversity: diversity, Accept: func(id string) bool { _, in := seen[id]; return !in }}
				}
				recs, err := m.Recommend(engines.ItemsToUser, engines.Subject{ID: ds.UserIDs[u]}, q)
				if err != nil {
					results[u].err = fmt.Errorf("user %s: %w", ds.UserIDs[u], err)
					continue
				}
				unseen := recs[:0:0]
				for _, r := range recs {
					if _, in := seen[r.ID]; !in && len(unseen) < k {
						unseen = append(unseen, r)
					}
				}
				results[u] = score(unseen, s.Test[u], itemIndex, k)
			}
		}()
	}
	wg.Wait()
	var out Metrics
	covered := make([]bool, len(ds.ItemIDs))
	for u, r := range results {
		if len(s.Test[u]) == 0 {
			continue
		}
		if r.err != nil {
			return Metrics{}, r.err
		}
		out.Users++
		out.Precision += r.p
		out.Recall += r.r
		out.NDCG += r.ndcg
		out.UserNDCG = append(out.UserNDCG, r.ndcg)
		out.HitRate += r.hit
		for _, it := range r.top {
			covered[it] = true
		}
	}
	if out.Users == 0 {
		return Metrics{}, errors.New("evaluate: no user has held-out items")
	}
	n := float64(out.Users)
	out.Precision /= n
	out.Recall /= n
	out.NDCG /= n
	out.HitRate /= n
	c := 0
	for _, v := range covered {
		if v {
			c++
		}
	}
	out.Coverage = float64(c) / float64(len(covered))
	return out, nil
}

// userResult is the contribution of one user to Metrics.
type userResult struct {
	p, r, ndcg, hit float64
	top             []int32
	err             error
}

func score(recs []engines.Scored, test []int32, itemIndex map[string]int32, k int) (r userResult) {
	relevant := make(map[int32]bool, len(test))
	for _, it := range test {
		relevant[it] = true
	}
	hits := 0
	for pos, rec := range recs {
		if pos >= k {
			break
		}
		it := itemIndex[rec.ID]
		r.top = append(r.top, it)
		if relevant[it] {
			hits++
			r.ndcg += 1 / math.Log2(float64(pos)+2)
		}
	}
	ideal := 0.0
	for pos := range min(k, len(test)) {
		ideal += 1 / math.Log2(float64(pos)+2)
	}
	r.ndcg /= ideal
	r.p = float64(hits) / float64(k)
	r.r = float64(hits) / float64(len(test))
	if hits > 0 {
		r.hit = 1
	}
	return r
}

// Holdout holds out, for every user with at least two distinct positive items, a fraction of them (at
// least one, and at least one kept). With recent, the most recent ones: items ordered by the user's
// latest positive interaction with each, ties in random order from seed, so a user whose interactions
// share one timestamp (aggregated counts, an import without times) gets a random hold-out. Without
// recent, a random part. Only users for which keep returns true (nil keeps all) get held-out items;
// the others train in full.
func Holdout(ds *engines.Dataset, fraction float64, seed uint64, keep func(user int32) bool, recent bool) (*Split, error) {
	if !(fraction > 0 && fraction < 1) {
		return nil, fmt.Errorf("evaluate: hold-out fraction %v outside (0,1)", fraction)
	}
	if len(ds.Interactions) == 0 {
		return nil, engines.ErrNoInteractions
	}
	latest := make(map[uint64]int64, len(ds.Interactions))
	itemsOf := make([][]int32, len(ds.UserIDs))
	for _, in := range ds.Interactions {
		if !in.Positive {
			continue
		}
		key := uint64(uint32(in.User))<<32 | uint64(uint32(in.Item))
		t, seen := latest[key]
		if !seen {
			itemsOf[in.User] = append(itemsOf[in.User], in.Item)
		}
		if !seen || in.Timestamp > t {
			latest[key] = in.Timestamp
		}
	}
	rng := rand.New(rand.NewPCG(seed, 0x7e57))
	held := make(map[uint64]bool)
	test := make([][]int32, len(ds.UserIDs))
	for u, items := range itemsOf {
		if len(items) < 2 || (keep != nil && !keep(int32(u))) {
			continue
		}
		items = append([]int32(nil), items...)
		sort.Slice(items, func(a, b int) bool { return items[a] < items[b] })
		rng.Shuffle(len(items), func(a, b int) { items[a], items[b] = items[b], items[a] })
		ts := func(i int32) int64 { return latest[uint64(uint32(u))<<32|uint64(uint32(i))] }
		if recent {
			sort.SliceStable(items, func(a, b int) bool { return ts(items[a]) > ts(items[b]) })
		}
		n := min(len(items)-1, max(1, int(math.Round(fraction*float64(len(items))))))
		test[u] = items[:n]
		for _, it := range items[:n] {
			held[uint64(uint32(u))<<32|uint64(uint32(it))] = true
		}
	}
	train := *ds
	train.Interactions = make([]engines.Interaction, 0, len(ds.Interactions))
	for _, in := range ds.Interactions {
		if !held[uint64(uint32(in.User))<<32|uint64(uint32(in.Item))] {
			train.Interactions = append(train.Interactions, in)
		}
	}
	return &Split{Train: &train, Test: test}, nil
}

// HeldOut counts the users with held-out items and the held-out pairs.
func (s *Split) HeldOut() (users, pairs int) {
	for _, t := range s.Test {
		if len(t) > 0 {
			users++
			pairs += len(t)
		}
	}
	return users, pairs
}
