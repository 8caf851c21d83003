package evaluate

import (
	"context"
	"math/rand/v2"
	"runtime"
	"sort"
	"testing"
	"time"

	"github.com/harkhq/hark/server/recomm/engines"
)

// loadBench loads MovieLens once per benchmark, outside the timer.
func loadBench(b *testing.B) *engines.Dataset {
	b.Helper()
	ds, err := LoadMovieLens(dataDir(b))
	if err != nil {
		b.Fatal(err)
	}
	return ds
}

// BenchmarkTrain trains every engine on all of MovieLens latest-small (100k ratings, 9k movies);
// plain iALS is the baseline hybrid is compared with (target: hybrid <= 15 s on 2 cores).
func BenchmarkTrain(b *testing.B) {
	ds := loadBench(b)
	cases := []struct {
		name   string
		engine string
		cfg    engines.TrainConfig
	}{
		{"popular", engines.Popular, engines.TrainConfig{}},
		{"ials-baseline", engines.Hybrid, engines.TrainConfig{AttributeWeight: -1}},
		{"hybrid", engines.Hybrid, engines.TrainConfig{}},
		{"content_based", engines.ContentBased, engines.TrainConfig{}},
		{"fm", engines.FM, engines.TrainConfig{}},
		{"isvd", engines.ISVD, engines.TrainConfig{}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			cpu := processCPU()
			for b.Loop() {
				if _, err := engines.Train(context.Background(), c.engine, ds, c.cfg); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric((processCPU()-cpu).Seconds()/float64(b.N), "cpu-s/op")
		})
	}
}

// BenchmarkTrainHybrid is the hybrid training time alone (target <= 15 s on 2 cores).
func BenchmarkTrainHybrid(b *testing.B) {
	ds := loadBench(b)
	cpu := processCPU()
	for b.Loop() {
		if _, err := engines.Train(context.Background(), engines.Hybrid, ds, engines.TrainConfig{Seed: 1}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric((processCPU()-cpu).Seconds()/float64(b.N), "cpu-s/op")
}

// BenchmarkItemsForUser measures one items-to-user answer with a candidate filter (a genre, through
// the Accept predicate the catalog layer uses for RSQL) and the user's own items left out; reports
// p50 and p99 latency. popular is the cheapest engine and serves as the baseline.
func BenchmarkItemsForUser(b *testing.B) {
	ds := loadBench(b)
	comedy := map[string]bool{}
	for i, toks := range ds.ItemAttrs.Tokens["genres"] {
		for _, g := range toks {
			if g == "Comedy" {
				comedy[ds.ItemIDs[i]] = true
			}
		}
	}
	seen := make([]map[string]bool, len(ds.UserIDs))
	for _, in := range ds.Interactions {
		if seen[in.User] == nil {
			seen[in.User] = map[string]bool{}
		}
		seen[in.User][ds.ItemIDs[in.Item]] = true
	}
	for _, engine := range []string{engines.Popular, engines.Hybrid, engines.ContentBased, engines.FM, engines.ISVD} {
		m, err := engines.Train(context.Background(), engine, ds, engines.TrainConfig{Seed: 1})
		if err != nil {
			b.Fatal(err)
		}
		runtime.GC() // training garbage would otherwise be collected during the timed queries
		b.Run(engine, func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 2))
			var lat []time.Duration
			cpu := processCPU()
			for b.Loop() {
				u := rng.IntN(len(ds.UserIDs))
				q := engines.Query{Limit: 10, Accept: func(id string) bool { return comedy[id] && !seen[u][id] }}
				start := time.Now()
				recs, err := m.Recommend(engines.ItemsToUser, engines.Subject{ID: ds.UserIDs[u]}, q)
				lat = append(lat, time.Since(start))
				if err != nil || len(recs) == 0 {
					b.Fatalf("user %s: %v %v", ds.UserIDs[u], recs, err)
				}
			}
			// CPU time per query is what the query costs; wall-time percentiles also show how
			// loaded the machine is
			b.ReportMetric((processCPU()-cpu).Seconds()*1000/float64(b.N), "cpu-ms/op")
			sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
		})
	}
}

// BenchmarkQuality reports NDCG@10 and the other metrics of hybrid and the baselines as benchmark
// metrics, for make bench.
func BenchmarkQuality(b *testing.B) {
	ds := loadBench(b)
	split, err := SplitByUser(ds, 0.2, Seed)
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		engine string
		cfg    engines.TrainConfig
	}{
		{"popularity-baseline", engines.Popular, engines.TrainConfig{HalfLife: -1}},
		{"ials-baseline", engines.Hybrid, engines.TrainConfig{AttributeWeight: -1}},
		{"popular", engines.Popular, engines.TrainConfig{}},
		{"hybrid", engines.Hybrid, engines.TrainConfig{}},
	} {
		b.Run(c.name, func(b *testing.B) {
			var met Metrics
			for b.Loop() {
				c.cfg.Seed = 1
				m, err := engines.Train(context.Background(), c.engine, split.Train, c.cfg)
				if err != nil {
					b.Fatal(err)
				}
				if met, err = Evaluate(m, split, 10); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(met.NDCG, "NDCG@10")
			b.ReportMetric(met.Precision, "P@10")
			b.ReportMetric(met.Recall, "R@10")
			b.ReportMetric(met.HitRate, "HR@10")
			b.ReportMetric(met.Coverage, "coverage")
		})
	}
}
