//go:build !race

// The search tests train dozens of models; under the race detector that takes minutes, so they run in
// the build without it (make test runs them so, next to TestQuality).

package tune

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/harkhq/hark/server/recomm/engines"
)

func TestSearchIsRepeatable(t *testing.T) {
	ds := small()
	o := Options{Budget: time.Second, Seed: 3, Workers: 2}
	a, err := Search(context.Background(), engines.Hybrid, ds, o)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Search(context.Background(), engines.Hybrid, ds, o)
	if err != nil {
		t.Fatal(err)
	}
	if a.Skipped != "" || a.Trials < 3 {
		t.Fatalf("search skipped or too short: %q, %d trials", a.Skipped, a.Trials)
	}
	if !reflect.DeepEqual(a.Config, b.Config) || !reflect.DeepEqual(a.Chosen, b.Chosen) ||
		!reflect.DeepEqual(a.Validation, b.Validation) || a.Trials != b.Trials {
		t.Errorf("same seed, different searches:\n%+v %v\n%+v %v", a.Config, a.Validation, b.Config, b.Validation)
	}
	o.Seed = 4
	c, err := Search(context.Background(), engines.Hybrid, ds, o)
	if err != nil {
		t.Fatal(err)
	}
	if reflect.DeepEqual(a.Config, c.Config) {
		t.Error("another seed searched the same settings")
	}
}

// TestTunedNotWorseThanDefaults: every engine's choice scores at least its defaults on the
// validation split, and on this sparse play-count catalog successive halving finds better settings
// for hybrid than its defaults, which were chosen on a dense rating catalog.
func TestTunedNotWorseThanDefaults(t *testing.T) {
	ds := small()
	for _, engine := range []string{engines.Hybrid, engines.FM, engines.ISVD, engines.Popular} {
		for _, method := range []string{Halving, Random} {
			b := 2 * time.Second
			if engine == engines.Hybrid {
				b = 4 * time.Second // two brackets of halving on this catalog
			}
			rep, err := Search(context.Background(), engine, ds, Options{Budget: b, Seed: 1, Workers: 2, Method: method})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Skipped != "" || rep.Validation == nil {
				t.Fatalf("%s %s: skipped: %s", engine, method, rep.Skipped)
			}
			v := rep.Validation
			if v.Chosen.NDCG < v.Defaults.NDCG {
				t.Errorf("%s %s: chosen NDCG@10 %.4f below the defaults' %.4f", engine, method, v.Chosen.NDCG, v.Defaults.NDCG)
			}
			t.Logf("%s %s: %d trials, planned %.2f s, took %.2f s, NDCG@10 %.4f (defaults %.4f)", engine, method,
				rep.Trials, rep.PlannedSeconds, rep.Seconds, v.Chosen.NDCG, v.Defaults.NDCG)
			// both methods spend the budget by the cost model, and never more
			if rep.PlannedSeconds > b.Seconds() || (engine == engines.Hybrid || engine == engines.FM) && rep.PlannedSeconds < 0.8*b.Seconds() {
				t.Errorf("%s %s: planned %.2f s of a %.0f s budget", engine, method, rep.PlannedSeconds, b.Seconds())
			}
			if engine == engines.Hybrid && method == Halving && !(v.Chosen.NDCG > v.Defaults.NDCG) {
				t.Errorf("%s %s: the search found nothing better than the defaults (%.4f)", engine, method, v.Defaults.NDCG)
			}
			if rep.Chosen["defaults"] != (v.Chosen == v.Defaults && rep.BestSearched <= v.Defaults.NDCG) {
				t.Errorf("%s %s: chosen %v does not say whether the defaults were kept", engine, method, rep.Chosen)
			}
			// the chosen settings retrain on everything: they must be a valid configuration
			if _, err := engines.Train(context.Background(), engine, ds, rep.Config); err != nil {
				t.Errorf("%s %s: chosen settings do not train: %v", engine, method, err)
			}
		}
	}
}
