package engines

import (
	"context"
	"fmt"
	"io"
	"math"
	"sort"
)

// BM25 saturation parameters of the content-based engine.
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// contentModel is content-based filtering over the text of items: every string attribute and every
// category/categoryList/set token goes through the same analyser (lowercase, accents folded, stopwords
// dropped, Porter stem), each item becomes an L2-normalised vector of BM25-weighted terms
// (idf·tf·(k1+1)/(tf + k1·(1−b+b·len/avglen))), and a user's profile is the sum of the vectors of the
// items the user interacted with, each scaled by the pair's net strength (weight·value, negative
// polarity subtracting), plus the user's warm-up keywords at the strength of one average interaction.
//
// Raw score: cosine between the profile (or, for similar items, the item's vector) and the candidate,
// in [−1,1]; match = 100·max(cos, 0). Users-to-item and similar users compare profiles the same way.
type contentModel struct {
	S contentState

	userIdx, itemIdx map[string]int32
	postings         [][]posting  // term → items containing it
	profiles         []termVector // per user, normalised
	termIdx          map[string]int32
}

type contentState struct {
	UserIDs, ItemIDs []string
	Terms            []string
	IDF              []float64
	AvgLen           float64
	Items            []termVector // per item, normalised
	UserPairs        *pairs       // training interactions, by user
	Keywords         map[int32][]string
	Attributes       []string // item attributes used (nil = all), for cold items
}

// termVector is a sparse vector over terms, indices ascending.
type termVector struct {
	Idx []int32
	Val []float32
}

type posting struct {
	item int32
	w    float32
}

func trainContent(ctx context.Context, ds *Dataset, cfg TrainConfig) (*contentModel, error) {
	up := userItemPairs(ds)
	if len(up.Col) == 0 {
		return nil, ErrNoInteractions
	}
	docs := make([][]string, len(ds.ItemIDs))
	for i := range docs {
		docs[i] = itemTerms(ds.ItemAttrs.entity(int32(i)), cfg.ItemAttributes)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	df := map[string]int{}
	total := 0
	for _, d := range docs {
		total += len(d)
		seen := map[string]bool{}
		for _, t := range d {
			if !seen[t] {
				seen[t] = true
				df[t]++
			}
		}
	}
	if len(df) == 0 {
		return nil, fmt.Errorf("content_based: the items have no text or category attributes to learn from")
	}
	st := contentState{UserIDs: ds.UserIDs, ItemIDs: ds.ItemIDs, UserPairs: up, Keywords: ds.Keywords,
		Attributes: cfg.ItemAttributes,
		AvgLen:     float64(total) / float64(len(docs))}
	st.Terms = sortedKeys(df)
	n := float64(len(docs))
	for _, t := range st.Terms {
		st.IDF = append(st.IDF, math.Log(1+(n-float64(df[t])+0.5)/(float64(df[t])+0.5)))
	}
	m := &contentModel{S: st}
	m.termIdx = map[string]int32{}
	for i, t := range st.Terms {
		m.termIdx[t] = int32(i)
	}
	m.S.Items = make([]termVector, len(docs))
	for i, d := range docs {
		m.S.Items[i] = m.docVector(d)
	}
	return m, m.afterLoad()
}

// itemTerms analyses the text and token attributes of one item.
func itemTerms(e EntityAttrs, only []string) []string {
	var out []string
	for _, attr := range sortedKeys(e.Text) {
		if allowed(only, attr) {
			out = append(out, terms(e.Text[attr])...)
		}
	}
	for _, attr := range sortedKeys(e.Tokens) {
		if allowed(only, attr) {
			for _, t := range e.Tokens[attr] {
				out = append(out, terms(t)...)
			}
		}
	}
	return out
}

// docVector weights the terms of one document with BM25 and normalises.
func (m *contentModel) docVector(doc []string) termVector {
	tf := map[int32]float64{}
	for _, t := range doc {
		if i, ok := m.termIdx[t]; ok {
			tf[i]++
		}
	}
	w := map[int32]float64{}
	for i, f := range tf {
		w[i] = m.S.IDF[i] * f * (bm25K1 + 1) / (f + bm25K1*(1-bm25B+bm25B*float64(len(doc))/m.S.AvgLen))
	}
	return normalised(w)
}

// keywordVector weights warm-up keywords by idf.
func (m *contentModel) keywordVector(keywords []string) map[int32]float64 {
	w := map[int32]float64{}
	for _, k := range keywords {
		for _, t := range terms(k) {
			if i, ok := m.termIdx[t]; ok {
				w[i] += m.S.IDF[i]
			}
		}
	}
	return w
}

func normalised(w map[int32]float64) termVector {
	idx := make([]int32, 0, len(w))
	for i := range w {
		idx = append(idx, i)
	}
	sort.Slice(idx, func(a, b int) bool { return idx[a] < idx[b] })
	s := 0.0
	for _, i := range idx {
		s += w[i] * w[i]
	}
	v := termVector{Idx: idx, Val: make([]float32, len(idx))}
	if s == 0 {
		return termVector{}
	}
	s = math.Sqrt(s)
	for k, i := range idx {
		v.Val[k] = float32(w[i] / s)
	}
	return v
}

func (m *contentModel) afterLoad() error {
	s := &m.S
	if len(s.Items) != len(s.ItemIDs) || len(s.IDF) != len(s.Terms) || !s.UserPairs.valid(len(s.ItemIDs)) ||
		s.UserPairs.Rows != len(s.UserIDs) {
		return fmt.Errorf("content_based: inconsistent model")
	}
	m.userIdx, m.itemIdx = indexOf(s.UserIDs), indexOf(s.ItemIDs)
	if m.termIdx == nil {
		m.termIdx = map[string]int32{}
		for i, t := range s.Terms {
			m.termIdx[t] = int32(i)
		}
	}
	m.postings = make([][]posting, len(s.Terms))
	for i, v := range s.Items {
		if len(v.Val) != len(v.Idx) {
			return fmt.Errorf("content_based: inconsistent item vector")
		}
		for k, t := range v.Idx {
			if t < 0 || int(t) >= len(s.Terms) {
				return fmt.Errorf("content_based: term index out of range")
			}
			m.postings[t] = append(m.postings[t], posting{item: int32(i), w: v.Val[k]})
		}
	}
	m.profiles = make([]termVector, len(s.UserIDs))
	for u := range s.UserIDs {
		m.profiles[u] = m.profile(int32(u), Subject{})
	}
	return nil
}

// profile builds the normalised profile of a user. The subject's History, when given, stands for the
// user's interactions (the catalog passes the complete current history), otherwise the training
// interactions of a known user are used; likewise the subject's Keywords, when given, stand for the
// warm-up keywords stored at training.
func (m *contentModel) profile(u int32, sub Subject) termVector {
	w := map[int32]float64{}
	strength, count := 0.0, 0
	add := func(item int32, net float64) {
		for k, t := range m.S.Items[item].Idx {
			w[t] += net * float64(m.S.Items[item].Val[k])
		}
		strength += math.Abs(net)
		count++
	}
	if len(sub.History) > 0 {
		hc, hn := historyPairs(sub.History, m.itemIdx, true)
		for k, c := range hc {
			add(c, float64(hn[k]))
		}
	} else if u >= 0 {
		cols, net := m.S.UserPairs.row(int(u))
		for k, c := range cols {
			add(c, float64(net[k]))
		}
	}
	keywords := sub.Keywords
	if len(keywords) == 0 && u >= 0 {
		keywords = m.S.Keywords[u]
	}
	if kw := m.keywordVector(keywords); len(kw) > 0 {
		scale := 1.0
		if count > 0 {
			scale = strength / float64(count)
		}
		kv := normalised(kw)
		for k, t := range kv.Idx {
			w[t] += scale * float64(kv.Val[k])
		}
	}
	return normalised(w)
}

func (m *contentModel) Engine() string { return ContentBased }

func (m *contentModel) Recommend(kind Kind, sub Subject, q Query) ([]Scored, error) {
	return recommend(m, kind, sub, q)
}

// userVector returns the profile of a known or cold user.
func (m *contentModel) userVector(sub Subject) (termVector, int32, error) {
	u, ok := m.userIdx[sub.ID]
	if !ok {
		u = -1
	}
	if ok && len(sub.Keywords) == 0 && len(sub.History) == 0 {
		return m.profiles[u], u, nil
	}
	v := m.profile(u, sub)
	if len(v.Idx) == 0 && !ok {
		return v, -1, ErrNoSignal
	}
	return v, u, nil
}

// itemVector returns the vector of a known item or of a cold item from its attributes.
func (m *contentModel) itemVector(sub Subject) (termVector, int32, error) {
	if i, ok := m.itemIdx[sub.ID]; ok {
		return m.S.Items[i], i, nil
	}
	v := m.docVector(itemTerms(sub.Attrs, m.S.Attributes))
	if len(v.Idx) == 0 {
		return v, -1, ErrNoSignal
	}
	return v, -1, nil
}

// scoreItems accumulates cosines through the inverted index.
func (m *contentModel) scoreItems(v termVector, self int32) scoring {
	acc := make([]float64, len(m.S.ItemIDs))
	for k, t := range v.Idx {
		for _, p := range m.postings[t] {
			acc[p.item] += float64(v.Val[k]) * float64(p.w)
		}
	}
	return scoring{ids: m.S.ItemIDs, self: self, unit: func(c float64) float64 { return max(c, 0) },
		raw: func(i int32) float64 { return acc[i] }}
}

func (m *contentModel) scoreUsers(v termVector, self int32) scoring {
	return scoring{ids: m.S.UserIDs, self: self, unit: func(c float64) float64 { return max(c, 0) },
		raw: func(u int32) float64 { return sparseDot(v, m.profiles[u]) }}
}

func sparseDot(a, b termVector) float64 {
	s := 0.0
	i, j := 0, 0
	for i < len(a.Idx) && j < len(b.Idx) {
		switch {
		case a.Idx[i] < b.Idx[j]:
			i++
		case a.Idx[i] > b.Idx[j]:
			j++
		default:
			s += float64(a.Val[i]) * float64(b.Val[j])
			i++
			j++
		}
	}
	return s
}

func (m *contentModel) score(kind Kind, sub Subject) (scoring, error) {
	var (
		v    termVector
		self int32
		err  error
	)
	if kind == ItemsToUser || kind == UsersToUser {
		v, self, err = m.userVector(sub)
	} else {
		v, self, err = m.itemVector(sub)
	}
	if err != nil {
		return scoring{}, err
	}
	switch kind {
	case ItemsToUser:
		return m.scoreItems(v, -1), nil
	case UsersToItem:
		return m.scoreUsers(v, -1), nil
	case ItemsToItem:
		return m.scoreItems(v, self), nil
	default:
		return m.scoreUsers(v, self), nil
	}
}

func (m *contentModel) Save(w io.Writer) error { return writeModel(w, ContentBased, &m.S) }
