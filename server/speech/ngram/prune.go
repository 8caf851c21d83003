package ngram

import (
	"math"
	"strings"
)

// Pruned is a Trie whose bigrams and trigrams are pruned by an
// approximation of Stolcke's relative-entropy criterion, for Mix: an
// n-gram h w is kept when P(h)·P(w|h)·(log P(w|h) - log P'(w|h)) is at
// least Threshold (natural logarithms), where P' is the back-off estimate
// bo(h)·P(w|h') the model gives when the n-gram is missing and P(h) the
// chain of the history's own probabilities (its first word's unigram
// probability, times its bigram). The back-off weights are not
// re-estimated (Stolcke's full criterion does); Mix computes its own.
// Every kept trigram keeps its two bigrams (its history and its suffix),
// which the ARPA format and sphinxbase's trie need. Probabilities are the
// full model's: Pruned only shortens the lists Mix takes n-grams from.
type Pruned struct {
	*Trie
	grams [2][]string // bigrams, trigrams kept
}

// Prune keeps the n-grams of t that pass threshold.
func Prune(t *Trie, threshold float64) *Pruned {
	p := &Pruned{Trie: t}
	const ln10 = math.Ln10
	keepBi := map[string]bool{}
	t.Each(3, func(w []string, logp, _ float64) {
		h1, ok1 := t.Unigram(w[0])
		b, _ := t.bigram(w[0], w[1])
		if !ok1 {
			return
		}
		ph := h1 + b
		lower := t.backoff(t.idsOf(w[1], w[0])) + t.LogProb(w[1:2], w[2])
		if gain := math.Pow(10, ph+logp) * (logp - lower) * ln10; gain >= threshold {
			g := strings.Join(w, " ")
			p.grams[1] = append(p.grams[1], g)
			keepBi[w[0]+" "+w[1]] = true
			keepBi[w[1]+" "+w[2]] = true
		}
	})
	t.Each(2, func(w []string, logp, _ float64) {
		g := w[0] + " " + w[1]
		if keepBi[g] {
			p.grams[0] = append(p.grams[0], g)
			return
		}
		h, _ := t.Unigram(w[0])
		u, _ := t.Unigram(w[1])
		lower := t.backoff(t.idsOf(w[0])) + u
		if gain := math.Pow(10, h+logp) * (logp - lower) * ln10; gain >= threshold {
			p.grams[0] = append(p.grams[0], g)
		}
	})
	return p
}

// Grams lists the kept n-grams of order n (every unigram).
func (p *Pruned) Grams(n int) []string {
	if n == 1 {
		return p.Trie.Grams(1)
	}
	return p.grams[n-2]
}

// bigram is the log10 probability of w after h (backing off when the
// model does not hold it).
func (t *Trie) bigram(h, w string) (float64, bool) {
	lp := t.LogProb([]string{h}, w)
	return lp, !math.IsInf(lp, -1)
}

// idsOf is the word ids of words, -1 for an unknown one (most recent
// first, as backoff takes them).
func (t *Trie) idsOf(words ...string) []int32 {
	out := make([]int32, len(words))
	for i, w := range words {
		id, ok := t.ids[w]
		if !ok {
			id = -1
		}
		out[i] = id
	}
	return out
}
