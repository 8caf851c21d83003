//go:build !race

package tune

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/harkhq/hark/server/recomm/engines"
	"github.com/harkhq/hark/server/recomm/evaluate"
)

// ranks are the positions of xs in ascending order (no ties expected among NDCG scores).
func ranks(xs []float64) []float64 {
	idx := make([]int, len(xs))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return xs[idx[a]] < xs[idx[b]] })
	r := make([]float64, len(xs))
	for p, i := range idx {
		r[i] = float64(p)
	}
	return r
}

// spearman is the rank correlation of a and b.
func spearman(a, b []float64) float64 {
	ra, rb := ranks(a), ranks(b)
	n := float64(len(a))
	d := 0.0
	for i := range ra {
		d += (ra[i] - rb[i]) * (ra[i] - rb[i])
	}
	return 1 - 6*d/(n*(n*n-1))
}

// TestRungStudy measures how well the scores after a rung's iterations rank settings for the full
// training: 12 settings drawn as the search draws them, each trained with every rung's iterations on
// the validation split of the evaluation's training part (seed 1). It justifies the rungs of
// successive halving; HARK_RUNG_STUDY=1 runs it (about 3 minutes on 2 cores).
func TestRungStudy(t *testing.T) {
	if os.Getenv("HARK_RUNG_STUDY") == "" {
		t.Skip("set HARK_RUNG_STUDY=1 to measure the rank correlation of the rungs")
	}
	for _, name := range []string{"movielens", "sparse1"} {
		var ds *engines.Dataset
		if name == "movielens" {
			var err error
			ds, err = evaluate.LoadMovieLens(filepath.Join("..", "..", "..", evaluate.MovieLensDir))
			if err != nil {
				t.Fatal(err)
			}
		} else {
			ds = evaluate.Synthetic(evaluate.SparseShape, 1)
		}
		split, err := evaluate.SplitByUser(ds, 0.2, 20161001) // the evaluation's split (evaluate.Seed)
		if err != nil {
			t.Fatal(err)
		}
		o := Options{Seed: 1}.withDefaults()
		vs, err := validationSplit(split.Train, o)
		if err != nil {
			t.Fatal(err)
		}
		u, _ := vs.HeldOut()
		s := &searcher{ctx: context.Background(), engine: engines.Hybrid, split: vs, st: statsOf(vs.Train), o: o, users: u}
		sp := spaceOf(engines.Hybrid, statsOf(split.Train))
		rng := rand.New(rand.NewPCG(1, 0x7a5e))
		var sc [3][]float64
		for range 12 {
			tr := sp.sample(rng)
			for i, r := range sp.rungs {
				c := tr.cfg
				c.Iterations = r
				x, err := s.evaluate(c)
				if err != nil {
					t.Fatal(err)
				}
				sc[i] = append(sc[i], x.NDCG)
			}
		}
		t.Logf("%s: Spearman %d-%d iterations %.2f, %d-%d %.2f; scores %.4f", name, sp.rungs[0], sp.rungs[2], spearman(sc[0], sc[2]),
			sp.rungs[1], sp.rungs[2], spearman(sc[1], sc[2]), sc)
	}
}
