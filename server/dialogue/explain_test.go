package dialogue

import (
	"context"
	"encoding/json"
	"maps"
	"strings"
	"testing"
)

func TestExplainOnlyWhenAsked(t *testing.T) {
	h := newHarness(t)
	req := Request{Query: "set a tiemr for 5 minutes", TimeZone: h.loc, Now: h.now, UserID: 1}
	r, err := h.e.Answer(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if raw, _ := json.Marshal(r); r.Explain != nil || strings.Contains(string(raw), "explain") {
		t.Fatalf("an explanation nobody asked for: %s", raw)
	}
	req.Explain = true
	r, _ = h.e.Answer(context.Background(), req)
	x := r.Explain
	if x == nil || x.Lang != "en" || x.LangFrom != "detected" || x.Intent != "SET_TIMER" || !strings.Contains(x.Pattern, "timer") || x.Cost == 0 {
		t.Fatalf("explanation %+v", x)
	}
	if len(x.Corrections) != 1 || x.Corrections[0] != (Correction{Typed: "tiemr", Read: "timer"}) {
		t.Errorf("corrections %+v", x.Corrections)
	}
	if len(x.Slots) != 1 || x.Slots[0] != (SlotReading{Name: "duration", Words: "5 minutes", Value: "5m0s"}) {
		t.Errorf("slots %+v", x.Slots)
	}
	// A follow-up says which question it answered.
	r, _ = h.e.Answer(context.Background(), Request{Query: "set an alarm", Lang: "en", TimeZone: h.loc, Now: h.now, UserID: 1})
	r, _ = h.e.Answer(context.Background(), Request{Query: "seven am", Lang: "en", TimeZone: h.loc, Now: h.now, UserID: 1,
		Ref: r.Context.Ref, Explain: true})
	if x := r.Explain; x == nil || x.Answers != "time" || x.Intent != "SET_ALARM" || len(x.Slots) == 0 || x.Slots[0].Value != "2026-03-05T07:00:00-05:00" {
		t.Errorf("follow-up explanation %+v", x)
	}
}

// A time slot is explained as the instant the action used, not as its
// words read alone: "6" of "from 6 to 7 pm tomorrow" is 6 pm tomorrow,
// "7 pm" is on the start's day, "7" of an alarm is 7 am.
func TestExplainTimesAsUsed(t *testing.T) {
	h := newHarness(t)
	for q, want := range map[string]map[string]string{
		"meeting tomorrow from 6 to 7 pm":                {"time": "2026-03-05T18:00:00-05:00", "until": "2026-03-05T19:00:00-05:00"},
		"dinner with sam from 8 to 10 at night tomorrow": {"time": "2026-03-05T20:00:00-05:00", "until": "2026-03-05T22:00:00-05:00"},
		"set an alarm for 7 tomorrow":                    {"time": "2026-03-05T07:00:00-05:00"},
	} {
		r, err := h.e.Answer(context.Background(), Request{Query: q, Lang: "en", TimeZone: h.loc, Now: h.now, UserID: 1, Explain: true})
		if err != nil || r.Explain == nil {
			t.Fatalf("%q: %v", q, err)
		}
		got := map[string]string{}
		for _, s := range r.Explain.Slots {
			if _, ok := want[s.Name]; ok {
				got[s.Name] = s.Value
			}
		}
		if !maps.Equal(got, want) {
			t.Errorf("%q: time slots explained as %v, want %v (actions %+v)", q, got, want, r.NextActions)
		}
	}
}
