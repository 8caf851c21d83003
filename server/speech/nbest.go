package speech

import (
	"slices"

	"github.com/harkhq/hark/server/speech/sphinx"
)

// NBestSize is how many distinct readings of each decoder a Result
// carries (the full decoder's, and the in-domain decoder's besides its
// best path). The n-best list comes from the lattice the decoder already
// built for its best-path search, so it costs no second decoding: five
// distinct texts took 0.1-0.8 ms for flite utterances of 0.8 to 5.5 s and
// 5.7 ms for one of 9 s (after a best path of 0.8-24 ms), measured on this
// machine at a load of 14 on 2 cores. Further readings mostly change one
// short word again ("seven am", "seven m", "seven and").
const NBestSize = 5

// Hypothesis is one reading of the audio for harkd to weigh by how well
// the dialogue understands it (see endpoints' choice of what was heard).
type Hypothesis struct {
	Text   string
	Source string // the decoder: the in-domain one (SourceMixed, SourceDomain, SourceGrammar) or the free one (SourceFull)
	// Score is the reading's path score per 10 ms frame relative to the
	// best path of the decoder that produced it: 0 for the full decoder's
	// best path, negative for the other readings of either decoder (how
	// much less likely the audio makes them, each decoder on its own
	// language scale). For the in-domain decoder's best path it is
	// Result.Margin instead, which includes its more favourable language
	// score (the grammar's: in-grammar commands +15 to +34, open questions
	// +3 or less); Alternative tells the two in-domain kinds apart.
	Score float64
	// Alternative marks an in-domain decoder's reading from its n-best
	// list other than its best path (Score relative to that path).
	Alternative bool `json:",omitempty"`
}

// hypotheses lists the readings of an utterance: the recogniser's choice
// first (text, from source), then the free decoder's (names[1]) n-best
// list nb in order of score, then the in-domain decoder's (names[0])
// reading g, then the rest of that decoder's n-best list gb in order of
// score, each text once (compared as normalizeWords does).
func hypotheses(text, source string, margin float64, names []string, g, f sphinx.Hyp, nb, gb []sphinx.Hyp) []Hypothesis {
	frames := float64(max(g.Frames, f.Frames, 1))
	// The n-best scores come from the A* search over the lattice, on a
	// scale of their own (measured 21,000 below the best-path score for
	// the same words), so they are taken relative to the best of their
	// list.
	byScore := func(a, b sphinx.Hyp) int { return b.Score - a.Score }
	slices.SortStableFunc(nb, byScore)
	slices.SortStableFunc(gb, byScore)
	rel := func(list []sphinx.Hyp, h sphinx.Hyp) float64 { return float64(h.Score-list[0].Score) / frames }
	var out []Hypothesis
	seen := map[string]bool{}
	add := func(h Hypothesis) {
		k := normalizeWords(h.Text)
		if k == "" || seen[k] {
			return
		}
		seen[k] = true
		out = append(out, h)
	}
	chosen := Hypothesis{Text: text, Source: source, Score: margin}
	if source == names[1] {
		chosen.Score = 0 // the best path, whatever the n-best list says
		for _, h := range nb {
			if normalizeWords(h.Text) == normalizeWords(text) {
				chosen.Score = rel(nb, h)
				break
			}
		}
	}
	add(chosen)
	for _, h := range nb {
		add(Hypothesis{Text: h.Text, Source: names[1], Score: rel(nb, h)})
	}
	if normalizeWords(f.Text) != "" && !seen[normalizeWords(f.Text)] {
		add(Hypothesis{Text: f.Text, Source: names[1]}) // the best path, missing from the n-best list
	}
	add(Hypothesis{Text: g.Text, Source: names[0], Score: margin})
	// The in-domain decoder's other readings are scored against its own
	// best path, which the list may miss or place below another text (the
	// A* search's order): relative to the list's best when the best path
	// is absent from it, else to the best path's entry.
	top := 0
	for i, h := range gb {
		if normalizeWords(h.Text) == normalizeWords(g.Text) {
			top = i
			break
		}
	}
	for _, h := range gb {
		s := min(float64(h.Score-gb[top].Score)/frames, 0) // one above the best path in the A* order counts as level with it
		add(Hypothesis{Text: h.Text, Source: names[0], Score: s, Alternative: true})
	}
	return out
}
