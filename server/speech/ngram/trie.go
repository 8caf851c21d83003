package ngram

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"sort"
	"strings"
)

// Trie is a trigram model in sphinxbase 5prealpha's binary trie format
// ("Trie Language Model", lm_trie.c and lm_trie_quant.c), the format of
// the Debian general English model en-us.lm.bin, read in Go. sphinxbase
// can only be asked for single probabilities of it: this version exports
// no n-gram iterator, and its ARPA writer (sphinx_lm_convert too) aborts
// on this model with a count assertion, so the mixed model could not get
// the general model's trigrams any other way.
//
// The layout, as lm_trie_read_bin reads it on a little-endian machine:
// the header text; the order (one byte) and the n-gram count of each
// order (uint32); the quantiser (an int32, then for every middle order a
// table of 2^16 probabilities and one of 2^16 back-off weights, and a
// table of 2^16 probabilities for the highest order, all float32); the
// unigrams, count+1 of them (float32 probability, float32 back-off,
// uint32 index of their first successor); the bit-packed middle and
// highest orders; the vocabulary as NUL-terminated strings after their
// total length (int32). The trie is reversed: a unigram's successors are
// the words before it, so the path w, h0, h1 is the trigram "h1 h0 w". A
// middle entry packs the word, a 16-bit back-off index, a 16-bit
// probability index and the index of its first successor; a highest-order
// entry the word and a probability index. Probabilities are in
// sphinxbase's log base 1.0001 (logmath's default, which the file's
// writer used; the tests check them against sphinxbase's own queries).
//
// A trigram whose bigram suffix the ARPA file lacked was stored with a
// blank bigram holding the back-off estimate (recursive_insert): Grams
// lists it like any bigram, which changes no probability.
type Trie struct {
	order  int
	counts []int
	words  []string
	ids    map[string]int32
	uni    []trieUnigram // counts[0]+1, the last one only ends the successors
	prob   [][]float32   // quantiser tables per order - 2, in log10
	bo     [][]float32
	middle []trieLevel // orders 2 .. order-1
	last   trieLevel
}

type trieUnigram struct {
	prob, bo float32 // log10
	next     uint32
}

// trieLevel is one bit-packed order of the trie.
type trieLevel struct {
	data      []byte
	wordBits  uint
	totalBits uint
	nextBits  uint
	highest   bool // entries hold no back-off weight and no successors
}

const trieHeader = "Trie Language Model"

// sphinxbase's default log base, in which the file's values are written.
var trieLog10 = math.Log10(1.0001)

// ReadTrie reads a model in sphinxbase's binary trie format.
func ReadTrie(path string) (*Trie, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	t, err := parseTrie(b)
	if err != nil {
		return nil, fmt.Errorf("ngram: %s: %w", path, err)
	}
	return t, nil
}

// requiredBits is bitarr_required_bits: the bits that hold values up to
// max.
func requiredBits(max uint32) uint {
	if max == 0 {
		return 0
	}
	n := uint(1)
	for max >>= 1; max != 0; max >>= 1 {
		n++
	}
	return n
}

// levelSize is base_size in lm_trie.c: one entry more than the count (the
// end of the last successor range) and eight bytes of slack.
func levelSize(entries, vocab uint32, rest uint) int {
	total := requiredBits(vocab) + rest
	return int((uint64(1+entries)*uint64(total)+7)/8 + 8)
}

func parseTrie(b []byte) (*Trie, error) {
	r := &reader{b: b}
	if string(r.next(len(trieHeader))) != trieHeader {
		return nil, errors.New("not a sphinxbase trie model")
	}
	order := int(r.next(1)[0])
	if order < 2 || order > 3 {
		return nil, fmt.Errorf("order %d (2 or 3 supported)", order)
	}
	counts := make([]uint32, order)
	for i := range counts {
		counts[i] = r.u32()
	}
	t := &Trie{order: order, counts: make([]int, order)}
	for i, c := range counts {
		t.counts[i] = int(c)
	}
	const bins = 1 << 16
	r.u32() // formerly the quantisation type
	floats := func() []float32 {
		out := make([]float32, bins)
		for i := range out {
			out[i] = math.Float32frombits(r.u32()) * float32(trieLog10)
		}
		return out
	}
	for range order - 2 {
		t.prob = append(t.prob, floats())
		t.bo = append(t.bo, floats())
	}
	t.prob = append(t.prob, floats())
	t.uni = make([]trieUnigram, counts[0]+1)
	for i := range t.uni {
		p := math.Float32frombits(r.u32())
		bo := math.Float32frombits(r.u32())
		t.uni[i] = trieUnigram{prob: p * float32(trieLog10), bo: bo * float32(trieLog10), next: r.u32()}
	}
	for i := 1; i < order-1; i++ {
		next := requiredBits(counts[i+1])
		size := levelSize(counts[i], counts[0], 32+next)
		t.middle = append(t.middle, trieLevel{data: r.next(size), wordBits: requiredBits(counts[0]),
			totalBits: requiredBits(counts[0]) + 32 + next, nextBits: next})
	}
	t.last = trieLevel{data: r.next(levelSize(counts[order-1], counts[0], 16)), wordBits: requiredBits(counts[0]),
		totalBits: requiredBits(counts[0]) + 16, highest: true}
	k := int(int32(r.u32()))
	if r.err != nil || k < 0 {
		return nil, errors.New("truncated")
	}
	strs := r.next(k)
	if r.err != nil {
		return nil, errors.New("truncated vocabulary")
	}
	t.words = strings.Split(string(bytes.TrimSuffix(strs, []byte{0})), "\x00")
	if len(t.words) != int(counts[0]) {
		return nil, fmt.Errorf("%d words for %d unigrams", len(t.words), counts[0])
	}
	t.ids = make(map[string]int32, len(t.words))
	for i, w := range t.words {
		if _, dup := t.ids[w]; !dup {
			t.ids[w] = int32(i)
		}
	}
	// The successor ranges must stay inside their levels, or the file is
	// not what this reader understands. They may end before the declared
	// count: the Debian model declares 2 051 547 bigrams and holds 2 051
	// 541 (the levels are sized by the declared counts), which is the
	// count assertion sphinxbase's ARPA writer fails on.
	t.counts[1] = int(t.uni[counts[0]].next)
	for i, m := range t.middle {
		t.counts[i+2] = int(m.next(t.counts[i+1]))
	}
	for i, c := range counts {
		if t.counts[i] > int(c) {
			return nil, fmt.Errorf("%d %d-grams where the file declares %d", t.counts[i], i+1, c)
		}
	}
	return t, nil
}

type reader struct {
	b   []byte
	off int
	err error
}

func (r *reader) next(n int) []byte {
	if r.err != nil || n < 0 || r.off+n > len(r.b) {
		r.err = errors.New("truncated")
		return make([]byte, max(n, 0))
	}
	s := r.b[r.off : r.off+n]
	r.off += n
	return s
}

func (r *reader) u32() uint32 { return binary.LittleEndian.Uint32(r.next(4)) }

// bits reads length (at most 57) bits at bit offset off, as
// bitarr_read_int57 does on a little-endian machine.
func (l *trieLevel) bits(off uint64, length uint) uint64 {
	v := binary.LittleEndian.Uint64(l.data[off>>3:])
	return (v >> (off & 7)) & (1<<length - 1)
}

func (l *trieLevel) word(i int) uint32 {
	return uint32(l.bits(uint64(i)*uint64(l.totalBits), l.wordBits))
}

// next is the first successor of middle entry i (entry count: the end of
// the last range).
func (l *trieLevel) next(i int) uint32 {
	return uint32(l.bits(uint64(i)*uint64(l.totalBits)+uint64(l.wordBits)+32, l.nextBits))
}

// quant is the probability index (and, on a middle level, the back-off
// index) of entry i.
func (l *trieLevel) quant(i int) (prob, bo int) {
	off := uint64(i)*uint64(l.totalBits) + uint64(l.wordBits)
	if l.highest {
		return int(l.bits(off, 16)), -1
	}
	return int(l.bits(off+16, 16)), int(l.bits(off, 16))
}

// find is the entry for word within [begin, end), whose words are sorted.
func (l *trieLevel) find(begin, end uint32, word uint32) (int, bool) {
	i := sort.Search(int(end-begin), func(k int) bool { return l.word(int(begin)+k) >= word })
	if i < int(end-begin) && l.word(int(begin)+i) == word {
		return int(begin) + i, true
	}
	return 0, false
}

// Order is the model's order.
func (t *Trie) Order() int { return t.order }

// Counts is the number of n-grams of each order the trie holds (blank
// bigrams included; see ReadTrie for how that may differ from the
// file's declared counts).
func (t *Trie) Counts() []int { return append([]int(nil), t.counts...) }

// Words is the vocabulary, by word id.
func (t *Trie) Words() []string { return t.words }

// Unigram is a word's log10 probability; ok is false outside the
// vocabulary.
func (t *Trie) Unigram(word string) (logp float64, ok bool) {
	id, ok := t.ids[word]
	if !ok {
		return 0, false
	}
	return float64(t.uni[id].prob), true
}

// level is the trie level of order n (2 or 3).
func (t *Trie) level(n int) *trieLevel {
	if n == t.order {
		return &t.last
	}
	return &t.middle[n-2]
}

// lookup follows the reversed path word, hist[0] (the last word before
// it), hist[1], ... as far as the trie has it. It returns the highest
// order found, the probability of that n-gram, and the back-off weights
// of the histories found on the way (bo[k] of the k+1 most recent words).
func (t *Trie) lookup(word int32, hist []int32) (found int, logp float64) {
	u := t.uni[word]
	found, logp = 1, float64(u.prob)
	begin, end := u.next, t.uni[word+1].next
	for k, h := range hist {
		n := k + 2
		if n > t.order || begin == end || h < 0 {
			break
		}
		l := t.level(n)
		i, ok := l.find(begin, end, uint32(h))
		if !ok {
			break
		}
		p, _ := l.quant(i)
		found, logp = n, float64(t.prob[n-2][p])
		if n == t.order {
			break
		}
		begin, end = l.next(i), l.next(i+1)
	}
	return found, logp
}

// backoff is the log10 back-off weight of the history whose words are
// hist (most recent first), 0 when the model does not hold it.
func (t *Trie) backoff(hist []int32) float64 {
	if len(hist) == 0 || hist[0] < 0 {
		return 0
	}
	u := t.uni[hist[0]]
	if len(hist) == 1 {
		return float64(u.bo)
	}
	l := &t.middle[0]
	begin, end := u.next, t.uni[hist[0]+1].next
	for k := 1; k < len(hist); k++ {
		if hist[k] < 0 || begin == end {
			return 0
		}
		i, ok := l.find(begin, end, uint32(hist[k]))
		if !ok {
			return 0
		}
		if k == len(hist)-1 {
			_, b := l.quant(i)
			return float64(t.bo[k-1][b])
		}
		if k+1 >= t.order-1 {
			return 0
		}
		begin, end = l.next(i), l.next(i+1)
		l = &t.middle[k]
	}
	return 0
}

// LogProb is the log10 probability of word after history, backing off as
// an ARPA model does (the n-gram if held, else the history's back-off
// weight times the shorter history's probability); -Inf outside the
// vocabulary.
func (t *Trie) LogProb(history []string, word string) float64 {
	w, ok := t.ids[word]
	if !ok {
		return math.Inf(-1)
	}
	if len(history) > t.order-1 {
		history = history[len(history)-(t.order-1):]
	}
	hist := make([]int32, len(history)) // most recent first
	for i, h := range history {
		id, ok := t.ids[h]
		if !ok {
			id = -1
		}
		hist[len(history)-1-i] = id
	}
	for k, h := range hist {
		if h < 0 {
			hist = hist[:k]
			break
		}
	}
	found, logp := t.lookup(w, hist)
	// P(w | h_n..h_1) = bo(h_n..h_1) + P(w | h_{n-1}..h_1) for every
	// history longer than the n-gram found.
	for n := len(hist); n >= found; n-- {
		logp += t.backoff(hist[:n])
	}
	return logp
}

// Each calls fn with every n-gram of order n (words in reading order),
// its log10 probability and back-off weight (0 on the highest order).
func (t *Trie) Each(n int, fn func(words []string, logp, bow float64)) {
	words := make([]string, n)
	switch {
	case n == 1:
		for i, w := range t.words {
			words[0] = w
			fn(words, float64(t.uni[i].prob), float64(t.uni[i].bo))
		}
	case n >= 2 && n <= t.order:
		var walk func(k int, begin, end uint32)
		walk = func(k int, begin, end uint32) {
			l := t.level(k)
			for i := begin; i < end; i++ {
				words[n-k] = t.words[l.word(int(i))]
				if k == n {
					p, b := l.quant(int(i))
					bow := 0.0
					if b >= 0 {
						bow = float64(t.bo[k-2][b])
					}
					fn(words, float64(t.prob[k-2][p]), bow)
					continue
				}
				walk(k+1, l.next(int(i)), l.next(int(i)+1))
			}
		}
		for i, w := range t.words {
			words[n-1] = w
			walk(2, t.uni[i].next, t.uni[i+1].next)
		}
	}
}

// Grams lists the n-grams of order n, words joined by single spaces (for
// Mix).
func (t *Trie) Grams(n int) []string {
	var out []string
	if n >= 1 && n <= t.order {
		out = make([]string, 0, t.counts[n-1])
	}
	t.Each(n, func(words []string, _, _ float64) { out = append(out, strings.Join(words, " ")) })
	return out
}
