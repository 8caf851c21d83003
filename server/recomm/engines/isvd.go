package engines

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"sort"
	"sync"
)

// isvd defaults: rank 32 (validation split), but at most a quarter of the smaller side of the matrix.
const (
	isvdFactors     = 32
	isvdOversample  = 10
	isvdPowerRounds = 3
)

// isvdModel is PureSVD (Cremonesi et al. 2010) over the interaction matrix R whose entries are the net
// strengths of the user-item pairs (weight·value, negative polarity subtracting): a rank-k truncated
// SVD R ≈ U Σ Vᵀ computed by randomized range finding with power iterations (Halko, Martinsson,
// Tropp 2011). A user's vector is p_u = r_u V (= U_u Σ), the score of item i is p_u·v_i, the
// projection of the user's row onto the item subspace.
//
// Update folds new interactions in without retraining: the rows of the touched users are updated and
// their vectors recomputed as r_u V; an item unknown at training time is folded in as
// v_i = Σ⁻² Pᵀ r_i (= Σ⁻¹ Uᵀ r_i) and refreshed whenever it gets new interactions. Items known at
// training keep their vectors until the next training.
//
// Raw score: p_u·v_i, on the scale of the matrix entries; match = 100·tanh(max(raw,0)/s) where s is
// the mean absolute entry of R. Similar items and users: cosine of v_i⊙σ and of p_u;
// match = 100·max(cos, 0).
type isvdModel struct {
	mu sync.RWMutex
	S  isvdState

	userIdx, itemIdx map[string]int32
	itemVec          []float64 // V⊙σ, for item similarity
	pNorm, iNorm     []float64
}

type isvdState struct {
	UserIDs, ItemIDs []string
	K                int
	Sigma            []float64
	V                []float64 // items × K
	P                []float64 // users × K
	Rows             [][]cell  // per user, sorted by item
	Scale            float64
	Folded           map[int32]bool // items folded in by Update
}

// cell is one entry of a user's row of R.
type cell struct {
	Item int32
	Net  float32
}

func trainISVD(ctx context.Context, ds *Dataset, cfg TrainConfig) (*isvdModel, error) {
	up := userItemPairs(ds)
	if len(up.Col) == 0 {
		return nil, ErrNoInteractions
	}
	nu, ni := len(ds.UserIDs), len(ds.ItemIDs)
	k := cfg.Factors
	if k <= 0 {
		// a rank close to the matrix size reproduces the rows and scores every unseen item 0
		k = max(1, min(isvdFactors, min(nu, ni)/4))
	}
	k = min(k, nu, ni)
	l := min(k+isvdOversample, nu, ni)
	ip := up.transpose(ni)
	rng := rand.New(rand.NewPCG(uint64(cfg.Seed), 0x57d))
	omega := make([]float64, ni*l)
	for i := range omega {
		omega[i] = rng.NormFloat64()
	}
	// mul computes out = M·x for the sparse M given by p (rows × cols) and dense x (cols × l).
	mul := func(p *pairs, x []float64) []float64 {
		out := make([]float64, p.Rows*l)
		parallelRows(p.Rows, cfg.Workers, func() bool { return false }, func(_, r int) {
			cols, net := p.row(r)
			o := out[r*l : (r+1)*l]
			for j, c := range cols {
				axpy(float64(net[j]), x[int(c)*l:int(c+1)*l], o)
			}
		})
		return out
	}
	y := mul(up, omega) // users × l
	orthonormalize(y, nu, l)
	for range isvdPowerRounds {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		z := mul(ip, y) // items × l
		orthonormalize(z, ni, l)
		y = mul(up, z)
		orthonormalize(y, nu, l)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// B = Qᵀ R is l × items; store Bᵀ = Rᵀ Q (items × l).
	bt := mul(ip, y)
	bbt := gram(bt, ni, l, cfg.Workers) // B Bᵀ (l × l)
	vals, vecs := jacobiEigen(bbt, l)
	order := make([]int, l)
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool { return vals[order[a]] > vals[order[b]] })
	st := isvdState{UserIDs: ds.UserIDs, ItemIDs: ds.ItemIDs, Folded: map[int32]bool{}}
	for _, o := range order[:k] {
		if vals[o] <= 1e-9 {
			break
		}
		st.Sigma = append(st.Sigma, math.Sqrt(vals[o]))
	}
	k = len(st.Sigma)
	if k == 0 {
		return nil, ErrNoInteractions
	}
	st.K = k
	// V = Bᵀ Ũ Σ⁻¹
	st.V = make([]float64, ni*k)
	for i := range ni {
		row := bt[i*l : (i+1)*l]
		for c, o := range order[:k] {
			s := 0.0
			for a := range l {
				s += row[a] * vecs[a*l+o]
			}
			st.V[i*k+c] = s / st.Sigma[c]
		}
	}
	st.Rows = make([][]cell, nu)
	total := 0.0
	for u := range nu {
		cols, net := up.row(u)
		for j, c := range cols {
			st.Rows[u] = append(st.Rows[u], cell{Item: c, Net: net[j]})
			total += math.Abs(float64(net[j]))
		}
	}
	st.Scale = total / float64(len(up.Col))
	m := &isvdModel{S: st}
	m.S.P = make([]float64, nu*k)
	for u := range nu {
		m.project(u)
	}
	return m, m.afterLoad()
}

// project recomputes p_u = r_u V.
func (m *isvdModel) project(u int) {
	k := m.S.K
	p := m.S.P[u*k : (u+1)*k]
	clear(p)
	for _, c := range m.S.Rows[u] {
		axpy(float64(c.Net), m.S.V[int(c.Item)*k:int(c.Item+1)*k], p)
	}
}

// orthonormalize replaces the columns of the n×l row-major matrix a by an orthonormal basis of their
// span (modified Gram-Schmidt; a column that vanishes is left zero).
func orthonormalize(a []float64, n, l int) {
	col := func(j int) []float64 {
		c := make([]float64, n)
		for i := range n {
			c[i] = a[i*l+j]
		}
		return c
	}
	cols := make([][]float64, l)
	for j := range l {
		v := col(j)
		for p := range j {
			axpy(-dot(cols[p], v), cols[p], v)
		}
		if nv := norm(v); nv > 1e-12 {
			for i := range v {
				v[i] /= nv
			}
		} else {
			clear(v)
		}
		cols[j] = v
	}
	for j, c := range cols {
		for i := range n {
			a[i*l+j] = c[i]
		}
	}
}

// jacobiEigen returns the eigenvalues and eigenvectors (columns of the row-major n×n result) of the
// symmetric matrix a, by cyclic Jacobi rotations.
func jacobiEigen(a []float64, n int) ([]float64, []float64) {
	a = append([]float64(nil), a...)
	v := make([]float64, n*n)
	for i := range n {
		v[i*n+i] = 1
	}
	for range 100 {
		off := 0.0
		for p := range n {
			for q := p + 1; q < n; q++ {
				off += a[p*n+q] * a[p*n+q]
			}
		}
		if off < 1e-22 {
			break
		}
		for p := range n {
			for q := p + 1; q < n; q++ {
				apq := a[p*n+q]
				if math.Abs(apq) < 1e-300 {
					continue
				}
				theta := (a[q*n+q] - a[p*n+p]) / (2 * apq)
				t := math.Copysign(1, theta) / (math.Abs(theta) + math.Sqrt(theta*theta+1))
				c := 1 / math.Sqrt(t*t+1)
				s := t * c
				for r := range n {
					arp, arq := a[r*n+p], a[r*n+q]
					a[r*n+p], a[r*n+q] = c*arp-s*arq, s*arp+c*arq
				}
				for r := range n {
					apr, aqr := a[p*n+r], a[q*n+r]
					a[p*n+r], a[q*n+r] = c*apr-s*aqr, s*apr+c*aqr
				}
				for r := range n {
					vrp, vrq := v[r*n+p], v[r*n+q]
					v[r*n+p], v[r*n+q] = c*vrp-s*vrq, s*vrp+c*vrq
				}
			}
		}
	}
	vals := make([]float64, n)
	for i := range n {
		vals[i] = a[i*n+i]
	}
	return vals, v
}

func (m *isvdModel) afterLoad() error {
	s := &m.S
	k := s.K
	if k <= 0 || k > maxFactors || len(s.Sigma) != k || len(s.V) != len(s.ItemIDs)*k || len(s.P) != len(s.UserIDs)*k ||
		len(s.Rows) != len(s.UserIDs) {
		return fmt.Errorf("isvd: inconsistent model")
	}
	for _, sg := range s.Sigma {
		if !(sg > 0) {
			return fmt.Errorf("isvd: inconsistent model")
		}
	}
	for _, row := range s.Rows {
		for _, c := range row {
			if c.Item < 0 || int(c.Item) >= len(s.ItemIDs) {
				return fmt.Errorf("isvd: inconsistent model")
			}
		}
	}
	if s.Folded == nil {
		s.Folded = map[int32]bool{}
	}
	m.userIdx, m.itemIdx = indexOf(s.UserIDs), indexOf(s.ItemIDs)
	m.refreshNorms()
	return nil
}

func (m *isvdModel) refreshNorms() {
	s := &m.S
	k := s.K
	m.itemVec = make([]float64, len(s.V))
	for i := range s.ItemIDs {
		for c := range k {
			m.itemVec[i*k+c] = s.V[i*k+c] * s.Sigma[c]
		}
	}
	m.iNorm = rowNorms64(m.itemVec, k)
	m.pNorm = rowNorms64(s.P, k)
}

func rowNorms64(x []float64, k int) []float64 {
	out := make([]float64, len(x)/k)
	for i := range out {
		out[i] = norm(x[i*k : (i+1)*k])
	}
	return out
}

// Update folds new interactions in (see the type documentation). Events naming unknown users or
// items add them.
func (m *isvdModel) Update(events []Event) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := &m.S
	k := s.K
	touchedUsers := map[int32]bool{}
	touchedItems := map[int32]bool{}
	for _, e := range events {
		if math.IsNaN(e.Value) || math.IsInf(e.Value, 0) || math.IsNaN(e.Weight) || e.Weight < 0 {
			return fmt.Errorf("isvd update: bad value %v or weight %v", e.Value, e.Weight)
		}
		if e.UserID == "" || e.ItemID == "" {
			return fmt.Errorf("isvd update: event without user or item id")
		}
	}
	for _, e := range events {
		u, ok := m.userIdx[e.UserID]
		if !ok {
			u = int32(len(s.UserIDs))
			s.UserIDs = append(s.UserIDs, e.UserID)
			s.Rows = append(s.Rows, nil)
			s.P = append(s.P, make([]float64, k)...)
			m.userIdx[e.UserID] = u
		}
		i, ok := m.itemIdx[e.ItemID]
		if !ok {
			i = int32(len(s.ItemIDs))
			s.ItemIDs = append(s.ItemIDs, e.ItemID)
			s.V = append(s.V, make([]float64, k)...)
			m.itemIdx[e.ItemID] = i
			s.Folded[i] = true
		}
		net := e.Weight * e.Value
		if !e.Positive {
			net = -net
		}
		row := s.Rows[u]
		j := sort.Search(len(row), func(x int) bool { return row[x].Item >= i })
		if j < len(row) && row[j].Item == i {
			row[j].Net += float32(net)
		} else {
			row = append(row, cell{})
			copy(row[j+1:], row[j:])
			row[j] = cell{Item: i, Net: float32(net)}
		}
		s.Rows[u] = row
		touchedUsers[u] = true
		touchedItems[i] = true
	}
	for i := range touchedItems {
		if !s.Folded[i] {
			continue
		}
		v := s.V[int(i)*k : int(i+1)*k]
		clear(v)
		for u, row := range s.Rows {
			j := sort.Search(len(row), func(x int) bool { return row[x].Item >= i })
			if j < len(row) && row[j].Item == i {
				axpy(float64(row[j].Net), s.P[u*k:(u+1)*k], v)
			}
		}
		for c := range k {
			v[c] /= s.Sigma[c] * s.Sigma[c]
		}
	}
	for u := range touchedUsers {
		m.project(int(u))
	}
	m.refreshNorms()
	return nil
}

// vector returns p_u for a user subject or v_i⊙σ-free item vector v_i for an item subject.
func (m *isvdModel) vector(sub Subject, isUser bool) ([]float64, int32, error) {
	s := &m.S
	k := s.K
	if isUser {
		if u, ok := m.userIdx[sub.ID]; ok {
			return s.P[int(u)*k : int(u+1)*k], u, nil
		}
		cols, net := historyPairs(sub.History, m.itemIdx, true)
		if len(cols) == 0 {
			return nil, -1, ErrNoSignal
		}
		p := make([]float64, k)
		for j, c := range cols {
			axpy(float64(net[j]), s.V[int(c)*k:int(c+1)*k], p)
		}
		return p, -1, nil
	}
	if i, ok := m.itemIdx[sub.ID]; ok {
		return s.V[int(i)*k : int(i+1)*k], i, nil
	}
	cols, net := historyPairs(sub.History, m.userIdx, false)
	if len(cols) == 0 {
		return nil, -1, ErrNoSignal
	}
	v := make([]float64, k)
	for j, c := range cols {
		axpy(float64(net[j]), s.P[int(c)*k:int(c+1)*k], v)
	}
	for c := range k {
		v[c] /= s.Sigma[c] * s.Sigma[c]
	}
	return v, -1, nil
}

func (m *isvdModel) score(kind Kind, sub Subject) (scoring, error) {
	s := &m.S
	k := s.K
	v, self, err := m.vector(sub, kind == ItemsToUser || kind == UsersToUser)
	if err != nil {
		return scoring{}, err
	}
	unit := func(r float64) float64 { return math.Tanh(max(r, 0) / s.Scale) }
	cosUnit := func(c float64) float64 { return max(c, 0) }
	switch kind {
	case ItemsToUser:
		return scoring{ids: s.ItemIDs, self: -1, unit: unit,
			raw: func(i int32) float64 { return dot(s.V[int(i)*k:int(i+1)*k], v) }}, nil
	case UsersToItem:
		return scoring{ids: s.UserIDs, self: -1, unit: unit,
			raw: func(u int32) float64 { return dot(s.P[int(u)*k:int(u+1)*k], v) }}, nil
	case ItemsToItem:
		w := make([]float64, k)
		for c := range k {
			w[c] = v[c] * s.Sigma[c]
		}
		nw := norm(w)
		return scoring{ids: s.ItemIDs, self: self, unit: cosUnit, raw: func(i int32) float64 {
			if nw == 0 || m.iNorm[i] == 0 {
				return 0
			}
			return dot(m.itemVec[int(i)*k:int(i+1)*k], w) / (nw * m.iNorm[i])
		}}, nil
	default:
		nv := norm(v)
		return scoring{ids: s.UserIDs, self: self, unit: cosUnit, raw: func(u int32) float64 {
			if nv == 0 || m.pNorm[u] == 0 {
				return 0
			}
			return dot(s.P[int(u)*k:int(u+1)*k], v) / (nv * m.pNorm[u])
		}}, nil
	}
}

func (m *isvdModel) readLock() func() {
	m.mu.RLock()
	return m.mu.RUnlock
}

// Recommend ranks under the read lock, since Update may grow the model.
func (m *isvdModel) Recommend(kind Kind, sub Subject, q Query) ([]Scored, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return recommend(m, kind, sub, q)
}

func (m *isvdModel) Engine() string { return ISVD }

func (m *isvdModel) Save(w io.Writer) error {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return writeModel(w, ISVD, &m.S)
}
