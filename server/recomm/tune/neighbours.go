package tune

import (
	"math"
	"reflect"

	"github.com/harkhq/hark/server/recomm/engines"
	"github.com/harkhq/hark/server/recomm/evaluate"
)

// neighbourWeights are the item-neighbour weights the hybrid study tries on the chosen setting.
var neighbourWeights = []float64{0.1, 0.2, 0.3, 0.45, 0.6, 0.8, 1}

// NeighbourStudy is how much the chosen hybrid setting gains on the validation split from mixing
// in item neighbours (engines.TrainConfig.NeighbourWeight) at each weight. Weight is the one the
// final training uses: the best-scoring weight when its gain is larger than one standard error of
// the paired per-user differences, else 0. Item neighbours help where users' items co-occur densely
// (MovieLens latest-small restricted to its 1,682 most rated movies: +0.003 validation NDCG@10 at
// weight 0.1, 1.8 standard errors) and cost relevance where they do not (all of MovieLens
// latest-small: +0.001 at 0.1, under one standard error, and less above), so each catalog decides,
// and a gain within the noise of the validation split does not change the model.
type NeighbourStudy struct {
	Weight float64          `json:"weight"`
	Levels []NeighbourLevel `json:"levels"`
	// Skipped says why there are no levels.
	Skipped string `json:"skipped,omitempty"`
}

// NeighbourLevel is one measured weight: its NDCG@10, and its gain over the factors alone as the
// mean of the per-user differences on the validation split, with that mean's standard error.
type NeighbourLevel struct {
	Weight        float64 `json:"weight"`
	NDCG          float64 `json:"ndcg@10"`
	Gain          float64 `json:"gain"`
	StandardError float64 `json:"standardError"`
}

// neighbours studies the chosen setting with the model the search trained for it: the neighbours
// are learnt once on the validation split's training part, each weight is an evaluation. When a
// weight wins, the searcher's best model becomes the mixed one (the diversity study then measures
// it) and its scores are returned with ok.
func (s *searcher) neighbours(chosen engines.TrainConfig) (*NeighbourStudy, Scores, bool, error) {
	kept := s.best.cfg
	kept.Seed, kept.Workers = chosen.Seed, chosen.Workers
	if s.best.m == nil || !reflect.DeepEqual(kept, chosen) {
		return &NeighbourStudy{Levels: []NeighbourLevel{}, Skipped: "the chosen setting's model was not kept"}, Scores{}, false, nil
	}
	cfg := s.best.cfg
	cfg.NeighbourWeight = neighbourWeights[0]
	s.planned += neighbourStudySeconds(s, cfg)
	m, err := engines.Train(s.ctx, s.engine, s.split.Train, cfg)
	if err != nil {
		return nil, Scores{}, false, err
	}
	base := s.best.met
	st := &NeighbourStudy{Levels: []NeighbourLevel{{Weight: 0, NDCG: base.NDCG}}}
	var (
		bestModel engines.Model
		bestMet   = base
	)
	for _, w := range neighbourWeights {
		if err := s.ctx.Err(); err != nil {
			return nil, Scores{}, false, err
		}
		mw, err := engines.WithNeighbourWeight(m, w)
		if err != nil {
			// too few items with two users each: the training learnt no neighbours
			return &NeighbourStudy{Levels: []NeighbourLevel{}, Skipped: "too few items shared by two users to learn neighbours"}, Scores{}, false, nil
		}
		met, err := evaluate.Evaluate(mw, s.split, k)
		if err != nil {
			return nil, Scores{}, false, err
		}
		gain, se := pairedGain(base.UserNDCG, met.UserNDCG)
		st.Levels = append(st.Levels, NeighbourLevel{w, met.NDCG, gain, se})
		if met.NDCG > bestMet.NDCG && gain > se {
			st.Weight, bestModel, bestMet = w, mw, met
		}
	}
	if st.Weight == 0 {
		return st, Scores{}, false, nil
	}
	s.best.m, s.best.cfg.NeighbourWeight, s.best.met = bestModel, st.Weight, bestMet
	return st, Scores{NDCG: bestMet.NDCG, Precision: bestMet.Precision, Recall: bestMet.Recall, HitRate: bestMet.HitRate}, true, nil
}

// neighbourSeconds estimates learning the item neighbours: counting co-occurrences (the square of
// each user's items, taken as twice the mean square) and inverting the matrix of the kept items.
func neighbourSeconds(st stats) float64 {
	n := float64(min(st.items, engines.MaxNeighbourItems))
	perUser := float64(st.positives) / float64(max(1, st.users))
	units := 2*float64(st.users)*perUser*perUser + n*n*n
	return units / unitsPerCPUSecond / parallelSpeedup
}

// neighbourStudySeconds is what the neighbour study costs by the cost model.
func neighbourStudySeconds(s *searcher, cfg engines.TrainConfig) float64 {
	return neighbourSeconds(s.st) + trainSeconds(s.engine, s.st, cfg, cfg.Iterations) +
		float64(len(neighbourWeights))*evalSeconds(s.engine, s.st, cfg, s.users)
}

// pairedGain is the mean per-user difference b − a and its standard error (infinite for fewer than
// two users, so that no gain passes).
func pairedGain(a, b []float64) (mean, se float64) {
	if len(a) < 2 || len(b) != len(a) {
		return 0, math.Inf(1)
	}
	n := float64(len(a))
	for i := range a {
		mean += b[i] - a[i]
	}
	mean /= n
	v := 0.0
	for i := range a {
		d := b[i] - a[i] - mean
		v += d * d
	}
	return mean, math.Sqrt(v / (n - 1) / n)
}
