package dialogue

import (
	"context"
	"strings"
	"testing"
)

// tasteKnowledge is the fake Knowledge with survey weights.
type tasteKnowledge struct {
	*fakeKnowledge
	weights map[string]float64
}

func (k tasteKnowledge) Interests(context.Context, int64) map[string]float64 { return k.weights }

func TestMusicByMetadata(t *testing.T) {
	h := newHarness(t)
	cases := []struct {
		lang, q string
		titles  []string // any of them
		says    string   // the answer holds it
	}{
		{"en", "play something upbeat", []string{"Summer Nights", "Another One", "Dusty Road"}, "Playing"},
		{"en", "put on some calm music", []string{"Clair de Lune", "Drift"}, "Playing"},
		{"es", "pon música tranquila", []string{"Clair de Lune", "Drift"}, "Reproduciendo"},
		{"en", "play Kind of Blue", []string{"So What", "Blue in Green"}, "Playing"},
		{"en", "play queen", []string{"Bohemian Rhapsody", "Another One"}, "Playing"},
		// Not in the library: the closest honest match, said as such.
		{"en", "put on my running playlist", []string{"Bohemian Rhapsody", "Neon Rain"}, "I don't have my running playlist; here is some energetic music"},
		{"en", "play my jazz playlist", []string{"So What", "Blue in Green"}, "I don't have my jazz playlist; here is some jazz"},
		{"es", "pon Despacito", nil, "No tengo Despacito"},
		{"en", "play Taylor Swift", nil, "I don't have Taylor Swift"},
	}
	for _, c := range cases {
		r := h.ask(c.lang, c.q, 0)
		a, d := actionJSON(t, r)
		if a != "PLAY_MUSIC" || !strings.Contains(r.Responses.Text, c.says) {
			t.Errorf("%q: %s %s %q", c.q, a, d, r.Responses.Text)
			continue
		}
		ok := len(c.titles) == 0
		for _, title := range c.titles {
			ok = ok || strings.Contains(d, `"title":"`+title+`"`)
		}
		if !ok {
			t.Errorf("%q played %s, want one of %v", c.q, d, c.titles)
		}
	}
}

func TestMusicSomethingILike(t *testing.T) {
	k := tasteKnowledge{newFakeKnowledge(), map[string]float64{"music:rock": 0.2, "music:classical": 1, "cuisine:thai": 1}}
	e := New(Config{Knowledge: k, Music: testTracks, MusicURL: testMusicURL})
	for _, q := range []string{"play something I like", "put on my favorite music"} {
		r, err := e.Answer(context.Background(), Request{Query: q, Lang: "en", UserID: 3})
		if err != nil {
			t.Fatal(err)
		}
		a, d := actionJSON(t, r)
		if a != "PLAY_MUSIC" || !strings.Contains(r.Responses.Text, "classical") ||
			!strings.Contains(d, "Clair de Lune") && !strings.Contains(d, "Nocturne") {
			t.Errorf("%q: %s %s %q", q, a, d, r.Responses.Text)
		}
	}
	r, _ := e.Answer(context.Background(), Request{Query: "pon algo que me guste", Lang: "es", UserID: 3})
	if a, _ := actionJSON(t, r); a != "PLAY_MUSIC" || !strings.Contains(r.Responses.Text, "clásica") {
		t.Errorf("es liked: %s %q", a, r.Responses.Text)
	}
	// No survey answers yet: the answer says how to tell.
	none := New(Config{Knowledge: tasteKnowledge{newFakeKnowledge(), nil}, Music: testTracks, MusicURL: testMusicURL})
	r, _ = none.Answer(context.Background(), Request{Query: "play something I like", Lang: "en", UserID: 3})
	if a, _ := actionJSON(t, r); a != "PLAY_MUSIC" || !strings.Contains(r.Responses.Text, "music survey") {
		t.Errorf("no taste: %s %q", a, r.Responses.Text)
	}
}
