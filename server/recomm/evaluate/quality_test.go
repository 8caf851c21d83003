//go:build !race

// The quality runs train real models on MovieLens; under the race detector they take minutes, so
// they are built only without -race (make bench, or go test without -race).

package evaluate

import (
	"context"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/harkhq/hark/server/recomm/engines"
)

// run is one row of the quality table.
type run struct {
	Name    string
	Metrics Metrics
	Train   time.Duration
}

// qualityRuns trains every engine and the two baselines on the fixed 80/20 split and evaluates the
// top 10 over a full ranking.
func qualityRuns(t testing.TB, names []string) []run {
	ds, err := LoadMovieLens(dataDir(t))
	if err != nil {
		t.Fatal(err)
	}
	split, err := SplitByUser(ds, 0.2, Seed)
	if err != nil {
		t.Fatal(err)
	}
	configs := map[string]struct {
		engine string
		cfg    engines.TrainConfig
	}{
		"baseline:popularity": {engines.Popular, engines.TrainConfig{HalfLife: -1}},
		"baseline:ials":       {engines.Hybrid, engines.TrainConfig{AttributeWeight: -1}},
	}
	var out []run
	trained := map[string]engines.Model{}
	for _, name := range names {
		var (
			m     engines.Model
			err   error
			start = time.Now()
		)
		if mix, ok := strings.CutPrefix(name, "ensemble:"); ok {
			// equal weights over engines trained earlier in the same run
			var parts []engines.EnsemblePart
			for _, e := range strings.Split(mix, "+") {
				parts = append(parts, engines.EnsemblePart{Model: trained[e], Weight: 1})
			}
			m, err = engines.NewEnsemble(parts)
		} else {
			c, ok := configs[name]
			if !ok {
				c.engine = name
			}
			c.cfg.Seed = 1
			m, err = engines.Train(context.Background(), c.engine, split.Train, c.cfg)
		}
		if err != nil {
			t.Fatalf("train %s: %v", name, err)
		}
		took := time.Since(start)
		trained[name] = m
		met, err := Evaluate(m, split, 10)
		if err != nil {
			t.Fatalf("evaluate %s: %v", name, err)
		}
		out = append(out, run{Name: name, Metrics: met, Train: took})
	}
	return out
}

func table(runs []run) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-22s %7s %7s %8s %7s %9s %9s\n", "engine", "P@10", "R@10", "NDCG@10", "HR@10", "coverage", "train")
	for _, r := range runs {
		m := r.Metrics
		fmt.Fprintf(&b, "%-22s %7.4f %7.4f %8.4f %7.4f %9.4f %9s\n", r.Name, m.Precision, m.Recall, m.NDCG,
			m.HitRate, m.Coverage, r.Train.Round(time.Millisecond))
	}
	return b.String()
}

// TestQuality asserts the quality targets of hybrid and popular against baselines of the same run.
func TestQuality(t *testing.T) {
	if testing.Short() {
		t.Skip("trains on MovieLens; skipped in -short")
	}
	runs := qualityRuns(t, []string{"baseline:popularity", engines.Popular, "baseline:ials", engines.Hybrid})
	t.Log("\n" + table(runs))
	base, pop := findRun(runs, "baseline:popularity"), findRun(runs, engines.Popular)
	ials, hyb := findRun(runs, "baseline:ials"), findRun(runs, engines.Hybrid)
	if hyb.NDCG < 0.33 {
		t.Errorf("hybrid NDCG@10 %.4f, target >= 0.33", hyb.NDCG)
	}
	if math.Abs(pop.NDCG-base.NDCG) > 0.01 {
		t.Errorf("popular NDCG@10 %.4f not within 0.01 of the plain-count baseline %.4f", pop.NDCG, base.NDCG)
	}
	if hyb.NDCG <= ials.NDCG {
		t.Errorf("hybrid NDCG@10 %.4f does not beat plain iALS %.4f", hyb.NDCG, ials.NDCG)
	}
}

// TestQualityReport prints the metrics of every engine next to the baselines; make bench runs it
// with -v.
func TestQualityReport(t *testing.T) {
	if testing.Short() || os.Getenv("HARK_QUALITY_REPORT") == "" {
		t.Skip("set HARK_QUALITY_REPORT=1 to train and evaluate every engine")
	}
	runs := qualityRuns(t, []string{"baseline:popularity", "baseline:ials", engines.Popular, engines.Hybrid,
		engines.ContentBased, engines.FM, engines.ISVD, "ensemble:hybrid+fm+isvd"})
	t.Log("\n" + table(runs))
}

func findRun(runs []run, name string) Metrics {
	for _, r := range runs {
		if r.Name == name {
			return r.Metrics
		}
	}
	return Metrics{NDCG: math.NaN()}
}
