package tune

import (
	"reflect"

	"github.com/harkhq/hark/server/recomm/engines"
	"github.com/harkhq/hark/server/recomm/evaluate"
)

// diversityLevels are the levels of the contract's diversity parameter the study measures, and
// maxNDCGLoss the share of NDCG@10 a suggested level may cost.
var diversityLevels = []float64{0.1, 0.2, 0.3, 0.5}

const maxNDCGLoss = 0.02

// DiversityStudy is how the chosen hybrid setting trades relevance for diversity on the validation
// split: at each level of the request's diversity parameter (MMR re-ranking), NDCG@10 and the catalog
// coverage of the users' top 10 (the share of items recommended to at least one user).
//
// The contract fixes a request's diversity at 0 unless it asks for more, so the search cannot make
// diversity a default that changes unqualified requests; it measures what each level costs on this
// catalog and suggests one: the highest level that keeps NDCG@10 within 2 % of level 0 while raising
// coverage (0 when no level does). A catalog where MMR costs little gets a high suggestion, one where
// every step loses relevance gets 0.
type DiversityStudy struct {
	Suggested float64          `json:"suggested"`
	Levels    []DiversityLevel `json:"levels"`
	// Skipped says why there are no levels.
	Skipped string `json:"skipped,omitempty"`
}

// DiversityLevel is one measured level.
type DiversityLevel struct {
	Diversity float64 `json:"diversity"`
	NDCG      float64 `json:"ndcg@10"`
	Coverage  float64 `json:"coverage@10"`
}

// diversity studies the chosen setting with the model the search trained for it (the search keeps
// the model of its best evaluation, which is the chosen setting's; the check guards a tie with the
// defaults resolved the other way).
func (s *searcher) diversity(chosen engines.TrainConfig) (*DiversityStudy, error) {
	kept := s.best.cfg
	kept.Seed, kept.Workers = chosen.Seed, chosen.Workers
	if s.best.m == nil || !reflect.DeepEqual(kept, chosen) {
		return &DiversityStudy{Levels: []DiversityLevel{}, Skipped: "the chosen setting's model was not kept"}, nil
	}
	base := s.best.met
	st := &DiversityStudy{Levels: []DiversityLevel{{0, base.NDCG, base.Coverage}}}
	for _, lambda := range diversityLevels {
		if err := s.ctx.Err(); err != nil {
			return nil, err
		}
		met, err := evaluate.EvaluateDiverse(s.best.m, s.split, k, lambda)
		if err != nil {
			return nil, err
		}
		s.planned += evalSeconds(s.engine, s.st, chosen, s.users)
		st.Levels = append(st.Levels, DiversityLevel{lambda, met.NDCG, met.Coverage})
		if met.NDCG >= (1-maxNDCGLoss)*base.NDCG && met.Coverage > base.Coverage {
			st.Suggested = lambda
		}
	}
	return st, nil
}
