//go:build !race

package evaluate_test

import (
	"context"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/harkhq/hark/server/recomm/engines"
	"github.com/harkhq/hark/server/recomm/evaluate"
	"github.com/harkhq/hark/server/recomm/tune"
)

// TestSearchMethods compares the search methods at the same planned budget over several search
// seeds (each seed also carves another validation split): per catalog and engine, the mean and the
// spread of the best validation NDCG@10 each method found and of the test NDCG@10 of the setting it
// chose. make eval runs it; HARK_EVAL_SEEDS (default 1,2,3,4,5), HARK_EVAL_METHODS, HARK_EVAL_BUDGET, HARK_EVAL_ENGINES
// (default hybrid) and HARK_EVAL_CATALOGS narrow it.
func TestSearchMethods(t *testing.T) {
	if testing.Short() || os.Getenv("HARK_QUALITY_REPORT") == "" {
		t.Skip("set HARK_QUALITY_REPORT=1 to run the search-method comparison")
	}
	budget := evalBudget(t)
	seeds := []uint64{1, 2, 3, 4, 5}
	if s := os.Getenv("HARK_EVAL_SEEDS"); s != "" {
		seeds = nil
		for _, f := range strings.Split(s, ",") {
			var n uint64
			if _, err := fmt.Sscan(f, &n); err != nil {
				t.Fatalf("HARK_EVAL_SEEDS=%q: %v", s, err)
			}
			seeds = append(seeds, n)
		}
	}
	names := []string{engines.Hybrid}
	if s := os.Getenv("HARK_EVAL_ENGINES"); s != "" {
		names = strings.Split(s, ",")
	}
	methods := []string{tune.Halving, tune.Random}
	if s := os.Getenv("HARK_EVAL_METHODS"); s != "" {
		methods = strings.Split(s, ",")
	}
	var summary strings.Builder
	for _, c := range evalCatalogs() {
		t.Run(c.name, func(t *testing.T) {
			ds := c.load(t)
			split, err := evaluate.SplitByUser(ds, 0.2, evaluate.Seed)
			if err != nil {
				t.Fatal(err)
			}
			for _, engine := range names {
				var val, test [][]float64
				for _, method := range methods {
					var vs, ts []float64
					for _, seed := range seeds {
						start := time.Now()
						rep, err := tune.Search(context.Background(), engine, split.Train, tune.Options{Budget: budget, Seed: seed, Method: method})
						if err != nil {
							t.Fatalf("%s %s seed %d: %v", engine, method, seed, err)
						}
						if rep.Skipped != "" {
							t.Fatalf("%s %s seed %d: skipped: %s", engine, method, seed, rep.Skipped)
						}
						cfg := rep.Config
						cfg.Seed = 1
						tn := testNDCG(t, engine, split, cfg)
						vs, ts = append(vs, rep.BestSearched), append(ts, tn)
						t.Logf("%s / %s / %s seed %d: best validation %.4f, chosen %.4f (defaults %.4f), test %.4f; %d trials, planned %.1f s, took %v; %v",
							c.name, engine, method, seed, rep.BestSearched, rep.Validation.Chosen.NDCG, rep.Validation.Defaults.NDCG, tn,
							rep.Trials, rep.PlannedSeconds, time.Since(start).Round(time.Second), rep.Chosen)
					}
					val, test = append(val, vs), append(test, ts)
				}
				for i, method := range methods {
					var above, below int
					for j := range seeds {
						if d := val[i][j] - val[len(methods)-1][j]; d > 0 {
							above++
						} else if d < 0 {
							below++
						}
					}
					fmt.Fprintf(&summary, "%s / %s / %-18s over %d seeds: best validation NDCG@10 %s, test NDCG@10 of the choice %s; validation vs %s: above in %d, below in %d\n",
						c.name, engine, method, len(seeds), meanSpread(val[i]), meanSpread(test[i]), methods[len(methods)-1], above, below)
				}
			}
		})
	}
	t.Log("\n" + summary.String())
}

// meanSpread formats the mean, the standard deviation and the range of xs.
func meanSpread(xs []float64) string {
	m, lo, hi := 0.0, math.Inf(1), math.Inf(-1)
	for _, x := range xs {
		m += x
		lo, hi = min(lo, x), max(hi, x)
	}
	m /= float64(len(xs))
	sd := 0.0
	for _, x := range xs {
		sd += (x - m) * (x - m)
	}
	if len(xs) > 1 {
		sd = math.Sqrt(sd / float64(len(xs)-1))
	}
	return fmt.Sprintf("%.4f ± %.4f [%.4f, %.4f]", m, sd, lo, hi)
}
