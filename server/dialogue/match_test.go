package dialogue

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// readBoth reads a query with the bounds of the matcher and without them.
func readBoth(m *langModel, q string) (bounded, exhaustive *queryCtx, b, x match, bok, xok bool) {
	toks := m.joinSplit(tokenize(q))
	m.correctTokens(toks)
	toks = m.fluent(toks)
	bounded, exhaustive = newQueryCtx(m, toks), newQueryCtx(m, toks)
	exhaustive.exhaustive = true
	b, bok = bounded.best("")
	x, xok = exhaustive.best("")
	return bounded, exhaustive, b, x, bok, xok
}

// The bounds that cut patterns early (a pattern without an open slot
// must skip what its steps cannot read; an alignment gives up once its
// cheapest position is dearer than the best reading) change no reading:
// every query of the NLU and development sets, and long run-ons made of
// them, read the same with and without them.
func TestMatcherBoundsChangeNoReading(t *testing.T) {
	e, _ := benchEngine()
	for _, lang := range languages {
		m := e.models[lang]
		var qs []string
		files, _ := filepath.Glob("testdata/nlu_" + lang + ".jsonl")
		devs, _ := filepath.Glob("testdata/blind/dev*_" + lang + ".jsonl")
		for _, f := range append(files, devs...) {
			for _, c := range loadNLU(t, f) {
				if c.Q != "" {
					qs = append(qs, c.Q)
				}
				for _, turn := range c.Turns {
					qs = append(qs, turn.Q)
				}
			}
		}
		if len(qs) < 100 {
			t.Fatalf("%s: only %d queries to compare", lang, len(qs))
		}
		single := len(qs)
		for i := 0; i+8 < single; i += 5 {
			qs = append(qs, qs[i]+" "+qs[i+1], strings.Join(qs[i:i+8], " and "), strings.Join(qs[i:i+8], ", "))
		}
		qs = append(qs, longestQuery())
		for _, q := range qs {
			_, _, b, x, bok, xok := readBoth(m, q)
			if bok != xok || !reflect.DeepEqual(b, x) {
				t.Errorf("%s %q: bounded %v %+v, exhaustive %v %+v", lang, q, bok, b, xok, x)
			}
		}
	}
}

// The longest query aligns few positions: the patterns that read a few
// of its words give up after skipping enough of the rest, or are never
// aligned, instead of each walking all its words (the engine's CPU budget
// is 5 ms for it, BenchmarkAnswerLongest).
func TestLongestQueryAlignsFewPositions(t *testing.T) {
	e, _ := benchEngine()
	bounded, exhaustive, b, _, ok, _ := readBoth(e.models["en"], longestQuery())
	if !ok {
		t.Fatal("the longest query reads as nothing")
	}
	t.Logf("positions aligned: %d with the bounds, %d without (%d words, read as %s)",
		bounded.positions, exhaustive.positions, len(bounded.toks), b.intent)
	if bounded.positions*2 > exhaustive.positions {
		t.Errorf("the bounds aligned %d positions of %d, want at most half", bounded.positions, exhaustive.positions)
	}
}
