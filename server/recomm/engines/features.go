package engines

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
)

// maxTokenFeatures caps the token vocabulary of a feature space: the most frequent (attribute, token)
// pairs are kept, which bounds the dense normal equations of the attribute map.
const maxTokenFeatures = 512

// numericBins is the number of quantile bins a numeric attribute is cut into, so that non-linear
// effects (a decade, a price band) get their own feature besides the standardised value.
const numericBins = 8

// featureSpace turns entity attributes into a sparse feature vector. Feature 0 is a constant bias, so
// an entity without attributes maps to the mean of the learnt representations.
type featureSpace struct {
	Tokens  map[string]int32 // attribute + "\x00" + token
	Numeric []numericFeature
	Dim     int
}

type numericFeature struct {
	Attr      string
	Mean, Std float64
	Edges     []float64 // bin upper edges, ascending
	Linear    int32     // index of the standardised value
	FirstBin  int32     // index of the first bin feature
}

// sparseVec is a sparse feature vector, indices ascending.
type sparseVec struct {
	Idx []int32
	Val []float64
}

// allowed reports whether attr passes a TrainConfig attribute list (nil = all).
func allowed(list []string, attr string) bool {
	return list == nil || slices.Contains(list, attr)
}

// buildFeatureSpace learns the vocabulary and numeric statistics of the categorical (token) and
// numeric attributes of n entities.
func buildFeatureSpace(a *Attributes, only []string) *featureSpace {
	fs := &featureSpace{Tokens: map[string]int32{}, Dim: 1}
	count := map[string]int{}
	for _, attr := range sortedKeys(a.Tokens) {
		if !allowed(only, attr) {
			continue
		}
		for _, toks := range a.Tokens[attr] {
			for _, t := range toks {
				count[attr+"\x00"+t]++
			}
		}
	}
	keys := make([]string, 0, len(count))
	for k := range count {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if count[keys[i]] != count[keys[j]] {
			return count[keys[i]] > count[keys[j]]
		}
		return keys[i] < keys[j]
	})
	if len(keys) > maxTokenFeatures {
		keys = keys[:maxTokenFeatures]
	}
	sort.Strings(keys)
	for _, k := range keys {
		fs.Tokens[k] = int32(fs.Dim)
		fs.Dim++
	}
	for _, attr := range sortedKeys(a.Numeric) {
		if !allowed(only, attr) {
			continue
		}
		var vals []float64
		for _, v := range a.Numeric[attr] {
			if !math.IsNaN(v) && !math.IsInf(v, 0) {
				vals = append(vals, v)
			}
		}
		if len(vals) == 0 {
			continue
		}
		sort.Float64s(vals)
		nf := numericFeature{Attr: attr, Linear: int32(fs.Dim)}
		for _, v := range vals {
			nf.Mean += v
		}
		nf.Mean /= float64(len(vals))
		for _, v := range vals {
			nf.Std += (v - nf.Mean) * (v - nf.Mean)
		}
		nf.Std = math.Sqrt(nf.Std / float64(len(vals)))
		if nf.Std == 0 {
			nf.Std = 1
		}
		for b := 1; b < numericBins; b++ {
			e := vals[b*len(vals)/numericBins]
			if len(nf.Edges) == 0 || e > nf.Edges[len(nf.Edges)-1] {
				nf.Edges = append(nf.Edges, e)
			}
		}
		nf.FirstBin = int32(fs.Dim + 1)
		fs.Dim += 2 + len(nf.Edges)
		fs.Numeric = append(fs.Numeric, nf)
	}
	return fs
}

// encode maps the attributes of one entity to its feature vector.
func (fs *featureSpace) encode(e EntityAttrs) sparseVec {
	v := sparseVec{Idx: []int32{0}, Val: []float64{1}}
	for _, attr := range sortedKeys(e.Tokens) {
		var idx []int32
		for _, t := range e.Tokens[attr] {
			if f, ok := fs.Tokens[attr+"\x00"+t]; ok && !slices.Contains(idx, f) {
				idx = append(idx, f)
			}
		}
		for _, f := range idx {
			v.Idx = append(v.Idx, f)
			v.Val = append(v.Val, 1/math.Sqrt(float64(len(idx))))
		}
	}
	for _, nf := range fs.Numeric {
		x, ok := e.Numeric[nf.Attr]
		if !ok || math.IsNaN(x) || math.IsInf(x, 0) {
			continue
		}
		z := max(-3, min(3, (x-nf.Mean)/nf.Std))
		bin := sort.SearchFloat64s(nf.Edges, x)
		if bin < len(nf.Edges) && nf.Edges[bin] == x {
			bin++
		}
		v.Idx = append(v.Idx, nf.Linear, nf.FirstBin+int32(bin))
		v.Val = append(v.Val, z, 1)
	}
	order := make([]int, len(v.Idx))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool { return v.Idx[order[a]] < v.Idx[order[b]] })
	out := sparseVec{Idx: make([]int32, len(order)), Val: make([]float64, len(order))}
	for k, o := range order {
		out.Idx[k], out.Val[k] = v.Idx[o], v.Val[o]
	}
	return out
}

// encodeAll encodes every entity of an attribute table.
func (fs *featureSpace) encodeAll(a *Attributes, n int) []sparseVec {
	out := make([]sparseVec, n)
	for i := range out {
		out[i] = fs.encode(a.entity(int32(i)))
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// valid checks a loaded feature space: every feature index inside [1, Dim).
func (fs *featureSpace) valid() bool {
	if fs == nil || fs.Dim < 1 {
		return false
	}
	for _, f := range fs.Tokens {
		if f < 1 || int(f) >= fs.Dim {
			return false
		}
	}
	for _, nf := range fs.Numeric {
		if nf.Linear < 1 || nf.FirstBin < 1 || int(nf.Linear) >= fs.Dim || int(nf.FirstBin)+len(nf.Edges) >= fs.Dim ||
			nf.Std <= 0 || math.IsNaN(nf.Std) || !sort.Float64sAreSorted(nf.Edges) {
			return false
		}
	}
	return true
}

// keywordKey normalises a keyword or a category token for matching: analysed terms joined, so
// "Sci-Fi", "sci fi" and "SCI-FI" meet, and "comedies" meets "Comedy".
func keywordKey(s string) string { return strings.Join(terms(s), " ") }

// keywordIndex maps each normalised category token of a feature space to the items having it.
func keywordIndex(fs *featureSpace, feats []sparseVec, items int) (map[string][]int32, error) {
	if fs == nil || len(feats) != items {
		return nil, fmt.Errorf("item features do not match the items")
	}
	tokenOf := map[int32]string{}
	for key, f := range fs.Tokens {
		_, tok, _ := strings.Cut(key, "\x00")
		tokenOf[f] = keywordKey(tok)
	}
	index := map[string][]int32{}
	for i, fv := range feats {
		if len(fv.Val) != len(fv.Idx) {
			return nil, fmt.Errorf("inconsistent item features")
		}
		for _, f := range fv.Idx {
			if f < 0 || int(f) >= fs.Dim {
				return nil, fmt.Errorf("item feature out of range")
			}
			if tok, ok := tokenOf[f]; ok && tok != "" {
				index[tok] = append(index[tok], int32(i))
			}
		}
	}
	return index, nil
}

// maxKeywordItems caps the items a cold user's warm-up keywords stand for.
const maxKeywordItems = 200

// keywordItems returns the items whose category tokens match a warm-up keyword: at most
// maxKeywordItems of them, those with the largest factor norms (a proxy for popularity).
func keywordItems(index map[string][]int32, norms []float64, keywords []string) []int32 {
	seen := map[int32]bool{}
	var items []int32
	for _, kw := range keywords {
		for _, i := range index[keywordKey(kw)] {
			if !seen[i] {
				seen[i] = true
				items = append(items, i)
			}
		}
	}
	sort.Slice(items, func(a, b int) bool {
		na, nb := norms[items[a]], norms[items[b]]
		if na != nb {
			return na > nb
		}
		return items[a] < items[b]
	})
	return items[:min(len(items), maxKeywordItems)]
}
