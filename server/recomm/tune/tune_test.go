package tune

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/harkhq/hark/server/recomm/engines"
	"github.com/harkhq/hark/server/recomm/evaluate"
)

// small is a sparse synthetic catalog small enough for a search in a fraction of a second.
func small() *engines.Dataset {
	return evaluate.Synthetic(evaluate.Shape{Users: 120, Items: 400, Topics: 6, History: 15, ColdItems: 5}, 7)
}

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
	if a.Skipped != "" || a.Trials < 5 {
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
			rep, err := Search(context.Background(), engine, ds, Options{Budget: 2 * time.Second, Seed: 1, Workers: 2, Method: method})
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

func TestSearchSkips(t *testing.T) {
	tiny := engines.NewDataset([]string{"a", "b", "c"}, []string{"x", "y", "z"})
	for u := range 3 {
		for i := range 3 {
			tiny.Add(int32(u), int32(i), 1, 1, true, int64(i), "view")
		}
	}
	for _, c := range []struct {
		name   string
		engine string
		ds     *engines.Dataset
		budget time.Duration
		want   string
	}{
		{"tiny table", engines.Hybrid, tiny, time.Minute, "too few interactions to carve a validation split"},
		{"zero budget", engines.Hybrid, small(), 0, "the tuning budget is 0"},
		{"budget below one training", engines.Hybrid, small(), time.Millisecond, "too small to tune"},
		{"nothing to tune", engines.ContentBased, small(), time.Minute, "no hyperparameters"},
	} {
		rep, err := Search(context.Background(), c.engine, c.ds, Options{Budget: c.budget, Seed: 9})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !strings.Contains(rep.Skipped, c.want) || rep.Trials != 0 || rep.Validation != nil {
			t.Errorf("%s: skipped %q after %d trials, want %q", c.name, rep.Skipped, rep.Trials, c.want)
		}
		if !reflect.DeepEqual(rep.Config, engines.TrainConfig{Seed: 9}) {
			t.Errorf("%s: config %+v, want the defaults", c.name, rep.Config)
		}
	}
}

// countdownCtx is cancelled after a number of Err calls: a cancellation at a known point of a search,
// whatever the speed of the machine.
type countdownCtx struct {
	context.Context
	left atomic.Int64
}

func (c *countdownCtx) Err() error {
	if c.left.Add(-1) < 0 {
		return context.Canceled
	}
	return nil
}

func TestSearchCancelled(t *testing.T) {
	ds := small()
	// how many checks a whole search makes, then cancel half way
	probe := &countdownCtx{Context: context.Background()}
	probe.left.Store(1 << 40)
	if _, err := Search(probe, engines.Hybrid, ds, Options{Budget: time.Second, Seed: 1, Workers: 2}); err != nil {
		t.Fatal(err)
	}
	checks := 1<<40 - probe.left.Load()
	ctx := &countdownCtx{Context: context.Background()}
	ctx.left.Store(checks / 2)
	rep, err := Search(ctx, engines.Hybrid, ds, Options{Budget: time.Second, Seed: 1, Workers: 2})
	if !errors.Is(err, context.Canceled) || rep != nil {
		t.Errorf("search cancelled half way: %v, %v", rep, err)
	}
}
