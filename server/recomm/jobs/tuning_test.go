package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/harkhq/hark/server/recomm/tune"
)

func trainResult(t *testing.T, j Job) TrainResult {
	t.Helper()
	var res TrainResult
	if err := json.Unmarshal(j.Result, &res); err != nil {
		t.Fatalf("result %s: %v", j.Result, err)
	}
	return res
}

func TestTrainingTunes(t *testing.T) {
	w := newWorld(t, 0)
	j := w.train(t, "hybrid", map[string]any{"tuningBudget": 0.5, "seed": 3.0})
	if j.Status != CompletedWithErrors {
		t.Fatalf("training = %s %s", j.Status, j.Result)
	}
	rep := trainResult(t, j).Tuning
	if rep == nil || rep.Skipped != "" || rep.Method != tune.Halving || rep.Trials < 2 || rep.Validation == nil {
		t.Fatalf("tuning report %+v", rep)
	}
	if rep.Validation.Chosen.NDCG < rep.Validation.Defaults.NDCG || rep.Chosen["factors"] == nil {
		t.Errorf("chosen %v scores %+v", rep.Chosen, rep.Validation)
	}
	if n := rep.Neighbours; n == nil || (n.Skipped == "" && len(n.Levels) != 8) || rep.Chosen["neighbourWeight"] != n.Weight {
		t.Errorf("neighbour study %+v, chosen %v", n, rep.Chosen)
	}
	if w.models.Get(1, "shop", "hybrid") == nil {
		t.Error("no model after a tuned training")
	}
	// the same request and seed choose the same settings
	again := trainResult(t, w.train(t, "hybrid", map[string]any{"tuningBudget": 0.5, "seed": 3.0})).Tuning
	if again == nil || !equalJSON(t, rep.Chosen, again.Chosen) || !equalJSON(t, rep.Validation, again.Validation) {
		t.Errorf("same seed, different choices: %v / %v", rep.Chosen, again)
	}

	for _, c := range []struct {
		cfg  map[string]any
		want string
	}{
		{map[string]any{"tuning": false}, "turned off"},
		{map[string]any{"tuningBudget": 0.0}, "the tuning budget is 0"},
		// five users are too few to tell settings apart
		{map[string]any{"userFilter": "age=lt=25", "tuningBudget": 5.0}, "too few interactions"},
		{nil, "no hyperparameters"},
	} {
		engine := "hybrid"
		if c.cfg == nil {
			engine = "content_based"
		}
		j := w.train(t, engine, c.cfg)
		rep := trainResult(t, j).Tuning
		if j.Status != CompletedWithErrors || rep == nil || !strings.Contains(rep.Skipped, c.want) {
			t.Errorf("%v: %s, tuning %+v; want skipped %q", c.cfg, j.Status, rep, c.want)
		}
	}
	for _, bad := range []map[string]any{{"tuning": "yes"}, {"tuningBudget": -1.0}, {"tuningBudget": "10"}, {"seed": 1.5}, {"seed": -2.0}} {
		if err := w.tr.Check(context.Background(), 1, "shop", TrainRequest{Engine: "hybrid", Configuration: bad}); err == nil {
			t.Errorf("configuration %v accepted", bad)
		}
	}
}

func equalJSON(t *testing.T, a, b any) bool {
	t.Helper()
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	return string(x) == string(y)
}

// countdownCtx is cancelled after a number of Err calls: a cancellation at a known point of a
// training, whatever the speed of the machine.
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

// TestTrainingCancelledMidSearch: a training cancelled half way through its search (a shutdown)
// fails and leaves no model behind, in memory or on disk.
func TestTrainingCancelledMidSearch(t *testing.T) {
	req, _ := json.Marshal(TrainRequest{Engine: "isvd", Configuration: map[string]any{"tuningBudget": 5.0}})
	job := Job{ID: "t1", WS: 1, Scope: "shop", Kind: Train, Request: req}
	probe := &countdownCtx{Context: context.Background()}
	probe.left.Store(1 << 40)
	full := newWorld(t, 0)
	if _, res, err := full.tr.Run(probe, job); err != nil || res.(TrainResult).Tuning.Trials < 3 {
		t.Fatalf("uncancelled training: %+v %v", res, err)
	}
	checks := 1<<40 - probe.left.Load()

	w := newWorld(t, 0)
	ctx := &countdownCtx{Context: context.Background()}
	ctx.left.Store(checks / 2)
	if _, _, err := w.tr.Run(ctx, job); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled training: %v", err)
	}
	if w.models.Get(1, "shop", "isvd") != nil {
		t.Error("a model is served after a cancelled training")
	}
	files, _ := filepath.Glob(filepath.Join(w.dir, "*", "*", "*"))
	if len(files) > 0 {
		t.Errorf("files left by a cancelled training: %v", files)
	}
	if _, err := os.Stat(filepath.Join(full.dir, "1", "shop", "isvd.model")); err != nil {
		t.Errorf("the uncancelled training saved no model: %v", err)
	}
}

// TestTrainingsOfOneTableKeepTheirOrder: a second training queued behind a tuned one starts only
// after it ends, and the table's model is the second one's.
func TestTrainingsOfOneTableKeepTheirOrder(t *testing.T) {
	w := newWorld(t, 0)
	ctx := context.Background()
	var ids []string
	for _, cfg := range []map[string]any{{"tuningBudget": 0.5, "seed": 1.0}, {"tuning": false}} {
		j, err := w.q.Submit(ctx, 1, "shop", Train, TrainRequest{Engine: "isvd", Configuration: cfg})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, j.ID)
	}
	first := waitStatus(t, w.q, 1, "shop", Train, ids[0])
	second := waitStatus(t, w.q, 1, "shop", Train, ids[1])
	if first.Status != CompletedWithErrors || second.Status != CompletedWithErrors {
		t.Fatalf("statuses %s %s", first.Status, second.Status)
	}
	if second.Started.Before(first.Finished) {
		t.Errorf("second training started at %v, before the first ended at %v", second.Started, first.Finished)
	}
	if rep := trainResult(t, first).Tuning; rep == nil || rep.Trials == 0 {
		t.Errorf("first training did not tune: %+v", rep)
	}
	if rep := trainResult(t, second).Tuning; rep == nil || !strings.Contains(rep.Skipped, "turned off") {
		t.Errorf("second training: %+v", rep)
	}
}
