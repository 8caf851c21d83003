package jobs

import (
	"context"
	"math"
	"time"

	"github.com/harkhq/hark/server/apierr"
	"github.com/harkhq/hark/server/recomm/engines"
	"github.com/harkhq/hark/server/recomm/tune"
)

// DefaultTuningBudget is the search time a training spends unless told otherwise (the default of
// harkd serve --tuning-budget and of hark's embedded server): with the final training it keeps a
// MovieLens-size table under a minute on 2 cores.
const DefaultTuningBudget = 40 * time.Second

// Configuration keys of a training that ask for tuning; the contract's keys are unchanged.
var tuningKeys = []string{"tuning", "tuningBudget", "seed"}

// tuningRequest is what a training asks of the search.
type tuningRequest struct {
	off    bool
	budget *time.Duration
	seed   uint64
}

// tuningOptions reads `tuning` (boolean, default true), `tuningBudget` (seconds, >= 0) and `seed`
// (a non-negative integer) from a training configuration.
func tuningOptions(cfg map[string]any) (tuningRequest, error) {
	var r tuningRequest
	switch v := cfg["tuning"].(type) {
	case nil:
	case bool:
		r.off = !v
	default:
		return r, apierr.InvalidArgumentf("configuration.tuning must be true or false")
	}
	if v, ok := cfg["tuningBudget"]; ok && v != nil {
		s, ok := v.(float64)
		if !ok || s < 0 || math.IsInf(s, 0) || s > 24*3600 {
			return r, apierr.InvalidArgumentf("configuration.tuningBudget must be seconds, 0 to 86400")
		}
		d := time.Duration(s * float64(time.Second))
		r.budget = &d
	}
	if v, ok := cfg["seed"]; ok && v != nil {
		s, ok := v.(float64)
		if !ok || s < 0 || s != math.Trunc(s) || s > 1<<53 {
			return r, apierr.InvalidArgumentf("configuration.seed must be a non-negative integer")
		}
		r.seed = uint64(s)
	}
	return r, nil
}

// trainTuned searches the engine's settings on a validation split of ds within the budget and trains
// on all of ds with the winner. left is the workspace's remaining training time when limited: the
// search then takes at most half of it, so the final training keeps the other half.
func (t *Trainer) trainTuned(ctx context.Context, engine string, ds *engines.Dataset, cfg map[string]any,
	left time.Duration, limited bool) (engines.Model, *tune.Report, error) {
	req, err := tuningOptions(cfg)
	if err != nil {
		return nil, nil, err
	}
	budget := t.TuningBudget
	if req.budget != nil {
		budget = *req.budget
	}
	if limited {
		budget = min(budget, left/2)
	}
	var rep *tune.Report
	if req.off {
		rep = &tune.Report{Skipped: "tuning was turned off by the request", Config: engines.TrainConfig{Seed: int64(req.seed)}}
	} else if rep, err = tune.Search(ctx, engine, ds, tune.Options{Budget: budget, Seed: req.seed}); err != nil {
		return nil, nil, err
	}
	m, err := engines.Train(ctx, engine, ds, rep.Config)
	return m, rep, err
}
