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
	got := hypotheses(f.Text, SourceFull, 10, pair, g, f, nb)
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
	got = hypotheses(g.Text, SourceGrammar, 14, pair, g, f, nil)
	want = []Hypothesis{
		{Text: "set an alarm for seven am", Source: SourceGrammar, Score: 14},
		{Text: "set an alarm for seven m.", Source: SourceFull, Score: 0},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
	if got := hypotheses("", SourceFull, 0, pair, sphinx.Hyp{}, sphinx.Hyp{}, nil); len(got) != 0 {
		t.Fatalf("silence gave readings %+v", got)
	}
}

// On real audio: five or fewer distinct readings of the full decoder,
// scores at or below its best path, the chosen text first.
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
	full, grammar := 0, 0
	for _, h := range res.Hypotheses {
		switch h.Source {
		case SourceFull:
			full++
			if h.Score > 0 {
				t.Errorf("full reading above its best path: %+v", h)
			}
		case SourceGrammar:
			grammar++
			if h.Score != res.Margin {
				t.Errorf("grammar reading's score %v, margin %v", h.Score, res.Margin)
			}
		}
	}
	if full < 2 || full > NBestSize+1 || grammar > 1 {
		t.Errorf("%d full and %d grammar readings: %+v", full, grammar, res.Hypotheses)
	}
	t.Logf("%+v", res.Hypotheses)
}
