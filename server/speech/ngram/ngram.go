// Package ngram builds the domain language model of the recogniser: a
// trigram model estimated from the dialogue's own patterns and slot
// values (the dialogue.GrammarSpec the JSGF grammar is built from), with
// Witten-Bell smoothing, written as an ARPA file pocketsphinx reads. Mixed
// with the general English model (see package speech), it favours the
// dialogue's sentences strongly while leaving any other sentence possible,
// which a grammar cannot.
//
// # Training text
//
// The patterns are not a corpus: every expansion of a pattern is an
// equally plausible command, and a pattern with a large slot ({song},
// {city}) has thousands of expansions where "what time is it" has one.
// Each pattern therefore contributes the same total count,
// Options.PatternWeight "virtual sentences" (100: the larger it is, the
// more Witten-Bell trusts the patterns' trigrams; the geometric mean
// perplexity of six in-domain commands measured about 40, 26 and 20 at
// weights 5, 20 and 100, while open questions rose), spread over its expansions
// by a random walk that picks each alternative of a group or slot with
// equal probability and says an optional part half of the time. A pattern
// with at most Options.MaxEnumerate paths is enumerated with the walk's
// exact probabilities; a larger one is walked MaxEnumerate times with a
// generator seeded by the pattern's position, so the model is the same on
// every build. The courtesy phrases ("please") are put before and after
// each expansion with probability Options.CourtesyProb each, and an
// opener ("hey", "ok so", "uh") before it all with probability
// Options.OpenerProb.
//
// # Smoothing
//
// Interpolated Witten-Bell, for order n with history h:
//
//	P(w|h) = (c(h w) + T(h) P(w|h')) / (c(h) + T(h))
//
// where c(h) is the total count after h, T(h) the number of distinct words
// seen after h and h' the history shortened by one word; unigrams
// interpolate with the uniform distribution over the vocabulary. It was
// chosen over modified Kneser-Ney because the counts here are fractional
// (the pattern weights above): Kneser-Ney's discounts are estimated from
// how many n-grams occur exactly once, twice, three times, which
// fractional counts do not have, while Witten-Bell needs only counts and
// type counts. It also suits the domain: after "set an alarm" only a few
// words ever follow, so T(h) is small against c(h) and the model trusts the
// trigram, while after "play" hundreds of song titles follow and more
// weight goes to the shorter history. The interpolated model is written in
// ARPA back-off form exactly: each seen n-gram with its interpolated
// probability and each history with the back-off weight T(h)/(c(h)+T(h)),
// which is precisely the share the interpolation gives the shorter
// history for a word not seen after h.
package ngram

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/harkhq/hark/server/dialogue"
)

// Sentence boundary symbols of the ARPA format.
const (
	Start = "<s>"
	End   = "</s>"
)

// Options tune Build; the zero value means the defaults.
type Options struct {
	// Known reports whether the recogniser's dictionary has a word; parts
	// with unknown words are left out (see Model.Dropped). Nil keeps all.
	Known func(string) bool
	// MaxEnumerate is the number of paths up to which a pattern is
	// enumerated, and the number of walks over a larger one (500).
	MaxEnumerate int
	// PatternWeight is the total count of each pattern (100).
	PatternWeight float64
	// CourtesyProb is the chance of a courtesy phrase before, and
	// separately after, an expansion (0.25).
	CourtesyProb float64
	// OpenerProb is the chance of an opener before an expansion and its
	// courtesy phrase (0.1).
	OpenerProb float64
}

// Model is a trigram model in back-off form.
type Model struct {
	// Vocabulary is the words of the model, sorted, without <s> and </s>.
	Vocabulary []string
	// Dropped explains every part of the spec left out.
	Dropped []string
	// Sentences is the number of distinct training sentences counted
	// (enumerated or sampled).
	Sentences int
	// grams[n-1] maps an n-gram ("w1 w2 w3") to its log10 probability and
	// back-off weight.
	grams [3]map[string]entry
}

type entry struct {
	logp, bow float64 // log10
	hasBow    bool
}

// counts are the weighted n-gram counts of the training sentences.
type counts struct {
	n [3]map[string]float64
	// starts is the weight of the sentences by their first two words
	// (End for a missing second one).
	starts map[[2]string]float64
}

func (c *counts) add(words []string, weight float64) {
	c.n[0][Start] += 0 // never predicted, but a history: it needs a unigram entry
	if len(words) > 0 {
		second := End
		if len(words) > 1 {
			second = words[1]
		}
		c.starts[[2]string{words[0], second}] += weight
	}
	prev2, prev := "", Start
	for i := 0; i <= len(words); i++ {
		w := End
		if i < len(words) {
			w = words[i]
		}
		c.n[0][w] += weight
		bi := prev + " " + w
		c.n[1][bi] += weight
		if prev2 != "" {
			c.n[2][prev2+" "+bi] += weight
		}
		prev2, prev = prev, w
	}
}

// Build estimates the model of spec, whose words must already be in the
// dictionary's spelling (package speech rewrites them). It fails when no
// pattern can be said.
func Build(spec dialogue.GrammarSpec, opt Options) (*Model, error) {
	if opt.MaxEnumerate <= 0 {
		opt.MaxEnumerate = 500
	}
	if opt.PatternWeight <= 0 {
		opt.PatternWeight = 100
	}
	if opt.CourtesyProb <= 0 {
		opt.CourtesyProb = 0.25
	}
	if opt.OpenerProb <= 0 {
		opt.OpenerProb = 0.1
	}
	p := &pruner{known: opt.Known, raw: spec.Slots, slots: map[string][][]node{}, state: map[string]int{}}
	// around lists the courtesy choices on one side: none, or one
	// phrase.
	around := p.choices(spec.Courtesy, "courtesy", opt.CourtesyProb)
	c := &counts{starts: map[[2]string]float64{}}
	for i := range c.n {
		c.n[i] = map[string]float64{}
	}
	w := &walker{slots: p.slots}
	sentences := 0
	for i, raw := range spec.Patterns {
		seq, ok := p.seq(raw, fmt.Sprintf("pattern %d", i+1))
		if !ok {
			continue
		}
		var exps []weighted
		if w.count(seq, float64(opt.MaxEnumerate)+1) <= float64(opt.MaxEnumerate) {
			exps = w.enumerate(seq)
		} else {
			rng := rand.New(rand.NewPCG(uint64(i), 0x6861726b)) // "hark"
			exps = make([]weighted, opt.MaxEnumerate)
			for j := range exps {
				exps[j] = weighted{words: w.sample(nil, seq, rng), p: 1 / float64(opt.MaxEnumerate)}
			}
		}
		for _, e := range exps {
			for _, pre := range around {
				for _, post := range around {
					words := append(append(slices.Clip(pre.words), e.words...), post.words...)
					c.add(words, opt.PatternWeight*e.p*pre.p*post.p)
					sentences++
				}
			}
		}
	}
	if openers := p.phrases(spec.Openers, "opener"); openers != nil {
		c.open(openers, opt.OpenerProb)
	}
	if len(c.n[0]) == 0 {
		return nil, fmt.Errorf("ngram: no pattern is expressible with the dictionary's words (%d patterns)", len(spec.Patterns))
	}
	m := estimate(c)
	m.Dropped, m.Sentences = p.dropped, sentences
	return m, nil
}

// open puts an opener before every sentence counted, with probability
// prob shared among openers by their p: only the n-grams that reach back
// to a sentence's start change, so those are moved from the start to the
// opener, rather than every sentence counted again once per opener (which
// took 15 times as long for fourteen openers).
func (c *counts) open(openers []weighted, prob float64) {
	for start, w := range c.starts {
		c.n[1][Start+" "+start[0]] -= prob * w
		c.n[2][Start+" "+start[0]+" "+start[1]] -= prob * w
		for _, o := range openers {
			k, ow := len(o.words), prob*o.p*w
			seq := append(append(append([]string{Start}, o.words...), start[0]), start[1])
			for j := 1; j < len(seq); j++ {
				if j <= k {
					c.n[0][seq[j]] += ow
				}
				if j <= k+1 {
					c.n[1][seq[j-1]+" "+seq[j]] += ow
				}
				if j >= 2 {
					c.n[2][seq[j-2]+" "+seq[j-1]+" "+seq[j]] += ow
				}
			}
		}
	}
}

// phrases lists every expansion of the phrases that can be said, the
// phrases alike in probability; nil when none can.
func (p *pruner) phrases(phrases [][]node, what string) []weighted {
	var alts [][]node
	for _, ph := range phrases {
		if s, ok := p.seq(ph, what); ok {
			alts = append(alts, s)
		}
	}
	if len(alts) == 0 {
		return nil
	}
	w := &walker{slots: p.slots}
	return w.union(alts)
}

// choices lists the ways to say one of phrases, or none, in a place where
// one is said with probability prob: nothing (1-prob), then each
// expansion of each phrase, prob shared among the phrases alike.
func (p *pruner) choices(phrases [][]node, what string, prob float64) []weighted {
	alts := p.phrases(phrases, what)
	if alts == nil {
		return []weighted{{p: 1}}
	}
	return append([]weighted{{p: 1 - prob}}, scale(alts, prob)...)
}

// estimate applies interpolated Witten-Bell to the counts.
func estimate(c *counts) *Model {
	m := &Model{}
	for i := range m.grams {
		m.grams[i] = map[string]entry{}
	}
	// History totals and type counts for orders 2 and 3.
	type hist struct {
		total float64
		types int
	}
	hists := [3]map[string]*hist{{}, {}, {}}
	for n := 2; n <= 3; n++ {
		for g, k := range c.n[n-1] {
			h := g[:strings.LastIndexByte(g, ' ')]
			s := hists[n-1][h]
			if s == nil {
				s = &hist{}
				hists[n-1][h] = s
			}
			s.total += k
			s.types++
		}
	}
	// Unigrams: every word seen (all of the vocabulary) against uniform.
	var total float64
	for g, k := range c.n[0] {
		if g != Start {
			total += k
		}
	}
	vocab := 0
	for g := range c.n[0] {
		if g != Start {
			vocab++
			if g != End {
				m.Vocabulary = append(m.Vocabulary, g)
			}
		}
	}
	sort.Strings(m.Vocabulary)
	types := float64(vocab)
	p1 := map[string]float64{}
	for g, k := range c.n[0] {
		if g == Start {
			continue
		}
		p1[g] = (k + types/float64(vocab)) / (total + types)
	}
	// interp is the interpolated probability of the last word of g given
	// the rest, for any g whose words are in the vocabulary.
	var interp func(g string) float64
	interp = func(g string) float64 {
		i := strings.IndexByte(g, ' ')
		if i < 0 {
			return p1[g]
		}
		h := g[:strings.LastIndexByte(g, ' ')]
		lower := interp(g[i+1:])
		n := strings.Count(g, " ") + 1
		s := hists[n-1][h]
		if s == nil {
			return lower
		}
		return (c.n[n-1][g] + float64(s.types)*lower) / (s.total + float64(s.types))
	}
	for n := 1; n <= 3; n++ {
		for g := range c.n[n-1] {
			e := entry{}
			if g == Start {
				e.logp = -99 // never predicted; present to hold its back-off weight
			} else {
				e.logp = math.Log10(interp(g))
			}
			if n < 3 {
				if s := hists[n][g]; s != nil {
					e.bow, e.hasBow = math.Log10(float64(s.types)/(s.total+float64(s.types))), true
				}
			}
			m.grams[n-1][g] = e
		}
	}
	return m
}

// LogProb is the log10 probability of word after the history (the last
// two words count), by the back-off rule of the ARPA format. A word
// outside the vocabulary has probability 0 (-Inf).
func (m *Model) LogProb(history []string, word string) float64 {
	if len(history) > 2 {
		history = history[len(history)-2:]
	}
	for len(history) > 0 {
		if _, ok := m.grams[len(history)-1][strings.Join(history, " ")]; ok {
			break
		}
		history = history[1:] // a history never seen has back-off weight 1
	}
	var bow float64
	for {
		g := strings.Join(append(slices.Clip(history), word), " ")
		if e, ok := m.grams[len(history)][g]; ok {
			return bow + e.logp
		}
		if len(history) == 0 {
			return math.Inf(-1)
		}
		bow += m.grams[len(history)-1][strings.Join(history, " ")].bow
		history = history[1:]
	}
}

// Perplexity is the perplexity of a sentence (words in dictionary
// spelling, </s> included as a token). Words outside the vocabulary are
// skipped and counted in oov, and the history restarts after them, as
// SRILM's ngram -ppl does.
func (m *Model) Perplexity(words []string) (ppl float64, oov int) {
	var sum float64
	tokens := 0
	hist := []string{Start}
	for _, w := range append(slices.Clip(words), End) {
		lp := m.LogProb(hist, w)
		if math.IsInf(lp, -1) {
			oov++
			hist = []string{Start}
			continue
		}
		sum += lp
		tokens++
		hist = append(hist, w)
	}
	return math.Pow(10, -sum/float64(tokens)), oov
}

// Counts is the number of n-grams of each order (1, 2, 3), <s> included.
func (m *Model) Counts() [3]int {
	return [3]int{len(m.grams[0]), len(m.grams[1]), len(m.grams[2])}
}

// WriteARPA writes the model in the ARPA text format, n-grams sorted by
// the position of their words in the unigram list (the order the older
// sphinxbase readers require).
func (m *Model) WriteARPA(w io.Writer) error {
	uni := make([]string, 0, len(m.grams[0]))
	for g := range m.grams[0] {
		uni = append(uni, g)
	}
	sort.Strings(uni)
	index := make(map[string]int, len(uni))
	for i, u := range uni {
		index[u] = i
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "\\data\\\n")
	for n := 1; n <= 3; n++ {
		fmt.Fprintf(bw, "ngram %d=%d\n", n, len(m.grams[n-1]))
	}
	// Keys are word positions in fixed arrays and lines are appended to
	// one buffer: the mixed model has millions of n-grams, and a slice and
	// an fmt call per line made writing it take as long as mixing it.
	var line []byte
	for n := 1; n <= 3; n++ {
		keys := make([][3]int32, 0, len(m.grams[n-1]))
		for g := range m.grams[n-1] {
			var k [3]int32
			for i, word := range strings.Fields(g) {
				k[i] = int32(index[word])
			}
			keys = append(keys, k)
		}
		slices.SortFunc(keys, func(a, b [3]int32) int { return slices.Compare(a[:], b[:]) })
		fmt.Fprintf(bw, "\n\\%d-grams:\n", n)
		words := make([]string, n)
		for _, k := range keys {
			for i := range words {
				words[i] = uni[k[i]]
			}
			g := strings.Join(words, " ")
			e := m.grams[n-1][g]
			line = strconv.AppendFloat(line[:0], e.logp, 'f', 6, 64)
			line = append(append(line, ' '), g...)
			if e.hasBow {
				line = strconv.AppendFloat(append(line, ' '), e.bow, 'f', 6, 64)
			}
			line = append(line, '\n')
			if _, err := bw.Write(line); err != nil {
				return err
			}
		}
	}
	fmt.Fprintf(bw, "\n\\end\\\n")
	return bw.Flush()
}
