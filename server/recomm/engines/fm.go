package engines

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"sort"
)

// fm defaults, tuned on the validation split of MovieLens (see package evaluate).
const (
	fmFactors        = 32
	fmEpochs         = 10
	fmLearningRate   = 0.05
	fmRegularization = 0.0005
	fmNegatives      = 3
)

// fmModel is a factorisation machine over one-hot user and item ids plus their attribute features,
// with the pairwise interactions between the user side and the item side (the LightFM form of an FM:
// a user is the sum of the embeddings of its id and attribute features, an item likewise plus a
// linear term from its features). It is trained with the BPR pairwise loss by row-wise Adagrad SGD:
// for each positive pair (weighted by log(1+net strength)) one negative item is taken, half the time
// from the user's negative-polarity interactions when there are any, otherwise the highest-scoring of
// three uniform draws among the items the user has no positive interaction with. SGD runs in one goroutine so that training is deterministic
// for a seed.
//
// Raw score: p_u·q_i + b_i (unbounded; only differences matter under BPR); match = 100·σ(raw).
// Similar items and users: cosine of the embeddings; match = 100·max(cos, 0).
// A cold user or item is the sum of its attribute-feature embeddings plus the mean embedding of the
// entities in its history (negative polarity subtracting); a cold user's warm-up keywords add the
// items whose category tokens match them (up to 200, largest vectors first) to that history.
type fmModel struct {
	S fmState

	userIdx, itemIdx map[string]int32
	pNorm, qNorm     []float64
	featureItems     map[string][]int32 // folded token → items having it, for keyword warm-up
}

type fmState struct {
	UserIDs, ItemIDs []string
	K                int
	UserFS, ItemFS   *featureSpace
	P, Q             []float32   // composed user and item vectors (id plus attribute features)
	B                []float32   // composed item linear terms
	UserFeat         []float32   // user feature embeddings, UserFS.Dim × K, for cold users
	ItemFeat         []float32   // item feature embeddings, ItemFS.Dim × K, for cold items
	ItemFeatBias     []float32   // item feature linear terms, for cold items
	ItemFeats        []sparseVec // per item attribute features, for keyword warm-up
}

// fmParams is one block of trainable rows with row-wise Adagrad accumulators (one per row, the mean
// squared gradient of the row: one square root per row update instead of one per weight).
type fmParams struct {
	w, g []float64
}

func newFMParams(rng *rand.Rand, rows, k int, scale float64) fmParams {
	p := fmParams{w: make([]float64, rows*k), g: make([]float64, rows)}
	for i := range p.w {
		p.w[i] = rng.NormFloat64() * scale
	}
	return p
}

func trainFM(ctx context.Context, ds *Dataset, cfg TrainConfig) (*fmModel, error) {
	k := orDefault(cfg.Factors, fmFactors)
	epochs := orDefault(cfg.Iterations, fmEpochs)
	lr := orDefaultF(cfg.LearningRate, fmLearningRate)
	reg := orDefaultF(cfg.Regularization, fmRegularization)
	up := userItemPairs(ds)
	nu, ni := len(ds.UserIDs), len(ds.ItemIDs)
	var posU, posI []int32
	var posW []float64
	negOf := make([][]int32, nu)
	meanNet, npos := 0.0, 0
	for u := range nu {
		cols, net := up.row(u)
		for j := range cols {
			if net[j] > 0 {
				meanNet += float64(net[j])
				npos++
			}
		}
		for j, c := range cols {
			if net[j] < 0 {
				negOf[u] = append(negOf[u], c)
			}
		}
	}
	if npos == 0 {
		return nil, ErrNoInteractions
	}
	meanNet /= float64(npos)
	for u := range nu {
		cols, net := up.row(u)
		for j, c := range cols {
			if net[j] > 0 {
				posU = append(posU, int32(u))
				posI = append(posI, c)
				posW = append(posW, math.Log1p(float64(net[j]))/math.Log1p(meanNet))
			}
		}
	}
	st := fmState{UserIDs: ds.UserIDs, ItemIDs: ds.ItemIDs, K: k,
		UserFS: buildFeatureSpace(&ds.UserAttrs, cfg.UserAttributes),
		ItemFS: buildFeatureSpace(&ds.ItemAttrs, cfg.ItemAttributes)}
	userFeats := st.UserFS.encodeAll(&ds.UserAttrs, nu)
	itemFeats := st.ItemFS.encodeAll(&ds.ItemAttrs, ni)
	rng := rand.New(rand.NewPCG(uint64(cfg.Seed), 0xf00d))
	users := newFMParams(rng, nu+st.UserFS.Dim, k, 0.1/math.Sqrt(float64(k)))
	items := newFMParams(rng, ni+st.ItemFS.Dim, k, 0.1/math.Sqrt(float64(k)))
	bias := fmParams{w: make([]float64, ni+st.ItemFS.Dim), g: make([]float64, ni+st.ItemFS.Dim)}

	// rows lists the parameter rows (with their multipliers) that make up one entity.
	type row struct {
		r int
		v float64
	}
	rowsOf := func(id, n int, f sparseVec, buf []row) []row {
		buf = append(buf[:0], row{id, 1})
		for a, fi := range f.Idx {
			buf = append(buf, row{n + int(fi), f.Val[a]})
		}
		return buf
	}
	compose := func(p fmParams, rows []row, out []float64) {
		clear(out)
		for _, r := range rows {
			axpy(r.v, p.w[r.r*k:(r.r+1)*k], out)
		}
	}
	composeBias := func(rows []row) float64 {
		s := 0.0
		for _, r := range rows {
			s += r.v * bias.w[r.r]
		}
		return s
	}
	update := func(p fmParams, rows []row, grad []float64, scale float64) {
		for _, r := range rows {
			w := p.w[r.r*k : (r.r+1)*k]
			sq := 0.0
			for c := range k {
				d := scale*r.v*grad[c] - reg*w[c]
				sq += d * d
			}
			p.g[r.r] += sq / float64(k)
			step := lr / math.Sqrt(p.g[r.r]+1e-8)
			for c := range k {
				w[c] += step * (scale*r.v*grad[c] - reg*w[c])
			}
		}
	}
	updateBias := func(rows []row, d float64) {
		for _, r := range rows {
			x := r.v*d - reg*bias.w[r.r]
			bias.g[r.r] += x * x
			bias.w[r.r] += lr * x / math.Sqrt(bias.g[r.r]+1e-8)
		}
	}
	hasPos := func(u int, item int32) bool {
		cols, net := up.row(u)
		j := sort.Search(len(cols), func(x int) bool { return cols[x] >= item })
		return j < len(cols) && cols[j] == item && net[j] > 0
	}
	pu, qi, qj := make([]float64, k), make([]float64, k), make([]float64, k)
	gu, gi := make([]float64, k), make([]float64, k)
	var ru, ri, rj []row
	order := make([]int, len(posU))
	for range epochs {
		for x := range order {
			order[x] = x
		}
		rng.Shuffle(len(order), func(a, b int) { order[a], order[b] = order[b], order[a] })
		for step, x := range order {
			if step%4096 == 0 && ctx.Err() != nil {
				return nil, ctx.Err()
			}
			u, i := int(posU[x]), posI[x]
			var j int32 = -1
			if len(negOf[u]) > 0 && rng.IntN(2) == 0 {
				j = negOf[u][rng.IntN(len(negOf[u]))]
			}
			ru = rowsOf(u, nu, userFeats[u], ru)
			compose(users, ru, pu)
			if j < 0 {
				// the highest-scoring of a few uniform draws: a cheap form of WARP's hard negatives
				best := math.Inf(-1)
				for range fmNegatives {
					c := int32(rng.IntN(ni))
					if hasPos(u, c) {
						continue
					}
					rc := rowsOf(int(c), ni, itemFeats[c], rj)
					compose(items, rc, qj)
					if sc := dot(pu, qj) + composeBias(rc); sc > best {
						best, j = sc, c
					}
				}
			}
			if j < 0 {
				continue
			}
			ri = rowsOf(int(i), ni, itemFeats[i], ri)
			rj = rowsOf(int(j), ni, itemFeats[j], rj)
			compose(items, ri, qi)
			compose(items, rj, qj)
			diff := dot(pu, qi) - dot(pu, qj) + composeBias(ri) - composeBias(rj)
			g := posW[x] / (1 + math.Exp(diff)) // d/d(diff) of log σ(diff)
			for c := range k {
				gu[c] = qi[c] - qj[c]
				gi[c] = pu[c]
			}
			update(users, ru, gu, g)
			update(items, ri, gi, g)
			update(items, rj, gi, -g)
			updateBias(ri, g)
			updateBias(rj, -g)
		}
	}
	st.P, st.Q, st.B = make([]float32, nu*k), make([]float32, ni*k), make([]float32, ni)
	for u := range nu {
		compose(users, rowsOf(u, nu, userFeats[u], ru), pu)
		copy(st.P[u*k:(u+1)*k], to32(pu))
	}
	for i := range ni {
		ri = rowsOf(i, ni, itemFeats[i], ri)
		compose(items, ri, qi)
		copy(st.Q[i*k:(i+1)*k], to32(qi))
		st.B[i] = float32(composeBias(ri))
	}
	st.UserFeat, st.ItemFeat = to32(users.w[nu*k:]), to32(items.w[ni*k:])
	st.ItemFeatBias = to32(bias.w[ni:])
	st.ItemFeats = itemFeats
	m := &fmModel{S: st}
	return m, m.afterLoad()
}

func (m *fmModel) afterLoad() error {
	s := &m.S
	k := s.K
	nu, ni := len(s.UserIDs), len(s.ItemIDs)
	if k <= 0 || k > maxFactors || !s.UserFS.valid() || !s.ItemFS.valid() || len(s.P) != nu*k || len(s.Q) != ni*k ||
		len(s.B) != ni || len(s.UserFeat) != s.UserFS.Dim*k || len(s.ItemFeat) != s.ItemFS.Dim*k ||
		len(s.ItemFeatBias) != s.ItemFS.Dim {
		return fmt.Errorf("fm: inconsistent model")
	}
	m.userIdx, m.itemIdx = indexOf(s.UserIDs), indexOf(s.ItemIDs)
	m.pNorm, m.qNorm = rowNorms(s.P, k), rowNorms(s.Q, k)
	var err error
	if m.featureItems, err = keywordIndex(s.ItemFS, s.ItemFeats, ni); err != nil {
		return fmt.Errorf("fm: %w", err)
	}
	return nil
}

// vector returns the composed vector (and, for items, the linear term) of a known or cold subject.
func (m *fmModel) vector(sub Subject, isUser bool) ([]float64, float64, int32, error) {
	s := &m.S
	k := s.K
	idx, otherIdx, x, others, fs, feat := m.userIdx, m.itemIdx, s.P, s.Q, s.UserFS, s.UserFeat
	if !isUser {
		idx, otherIdx, x, others, fs, feat = m.itemIdx, m.userIdx, s.Q, s.P, s.ItemFS, s.ItemFeat
	}
	if i, ok := idx[sub.ID]; ok {
		b := 0.0
		if !isUser {
			b = float64(s.B[i])
		}
		return to64(x[int(i)*k : int(i+1)*k]), b, i, nil
	}
	v := make([]float64, k)
	b := 0.0
	f := fs.encode(sub.Attrs)
	for a, fi := range f.Idx {
		for c := range k {
			v[c] += f.Val[a] * float64(feat[int(fi)*k+c])
		}
		if !isUser {
			b += f.Val[a] * float64(s.ItemFeatBias[fi])
		}
	}
	cols, net := historyPairs(sub.History, otherIdx, isUser)
	if isUser && len(sub.Keywords) > 0 {
		// warm-up keywords stand for one unit interaction with each matching item
		known := map[int32]bool{}
		for _, c := range cols {
			known[c] = true
		}
		for _, i := range keywordItems(m.featureItems, m.qNorm, sub.Keywords) {
			if !known[i] {
				cols, net = append(cols, i), append(net, 1)
			}
		}
	}
	if len(cols) == 0 && len(f.Idx) <= 1 && len(sub.Attrs.Numeric)+len(sub.Attrs.Tokens) == 0 {
		return nil, 0, -1, ErrNoSignal
	}
	for j, c := range cols {
		sign := 1.0
		if net[j] < 0 {
			sign = -1
		}
		for d := range k {
			v[d] += sign * float64(others[int(c)*k+d]) / float64(len(cols))
		}
	}
	return v, b, -1, nil
}

func (m *fmModel) score(kind Kind, sub Subject) (scoring, error) {
	s := &m.S
	k := s.K
	v, _, self, err := m.vector(sub, kind == ItemsToUser || kind == UsersToUser)
	if err != nil {
		return scoring{}, err
	}
	cos := func(ids []string, x []float32, norms []float64, self int32) scoring {
		nv := norm(v)
		return scoring{ids: ids, self: self, unit: func(c float64) float64 { return max(c, 0) },
			raw: func(i int32) float64 {
				if nv == 0 || norms[i] == 0 {
					return 0
				}
				return dot32(x[int(i)*k:int(i+1)*k], v) / (nv * norms[i])
			}}
	}
	switch kind {
	case ItemsToUser:
		v32 := to32(v)
		return scoring{ids: s.ItemIDs, self: -1, unit: logisticUnit,
			raw: func(i int32) float64 { return float64(dotF32(s.Q[int(i)*k:int(i+1)*k], v32) + s.B[i]) }}, nil
	case UsersToItem:
		_, b, _, _ := m.vector(sub, false)
		return scoring{ids: s.UserIDs, self: -1, unit: logisticUnit,
			raw: func(u int32) float64 { return dot32(s.P[int(u)*k:int(u+1)*k], v) + b }}, nil
	case ItemsToItem:
		return cos(s.ItemIDs, s.Q, m.qNorm, self), nil
	default:
		return cos(s.UserIDs, s.P, m.pNorm, self), nil
	}
}

func (m *fmModel) Engine() string { return FM }

func (m *fmModel) Recommend(kind Kind, sub Subject, q Query) ([]Scored, error) {
	return recommend(m, kind, sub, q)
}
func (m *fmModel) Save(w io.Writer) error { return writeModel(w, FM, &m.S) }
