package evaluate

import (
	"context"
	"fmt"
	"math"
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
	for _, name := range names {
		c, ok := configs[name]
		if !ok {
			c.engine = name
		}
		c.cfg.Seed = 1
		start := time.Now()
		m, err := engines.Train(context.Background(), c.engine, split.Train, c.cfg)
		if err != nil {
			t.Fatalf("train %s: %v", name, err)
		}
		took := time.Since(start)
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

// TestQualityReport prints the metrics of every engine next to the baselines (make bench calls it).
func TestQualityReport(t *testing.T) {
	if testing.Short() {
		t.Skip("quality report trains every engine; skipped in -short")
	}
	runs := qualityRuns(t, []string{"baseline:popularity", "baseline:ials", engines.Popular, engines.Hybrid})
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
