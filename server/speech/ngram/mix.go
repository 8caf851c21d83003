package ngram

import (
	"math"
	"sort"
	"strings"
)

// NewModel returns an empty model, to be filled with Set from a model
// read elsewhere (the general English model, through sphinxbase).
func NewModel() *Model {
	m := &Model{}
	for i := range m.grams {
		m.grams[i] = map[string]entry{}
	}
	return m
}

// Set records one n-gram (1 to 3 words) with its log10 probability and
// log10 back-off weight (0 when it has none).
func (m *Model) Set(words []string, logp, bow float64) {
	g := strings.Join(words, " ")
	m.grams[len(words)-1][g] = entry{logp: logp, bow: bow, hasBow: bow != 0}
	if len(words) == 1 && g != Start && g != End {
		m.Vocabulary = append(m.Vocabulary, g)
	}
}

// LM is a language model Mix can read: its probabilities, and the
// n-grams it holds explicitly (rather than backs off for).
type LM interface {
	// LogProb is the log10 probability of word after history; -Inf for a
	// word outside the vocabulary.
	LogProb(history []string, word string) float64
	// Grams lists the n-grams of order n (1 to 3) it holds, words joined
	// by single spaces.
	Grams(n int) []string
}

// Grams lists the model's n-grams of order n (1 to 3).
func (m *Model) Grams(n int) []string {
	out := make([]string, 0, len(m.grams[n-1]))
	for g := range m.grams[n-1] {
		out = append(out, g)
	}
	sort.Strings(out)
	return out
}

// Mix is the linear interpolation lambda·a + (1-lambda)·b of two
// back-off models, in back-off form: every n-gram of either model gets
// the interpolated probability, and every history the back-off weight
// that makes its distribution sum to one again. A word after a history
// that neither model saw it after gets the mixture's own lower-order
// probability times that weight, which approximates the exact mixture of
// the two models' back-offs (as SRILM's ngram -mix-lm does).
func Mix(a, b LM, lambda float64) *Model {
	out := NewModel()
	prob := func(m LM, hist []string, w string) float64 {
		lp := m.LogProb(hist, w)
		if math.IsInf(lp, -1) || lp < -90 {
			return 0
		}
		return math.Pow(10, lp)
	}
	// The set is made of the smaller model's n-grams: the general model
	// has millions, the domain model's tens of thousands.
	union := func(n int) []string {
		small, large := a.Grams(n), b.Grams(n)
		if len(small) > len(large) {
			small, large = large, small
		}
		have := make(map[string]bool, len(small))
		for _, g := range small {
			have[g] = true
		}
		keys := append(make([]string, 0, len(small)+len(large)), small...)
		for _, g := range large {
			if !have[g] {
				keys = append(keys, g)
			}
		}
		return keys
	}
	// Unigrams are normalised after mixing: a model read through
	// sphinxbase stores quantised probabilities (the Debian general model's
	// sum to 1.00005), and the back-off weights below make each history
	// sum to one only if the unigrams do.
	uni := map[string]float64{}
	var total float64
	for _, g := range union(1) {
		if g == Start {
			continue
		}
		uni[g] = lambda*prob(a, nil, g) + (1-lambda)*prob(b, nil, g)
		total += uni[g]
	}
	out.grams[0][Start] = entry{logp: -99}
	for g, p := range uni {
		out.grams[0][g] = entry{logp: math.Log10(p / total)}
		if g != End {
			out.Vocabulary = append(out.Vocabulary, g)
		}
	}
	sort.Strings(out.Vocabulary)
	for n := 2; n <= 3; n++ {
		type sums struct{ high, low float64 }
		keys := union(n)
		out.grams[n-1] = make(map[string]entry, len(keys))
		hist := make(map[string]*sums, len(keys)/4)
		for _, g := range keys {
			words := strings.Fields(g)
			h, w := words[:n-1], words[n-1]
			p := lambda*prob(a, h, w) + (1-lambda)*prob(b, h, w)
			out.grams[n-1][g] = entry{logp: math.Log10(p)}
			key := g[:strings.LastIndexByte(g, ' ')]
			s := hist[key]
			if s == nil {
				s = &sums{}
				hist[key] = s
			}
			s.high += p
			// The shorter history's distribution is complete by now: its
			// n-grams and their back-off weights were set the round before.
			s.low += math.Pow(10, out.LogProb(h[1:], w))
		}
		for key, s := range hist {
			e := out.grams[n-2][key]
			e.bow = math.Log10(max(1-s.high, 1e-12) / max(1-s.low, 1e-12))
			e.hasBow = true
			out.grams[n-2][key] = e
		}
	}
	return out
}
