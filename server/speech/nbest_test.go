package speech

import (
	"bytes"
	"context"
	"reflect"
	"testing"

	"github.com/harkhq/hark/server/speech/sphinx"
)

// The readings: the chosen one first, the n-best list in score order
// relative to its best, each text once however it is spelt, the grammar's
// reading last with the margin as its score.
func TestHypothesesOrderAndScores(t *testing.T) {
	pair := []string{SourceGrammar, SourceFull}
	g := sphinx.Hyp{Text: "set an alarm for seven am", Score: -9000, Frames: 100}
	f := sphinx.Hyp{Text: "set an alarm for seven m.", Score: -10000, Frames: 100}
	nb := []sphinx.Hyp{
		{Text: "set an alarm four seven m.", Score: -30100},
		{Text: "set an alarm for seven m.", Score: -30000},
		{Text: "set an alarm for seven am", Score: -30050},
		{Text: "Set an alarm for seven m", Score: -30200},
	}
	got := hypotheses(f.Text, SourceFull, 10, pair, g, f, nb, nil)
	want := []Hypothesis{
		{Text: "set an alarm for seven m.", Source: SourceFull, Score: 0},
		{Text: "set an alarm for seven am", Source: SourceFull, Score: -0.5},
		{Text: "set an alarm four seven m.", Source: SourceFull, Score: -1},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
	// The grammar chosen: it leads with the margin; an empty n-best list
	// still gives the full decoder's best path.
	got = hypotheses(g.Text, SourceGrammar, 14, pair, g, f, nil, nil)
	want = []Hypothesis{
		{Text: "set an alarm for seven am", Source: SourceGrammar, Score: 14},
		{Text: "set an alarm for seven m.", Source: SourceFull, Score: 0},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
	if got := hypotheses("", SourceFull, 0, pair, sphinx.Hyp{}, sphinx.Hyp{}, nil, nil); len(got) != 0 {
		t.Fatalf("silence gave readings %+v", got)
	}
}

// The in-domain decoder's n-best list: after its best path (the margin as
// its score), its other readings in order of score, relative to the best
// path's entry in the list, marked Alternative; each text once, whichever
// decoder read it first; one the A* search places above the best path
// counts as level with it.
func TestHypothesesInDomainNBest(t *testing.T) {
	pair := []string{SourceMixed, SourceFull}
	g := sphinx.Hyp{Text: "set an alarm for seven", Score: -9000, Frames: 200}
	f := sphinx.Hyp{Text: "set an alarm for seven", Score: -9500, Frames: 200}
	nb := []sphinx.Hyp{
		{Text: "set an alarm for seven", Score: -30000},
		{Text: "set an alarm for several", Score: -30400},
	}
	gb := []sphinx.Hyp{
		{Text: "set an alarm for seven thirty", Score: -29300},
		{Text: "set an alarm for seven", Score: -29200},
		{Text: "Set an alarm for several", Score: -29100}, // the full decoder's already
		{Text: "set an alarm for seven am", Score: -29000},
		{Text: "set the alarm for seven", Score: -29600},
	}
	got := hypotheses(g.Text, SourceMixed, 2.5, pair, g, f, nb, gb)
	want := []Hypothesis{
		{Text: "set an alarm for seven", Source: SourceMixed, Score: 2.5},
		{Text: "set an alarm for several", Source: SourceFull, Score: -2},
		{Text: "set an alarm for seven am", Source: SourceMixed, Score: 0, Alternative: true},
		{Text: "set an alarm for seven thirty", Source: SourceMixed, Score: -0.5, Alternative: true},
		{Text: "set the alarm for seven", Source: SourceMixed, Score: -2, Alternative: true},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
	// The full model chosen: the in-domain best path after the full
	// readings with the margin; its list lacks the best path, so its
	// readings count from the list's best.
	gb = []sphinx.Hyp{
		{Text: "set an alarm for seven thirty", Score: -29300},
		{Text: "set an alarm for seven fifteen", Score: -29500},
	}
	got = hypotheses(f.Text, SourceFull, -1, pair, g, f, nb[:1], gb)
	want = []Hypothesis{
		{Text: "set an alarm for seven", Source: SourceFull, Score: 0},
		{Text: "set an alarm for seven thirty", Source: SourceMixed, Score: 0, Alternative: true},
		{Text: "set an alarm for seven fifteen", Source: SourceMixed, Score: -1, Alternative: true},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
}

// On real audio: five or fewer distinct readings of the full decoder,
// scores at or below its best path, the chosen text first, and some other
// readings of the in-domain decoder at or below its own.
func TestRecognitionGivesNBest(t *testing.T) {
	rec := testRecognizer(t)
	audio := speak(t, t.TempDir(), "kal16", "set a timer for five minutes")
	res, err := rec.Recognize(context.Background(), "en", 16000, bytes.NewReader(audio))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hypotheses) < 2 || res.Hypotheses[0].Text != res.Text {
		t.Fatalf("readings %+v for %q", res.Hypotheses, res.Text)
	}
	full, best, alts := 0, 0, 0
	for _, h := range res.Hypotheses {
		switch {
		case h.Source == SourceFull:
			full++
			if h.Score > 0 || h.Alternative {
				t.Errorf("full reading above its best path or marked an alternative: %+v", h)
			}
		case h.Alternative:
			alts++
			if h.Score > 0 {
				t.Errorf("in-domain reading above its best path: %+v", h)
			}
		default:
			best++
			if h.Score != res.Margin {
				t.Errorf("in-domain best path's score %v, margin %v", h.Score, res.Margin)
			}
		}
	}
	if full < 2 || full > NBestSize+1 || best > 1 || alts > NBestSize || alts == 0 {
		t.Errorf("%d full, %d in-domain and %d in-domain alternative readings: %+v", full, best, alts, res.Hypotheses)
	}
	t.Logf("%+v", res.Hypotheses)
}

// The grammar's search gives n-best readings too (pocketsphinx builds a
// lattice for it as for the n-gram models): in the grammar + full pair its
// other readings are listed, at or below its best path.
func TestGrammarGivesNBest(t *testing.T) {
	rec, err := New(Config{Grammar: dialogueGrammar(), Slots: 1, Decoders: []string{SourceGrammar, SourceFull}})
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Close()
	audio := speak(t, t.TempDir(), "kal16", "set an alarm for seven thirty")
	res, err := rec.Recognize(context.Background(), "en", 16000, bytes.NewReader(audio))
	if err != nil {
		t.Fatal(err)
	}
	alts := 0
	for _, h := range res.Hypotheses {
		if h.Alternative {
			alts++
			if h.Source != SourceGrammar || h.Score > 0 {
				t.Errorf("alternative %+v", h)
			}
		}
	}
	if alts == 0 {
		t.Errorf("no other reading of the grammar among %+v", res.Hypotheses)
	}
	t.Logf("%+v", res.Hypotheses)
}
