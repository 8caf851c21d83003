package dialogue

import (
	"testing"
)

// readBoth reads a query with the bounds of the matcher and without them.
func readBoth(m *langModel, q string) (bounded, exhaustive *queryCtx, b, x match, bok, xok bool) {
	toks := m.words(q)
	m.correctTokens(toks)
	toks = m.fluent(toks)
	bounded, exhaustive = newQueryCtx(m, toks), newQueryCtx(m, toks)
	exhaustive.exhaustive = true
	b, bok = bounded.best("")
	x, xok = exhaustive.best("")
	return bounded, exhaustive, b, x, bok, xok
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
