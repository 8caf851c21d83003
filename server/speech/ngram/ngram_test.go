package ngram

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harkhq/hark/server/dialogue"
	"github.com/harkhq/hark/server/speech/sphinx"
)

func parse(t *testing.T, patterns []string, slots map[string][]string, courtesy []string) dialogue.GrammarSpec {
	t.Helper()
	spec, err := dialogue.ParseGrammar(patterns, slots, courtesy)
	if err != nil {
		t.Fatal(err)
	}
	return spec
}

// TestWittenBellByHand checks the estimates against values worked out on
// paper for two sentences, "a b" and "a c", each counted once.
func TestWittenBellByHand(t *testing.T) {
	m, err := Build(parse(t, []string{"a b", "a c"}, nil, nil), Options{PatternWeight: 1})
	if err != nil {
		t.Fatal(err)
	}
	// Unigram counts a 2, b 1, c 1, </s> 2 (total 6) over 4 types:
	// P(w) = (c(w)+1)/(6+4). After "a": c 2, T 2; after "<s>": c 2, T 1;
	// after "<s> a": c 2, T 2.
	for _, c := range []struct {
		hist []string
		word string
		want float64
	}{
		{nil, "a", 0.3},
		{nil, "b", 0.2},
		{[]string{"a"}, "b", (1 + 2*0.2) / 4},
		{[]string{"<s>"}, "a", (2 + 0.3) / 3},
		{[]string{"b"}, "</s>", (1 + 0.3) / 2},
		{[]string{"<s>", "a"}, "b", (1 + 2*0.35) / 4},
		// unseen after "<s> a" and after "a": back off twice
		{[]string{"<s>", "a"}, "a", 0.5 * 0.5 * 0.3},
		{[]string{"b", "a"}, "c", (1 + 2*0.2) / 4}, // history "b a" never seen
	} {
		got := math.Pow(10, m.LogProb(c.hist, c.word))
		if math.Abs(got-c.want) > 1e-12 {
			t.Errorf("P(%s | %v) = %.6f, want %.6f", c.word, c.hist, got, c.want)
		}
	}
	if got := m.LogProb([]string{"a"}, "zebra"); !math.IsInf(got, -1) {
		t.Errorf("unknown word: %v", got)
	}
}

var (
	domain    *Model
	domainErr error
)

func dialogueModel(t *testing.T) *Model {
	t.Helper()
	if domain == nil && domainErr == nil {
		domain, domainErr = Build(dialogue.GrammarSpecOf("en"), Options{})
	}
	if domainErr != nil {
		t.Fatal(domainErr)
	}
	return domain
}

// histories returns every history of the model that has a back-off
// weight, as word lists.
func histories(m *Model) [][]string {
	var out [][]string
	for n := 0; n < 2; n++ {
		for g, e := range m.grams[n] {
			if e.hasBow {
				out = append(out, strings.Fields(g))
			}
		}
	}
	return out
}

func TestEveryContextSumsToOne(t *testing.T) {
	m := dialogueModel(t)
	all := histories(m)
	if len(all) < 500 {
		t.Fatalf("only %d histories", len(all))
	}
	// Every 7th history (in map order) and the empty one: each sum runs
	// over the whole vocabulary.
	hs := [][]string{nil}
	for i := 0; i < len(all); i += 7 {
		hs = append(hs, all[i])
	}
	targets := append(append([]string(nil), m.Vocabulary...), End)
	for _, h := range hs {
		var sum float64
		for _, w := range targets {
			sum += math.Pow(10, m.LogProb(h, w))
		}
		if math.Abs(sum-1) > 1e-9 {
			t.Errorf("probabilities after %v sum to %.12f", h, sum)
		}
	}
}

// TestBackoffWeights recomputes each back-off weight from the
// probabilities of the words seen after its history: the weight must
// give the unseen words exactly the mass the seen ones leave.
func TestBackoffWeights(t *testing.T) {
	m := dialogueModel(t)
	seen := map[string][]string{} // history -> words seen after it
	for n := 1; n < 3; n++ {
		for g := range m.grams[n] {
			i := strings.LastIndexByte(g, ' ')
			seen[g[:i]] = append(seen[g[:i]], g[i+1:])
		}
	}
	checked := 0
	for _, h := range histories(m) {
		key := strings.Join(h, " ")
		var high, low float64
		for _, w := range seen[key] {
			high += math.Pow(10, m.grams[len(h)][key+" "+w].logp)
			low += math.Pow(10, m.LogProb(h[1:], w))
		}
		want := math.Log10((1 - high) / (1 - low))
		if got := m.grams[len(h)-1][key].bow; math.Abs(got-want) > 1e-9 {
			t.Errorf("back-off weight of %q: %.9f, want %.9f", key, got, want)
		}
		checked++
	}
	if checked < 500 {
		t.Fatalf("only %d back-off weights checked", checked)
	}
}

func TestInDomainPerplexityIsFarLower(t *testing.T) {
	m := dialogueModel(t)
	b, err := os.ReadFile("../testdata/commands.json")
	if err != nil {
		t.Fatal(err)
	}
	var set struct{ Commands, Questions []string }
	if err := json.Unmarshal(b, &set); err != nil {
		t.Fatal(err)
	}
	mean := func(lines []string) (float64, int) {
		var sum float64
		n := 0
		for _, l := range lines {
			ppl, oov := m.Perplexity(strings.Fields(l))
			if oov > 0 {
				continue
			}
			sum += math.Log(ppl)
			n++
		}
		return math.Exp(sum / float64(n)), n
	}
	inDomain, n := mean([]string{"set an alarm for seven am", "what's the weather in london tomorrow",
		"set a timer for ten minutes", "play some jazz", "turn on the lights", "what time is it"})
	// Open questions: their words outside the domain's vocabulary are
	// skipped (the model gives them probability 0), the rest scored.
	var sum float64
	for _, q := range set.Questions {
		ppl, _ := m.Perplexity(strings.Fields(q))
		sum += math.Log(ppl)
	}
	open := math.Exp(sum / float64(len(set.Questions)))
	t.Logf("geometric mean perplexity: in-domain %.1f (%d sentences), open questions %.1f (%d)", inDomain, n, open, len(set.Questions))
	if n < 6 {
		t.Fatalf("in-domain sentences with unknown words: %d of 6 scored", n)
	}
	if inDomain*8 > open {
		t.Errorf("in-domain perplexity %.1f is not far below the open questions' %.1f", inDomain, open)
	}
}

// TestPocketsphinxReadsTheModel writes the dialogue's model and reads it
// back with sphinxbase: same vocabulary, same probabilities (within the
// rounding of the ARPA text and of sphinxbase's base-1.0001 logarithms).
func TestPocketsphinxReadsTheModel(t *testing.T) {
	m := dialogueModel(t)
	var buf bytes.Buffer
	if err := m.WriteARPA(&buf); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "domain.arpa")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	lm, err := sphinx.ReadLM(path)
	if err != nil {
		t.Fatal(err)
	}
	defer lm.Close()
	if got, want := lm.Words(), len(m.Vocabulary)+2; got != want {
		t.Errorf("sphinxbase reads %d words, want %d", got, want)
	}
	cases := [][]string{
		{"set", "an", "alarm"}, {"<s>", "what", "time"}, {"is", "it", "</s>"},
		{"alarm", "jazz"}, {"jazz", "the", "alarm"}, {"play"}, {"<s>", "please"}, {"weather", "please", "</s>"},
	}
	for i := 0; i < 3; i++ {
		n := 0
		for g := range m.grams[i] {
			if !strings.HasPrefix(g, Start+" ") && g != Start {
				cases = append(cases, strings.Fields(g))
				if n++; n == 200 {
					break
				}
			}
		}
	}
	worst := 0.0
	for _, c := range cases {
		want := m.LogProb(c[:len(c)-1], c[len(c)-1])
		got, err := lm.LogProb(c...)
		if err != nil {
			t.Fatal(err)
		}
		// sphinxbase stores the probabilities of its tries quantised
		// (differences up to 4e-4 measured at log10 P = -3.5).
		if math.Abs(got-want) > 1e-3 {
			t.Errorf("log10 P(%v): sphinxbase %.5f, model %.5f", c, got, want)
		}
		worst = max(worst, math.Abs(got-want))
	}
	t.Logf("%d n-grams compared, largest difference %.5f", len(cases), worst)
}

func TestLargePatternsAreSampledDeterministically(t *testing.T) {
	values := make([]string, 100)
	for i := range values {
		values[i] = "x" + string(rune('a'+i%26)) + string(rune('a'+i/26))
	}
	spec := parse(t, []string{"play {song} [by {song}]", "stop"}, map[string][]string{"song": values}, []string{"please"})
	opt := Options{MaxEnumerate: 500}
	a, err := Build(spec, opt)
	if err != nil {
		t.Fatal(err)
	}
	// 100 + 100*100 paths: sampled 500 times; "stop" enumerated; each
	// with 4 courtesy variants.
	if a.Sentences != (500+1)*4 {
		t.Errorf("%d sentences, want %d", a.Sentences, (500+1)*4)
	}
	b, _ := Build(spec, opt)
	var wa, wb bytes.Buffer
	a.WriteARPA(&wa)
	b.WriteARPA(&wb)
	if !bytes.Equal(wa.Bytes(), wb.Bytes()) {
		t.Error("two builds of the same spec differ")
	}
	// Equal weight per pattern: "stop" alone is as likely a start as all
	// of the sampled "play" sentences together.
	pStop, pPlay := math.Pow(10, m2(a, Start, "stop")), math.Pow(10, m2(a, Start, "play"))
	if r := pStop / pPlay; r < 0.9 || r > 1.1 {
		t.Errorf("P(stop) %.3f, P(play ...) %.3f: the patterns are not weighted equally", pStop, pPlay)
	}
}

func m2(m *Model, h, w string) float64 { return m.LogProb([]string{h}, w) }

func TestUnsayablePartsAreDropped(t *testing.T) {
	spec := parse(t, []string{"set (an | the) alarm [quickly]", "frobnicate now", "call {who}", "call {nobody}"},
		map[string][]string{"who": {"mom", "zork"}}, nil)
	known := map[string]bool{"set": true, "an": true, "alarm": true, "call": true, "mom": true, "now": true}
	m, err := Build(spec, Options{Known: func(w string) bool { return known[w] }})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(m.Vocabulary, " "); got != "alarm an call mom set" {
		t.Errorf("vocabulary %q", got)
	}
	if len(m.Dropped) != 5 { // the, quickly, frobnicate, zork, {nobody}
		t.Errorf("dropped %q", m.Dropped)
	}
	if _, err := Build(spec, Options{Known: func(string) bool { return false }}); err == nil {
		t.Error("a spec with no sayable pattern built a model")
	}
}

// TestMixIsNormalisedAndInterpolates mixes two small models with
// different vocabularies: every seen n-gram gets exactly the weighted sum
// of the two models' probabilities, and every history's distribution sums
// to one over the union of the vocabularies.
func TestMixIsNormalisedAndInterpolates(t *testing.T) {
	a, err := Build(parse(t, []string{"set (an|the) alarm [please]", "stop"}, nil, nil), Options{PatternWeight: 3})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Build(parse(t, []string{"who (is|was) the [first] king", "stop the music", "the alarm is loud"}, nil, nil), Options{PatternWeight: 1})
	if err != nil {
		t.Fatal(err)
	}
	const lambda = 0.3
	m := Mix(a, b, lambda)
	targets := append(append([]string(nil), m.Vocabulary...), End)
	if len(m.Vocabulary) != 13 {
		t.Fatalf("vocabulary %v", m.Vocabulary)
	}
	for _, h := range append(histories(m), nil) {
		var sum float64
		for _, w := range targets {
			sum += math.Pow(10, m.LogProb(h, w))
		}
		if math.Abs(sum-1) > 1e-9 {
			t.Errorf("mixture after %v sums to %.12f", h, sum)
		}
	}
	p := func(m *Model, h []string, w string) float64 {
		lp := m.LogProb(h, w)
		if math.IsInf(lp, -1) {
			return 0
		}
		return math.Pow(10, lp)
	}
	for _, c := range [][]string{{"<s>", "set", "an"}, {"the", "alarm", "is"}, {"the", "alarm"}, {"stop", "</s>"}, {"<s>", "stop", "the"}, {"king"}} {
		h, w := c[:len(c)-1], c[len(c)-1]
		want := lambda*p(a, h, w) + (1-lambda)*p(b, h, w)
		if got := p(m, h, w); math.Abs(got-want) > 1e-12 {
			t.Errorf("P(%s | %v) = %.6f, want %.6f", w, h, got, want)
		}
	}
}

// Openers are counted by moving the grams at each sentence's start: the
// model must be the one built from every sentence said with and without
// each opener. An optional group before each pattern says each of its
// phrases with probability 1/4 and none 1/2, as OpenerProb 0.5 does with
// two openers. (Without courtesy phrases, which go between an opener and
// the pattern with a probability an optional group cannot give.)
func TestOpenersAsIfSaid(t *testing.T) {
	patterns := []string{"stop", "set a timer [for {n} minutes]", "what time is it"}
	slots := map[string][]string{"n": {"five", "ten"}}
	spec := parse(t, patterns, slots, nil)
	for _, o := range []string{"hey", "ok so"} {
		seq, err := dialogue.ParsePattern(o)
		if err != nil {
			t.Fatal(err)
		}
		spec.Openers = append(spec.Openers, seq)
	}
	opened, err := Build(spec, Options{OpenerProb: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	var said []string
	for _, p := range patterns {
		said = append(said, "[hey | ok so] "+p)
	}
	want, err := Build(parse(t, said, slots, nil), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if opened.Counts() != want.Counts() {
		t.Fatalf("n-gram counts %v, want %v", opened.Counts(), want.Counts())
	}
	for n := range want.grams {
		for g, e := range want.grams[n] {
			got, ok := opened.grams[n][g]
			if !ok || math.Abs(got.logp-e.logp) > 1e-9 || math.Abs(got.bow-e.bow) > 1e-9 {
				t.Errorf("%q: %+v, want %+v", g, got, e)
			}
		}
	}
	if p := opened.LogProb([]string{"<s>"}, "hey"); math.IsInf(p, -1) || p < math.Log10(0.2) {
		t.Errorf("P(hey | <s>) = %g", math.Pow(10, p))
	}
}

// BenchmarkBuild estimates the English domain model with its openers and
// without them: the openers move the grams at each sentence's start
// rather than count every sentence once per opener.
func BenchmarkBuild(b *testing.B) {
	spec := dialogue.GrammarSpecOf("en")
	without := spec
	without.Openers = nil
	for _, c := range []struct {
		name string
		spec dialogue.GrammarSpec
	}{{"without-openers", without}, {"openers", spec}} {
		b.Run(c.name, func(b *testing.B) {
			for range b.N {
				if _, err := Build(c.spec, Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// The English openers start sentences of the dialogue's model, and what
// follows one is a request.
func TestDialogueOpeners(t *testing.T) {
	m := dialogueModel(t)
	for _, c := range []struct {
		hist []string
		word string
	}{{[]string{"<s>"}, "hey"}, {[]string{"<s>", "hey"}, "play"}, {[]string{"<s>"}, "ok"}, {[]string{"<s>", "ok"}, "so"}, {[]string{"<s>"}, "uh"}} {
		// at least one sentence in a thousand: each of the fourteen
		// openers has a fourteenth of a tenth
		if p := math.Pow(10, m.LogProb(c.hist, c.word)); p < 1e-3 {
			t.Errorf("P(%s | %v) = %.2g", c.word, c.hist, p)
		}
	}
}
