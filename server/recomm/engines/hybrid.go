package engines

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"sync"
)

// Hybrid defaults, tuned on a validation split of MovieLens latest-small carved from the training
// part (see package evaluate).
const (
	hybridFactors         = 48
	hybridIterations      = 15
	hybridRegularization  = 0.3
	hybridAlpha           = 1.0
	hybridAttributeWeight = 20.0
	hybridCGSteps         = 3
	hybridMapRidge        = 1.0
)

// hybridModel is implicit-feedback matrix factorisation (iALS, Hu-Koren-Volinsky confidence
// c = 1 + alpha*weight*value, solved row by row with warm-started conjugate gradient) joined with the
// numerical and categorical attributes: each factor vector is regularised toward a linear map of its
// entity's attribute features, λ(1+n)‖x‖² + β‖x − Aᵀf‖² (n the row's interactions), and the map A is refit by ridge regression after
// every sweep. Negative interactions become preference 0 with their own confidence. An entity the
// model has not seen gets Aᵀf from its attributes (the mean vector when it has none), or a fold-in
// solve when the caller passes its interaction history. A cold user's warm-up keywords that match
// category tokens of items count as one unit interaction with each of up to 200 matching items
// (those with the largest factor norms), folded in the same way.
//
// Raw score user-item: the predicted preference x_u·y_i (≈ 0 to 1), mixed with the item neighbours'
// estimate when the model has them (neighbours.go); match = 100·tanh(2·max(raw,0)).
// Similar items and users: cosine of the factor vectors; match = 100·max(cos, 0).
// Diversity re-ranks with MMR over item-factor (or user-factor) cosine.
type hybridModel struct {
	S hybridState

	userIdx, itemIdx map[string]int32
	once             sync.Once
	featureItems     map[string][]int32 // folded token → items having it, for keyword warm-up
	userGram         []float64          // UᵀU, for folding items in
	itemGram         []float64          // VᵀV, for folding users in
	userNorm         []float64
	itemNorm         []float64
}

type hybridState struct {
	UserIDs, ItemIDs []string
	K                int
	U, V             []float32
	UserFS, ItemFS   *featureSpace
	UserMap, ItemMap []float32   // d×K attribute maps; nil without attribute features
	ItemFeats        []sparseVec // per item attribute features, for keyword warm-up; nil without
	Lambda, Beta     float64
	Alpha            float64
	// LogConfidence and Strength select the logarithmic confidence (TrainConfig.LogConfidence);
	// Strength is the mean positive net strength it is relative to. Models saved before these fields
	// existed load with the linear confidence they were trained with.
	LogConfidence bool
	Strength      float64
	// NeighbourWeight is w of the item-neighbour mix (neighbours.go); Neighbours is nil without it.
	// Models saved before these fields existed load without neighbours.
	NeighbourWeight float64
	Neighbours      *neighbours
}

// extraConfidence is c−1 for a pair of net strength net: α·|net|, or α·ln(1+|net|/m).
func (s *hybridState) extraConfidence(net float64) float64 {
	if s.LogConfidence {
		return s.Alpha * math.Log1p(math.Abs(net)/s.Strength)
	}
	return s.Alpha * math.Abs(net)
}

// alsSide is one side of the factorisation during training.
type alsSide struct {
	x        []float64 // n×k factors
	feats    []sparseVec
	mapChol  []float64 // Cholesky factor of FᵀF + ridge·I
	attrMap  []float64 // d×k
	dim      int
	prior    []float64 // n×k, Aᵀf per row
	interact *pairs
}

func trainHybrid(ctx context.Context, ds *Dataset, cfg TrainConfig) (*hybridModel, error) {
	k := orDefault(cfg.Factors, hybridFactors)
	iters := orDefault(cfg.Iterations, hybridIterations)
	lambda := orDefaultF(cfg.Regularization, hybridRegularization)
	alpha := orDefaultF(cfg.Alpha, hybridAlpha)
	beta := orDefaultF(cfg.AttributeWeight, hybridAttributeWeight)
	if beta < 0 {
		beta = 0
	}
	up := userItemPairs(ds)
	if len(up.Col) == 0 {
		return nil, ErrNoInteractions
	}
	ip := up.transpose(len(ds.ItemIDs))
	rng := rand.New(rand.NewPCG(uint64(cfg.Seed), 0x5eed))
	users := &alsSide{x: randomFactors(rng, len(ds.UserIDs), k), interact: up}
	items := &alsSide{x: randomFactors(rng, len(ds.ItemIDs), k), interact: ip}
	st := hybridState{UserIDs: ds.UserIDs, ItemIDs: ds.ItemIDs, K: k,
		Lambda: lambda, Beta: beta, Alpha: alpha, LogConfidence: cfg.LogConfidence, Strength: meanPositive(up)}
	if beta > 0 {
		st.UserFS = buildFeatureSpace(&ds.UserAttrs, cfg.UserAttributes)
		st.ItemFS = buildFeatureSpace(&ds.ItemAttrs, cfg.ItemAttributes)
		if err := users.prepareMap(st.UserFS, &ds.UserAttrs, len(ds.UserIDs), k); err != nil {
			return nil, err
		}
		if err := items.prepareMap(st.ItemFS, &ds.ItemAttrs, len(ds.ItemIDs), k); err != nil {
			return nil, err
		}
	}
	stop := func() bool { return ctx.Err() != nil }
	for it := range iters {
		steps := hybridCGSteps
		if it == 0 {
			steps = 2 * hybridCGSteps
		}
		for _, s := range [][2]*alsSide{{users, items}, {items, users}} {
			self, other := s[0], s[1]
			if beta > 0 {
				self.refitMap(k, cfg.Workers)
			}
			g := gram(other.x, len(other.x)/k, k, cfg.Workers)
			sweep(self, other, g, k, lambda, st.extraConfidence, beta, steps, cfg.Workers, stop)
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
	}
	if beta > 0 {
		users.refitMap(k, cfg.Workers)
		items.refitMap(k, cfg.Workers)
		st.UserMap, st.ItemMap = to32(users.attrMap), to32(items.attrMap)
		st.ItemFeats = items.feats
	}
	st.U, st.V = to32(users.x), to32(items.x)
	if w := cfg.NeighbourWeight; w > 0 {
		nb, err := itemNeighbours(ctx, up, len(ds.ItemIDs), cfg.Workers)
		if err != nil {
			return nil, err
		}
		if nb != nil {
			st.NeighbourWeight, st.Neighbours = w, nb
		}
	}
	m := &hybridModel{S: st}
	return m, m.afterLoad()
}

// meanPositive is the mean net strength of the positive pairs (1 when there are none).
func meanPositive(p *pairs) float64 {
	sum, n := 0.0, 0
	for _, v := range p.Net {
		if v > 0 {
			sum += float64(v)
			n++
		}
	}
	if n == 0 || sum <= 0 {
		return 1
	}
	return sum / float64(n)
}

func randomFactors(rng *rand.Rand, n, k int) []float64 {
	x := make([]float64, n*k)
	for i := range x {
		x[i] = rng.NormFloat64() * 0.01
	}
	return x
}

// prepareMap encodes the features of the side and factors FᵀF + ridge·I once.
func (s *alsSide) prepareMap(fs *featureSpace, a *Attributes, n, k int) error {
	s.feats = fs.encodeAll(a, n)
	s.dim = fs.Dim
	d := fs.Dim
	ftf := make([]float64, d*d)
	for _, f := range s.feats {
		for a, fa := range f.Idx {
			for b, fb := range f.Idx {
				ftf[int(fa)*d+int(fb)] += f.Val[a] * f.Val[b]
			}
		}
	}
	for i := range d {
		ftf[i*d+i] += hybridMapRidge
	}
	if err := cholesky(ftf, d); err != nil {
		return fmt.Errorf("hybrid attribute map: %w", err)
	}
	s.mapChol = ftf
	s.attrMap = make([]float64, d*k)
	s.prior = make([]float64, n*k)
	return nil
}

// refitMap solves the ridge regression A = (FᵀF + ridge·I)⁻¹ FᵀX and refreshes the priors Aᵀf.
func (s *alsSide) refitMap(k, workers int) {
	d := s.dim
	rhs := make([]float64, d*k)
	for i, f := range s.feats {
		xi := s.x[i*k : (i+1)*k]
		for a, fa := range f.Idx {
			axpy(f.Val[a], xi, rhs[int(fa)*k:int(fa+1)*k])
		}
	}
	col := make([]float64, d)
	for c := range k {
		for r := range d {
			col[r] = rhs[r*k+c]
		}
		cholSolve(s.mapChol, d, col)
		for r := range d {
			s.attrMap[r*k+c] = col[r]
		}
	}
	parallelRows(len(s.feats), workers, func() bool { return false }, func(_, i int) {
		p := s.prior[i*k : (i+1)*k]
		clear(p)
		f := s.feats[i]
		for a, fa := range f.Idx {
			axpy(f.Val[a], s.attrMap[int(fa)*k:int(fa+1)*k], p)
		}
	})
}

// sweep re-solves every row of self with the other side fixed. Rows without interactions all share
// the matrix G + (λ+β)I, so they are solved exactly with one Cholesky factorisation.
func sweep(self, other *alsSide, g []float64, k int, lambda float64, extra func(float64) float64, beta float64, steps, workers int, stop func() bool) {
	n := len(self.x) / k
	longest := 0
	for r := range n {
		longest = max(longest, int(self.interact.Start[r+1]-self.interact.Start[r]))
	}
	scratch := make([][]float64, workers)
	for w := range scratch {
		scratch[w] = make([]float64, 4*k+longest) // 4 vectors, then one confidence per interaction
	}
	var empty []float64
	if beta > 0 {
		empty = append([]float64(nil), g...)
		for c := range k {
			empty[c*k+c] += rowLambda(lambda, 0) + beta
		}
		if cholesky(empty, k) != nil {
			empty = nil
		}
	}
	parallelRows(n, workers, stop, func(w, r int) {
		cols, net := self.interact.row(r)
		x := self.x[r*k : (r+1)*k]
		var prior []float64
		if beta > 0 {
			prior = self.prior[r*k : (r+1)*k]
		}
		if len(cols) == 0 && empty != nil {
			for c := range k {
				x[c] = beta * prior[c]
			}
			cholSolve(empty, k, x)
			return
		}
		solveCG(x, g, other.x, cols, net, k, rowLambda(lambda, len(cols)), extra, beta, prior, steps, scratch[w])
	})
}

// rowLambda is the weighted-λ regularisation of ALS-WR (Zhou et al. 2008): a row with more
// interactions is regularised more, which keeps one λ right for small and large catalogs.
func rowLambda(lambda float64, n int) float64 { return lambda * float64(1+n) }

// solveCG improves x toward the solution of
// (G + Σ (c_j−1) y_j y_jᵀ + (λ+β) I) x = Σ c_j p_j y_j + β·prior
// with a few conjugate-gradient steps (Takács, Pilászy, Tikk 2011); extra gives c_j−1.
func solveCG(x, g, other []float64, cols []int32, net []float32, k int, lambda float64, extra func(float64) float64,
	beta float64, prior []float64, steps int, scratch []float64) {
	r, p, ap, b := scratch[:k], scratch[k:2*k], scratch[2*k:3*k], scratch[3*k:4*k]
	clear(b)
	if prior != nil {
		axpy(beta, prior, b)
	}
	conf := scratch[4*k : 4*k+len(cols)]
	for j, c := range cols {
		conf[j] = extra(float64(net[j]))
		if net[j] > 0 {
			axpy(1+conf[j], other[int(c)*k:int(c+1)*k], b)
		}
	}
	apply := func(v, out []float64) {
		for a := range k {
			out[a] = dot(g[a*k:(a+1)*k], v) + (lambda+beta)*v[a]
		}
		for j, c := range cols {
			y := other[int(c)*k : int(c+1)*k]
			axpy(conf[j]*dot(y, v), y, out)
		}
	}
	apply(x, ap)
	for a := range k {
		r[a] = b[a] - ap[a]
		p[a] = r[a]
	}
	rs := dot(r, r)
	for range steps {
		if rs < 1e-12 {
			return
		}
		apply(p, ap)
		step := rs / dot(p, ap)
		axpy(step, p, x)
		axpy(-step, ap, r)
		rsNew := dot(r, r)
		for a := range k {
			p[a] = r[a] + rsNew/rs*p[a]
		}
		rs = rsNew
	}
}

func (m *hybridModel) afterLoad() error {
	s := &m.S
	if s.K <= 0 || s.K > maxFactors || len(s.U) != len(s.UserIDs)*s.K || len(s.V) != len(s.ItemIDs)*s.K {
		return fmt.Errorf("hybrid: factor sizes do not match %d users, %d items", len(s.UserIDs), len(s.ItemIDs))
	}
	if (s.UserMap == nil) != (s.UserFS == nil) || (s.ItemMap == nil) != (s.ItemFS == nil) ||
		(s.UserFS != nil && (!s.UserFS.valid() || len(s.UserMap) != s.UserFS.Dim*s.K)) ||
		(s.ItemFS != nil && (!s.ItemFS.valid() || len(s.ItemMap) != s.ItemFS.Dim*s.K)) {
		return fmt.Errorf("hybrid: attribute maps do not match their feature spaces")
	}
	if s.LogConfidence && !(s.Strength > 0 && !math.IsInf(s.Strength, 0)) {
		return fmt.Errorf("hybrid: logarithmic confidence without a positive mean strength")
	}
	if !(s.NeighbourWeight >= 0 && s.NeighbourWeight <= 1) || (s.NeighbourWeight > 0 && s.Neighbours == nil) {
		return fmt.Errorf("hybrid: neighbour weight %v without neighbours or outside [0,1]", s.NeighbourWeight)
	}
	if s.Neighbours != nil {
		if err := s.Neighbours.valid(len(s.UserIDs), len(s.ItemIDs)); err != nil {
			return fmt.Errorf("hybrid: %w", err)
		}
	}
	m.userIdx, m.itemIdx = indexOf(s.UserIDs), indexOf(s.ItemIDs)
	m.userNorm, m.itemNorm = rowNorms(s.U, s.K), rowNorms(s.V, s.K)
	if s.ItemFeats != nil {
		var err error
		if m.featureItems, err = keywordIndex(s.ItemFS, s.ItemFeats, len(s.ItemIDs)); err != nil {
			return fmt.Errorf("hybrid: %w", err)
		}
	}
	return nil
}

func (m *hybridModel) grams() {
	m.once.Do(func() {
		k := m.S.K
		m.userGram = gram(to64(m.S.U), len(m.S.UserIDs), k, 1)
		m.itemGram = gram(to64(m.S.V), len(m.S.ItemIDs), k, 1)
	})
}

func (m *hybridModel) Engine() string { return Hybrid }

func (m *hybridModel) Recommend(kind Kind, sub Subject, q Query) ([]Scored, error) {
	return recommend(m, kind, sub, q)
}

// vector returns the factor vector of a subject on one side: trained, folded in from history, or
// mapped from attributes.
func (m *hybridModel) vector(sub Subject, isUser bool) ([]float64, int32, error) {
	s := &m.S
	k := s.K
	idx, otherIdx, mine, others, fs, amap := m.userIdx, m.itemIdx, s.U, s.V, s.UserFS, s.UserMap
	if !isUser {
		idx, otherIdx, mine, others, fs, amap = m.itemIdx, m.userIdx, s.V, s.U, s.ItemFS, s.ItemMap
	}
	if i, ok := idx[sub.ID]; ok {
		return to64(mine[int(i)*k : int(i+1)*k]), i, nil
	}
	prior := make([]float64, k)
	hasPrior := fs != nil
	if hasPrior {
		f := fs.encode(sub.Attrs)
		for a, fa := range f.Idx {
			for c := range k {
				prior[c] += f.Val[a] * float64(amap[int(fa)*k+c])
			}
		}
	}
	cols, net := historyPairs(sub.History, otherIdx, isUser)
	if isUser && len(sub.Keywords) > 0 {
		// warm-up keywords stand for one unit interaction with each matching item
		known := map[int32]bool{}
		for _, c := range cols {
			known[c] = true
		}
		for _, i := range keywordItems(m.featureItems, m.itemNorm, sub.Keywords) {
			if !known[i] {
				cols, net = append(cols, i), append(net, 1)
			}
		}
	}
	if len(cols) == 0 {
		if !hasPrior {
			return nil, -1, ErrNoSignal
		}
		return prior, -1, nil
	}
	// fold-in: the exact normal equations of one row against the fixed other side
	m.grams()
	g := m.itemGram
	if !isUser {
		g = m.userGram
	}
	a := append([]float64(nil), g...)
	b := make([]float64, k)
	for c := range k {
		a[c*k+c] += rowLambda(s.Lambda, len(cols)) + s.Beta
		b[c] = s.Beta * prior[c]
	}
	for j, c := range cols {
		y := to64(others[int(c)*k : int(c+1)*k])
		conf := s.extraConfidence(float64(net[j]))
		for p := range k {
			for q := range k {
				a[p*k+q] += conf * y[p] * y[q]
			}
		}
		if net[j] > 0 {
			axpy(1+conf, y, b)
		}
	}
	if err := cholesky(a, k); err != nil {
		return nil, -1, err
	}
	cholSolve(a, k, b)
	return b, -1, nil
}

// historyPairs aggregates a cold subject's events onto the other side's indices.
func historyPairs(events []Event, otherIdx map[string]int32, isUser bool) ([]int32, []float32) {
	net := map[int32]float64{}
	var order []int32
	for _, e := range events {
		id := e.ItemID
		if !isUser {
			id = e.UserID
		}
		j, ok := otherIdx[id]
		if !ok {
			continue
		}
		s := e.Weight * e.Value
		if !e.Positive {
			s = -s
		}
		if _, seen := net[j]; !seen {
			order = append(order, j)
		}
		net[j] += s
	}
	var cols []int32
	var vals []float32
	for _, j := range order {
		if net[j] != 0 {
			cols = append(cols, j)
			vals = append(vals, float32(net[j]))
		}
	}
	return cols, vals
}

func preferenceUnit(raw float64) float64 { return math.Tanh(2 * max(raw, 0)) }

func (m *hybridModel) side(users bool) (ids []string, x []float32, norms []float64) {
	if users {
		return m.S.UserIDs, m.S.U, m.userNorm
	}
	return m.S.ItemIDs, m.S.V, m.itemNorm
}

// byDot scores one side by dot product with v.
func (m *hybridModel) byDot(v []float64, users bool) scoring {
	ids, x, norms := m.side(users)
	k := m.S.K
	v32 := to32(v)
	return scoring{ids: ids, self: -1, unit: preferenceUnit, sim: m.cosine(x, norms),
		raw: func(i int32) float64 { return float64(dotF32(x[int(i)*k:int(i+1)*k], v32)) }}
}

// byCosine scores one side by cosine with v, leaving self out.
func (m *hybridModel) byCosine(v []float64, self int32, users bool) scoring {
	ids, x, norms := m.side(users)
	k := m.S.K
	nv := norm(v)
	v32 := to32(v)
	return scoring{ids: ids, self: self, unit: func(c float64) float64 { return max(c, 0) }, sim: m.cosine(x, norms),
		raw: func(i int32) float64 {
			if nv == 0 || norms[i] == 0 {
				return 0
			}
			return float64(dotF32(x[int(i)*k:int(i+1)*k], v32)) / (nv * norms[i])
		}}
}

// cosine is the factor similarity MMR diversity uses.
func (m *hybridModel) cosine(x []float32, norms []float64) func(a, b int32) float64 {
	k := m.S.K
	return func(a, b int32) float64 {
		if norms[a] == 0 || norms[b] == 0 {
			return 0
		}
		return float64(dotF32(x[int(a)*k:int(a+1)*k], x[int(b)*k:int(b+1)*k])) / (norms[a] * norms[b])
	}
}

func (m *hybridModel) score(kind Kind, sub Subject) (scoring, error) {
	subjectIsUser := kind == ItemsToUser || kind == UsersToUser
	v, self, err := m.vector(sub, subjectIsUser)
	if err != nil {
		return scoring{}, err
	}
	switch kind {
	case ItemsToUser:
		sc := m.byDot(v, false)
		if w := m.S.NeighbourWeight; w > 0 {
			e := m.S.Neighbours.scores(m.userItems(sub, self), len(m.S.ItemIDs))
			dot := sc.raw
			sc.raw = func(i int32) float64 { return (1-w)*dot(i) + w*float64(e[i]) }
		}
		return sc, nil
	case UsersToItem:
		return m.byDot(v, true), nil
	case ItemsToItem:
		return m.byCosine(v, self, false), nil
	default:
		return m.byCosine(v, self, true), nil
	}
}

// userItems are the items a user's neighbour score comes from: a known user's positive items in
// training (as their factors, so that answers do not change until the next training), or for a user
// the model does not know, those of the request's history.
func (m *hybridModel) userItems(sub Subject, user int32) []int32 {
	nb := m.S.Neighbours
	if user >= 0 {
		return nb.HistItem[nb.HistStart[user]:nb.HistStart[user+1]]
	}
	cols, net := historyPairs(sub.History, m.itemIdx, true)
	items := cols[:0]
	for j, c := range cols {
		if net[j] > 0 {
			items = append(items, c)
		}
	}
	return items
}

// WithNeighbourWeight returns hybrid model m mixing its item neighbours with weight w (0 to 1)
// instead of the weight it was trained with, sharing its state: the search tries weights without
// training again. m must have been trained with a NeighbourWeight above 0.
func WithNeighbourWeight(m Model, w float64) (Model, error) {
	h, ok := m.(*hybridModel)
	if !ok || h.S.Neighbours == nil {
		return nil, errors.New("engines: not a hybrid model with item neighbours")
	}
	c := &hybridModel{S: h.S}
	c.S.NeighbourWeight = w
	return c, c.afterLoad()
}

func (m *hybridModel) Save(w io.Writer) error { return writeModel(w, Hybrid, &m.S) }

func to32(x []float64) []float32 {
	out := make([]float32, len(x))
	for i, v := range x {
		out[i] = float32(v)
	}
	return out
}

func to64(x []float32) []float64 {
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = float64(v)
	}
	return out
}

func orDefault(v, d int) int {
	if v <= 0 {
		return d
	}
	return v
}

func orDefaultF(v, d float64) float64 {
	if v == 0 {
		return d
	}
	return v
}
