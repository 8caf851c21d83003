package endpoints

import (
	"context"
	"strings"
	"testing"

	"github.com/harkhq/hark/server/dialogue"
	"github.com/harkhq/hark/server/speech"
)

func full(text string, score float64) speech.Hypothesis {
	return speech.Hypothesis{Text: text, Source: speech.SourceFull, Score: score}
}

func grammar(text string, margin float64) speech.Hypothesis {
	return speech.Hypothesis{Text: text, Source: speech.SourceGrammar, Score: margin}
}

// alt is another reading of the mixed decoder, score per frame below its
// best path.
func alt(text string, score float64) speech.Hypothesis {
	return speech.Hypothesis{Text: text, Source: speech.SourceMixed, Score: score, Alternative: true}
}

// The choice among readings with the real engine's readings of them: the
// readings are as the recogniser gave them for flite speech (kal16), or
// built like them.
func TestChooseHeard(t *testing.T) {
	e := dialogue.New(dialogue.Config{})
	req := dialogue.Request{Lang: "en", UserID: 3}
	cases := []struct {
		name   string
		hyps   []speech.Hypothesis
		chosen string
		why    string          // part of the chosen reading's reason
		last   string          // part of the last reading's reason, when set
		gated  map[int]float64 // the readings the acoustic gate turned down, and its value
	}{
		{
			// "set an alarm for seven am" (kal16): the full model's best
			// path ends in "m.", still a complete request, which stands:
			// understanding only decides when the recogniser's choice is
			// no complete request.
			name: "a complete request stands",
			hyps: []speech.Hypothesis{full("set an alarm for seven m.", 0), full("set an alarm four seven m.", -0.84),
				full("set an alarm for seven am", -0.35), full("set an alarm for seven and", -1.45)},
			chosen: "set an alarm for seven m.", why: "the recogniser's choice, SET_ALARM",
			gated: map[int]float64{3: 1.0},
		},
		{
			// "help" (kal16) heard as "well the"; "help" is in the n-best
			// list, close behind.
			name: "a reading understood where the choice is not",
			hyps: []speech.Hypothesis{full("well the", 0), full("help", -0.449), full("well but", -0.884), full("welcome", -1.101),
				full("well that", -2.348)},
			gated:  map[int]float64{3: 1.0, 4: 1.0},
			chosen: "help", why: "better than the recogniser's choice (not understood)",
		},
		{
			// An open question stays as heard: the grammar's forced
			// reading has a small margin, and no n-best reading is a
			// request.
			name: "open question",
			hyps: []speech.Hypothesis{full("how tall is my tether us", 0), full("how tall is mom tepper us", -0.04),
				full("how tall is my own tether us", -0.46), grammar("how cold is it london please", 3.1)},
			chosen: "how tall is my tether us", why: "no reading it allows is understood",
		},
		{
			// Understood but acoustically far behind: not taken.
			name:   "acoustic gate",
			hyps:   []speech.Hypothesis{full("why is the sky blue", 0), full("play the sky blue", -2.5)},
			chosen: "why is the sky blue", why: "no reading it allows",
			gated: map[int]float64{1: 1.0},
		},
		{
			// The grammar's reading, rejected by the recogniser, does not
			// come back by being understood: it is forced by construction
			// (letting it compete lost commands, README).
			name:   "grammar reading",
			hyps:   []speech.Hypothesis{full("scarpa the stop fetch", 0), grammar("start the stopwatch", 9.5)},
			chosen: "scarpa the stop fetch", why: "the recogniser's choice",
		},
		{
			name:   "complete over incomplete",
			hyps:   []speech.Hypothesis{full("set an alarm", 0), full("set an alarm at seven", -0.5)},
			chosen: "set an alarm at seven", why: "better than the recogniser's choice (SET_ALARM without its time",
		},
		{
			// kal16 "text anna" with the mixed + full pair: an understood
			// request missing its message is completed, never replaced by
			// a reading that drops its words.
			name:   "incomplete choice not replaced",
			hyps:   []speech.Hypothesis{{Text: "text to anna", Source: speech.SourceMixed, Score: 1.2}, full("text and the", 0), full("tech stand up", -0.58)},
			chosen: "text to anna", why: "the recogniser's choice, SEND_SMS without its",
		},
		{
			// kal16 "max volume" on a new speaker (2026-12-01): the mixed
			// decoder's best path is the volume without its level, its
			// next reading the same request complete, in other words.
			name: "incomplete choice completed in other words",
			hyps: []speech.Hypothesis{{Text: "my ex volume", Source: speech.SourceMixed, Score: 4.5}, full("next volume", -2.18),
				full("my x volume", -4.42), alt("max volume", -0.72), alt("mike's volume", -5.89)},
			chosen: "max volume", why: "VOLUME_UPDATE, cost",
			gated: map[int]float64{1: 1.0, 2: 1.0, 4: 1.0},
		},
		{
			// The same intent with another value of a slot the choice
			// filled replaces it: not taken.
			name:   "same intent, another contact",
			hyps:   []speech.Hypothesis{{Text: "text to anna", Source: speech.SourceMixed, Score: 1.2}, alt("text dana i'm late", -0.3)},
			chosen: "text to anna", why: "the recogniser's choice, SEND_SMS without its",
			last: "another request, which does not complete",
		},
		{
			// The chosen in-domain decoder's other readings compete, gated
			// against its best path.
			name:   "in-domain reading completes the choice",
			hyps:   []speech.Hypothesis{{Text: "set an alarm", Source: speech.SourceMixed, Score: 2}, full("set and alarm", 0), alt("set an alarm for seven", -0.6)},
			chosen: "set an alarm for seven", why: "SET_ALARM, cost",
		},
		{
			name: "in-domain reading behind the gate",
			hyps: []speech.Hypothesis{{Text: "set an alarm", Source: speech.SourceMixed, Score: 2}, full("set and alarm", 0),
				alt("set an alarm for seven", -1.8)},
			chosen: "set an alarm", why: "the recogniser's choice, SET_ALARM without its",
			last:  "1.80 per frame below the mixed decoder's best path (more than 1.0)",
			gated: map[int]float64{2: 1.0},
		},
		{
			// The in-domain decoder the recogniser rejected: none of its
			// readings comes back by being understood.
			name: "rejected in-domain decoder's readings",
			hyps: []speech.Hypothesis{full("scarpa the stop fetch", 0), {Text: "start the stopwatch", Source: speech.SourceMixed, Score: -0.5},
				alt("stop the stopwatch", -0.1)},
			chosen: "scarpa the stop fetch", why: "the recogniser's choice",
			last: "another reading of the mixed decoder, which the recogniser rejected",
		},
		{
			name:   "recogniser's choice kept",
			hyps:   []speech.Hypothesis{grammar("set a timer for five minutes", 22.5), full("so the timer for five minutes", 0), full("such a timer for five minutes", -0.36)},
			chosen: "set a timer for five minutes", why: "the recogniser's choice, SET_TIMER",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := speech.Result{Text: c.hyps[0].Text, Source: c.hyps[0].Source, Hypotheses: c.hyps}
			h, err := chooseHeard(context.Background(), e, req, res)
			if err != nil {
				t.Fatal(err)
			}
			x := h.explain()
			if h.Text() != c.chosen || !x[h.chosen].Chosen || !strings.Contains(x[h.chosen].Reason, c.why) {
				t.Errorf("chose %q (%q), want %q (%q)", h.Text(), x[h.chosen].Reason, c.chosen, c.why)
			}
			for i, hx := range x {
				if hx.Reason == "" || hx.Text != c.hyps[i].Text || hx.Score != c.hyps[i].Score || hx.Chosen != (i == h.chosen) {
					t.Errorf("reading %d explained as %+v", i, hx)
				}
				// Gate marks exactly the readings the acoustic gate
				// turned down (the console folds them by it).
				if g, ok := c.gated[i]; ok != (hx.Gate != nil) || ok && *hx.Gate != g {
					t.Errorf("reading %d (%q): gate %v, want %v (set: %v)", i, hx.Reason, hx.Gate, g, ok)
				}
			}
			if last := x[len(x)-1].Reason; !strings.Contains(last, c.last) {
				t.Errorf("last reading explained as %q, want %q", last, c.last)
			}
		})
	}
}

// In a conversation the open question counts: a reading that answers it
// wins over one read as nothing, and choosing takes nothing from the
// conversation.
func TestChooseHeardAnswersTheQuestion(t *testing.T) {
	e := dialogue.New(dialogue.Config{})
	ctx := context.Background()
	r, err := e.Answer(ctx, dialogue.Request{Query: "set an alarm", Lang: "en", UserID: 3})
	if err != nil || r.Context.Ref == 0 {
		t.Fatal(r, err)
	}
	req := dialogue.Request{Lang: "en", UserID: 3, Ref: r.Context.Ref}
	hyps := []speech.Hypothesis{full("heaven birdie", 0), full("seven thirty", -0.3)}
	h, err := chooseHeard(ctx, e, req, speech.Result{Text: hyps[0].Text, Source: speech.SourceFull, Hypotheses: hyps})
	if err != nil {
		t.Fatal(err)
	}
	if h.Text() != "seven thirty" || !strings.Contains(h.why[h.chosen], "answers the question") {
		t.Fatalf("chose %q: %+v", h.Text(), h.explain())
	}
	req.Query = h.Text()
	a, err := e.Answer(ctx, req)
	if err != nil || len(a.NextActions) == 0 || a.NextActions[0].Action != "SET_ALARM" {
		t.Fatalf("the conversation did not survive the choice: %+v %v", a.NextActions, err)
	}
}

// A worker of an older build sends no readings: its text is the only one.
func TestChooseHeardWithoutReadings(t *testing.T) {
	e := dialogue.New(dialogue.Config{})
	h, err := chooseHeard(context.Background(), e, dialogue.Request{Lang: "en"}, speech.Result{Text: "what time is it", Source: speech.SourceGrammar, Margin: 20})
	if err != nil || h.Text() != "what time is it" || len(h.explain()) != 1 {
		t.Fatalf("%+v %v", h, err)
	}
}
