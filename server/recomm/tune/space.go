package tune

import (
	"math"
	"math/rand/v2"
	"time"

	"github.com/harkhq/hark/server/recomm/engines"
)

// trial is one setting of an engine's hyperparameters. Its iterations (or epochs) are the resource
// that successive halving grows, so they are set per rung, not sampled.
type trial struct {
	cfg engines.TrainConfig
}

// space is what the search may change for one engine.
type space struct {
	// sample draws a setting; nil for engines with a grid (grid) or nothing to search.
	sample func(rng *rand.Rand) trial
	// grid lists every setting, for engines with one small dimension (isvd's rank, popular's decay).
	grid []trial
	// rungs are the iterations of successive halving's rungs, the last one being the full training;
	// nil when the engine has no iterations.
	rungs []int
	// defaults is what the engine trains with when nothing is set, with its iterations.
	defaults trial
}

// stats are the sizes of a training set that the search space and the cost model depend on.
type stats struct {
	users, items, pairs, positives int
	meanStrength                   float64 // mean net strength of the positive pairs
	itemFeatures, userFeatures     bool
	span                           time.Duration // time between the first and the last interaction
}

// spaceOf returns the searched hyperparameters of an engine, or nil when it has none.
//
// Ranges are wide on purpose: they are not tuned on any catalog, they bound what a training may try.
// The hybrid confidence α is drawn relative to the catalog's mean strength m (linear: α = a/m), so the
// same range covers star ratings and play counts in the thousands.
func spaceOf(engine string, st stats) *space {
	switch engine {
	case engines.Hybrid:
		def := engines.Defaults(engines.Hybrid)
		return &space{
			rungs:    []int{2, 6, 18},
			defaults: trial{def},
			sample: func(rng *rand.Rand) trial {
				if rng.IntN(2) == 0 {
					// half the settings are near the defaults: good on rating catalogs, where a
					// small change may be all a table needs
					cfg := def
					cfg.Iterations = 0
					cfg.Factors = near(rng, def.Factors, 16, 32, 48, 64, 96, 128)
					cfg.Regularization = jitter(rng, def.Regularization)
					cfg.Alpha = jitter(rng, def.Alpha)
					if st.itemFeatures || st.userFeatures {
						cfg.AttributeWeight = jitter(rng, def.AttributeWeight)
					}
					return trial{cfg}
				}
				cfg := engines.TrainConfig{
					Factors:        choice(rng, 16, 32, 48, 64, 96, 128),
					Regularization: logUniform(rng, 0.003, 3),
					LogConfidence:  rng.IntN(2) == 0,
				}
				if cfg.LogConfidence {
					cfg.Alpha = logUniform(rng, 0.3, 100)
				} else {
					cfg.Alpha = logUniform(rng, 0.1, 100) / st.meanStrength
				}
				cfg.AttributeWeight = -1
				if (st.itemFeatures || st.userFeatures) && rng.Float64() < 0.7 {
					cfg.AttributeWeight = logUniform(rng, 0.3, 100)
				}
				return trial{cfg}
			},
		}
	case engines.FM:
		def := engines.Defaults(engines.FM)
		return &space{
			rungs:    []int{2, 6, 18},
			defaults: trial{def},
			sample: func(rng *rand.Rand) trial {
				if rng.IntN(2) == 0 {
					cfg := def
					cfg.Iterations = 0
					cfg.Factors = near(rng, def.Factors, 16, 32, 64, 128)
					cfg.LearningRate = jitter(rng, def.LearningRate)
					cfg.Regularization = jitter(rng, def.Regularization)
					return trial{cfg}
				}
				return trial{engines.TrainConfig{
					Factors:        choice(rng, 16, 32, 64, 128),
					LearningRate:   logUniform(rng, 0.005, 0.3),
					Regularization: logUniform(rng, 1e-6, 1e-2),
				}}
			},
		}
	case engines.ISVD:
		sp := &space{}
		for _, k := range []int{4, 8, 16, 24, 32, 48, 64, 96, 128, 192, 256} {
			if k <= min(st.users, st.items)/2 {
				sp.grid = append(sp.grid, trial{engines.TrainConfig{Factors: k}})
			}
		}
		return sp
	case engines.Popular:
		sp := &space{grid: []trial{{engines.TrainConfig{HalfLife: -1}}}}
		if st.span > 0 {
			for _, f := range []float64{4, 1, 0.5, 0.25, 0.1, 0.03} {
				if h := time.Duration(f * float64(st.span)); h >= time.Hour {
					sp.grid = append(sp.grid, trial{engines.TrainConfig{HalfLife: h}})
				}
			}
		}
		return sp
	}
	return nil
}

func choice(rng *rand.Rand, xs ...int) int { return xs[rng.IntN(len(xs))] }

// near returns v or one of its neighbours in the ascending list xs.
func near(rng *rand.Rand, v int, xs ...int) int {
	i := 0
	for i < len(xs)-1 && xs[i] < v {
		i++
	}
	return xs[max(0, min(len(xs)-1, i+rng.IntN(3)-1))]
}

// perturb draws a setting near t, for the local search of later brackets: every continuous setting
// multiplied by a log-normal factor (about ×1.6 either way), the factors moved to a neighbouring size,
// the kind of confidence and whether attributes are used kept.
func perturb(rng *rand.Rand, t trial) trial {
	cfg := t.cfg
	cfg.Iterations = 0
	step := func(v float64) float64 {
		if v > 0 {
			return v * math.Exp(0.5*rng.NormFloat64())
		}
		return v
	}
	cfg.Regularization, cfg.Alpha, cfg.LearningRate = step(cfg.Regularization), step(cfg.Alpha), step(cfg.LearningRate)
	cfg.AttributeWeight = step(cfg.AttributeWeight)
	if cfg.Factors > 0 {
		cfg.Factors = near(rng, cfg.Factors, 16, 32, 48, 64, 96, 128)
	}
	return trial{cfg}
}

// jitter multiplies v by a log-normal factor (a half-width of about 2×).
func jitter(rng *rand.Rand, v float64) float64 { return v * math.Exp(0.7*rng.NormFloat64()) }

func logUniform(rng *rand.Rand, lo, hi float64) float64 {
	return math.Exp(math.Log(lo) + rng.Float64()*(math.Log(hi)-math.Log(lo)))
}

// Cost model. The search plans with estimated costs so that what it tries depends only on the data,
// the seed and the budget, never on the load of the machine: a search is repeatable. A unit is about
// one floating-point operation; unitsPerCPUSecond was measured on the project's machine kind, and the
// work that runs on every core (ALS sweeps, SVD, ranking) is counted as using the speedup of 2 cores
// of the target machine, whatever the machine at hand, so a plan never depends on where it runs.
const (
	unitsPerCPUSecond = 1.6e9
	parallelSpeedup   = 1.6
	// iterationSeconds is the fixed cost of one ALS iteration: the Gram matrices, the attribute maps
	// and the goroutines of the sweeps, which dominate on small tables.
	iterationSeconds = 0.004
)

// trainSeconds estimates the time of one training of cfg with iters iterations.
func trainSeconds(engine string, st stats, cfg engines.TrainConfig, iters int) float64 {
	k := float64(cfg.Factors)
	rows, nnz := float64(st.users+st.items), float64(st.pairs)
	switch engine {
	case engines.Hybrid:
		if k == 0 {
			k = float64(engines.Defaults(engines.Hybrid).Factors)
		}
		// per iteration and side: the Gram matrix, then CG steps of k² per row and 2k per interaction
		units := float64(iters) * (rows*6*k*k + nnz*16*k + rows*40*k)
		return units/unitsPerCPUSecond/parallelSpeedup + float64(iters)*iterationSeconds
	case engines.FM:
		if k == 0 {
			k = float64(engines.Defaults(engines.FM).Factors)
		}
		// one goroutine; a step touches a few rows of id and attribute features
		units := float64(iters) * float64(st.positives) * (2500 + 50*k)
		return units / unitsPerCPUSecond
	case engines.ISVD:
		if k == 0 {
			k = 32
		}
		l := k + 10
		units := 8*nnz*l + 8*rows*l*l
		return units / unitsPerCPUSecond / parallelSpeedup
	}
	return 20 * nnz / unitsPerCPUSecond
}

// evalSeconds estimates the time of ranking the whole catalog for users validation users.
func evalSeconds(engine string, st stats, cfg engines.TrainConfig, users int) float64 {
	k := float64(cfg.Factors)
	switch engine {
	case engines.Hybrid, engines.FM, engines.ISVD:
		if k == 0 {
			k = 48
		}
	default:
		k = 0
	}
	return float64(users) * float64(st.items) * (20 + 0.7*k) / unitsPerCPUSecond / parallelSpeedup
}
