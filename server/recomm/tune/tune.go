// Package tune chooses an engine's hyperparameters for the catalog it is trained on. A training
// carves a validation split from the table's own interactions, searches the engine's key settings on
// it within a time budget, picks the setting with the best NDCG@10 on the validation split (never
// worse than the engine's defaults, which are always among the candidates), and the caller retrains on
// all interactions with it.
//
// The default method is successive halving over iterations (Jamieson & Talwalkar 2016, η = 3, in
// brackets while the budget lasts): many settings are trained briefly, the best third is trained three
// times longer, and so on to a full training. The scores after a few iterations rank settings well
// enough for this (Spearman 0.85-0.88 after 2 of 18 iterations, 0.97-0.99 after 6, on MovieLens and
// the sparse synthetic catalog). The first bracket's settings are drawn at random, half near the
// engine's defaults, half across wide ranges; later brackets draw two thirds of theirs near the best
// settings found so far (a local search in log space, a small model-based proposal), the rest at
// random, and start at the middle rung: neighbouring settings differ in how fast they converge, which
// the lowest rung measures more than where they end. Random search at equal budget is the baseline it is measured against (make eval). The
// plan is made with a cost model, not the clock, so a search is repeatable: the same data, seed and
// budget give the same settings on a loaded machine and an idle one.
package tune

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"time"

	"github.com/harkhq/hark/server/recomm/engines"
	"github.com/harkhq/hark/server/recomm/evaluate"
)

// Methods of search.
const (
	Halving = "successive-halving"
	Random  = "random"
)

// Hold-out kinds of the validation split.
const (
	Recent     = "recent"
	RandomPart = "random"
)

// Defaults of Options.
const (
	DefaultFraction = 0.2
	DefaultMaxUsers = 600
	eta             = 3
	// minValidationUsers and minValidationPairs: below them the validation split is too small for
	// its NDCG to tell settings apart, and tuning is skipped.
	minValidationUsers = 10
	minValidationPairs = 50
	// maxFirstRung bounds the settings one bracket of successive halving starts with, maxBrackets the
	// brackets, so a huge budget on a tiny table does not train thousands of models.
	maxFirstRung = 27
	maxBrackets  = 6
	// trialSeconds is the fixed cost of a trial beyond the cost model: setting up a training and an
	// evaluation. It keeps a tiny table from running hundreds of trials.
	trialSeconds = 0.02
	k            = 10 // NDCG@k
)

// Options of a search. The zero value, with a Budget, is the default search.
type Options struct {
	// Budget is the time the search may spend, by the cost model; 0 or less means no search.
	Budget time.Duration
	Seed   uint64
	// Method is Halving (default) or Random.
	Method string
	// Holdout is RandomPart (default) or Recent. A random part is the default: on MovieLens the
	// most recent fifth of each user's ratings is a different task (NDCG@10 0.07 where a random fifth
	// gives 0.36 with the same model), and settings chosen for it serve a catalog's recommendations,
	// which rank every unseen item whatever its age, less well.
	Holdout string
	// Fraction of each user's items held out for validation (default 0.2).
	Fraction float64
	// MaxUsers bounds the users evaluated (default 600), chosen at random with Seed.
	MaxUsers int
	// Workers of each training (0 = GOMAXPROCS); results are repeatable for one Workers count.
	Workers int
}

// Scores are validation metrics at 10.
type Scores struct {
	NDCG      float64 `json:"ndcg@10"`
	Precision float64 `json:"precision@10"`
	Recall    float64 `json:"recall@10"`
	HitRate   float64 `json:"hitRate@10"`
}

// Report says what a search did and chose; it is stored with the training job.
type Report struct {
	Method  string `json:"method,omitempty"`
	Holdout string `json:"holdout,omitempty"`
	// Skipped says why the engine trained with its defaults without a search.
	Skipped         string  `json:"skipped,omitempty"`
	BudgetSeconds   float64 `json:"budgetSeconds"`
	PlannedSeconds  float64 `json:"plannedSeconds,omitempty"` // by the cost model
	Seconds         float64 `json:"seconds,omitempty"`        // measured
	Trials          int     `json:"trials,omitempty"`
	ValidationUsers int     `json:"validationUsers,omitempty"`
	ValidationPairs int     `json:"validationPairs,omitempty"`
	// Chosen are the settings of the final training ("defaults": true when nothing beat them).
	Chosen map[string]any `json:"chosen,omitempty"`
	// Validation holds the scores of the chosen setting and of the defaults on the validation split.
	Validation *struct {
		Chosen   Scores `json:"chosen"`
		Defaults Scores `json:"defaults"`
	} `json:"validation,omitempty"`

	// Neighbours is what mixing item neighbours into the chosen hybrid setting gains on the
	// validation split (see NeighbourStudy); nil for other engines and when there was no search.
	Neighbours *NeighbourStudy `json:"neighbours,omitempty"`

	// Diversity is the trade-off of the chosen hybrid setting between relevance and diversity on the
	// validation split (see DiversityStudy); nil for other engines and when there was no search.
	Diversity *DiversityStudy `json:"diversity,omitempty"`

	// Config is what the final training uses.
	Config engines.TrainConfig `json:"-"`
	// BestSearched is the validation NDCG of the best setting the search itself found (the defaults
	// left out), for comparing methods.
	BestSearched float64 `json:"-"`
}

// Search chooses the settings of engine for ds. It fails only with ctx's error (cancellation, the
// training deadline) or a training error; a table or budget too small for a search gives a Report with
// Skipped set and the defaults. The defaults keep their zero values in Config.
func Search(ctx context.Context, engine string, ds *engines.Dataset, o Options) (*Report, error) {
	start := time.Now()
	o = o.withDefaults()
	rep := &Report{BudgetSeconds: o.Budget.Seconds(), Config: engines.TrainConfig{Seed: int64(o.Seed), Workers: o.Workers}}
	st := statsOf(ds)
	sp := spaceOf(engine, st)
	switch {
	case sp == nil:
		rep.Skipped = fmt.Sprintf("%s has no hyperparameters to search", engine)
		return rep, nil
	case o.Budget <= 0:
		rep.Skipped = "the tuning budget is 0"
		return rep, nil
	}
	split, err := validationSplit(ds, o)
	if err != nil {
		return nil, err
	}
	users, pairs := split.HeldOut()
	rep.ValidationUsers, rep.ValidationPairs = users, pairs
	if users < minValidationUsers || pairs < minValidationPairs {
		rep.Skipped = fmt.Sprintf("too few interactions to carve a validation split: %d users with %d held-out items (at least %d and %d needed)",
			users, pairs, minValidationUsers, minValidationPairs)
		return rep, nil
	}
	rep.Holdout = o.Holdout
	s := &searcher{ctx: ctx, engine: engine, split: split, st: statsOf(split.Train), o: o, users: users}
	def := sp.defaults
	studyNeighbours := false
	if engine == engines.Hybrid {
		// the diversity study evaluates the chosen model again at each level, and the neighbour
		// study learns neighbours once and evaluates each weight: their shares are set aside so the
		// search and the studies together stay within the budget. The neighbour study is left out
		// when it would take more than a third of the budget.
		study := float64(len(diversityLevels)) * evalSeconds(engine, s.st, def.cfg, users)
		if nb := neighbourStudySeconds(s, def.cfg); nb <= o.Budget.Seconds()/3 {
			studyNeighbours = true
			study += nb
		}
		s.o.Budget -= time.Duration(study * float64(time.Second))
	}
	plan, ok := s.plan(sp)
	if !ok {
		rep.Skipped = fmt.Sprintf("the budget of %.1f s is too small to tune this table (one training and evaluation takes about %.1f s)",
			o.Budget.Seconds(), s.cost(def.cfg, def.cfg.Iterations))
		rep.Holdout = ""
		return rep, nil
	}
	defScore, err := s.evaluate(def.cfg)
	if err != nil {
		return nil, err
	}
	best, bestScore, err := plan(scored{def, defScore})
	if err != nil {
		return nil, err
	}
	rep.Method = o.Method
	rep.Trials = s.trials
	rep.PlannedSeconds = s.planned
	rep.BestSearched = bestScore.NDCG
	chosen, chosenScore, isDefault := best, bestScore, false
	if !(bestScore.NDCG > defScore.NDCG) {
		chosen, chosenScore, isDefault = def, defScore, true
	}
	rep.Validation = &struct {
		Chosen   Scores `json:"chosen"`
		Defaults Scores `json:"defaults"`
	}{chosenScore, defScore}
	rep.Chosen = describe(engine, chosen.cfg, st)
	rep.Chosen["defaults"] = isDefault
	rep.Config = chosen.cfg
	rep.Config.Seed, rep.Config.Workers = int64(o.Seed), o.Workers
	if engine == engines.Hybrid {
		if !studyNeighbours {
			rep.Neighbours = &NeighbourStudy{Levels: []NeighbourLevel{}, Skipped: fmt.Sprintf(
				"learning item neighbours would take more than a third of the %.1f s budget", o.Budget.Seconds())}
		} else {
			study, scores, ok, err := s.neighbours(rep.Config)
			if err != nil {
				return nil, err
			}
			rep.Neighbours = study
			if ok {
				rep.Config.NeighbourWeight = study.Weight
				rep.Validation.Chosen = scores
				rep.Chosen["defaults"] = false
			}
		}
		rep.Chosen["neighbourWeight"] = rep.Config.NeighbourWeight
		if rep.Diversity, err = s.diversity(rep.Config); err != nil {
			return nil, err
		}
	}
	rep.Seconds = time.Since(start).Seconds()
	return rep, nil
}

func (o Options) withDefaults() Options {
	if o.Method == "" {
		o.Method = Halving
	}
	if o.Holdout == "" {
		o.Holdout = RandomPart
	}
	if !(o.Fraction > 0 && o.Fraction < 1) {
		o.Fraction = DefaultFraction
	}
	if o.MaxUsers <= 0 {
		o.MaxUsers = DefaultMaxUsers
	}
	return o
}

// validationSplit holds out part of the items of up to MaxUsers users.
func validationSplit(ds *engines.Dataset, o Options) (*evaluate.Split, error) {
	keep := func(int32) bool { return true }
	if len(ds.UserIDs) > o.MaxUsers {
		rng := rand.New(rand.NewPCG(o.Seed, 0xa11))
		chosen := make([]bool, len(ds.UserIDs))
		for _, u := range rng.Perm(len(ds.UserIDs))[:o.MaxUsers] {
			chosen[u] = true
		}
		keep = func(u int32) bool { return chosen[u] }
	}
	return evaluate.Holdout(ds, o.Fraction, o.Seed, keep, o.Holdout == Recent)
}

func statsOf(ds *engines.Dataset) stats {
	st := stats{users: len(ds.UserIDs), items: len(ds.ItemIDs)}
	net := map[uint64]float64{}
	first, last := int64(math.MaxInt64), int64(math.MinInt64)
	for _, in := range ds.Interactions {
		s := in.Weight * in.Value
		if !in.Positive {
			s = -s
		}
		net[uint64(uint32(in.User))<<32|uint64(uint32(in.Item))] += s
		first, last = min(first, in.Timestamp), max(last, in.Timestamp)
	}
	sum := 0.0
	for _, v := range net {
		if v != 0 {
			st.pairs++
		}
		if v > 0 {
			st.positives++
			sum += v
		}
	}
	st.meanStrength = 1
	if st.positives > 0 && sum > 0 {
		st.meanStrength = sum / float64(st.positives)
	}
	st.itemFeatures = len(ds.ItemAttrs.Numeric)+len(ds.ItemAttrs.Tokens) > 0
	st.userFeatures = len(ds.UserAttrs.Numeric)+len(ds.UserAttrs.Tokens) > 0
	if len(ds.Interactions) > 0 {
		st.span = time.Duration(last-first) * time.Millisecond
	}
	return st
}

// searcher runs the trials of one search.
type searcher struct {
	ctx     context.Context
	engine  string
	split   *evaluate.Split
	st      stats
	o       Options
	users   int
	trials  int
	planned float64
	// best is the model of the best evaluation so far, with its setting and metrics at diversity 0,
	// kept for the diversity study of the chosen setting (so it needs no training of its own).
	best struct {
		m   engines.Model
		cfg engines.TrainConfig
		met evaluate.Metrics
	}
}

func (s *searcher) cost(cfg engines.TrainConfig, iters int) float64 {
	return trialSeconds + trainSeconds(s.engine, s.st, cfg, iters) + evalSeconds(s.engine, s.st, cfg, s.users)
}

// evaluate trains cfg on the validation split's training part and scores it.
func (s *searcher) evaluate(cfg engines.TrainConfig) (Scores, error) {
	cfg.Seed, cfg.Workers = int64(s.o.Seed), s.o.Workers
	s.trials++
	s.planned += s.cost(cfg, cfg.Iterations)
	m, err := engines.Train(s.ctx, s.engine, s.split.Train, cfg)
	if err != nil {
		return Scores{}, err
	}
	if err := s.ctx.Err(); err != nil {
		return Scores{}, err
	}
	met, err := evaluate.Evaluate(m, s.split, k)
	if err != nil {
		return Scores{}, err
	}
	if s.best.m == nil || met.NDCG > s.best.met.NDCG {
		s.best.m, s.best.cfg, s.best.met = m, cfg, met
	}
	return Scores{NDCG: met.NDCG, Precision: met.Precision, Recall: met.Recall, HitRate: met.HitRate}, nil
}

// scored is a trial with its validation scores.
type scored struct {
	t trial
	s Scores
}

// plan returns the search that fits the budget (after one evaluation of the defaults), or false.
// The defaults, with their scores, are where the local search of later brackets may start too.
func (s *searcher) plan(sp *space) (func(defaults scored) (trial, Scores, error), bool) {
	budget := s.o.Budget.Seconds()
	def := sp.defaults
	budget -= s.cost(def.cfg, def.cfg.Iterations)
	rng := rand.New(rand.NewPCG(s.o.Seed, 0x7a5e))
	if sp.grid != nil {
		grid := sp.grid
		if s.o.Method == Random {
			grid = append([]trial(nil), grid...)
			rng.Shuffle(len(grid), func(a, b int) { grid[a], grid[b] = grid[b], grid[a] })
		}
		var take []trial
		for _, t := range grid {
			if c := s.cost(t.cfg, 0); c <= budget {
				budget -= c
				take = append(take, t)
			}
		}
		if len(take) == 0 {
			return nil, false
		}
		return func(scored) (trial, Scores, error) { return s.all(take) }, true
	}
	full := sp.rungs[len(sp.rungs)-1]
	// candidates are drawn once, in one order, so that a larger budget tries a superset
	pool := make([]trial, maxBrackets*maxFirstRung)
	for i := range pool {
		pool[i] = sp.sample(rng)
		pool[i].cfg.Iterations = full
	}
	if s.o.Method == Random {
		n, spent := 0, 0.0
		for n < len(pool) && spent+s.cost(pool[n].cfg, full) <= budget {
			spent += s.cost(pool[n].cfg, full)
			n++
		}
		if n == 0 {
			return nil, false
		}
		return func(scored) (trial, Scores, error) { return s.all(pool[:n]) }, true
	}
	if s.cost(pool[0].cfg, full) > budget {
		return nil, false
	}
	// the budget of brackets is the whole one: its plan counts the defaults' trial, already made
	return func(def scored) (trial, Scores, error) { return s.brackets(sp, pool, rng, s.o.Budget.Seconds(), def) }, true
}

// all evaluates every trial and returns the best.
func (s *searcher) all(ts []trial) (trial, Scores, error) {
	var best scored
	best.s.NDCG = -1
	for _, t := range ts {
		sc, err := s.evaluate(t.cfg)
		if err != nil {
			return trial{}, Scores{}, err
		}
		if sc.NDCG > best.s.NDCG {
			best = scored{t, sc}
		}
	}
	return best.t, best.s, nil
}

// brackets runs brackets of successive halving while the budget lasts. The first bracket's settings
// come from the pool, in order, and start at the lowest rung; later brackets draw two of every three
// near the best settings found so far and start at the middle rung. Each bracket is sized when it starts, to the budget left by the cost model with the mean
// cost of its settings; a trial that would take the plan past the budget is not made, so the plan
// never exceeds the budget, and it depends only on the data, the seed and the budget.
func (s *searcher) brackets(sp *space, pool []trial, rng *rand.Rand, budget float64, def scored) (trial, Scores, error) {
	var done []scored // every evaluation, its iterations in its configuration
	next := 0
	for b := 0; b < maxBrackets; b++ {
		left := budget - s.planned
		// candidates in the order a bracket takes them; the pool is used in order, as random search
		// uses it
		cands := make([]trial, 0, maxFirstRung)
		fromPool := make([]bool, 0, maxFirstRung)
		for i := 0; i < maxFirstRung; i++ {
			if b > 0 && i%3 != 0 {
				cands, fromPool = append(cands, perturb(rng, elite(def, done, rng))), append(fromPool, false)
			} else if p := next + countTrue(fromPool); p < len(pool) {
				cands, fromPool = append(cands, pool[p]), append(fromPool, true)
			}
		}
		// Later brackets start one rung up. Their candidates are mostly neighbours of the best
		// settings, differing by small steps of regularisation and confidence, which change how fast
		// a training converges as much as where it ends: after 2 iterations such neighbours rank by
		// speed (on MovieLens, neighbours of the defaults scored 0.12-0.20 after 2 iterations, the
		// larger α on top, where the defaults end at 0.215 after 15), so the lowest rung discarded
		// the slow ones that end best; the middle rung ranks as the full training does (Spearman
		// 0.97-0.99). The first bracket, whose random settings differ widely, keeps the lowest rung.
		top := len(sp.rungs)
		if b > 0 && top > 1 {
			top--
		}
		var ts []trial
		var rs []int
		for rungs := top; rungs >= 1 && ts == nil; rungs-- {
			rs = sp.rungs[len(sp.rungs)-rungs:]
			for n := int(math.Pow(eta, float64(rungs-1))); n <= len(cands) && s.expected(cands[:n], rs) <= left; n++ {
				ts = cands[:n]
			}
		}
		if ts == nil {
			break
		}
		next += countTrue(fromPool[:len(ts)])
		if err := s.halving(ts, rs, budget, &done); err != nil {
			return trial{}, Scores{}, err
		}
	}
	best := scored{s: Scores{NDCG: -1}}
	for _, d := range done {
		if d.s.NDCG > best.s.NDCG {
			best = d
		}
	}
	if best.s.NDCG < 0 {
		return trial{}, Scores{}, fmt.Errorf("tune: no trial fitted the budget")
	}
	return best.t, best.s, nil
}

func countTrue(bs []bool) (n int) {
	for _, b := range bs {
		if b {
			n++
		}
	}
	return n
}

// expected is the cost of a bracket of ts over rs by the cost model, a third of the settings going on
// at each rung with the mean cost.
func (s *searcher) expected(ts []trial, rs []int) float64 {
	c, alive := 0.0, float64(len(ts))
	for _, r := range rs {
		mean := 0.0
		for _, t := range ts {
			mean += s.cost(t.cfg, r)
		}
		c += alive * mean / float64(len(ts))
		alive = math.Max(1, math.Floor(alive/eta))
	}
	return c
}

// elite picks one of the three best settings evaluated so far, the best more often, among the defaults
// and the settings trained the longest (scores after fewer iterations are not comparable).
func elite(def scored, done []scored, rng *rand.Rand) trial {
	top := 0
	for _, d := range done {
		top = max(top, d.t.cfg.Iterations)
	}
	at := []scored{def}
	for _, d := range done {
		if d.t.cfg.Iterations == top {
			at = append(at, d)
		}
	}
	sort.SliceStable(at, func(a, b int) bool { return at[a].s.NDCG > at[b].s.NDCG })
	i := 0
	for i < min(2, len(at)-1) && rng.IntN(2) == 0 {
		i++
	}
	return at[i].t
}

// halving trains every trial with the first rung's iterations, keeps the best third for the next
// rung, and so on; the last rung is the full training. A trial that would take the plan past the
// budget is not trained. Every evaluation is appended to done.
func (s *searcher) halving(ts []trial, rungs []int, budget float64, done *[]scored) error {
	alive := make([]scored, len(ts))
	for i, t := range ts {
		alive[i] = scored{t: t}
	}
	for ri, r := range rungs {
		var ran []scored
		for _, a := range alive {
			a.t.cfg.Iterations = r
			if s.planned+s.cost(a.t.cfg, r) > budget {
				continue
			}
			sc, err := s.evaluate(a.t.cfg)
			if err != nil {
				return err
			}
			a.s = sc
			ran = append(ran, a)
			*done = append(*done, a)
		}
		// a stable order: the order of the candidates breaks ties
		sort.SliceStable(ran, func(a, b int) bool { return ran[a].s.NDCG > ran[b].s.NDCG })
		if ri < len(rungs)-1 {
			ran = ran[:min(len(ran), max(1, len(ran)/eta))]
		}
		alive = ran
	}
	return nil
}

// describe lists the settings that matter for engine, defaults resolved.
func describe(engine string, cfg engines.TrainConfig, st stats) map[string]any {
	d := engines.Defaults(engine)
	pickI := func(v, def int) int {
		if v == 0 {
			return def
		}
		return v
	}
	pickF := func(v, def float64) float64 {
		if v == 0 {
			return def
		}
		return v
	}
	round := func(x float64) float64 {
		if x == 0 {
			return 0
		}
		p := math.Pow(10, 3-math.Ceil(math.Log10(math.Abs(x))))
		return math.Round(x*p) / p
	}
	switch engine {
	case engines.Hybrid:
		conf := "linear"
		if cfg.LogConfidence {
			conf = "log"
		}
		return map[string]any{"factors": pickI(cfg.Factors, d.Factors), "iterations": pickI(cfg.Iterations, d.Iterations),
			"regularization": round(pickF(cfg.Regularization, d.Regularization)), "alpha": round(pickF(cfg.Alpha, d.Alpha)),
			"confidence": conf, "attributeWeight": round(max(0, pickF(cfg.AttributeWeight, d.AttributeWeight)))}
	case engines.FM:
		return map[string]any{"factors": pickI(cfg.Factors, d.Factors), "epochs": pickI(cfg.Iterations, d.Iterations),
			"learningRate": round(pickF(cfg.LearningRate, d.LearningRate)), "regularization": round(pickF(cfg.Regularization, d.Regularization))}
	case engines.ISVD:
		if cfg.Factors == 0 {
			return map[string]any{"factors": "default"}
		}
		return map[string]any{"factors": cfg.Factors}
	case engines.Popular:
		switch {
		case cfg.HalfLife < 0:
			return map[string]any{"halfLife": "none"}
		case cfg.HalfLife == 0:
			return map[string]any{"halfLife": "span"}
		}
		return map[string]any{"halfLifeHours": round(cfg.HalfLife.Hours())}
	}
	return map[string]any{}
}
