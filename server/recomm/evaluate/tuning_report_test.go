//go:build !race

package evaluate_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/harkhq/hark/server/recomm/engines"
	"github.com/harkhq/hark/server/recomm/evaluate"
	"github.com/harkhq/hark/server/recomm/jobs"
	"github.com/harkhq/hark/server/recomm/tune"
)

// catalogCase is one catalog of the tuning report. Tuned marks the catalogs the search itself was
// developed against; the others are held back: nothing of the search (ranges, rungs, cost model) was
// adjusted while looking at them.
type catalogCase struct {
	name  string
	load  func(t *testing.T) *engines.Dataset
	tuned bool
}

// TestTuningReport prints, for each catalog, the test NDCG@10 of every engine with its defaults and
// with the settings the search chose at training time (successive halving, and random search at the
// same budget), plus the baselines. The search sees only the training part of the fixed 80/20 split:
// its validation split is carved from it, the test part is never seen. make eval runs it;
// HARK_EVAL_BUDGET (seconds, default 40) sets the search budget, HARK_EVAL_ENGINES the engines and
// HARK_EVAL_CATALOGS the catalogs (comma-separated parts of their names).
func TestTuningReport(t *testing.T) {
	if testing.Short() || os.Getenv("HARK_QUALITY_REPORT") == "" {
		t.Skip("set HARK_QUALITY_REPORT=1 to run the searches of the tuning report")
	}
	budget := evalBudget(t)
	names := []string{engines.Hybrid, engines.FM, engines.ISVD, engines.Popular, engines.ContentBased}
	if s := os.Getenv("HARK_EVAL_ENGINES"); s != "" {
		names = strings.Split(s, ",")
	}
	cases := evalCatalogs()
	var summary strings.Builder
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ds := c.load(t)
			split, err := evaluate.SplitByUser(ds, 0.2, evaluate.Seed)
			if err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			fmt.Fprintf(&b, "\n%s: %d users, %d items, %d interactions; test = random 20%% of each user's items; search budget %v\n",
				c.name, len(ds.UserIDs), len(ds.ItemIDs), len(ds.Interactions), budget)
			fmt.Fprintf(&b, "%-20s | %-26s | %-34s | %s\n", "", "test NDCG@10", "validation NDCG@10", "search")
			fmt.Fprintf(&b, "%-20s | %8s %8s %8s | %8s %8s %8s %8s | %s\n", "engine", "defaults", "halving", "random",
				"defaults", "chosen", "best SH", "best RS", "trials SH/RS, time SH/RS, chosen (halving)")
			for _, base := range []struct {
				name   string
				engine string
				cfg    engines.TrainConfig
			}{
				{"baseline:popularity", engines.Popular, engines.TrainConfig{HalfLife: -1, Seed: 1}},
				{"baseline:ials", engines.Hybrid, engines.TrainConfig{AttributeWeight: -1, Seed: 1}},
			} {
				fmt.Fprintf(&b, "%-20s | %8.4f\n", base.name, testNDCG(t, base.engine, split, base.cfg))
			}
			for _, engine := range names {
				def := testNDCG(t, engine, split, engines.TrainConfig{Seed: 1})
				var reps [2]*tune.Report
				var tests [2]float64
				var took [2]time.Duration
				for i, method := range []string{tune.Halving, tune.Random} {
					start := time.Now()
					rep, err := tune.Search(context.Background(), engine, split.Train, tune.Options{Budget: budget, Seed: 1, Method: method})
					if err != nil {
						t.Fatalf("%s %s: %v", engine, method, err)
					}
					took[i] = time.Since(start)
					reps[i] = rep
					cfg := rep.Config
					cfg.Seed = 1
					tests[i] = testNDCG(t, engine, split, cfg)
				}
				sh, rs := reps[0], reps[1]
				if sh.Skipped != "" {
					fmt.Fprintf(&b, "%-20s | %8.4f %8.4f %8.4f | skipped: %s\n", engine, def, tests[0], tests[1], sh.Skipped)
					continue
				}
				v := sh.Validation
				if v.Chosen.NDCG < v.Defaults.NDCG || rs.Validation.Chosen.NDCG < rs.Validation.Defaults.NDCG {
					t.Errorf("%s: tuned below defaults on validation", engine)
				}
				fmt.Fprintf(&b, "%-20s | %8.4f %8.4f %8.4f | %8.4f %8.4f %8.4f %8.4f | %d/%d, %v/%v, %v\n", engine, def, tests[0], tests[1],
					v.Defaults.NDCG, v.Chosen.NDCG, sh.BestSearched, rs.BestSearched, sh.Trials, rs.Trials,
					took[0].Round(time.Second), took[1].Round(time.Second), sh.Chosen)
				if n := sh.Neighbours; n != nil {
					fmt.Fprintf(&b, "%-20s | item neighbours on validation (weight: NDCG@10):", "")
					for _, l := range n.Levels {
						fmt.Fprintf(&b, " %.2f: %.4f;", l.Weight, l.NDCG)
					}
					fmt.Fprintf(&b, " chosen %.2f %s\n", n.Weight, n.Skipped)
				}
				if d := sh.Diversity; d != nil {
					fmt.Fprintf(&b, "%-20s | diversity on validation (level: NDCG@10, coverage@10):", "")
					for _, l := range d.Levels {
						fmt.Fprintf(&b, " %.1f: %.4f, %.3f;", l.Diversity, l.NDCG, l.Coverage)
					}
					fmt.Fprintf(&b, " suggested %.1f %s\n", d.Suggested, d.Skipped)
				}
				verdict := "halving beats random"
				switch {
				case sh.BestSearched < rs.BestSearched:
					verdict = "random beats halving"
				case sh.BestSearched == rs.BestSearched:
					verdict = "tie"
				}
				fmt.Fprintf(&summary, "%s / %s: validation %s (%.4f vs %.4f); test %.4f vs %.4f; tuned vs defaults on test %.4f vs %.4f\n",
					c.name, engine, verdict, sh.BestSearched, rs.BestSearched, tests[0], tests[1], tests[0], def)
			}
			t.Log(b.String())
		})
	}
	t.Log("\n" + summary.String())
}

// evalBudget is the search budget of the reports: HARK_EVAL_BUDGET seconds, default the server's.
func evalBudget(t *testing.T) time.Duration {
	budget := jobs.DefaultTuningBudget
	if s := os.Getenv("HARK_EVAL_BUDGET"); s != "" {
		var secs float64
		if _, err := fmt.Sscan(s, &secs); err != nil {
			t.Fatalf("HARK_EVAL_BUDGET=%q: %v", s, err)
		}
		budget = time.Duration(secs * float64(time.Second))
	}
	return budget
}

// evalCatalogs are the catalogs of the reports, narrowed by HARK_EVAL_CATALOGS.
func evalCatalogs() []catalogCase {
	cases := []catalogCase{
		{"movielens-small", func(t *testing.T) *engines.Dataset {
			dir := filepath.Join("..", "..", "..", evaluate.MovieLensDir)
			ds, err := evaluate.LoadMovieLens(dir)
			if err != nil {
				t.Skipf("MovieLens not found at %s: %v", dir, err)
			}
			return ds
		}, true},
		{"movielens-small, its 1,682 most rated movies", func(t *testing.T) *engines.Dataset {
			dir := filepath.Join("..", "..", "..", evaluate.MovieLensDir)
			ds, err := evaluate.LoadMovieLens(dir)
			if err != nil {
				t.Skipf("MovieLens not found at %s: %v", dir, err)
			}
			return evaluate.MostInteracted(ds, 1682)
		}, true},
		{"sparse synthetic, seed 1", func(*testing.T) *engines.Dataset { return evaluate.Synthetic(evaluate.SparseShape, 1) }, true},
		{"sparse synthetic, seed 2 (held back)", func(*testing.T) *engines.Dataset { return evaluate.Synthetic(evaluate.SparseShape, 2) }, false},
	}
	if s := os.Getenv("HARK_EVAL_CATALOGS"); s != "" {
		var keep []catalogCase
		for _, c := range cases {
			for _, part := range strings.Split(s, ",") {
				if strings.Contains(c.name, part) {
					keep = append(keep, c)
					break
				}
			}
		}
		cases = keep
	}
	return cases
}

// testNDCG trains on the split's training part and scores the test part.
func testNDCG(t *testing.T, engine string, split *evaluate.Split, cfg engines.TrainConfig) float64 {
	t.Helper()
	m, err := engines.Train(context.Background(), engine, split.Train, cfg)
	if err != nil {
		t.Fatalf("train %s: %v", engine, err)
	}
	met, err := evaluate.Evaluate(m, split, 10)
	if err != nil {
		t.Fatalf("evaluate %s: %v", engine, err)
	}
	return met.NDCG
}

// BenchmarkTunedTraining is a training as harkd runs it by default on MovieLens: the search with the
// default budget, then the final training on everything (target: at most 60 s on 2 cores).
func BenchmarkTunedTraining(b *testing.B) {
	dir := filepath.Join("..", "..", "..", evaluate.MovieLensDir)
	ds, err := evaluate.LoadMovieLens(dir)
	if err != nil {
		b.Skipf("MovieLens not found at %s: %v", dir, err)
	}
	for b.Loop() {
		rep, err := tune.Search(context.Background(), engines.Hybrid, ds, tune.Options{Budget: jobs.DefaultTuningBudget})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := engines.Train(context.Background(), engines.Hybrid, ds, rep.Config); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(rep.Trials), "trials")
		b.ReportMetric(rep.PlannedSeconds, "planned-s")
	}
}
