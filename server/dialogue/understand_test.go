package dialogue

import (
	"context"
	"testing"
	"time"
)

func understand(t *testing.T, e *Engine, q string, ref, user int64) Reading {
	t.Helper()
	rd, err := e.Understand(context.Background(), Request{Query: q, Lang: "en", Ref: ref, UserID: user})
	if err != nil {
		t.Fatal(err)
	}
	return rd
}

// A complete request, one missing what it needs, words that read as
// nothing, and a misheard command: each reading says so, with the pattern
// and its cost where one matched.
func TestUnderstandReadsWithoutAnswering(t *testing.T) {
	e := New(Config{})
	rd := understand(t, e, "set a timer for five minutes", 0, 0)
	if rd.Intent != "SET_TIMER" || !rd.Complete() || rd.Pattern == "" || rd.Cost > 0 || rd.Lang != "en" {
		t.Errorf("timer: %+v", rd)
	}
	rd = understand(t, e, "set an alarm", 0, 0)
	if rd.Intent != "SET_ALARM" || rd.Missing != "time" || !rd.Understood() || rd.Complete() {
		t.Errorf("alarm without a time: %+v", rd)
	}
	if rd := understand(t, e, "how tall is my tether us", 0, 0); rd.Understood() {
		t.Errorf("an open question read as %+v", rd)
	}
	a := understand(t, e, "set an alarm for seven am", 0, 0)
	b := understand(t, e, "set an alarm four seven m.", 0, 0)
	if !a.Complete() || a.Intent != "SET_ALARM" || b.Complete() && b.Cost <= a.Cost {
		t.Errorf("the right words should read at least as well as the misheard ones: %+v vs %+v", a, b)
	}
	if _, err := e.Understand(context.Background(), Request{Query: "\xff"}); err == nil {
		t.Error("invalid UTF-8 read without an error")
	}
	if rd := understand(t, e, "   ", 0, 0); rd.Understood() {
		t.Errorf("an empty query understood: %+v", rd)
	}
}

// Reading in a conversation: an answer to the open question counts as
// understood (complete, naming the slot), a reply that answers nothing
// does not, and the conversation stays for the Answer that follows.
func TestUnderstandInAConversation(t *testing.T) {
	for _, stored := range []bool{false, true} {
		var e *Engine
		if stored {
			e, _ = storedEngine(t, t.TempDir(), &testClock{now: time.Now()})
		} else {
			e = New(Config{})
		}
		const user = 7
		r, err := e.Answer(context.Background(), Request{Query: "set an alarm", Lang: "en", UserID: user})
		if err != nil || r.Context.Ref == 0 {
			t.Fatal(r, err)
		}
		ref := r.Context.Ref
		for range 2 { // twice: the first reading took nothing
			rd := understand(t, e, "seven thirty", ref, user)
			if rd.Answers != "time" || !rd.Complete() || rd.Intent != "SET_ALARM" {
				t.Errorf("stored %v: the answer read as %+v", stored, rd)
			}
		}
		if rd := understand(t, e, "purple elephants", ref, user); rd.Understood() {
			t.Errorf("stored %v: a non-answer read as %+v", stored, rd)
		}
		if rd := understand(t, e, "seven thirty", ref, user+1); rd.Answers != "" {
			t.Errorf("stored %v: another user's conversation was read: %+v", stored, rd)
		}
		r, err = e.Answer(context.Background(), Request{Query: "seven thirty", Lang: "en", Ref: ref, UserID: user})
		if err != nil || len(r.NextActions) == 0 || r.NextActions[0].Action != "SET_ALARM" {
			t.Fatalf("stored %v: the conversation did not survive the readings: %+v %v", stored, r.NextActions, err)
		}
	}
}

// Reading asks no information source and reports no topic; answering does.
func TestUnderstandHasNoSideEffects(t *testing.T) {
	k := newFakeKnowledge()
	var topics int
	e := New(Config{Knowledge: k, Music: testTracks, MusicURL: testMusicURL,
		OnTopic: func(context.Context, int64, string) { topics++ }})
	lat, lon := 51.5, -0.12
	for _, q := range []string{"sports news", "find a thai restaurant", "play some jazz", "what's the weather in london"} {
		req := Request{Query: q, Lang: "en", Lat: &lat, Lon: &lon, UserID: 42}
		rd, err := e.Understand(context.Background(), req)
		if err != nil || !rd.Complete() {
			t.Fatalf("%q: %+v %v", q, rd, err)
		}
		if topics != 0 || len(k.last) != 0 {
			t.Fatalf("%q: reading reported %d topics, asked %v", q, topics, k.last)
		}
	}
	if _, err := e.Answer(context.Background(), Request{Query: "sports news", Lang: "en", Lat: &lat, Lon: &lon, UserID: 42}); err != nil {
		t.Fatal(err)
	}
	if topics != 1 || len(k.last) == 0 {
		t.Fatalf("answering reported %d topics, asked %v", topics, k.last)
	}
}
