package tune

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
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
	engine := engines.Hybrid
	if raceEnabled {
		engine = engines.ISVD // the same search loop; hybrid's trials take seconds under -race
	}
	// how many checks a whole search makes, then cancel half way
	probe := &countdownCtx{Context: context.Background()}
	probe.left.Store(1 << 40)
	if _, err := Search(probe, engine, ds, Options{Budget: time.Second, Seed: 1, Workers: 2}); err != nil {
		t.Fatal(err)
	}
	checks := 1<<40 - probe.left.Load()
	ctx := &countdownCtx{Context: context.Background()}
	ctx.left.Store(checks / 2)
	rep, err := Search(ctx, engine, ds, Options{Budget: time.Second, Seed: 1, Workers: 2})
	if !errors.Is(err, context.Canceled) || rep != nil {
		t.Errorf("search cancelled half way: %v, %v", rep, err)
	}
}

// TestPerturb: the local search moves every continuous setting in log space and keeps the kind of
// confidence and whether attributes are used.
func TestPerturb(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	base := engines.TrainConfig{Factors: 48, Regularization: 0.1, Alpha: 3, LogConfidence: true, AttributeWeight: -1, Iterations: 18}
	moved := 0
	for range 200 {
		c := perturb(rng, trial{base}).cfg
		if c.LogConfidence != base.LogConfidence || c.AttributeWeight != -1 || c.Iterations != 0 || c.LearningRate != 0 {
			t.Fatalf("perturb changed a discrete setting: %+v", c)
		}
		for _, r := range []float64{c.Regularization / base.Regularization, c.Alpha / base.Alpha} {
			if !(r > 1/20.0 && r < 20) {
				t.Fatalf("perturb went far: %+v", c)
			}
		}
		if c.Factors != 32 && c.Factors != 48 && c.Factors != 64 {
			t.Fatalf("factors %d are not a neighbour of 48", c.Factors)
		}
		if c.Regularization != base.Regularization {
			moved++
		}
	}
	if moved < 190 {
		t.Errorf("only %d of 200 perturbations moved the regularisation", moved)
	}
}

// TestDiversityStudy: a hybrid search measures the chosen model at each diversity level on the
// validation split; level 0 is the chosen setting's own validation score, MMR raises the coverage of
// the top 10, and the suggestion follows the documented rule.
func TestDiversityStudy(t *testing.T) {
	rep, err := Search(context.Background(), engines.Hybrid, small(), Options{Budget: 500 * time.Millisecond, Seed: 3, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	d := rep.Diversity
	if d == nil || d.Skipped != "" || len(d.Levels) != len(diversityLevels)+1 {
		t.Fatalf("diversity study %+v (report skipped %q)", d, rep.Skipped)
	}
	base := d.Levels[0]
	if base.Diversity != 0 || base.NDCG != rep.Validation.Chosen.NDCG {
		t.Errorf("level 0 is %+v, the chosen setting scored %.4f", base, rep.Validation.Chosen.NDCG)
	}
	top := d.Levels[len(d.Levels)-1]
	if !(top.Coverage > base.Coverage) {
		t.Errorf("diversity %.1f covers %.3f of the catalog, no more than %.3f without it", top.Diversity, top.Coverage, base.Coverage)
	}
	want := 0.0
	for _, l := range d.Levels[1:] {
		if l.NDCG >= (1-maxNDCGLoss)*base.NDCG && l.Coverage > base.Coverage {
			want = l.Diversity
		}
	}
	if d.Suggested != want {
		t.Errorf("suggested %.1f, the rule gives %.1f: %+v", d.Suggested, want, d.Levels)
	}
	t.Logf("levels %+v, suggested %.1f", d.Levels, d.Suggested)
	if other, err := Search(context.Background(), engines.FM, small(), Options{Budget: 200 * time.Millisecond, Seed: 3, Workers: 2}); err != nil || other.Diversity != nil {
		t.Errorf("fm search: diversity %+v, err %v; only hybrid has a diversity parameter", other.Diversity, err)
	}
}

func TestNeighbourStudy(t *testing.T) {
	rep, err := Search(context.Background(), engines.Hybrid, small(), Options{Budget: 500 * time.Millisecond, Seed: 3, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	n := rep.Neighbours
	if n == nil || n.Skipped != "" || len(n.Levels) != len(neighbourWeights)+1 || n.Levels[0].Weight != 0 {
		t.Fatalf("neighbour study %+v (report skipped %q)", n, rep.Skipped)
	}
	best := n.Levels[0]
	for _, l := range n.Levels[1:] {
		if l.NDCG > best.NDCG && l.Gain > l.StandardError {
			best = l
		}
		if math.Abs(l.NDCG-n.Levels[0].NDCG-l.Gain) > 1e-9 || !(l.StandardError > 0) {
			t.Errorf("level %+v: its gain is not its NDCG over level 0's %.4f, or it has no standard error", l, n.Levels[0].NDCG)
		}
	}
	if n.Weight != best.Weight || rep.Config.NeighbourWeight != best.Weight || rep.Chosen["neighbourWeight"] != best.Weight {
		t.Errorf("chose %.2f (config %.2f, reported %v), the best level is %+v", n.Weight, rep.Config.NeighbourWeight, rep.Chosen["neighbourWeight"], best)
	}
	if rep.Validation.Chosen.NDCG != best.NDCG {
		t.Errorf("validation of the chosen setting %.4f, its level scored %.4f", rep.Validation.Chosen.NDCG, best.NDCG)
	}
	if d := rep.Diversity; d == nil || d.Skipped != "" || d.Levels[0].NDCG != best.NDCG {
		t.Errorf("the diversity study did not measure the chosen model: %+v", d)
	}
	t.Logf("levels %+v, chosen %.2f", n.Levels, n.Weight)

	// budgets where learning neighbours would take more than a third are searched without them
	without := 0
	for ms := 80; ms <= 300 && without == 0; ms += 20 {
		r, err := Search(context.Background(), engines.Hybrid, small(), Options{Budget: time.Duration(ms) * time.Millisecond, Seed: 3, Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		if r.Skipped == "" && r.Neighbours.Skipped != "" {
			without++
			if r.Config.NeighbourWeight != 0 || len(r.Neighbours.Levels) != 0 || r.Chosen["neighbourWeight"] != 0.0 {
				t.Errorf("%d ms: neighbours skipped (%s) yet %+v", ms, r.Neighbours.Skipped, r.Config)
			}
			t.Logf("%d ms: %s", ms, r.Neighbours.Skipped)
		}
	}
	if without == 0 {
		t.Error("no budget from 80 to 300 ms searched without the neighbour study")
	}
	if other, err := Search(context.Background(), engines.FM, small(), Options{Budget: 200 * time.Millisecond, Seed: 3, Workers: 2}); err != nil || other.Neighbours != nil {
		t.Errorf("fm search: neighbours %+v, err %v; only hybrid mixes neighbours", other.Neighbours, err)
	}
}

func TestPairedGain(t *testing.T) {
	gain, se := pairedGain([]float64{0.5, 0.2}, []float64{1.5, 3.2})
	if gain != 2 || math.Abs(se-1) > 1e-12 {
		t.Errorf("gain %v ± %v, want 2 ± 1", gain, se)
	}
}
