package engines

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
)

// EnsemblePart is one trained model of an ensemble and its weight.
type EnsemblePart struct {
	Model  Model
	Weight float64
}

// ensembleModel mixes trained models. For each part, the relevance of every entity (its match/100,
// before any multiplier) is min-max normalised over all the entities that part scores, so an engine
// whose matches sit in a narrow band still spreads from 0 to 1; the ensemble relevance is the
// weighted sum of the normalised relevances, with the weights normalised to sum 1. An entity that a
// part does not know contributes 0 from that part; a part that knows nothing of the subject
// (ErrNoSignal) is left out of that query. Raw score and relevance are the same number;
// match = 100·relevance. Diversity is not applied (it is a hybrid-only feature).
type ensembleModel struct {
	S ensembleState

	parts []scorer
}

type ensembleState struct {
	Weights []float64
	Parts   [][]byte // each part as written by its Save
}

// NewEnsemble mixes trained models by weight. Weights must be >= 0 with a positive sum; they are
// normalised.
func NewEnsemble(parts []EnsemblePart) (Model, error) {
	if len(parts) == 0 {
		return nil, errors.New("ensemble: no engines")
	}
	st := ensembleState{}
	sum := 0.0
	for k, p := range parts {
		if p.Model == nil {
			return nil, fmt.Errorf("ensemble: engine %d is not trained", k)
		}
		if math.IsNaN(p.Weight) || math.IsInf(p.Weight, 0) || p.Weight < 0 {
			return nil, fmt.Errorf("ensemble: weight %v of %s must be >= 0", p.Weight, p.Model.Engine())
		}
		sum += p.Weight
	}
	if sum <= 0 {
		return nil, errors.New("ensemble: the weights must have a positive sum")
	}
	m := &ensembleModel{}
	for _, p := range parts {
		sc, ok := p.Model.(scorer)
		if !ok {
			return nil, fmt.Errorf("ensemble: engine %s cannot be mixed", p.Model.Engine())
		}
		var buf bytes.Buffer
		if err := p.Model.Save(&buf); err != nil {
			return nil, err
		}
		st.Weights = append(st.Weights, p.Weight/sum)
		st.Parts = append(st.Parts, buf.Bytes())
		m.parts = append(m.parts, sc)
	}
	m.S = st
	return m, nil
}

func (m *ensembleModel) afterLoad() error {
	if len(m.S.Weights) != len(m.S.Parts) || len(m.S.Parts) == 0 {
		return errors.New("ensemble: inconsistent model")
	}
	m.parts = nil
	for _, b := range m.S.Parts {
		p, err := Load(bytes.NewReader(b))
		if err != nil {
			return fmt.Errorf("ensemble part: %w", err)
		}
		sc, ok := p.(scorer)
		if !ok {
			return fmt.Errorf("ensemble part %s cannot be mixed", p.Engine())
		}
		m.parts = append(m.parts, sc)
	}
	return nil
}

// readLocker is implemented by parts that change after training (isvd folds interactions in): the
// ensemble holds their read lock while it reads their scores.
type readLocker interface {
	readLock() (unlock func())
}

func (m *ensembleModel) score(kind Kind, sub Subject) (scoring, error) {
	var (
		ids   []string
		index = map[string]int32{}
		mix   []float64
		known = false
	)
	for k, part := range m.parts {
		w := m.S.Weights[k]
		if w == 0 {
			continue
		}
		if l, ok := part.(readLocker); ok {
			unlock := l.readLock()
			defer unlock()
		}
		sc, err := part.score(kind, sub)
		if errors.Is(err, ErrNoSignal) {
			continue
		}
		if err != nil {
			return scoring{}, err
		}
		known = true
		rel := make([]float64, len(sc.ids))
		lo, hi := math.Inf(1), math.Inf(-1)
		for i := range sc.ids {
			if int32(i) == sc.self {
				continue
			}
			r := sc.raw(int32(i))
			if math.IsNaN(r) {
				continue
			}
			rel[i] = clamp01(sc.unit(r))
			lo, hi = min(lo, rel[i]), max(hi, rel[i])
		}
		for i, id := range sc.ids {
			u, ok := index[id]
			if !ok {
				u = int32(len(ids))
				index[id] = u
				ids = append(ids, id)
				mix = append(mix, 0)
			}
			if hi > lo && int32(i) != sc.self {
				mix[u] += w * (rel[i] - lo) / (hi - lo)
			}
		}
	}
	if !known {
		return scoring{}, ErrNoSignal
	}
	self := int32(-1)
	if kind == ItemsToItem || kind == UsersToUser {
		if u, ok := index[sub.ID]; ok {
			self = u
		}
	}
	return scoring{ids: ids, self: self, unit: func(r float64) float64 { return r },
		raw: func(i int32) float64 { return mix[i] }}, nil
}

func (m *ensembleModel) Engine() string { return Ensemble }

func (m *ensembleModel) Recommend(kind Kind, sub Subject, q Query) ([]Scored, error) {
	return recommend(m, kind, sub, q)
}
func (m *ensembleModel) Save(w io.Writer) error { return writeModel(w, Ensemble, &m.S) }
