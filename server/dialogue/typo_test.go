package dialogue

import (
	"strings"
	"testing"
)

func TestSpellerCorrects(t *testing.T) {
	ms, err := loadModels()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ lang, typed, want string }{
		{"en", "remnd", "remind"},     // a letter left out
		{"en", "wheather", "weather"}, // a letter too many, in a long word
		{"en", "txt", "text"},
		{"en", "tiemr", "timer"}, // two letters swapped
		{"en", "alrm", "alarm"},
		{"en", "volumne", "volume"},
		{"en", "temprature", "temperature"},
		{"es", "alrma", "alarma"},
		{"es", "temporzador", "temporizador"},
		{"en", "calender", "calendar"}, // an unstressed vowel written as another
		{"es", "grasias", "gracias"},   // letters that sound alike
		{"es", "emvia", "envia"},       // keys that touch
		{"es", "larma", "alarma"},      // a first letter lost
		{"es", "habre", "abre"},        // a silent first letter added
		{"es", "yama", "llama"},        // y written for ll (yeísmo)
		{"es", "yevame", "llevame"},
		{"en", "vol", "volume"}, // shorthand of the language file
		{"es", "crono", "cronometro"},
		{"es", "navegaor", "navegador"}, // a letter left out before one too many ("navegar")
		{"en", "newz", "news"},          // a closing s written as z (texting)
		{"en", "tunez", "tunes"},
		// Known words are never turned into others, however close.
		{"en", "set", ""}, {"en", "of", ""}, {"en", "sam", ""},
		// Real words the vocabulary lacks, one slip away from one it has.
		{"en", "sure", ""},      // not "surf": a wrong letter in a short word
		{"en", "works", ""},     // not "work": an ending, not a slip
		{"en", "quarterly", ""}, // not "quarter"
		{"en", "dinner", ""},
		{"en", "title", ""}, // not "titled": the stem of a known word
		// Too short, or not a plain word.
		{"en", "st", ""}, {"en", "5min", ""}, {"en", "a.b", ""},
	} {
		if got := ms[c.lang].spell.correct(c.typed); got != c.want {
			t.Errorf("%s %q corrected to %q, want %q", c.lang, c.typed, got, c.want)
		}
	}
}

// Every abbreviation of a language file is read as its word: one that a
// pattern also held ("how r u") was a known word, so "what r u" kept its
// "r" and read as "how r u".
func TestShorthandIsAlwaysRead(t *testing.T) {
	ms, err := loadModels()
	if err != nil {
		t.Fatal(err)
	}
	for lang, m := range ms {
		for short, full := range m.spell.shorthand {
			if m.fillers[short] && m.fillers[full] {
				continue // "pls": skipped as the filler it stands for
			}
			if got := m.spell.correct(short); got != full {
				t.Errorf("%s %q read as %q, want %q", lang, short, got, full)
			}
		}
	}
	h := newHarness(t)
	for q, want := range map[string]string{"what r u": "who_are_you", "how r u": "how_are_you", "thx": "thanks"} {
		if r := h.ask("en", q, 0); r.Intent != want {
			t.Errorf("%q: %s, want %s", q, r.Intent, want)
		}
	}
}

func TestOSADistance(t *testing.T) {
	for _, c := range []struct {
		a, b  string
		limit int
		want  int
	}{
		{"abc", "abc", 2, 0}, {"abc", "acb", 2, 1}, {"abc", "ab", 2, 1}, {"abc", "xbc", 2, 1},
		{"kitten", "sitting", 5, 3}, {"kitten", "sitting", 1, 2}, {"ca", "abc", 5, 3},
	} {
		if got := osaDistance(c.a, c.b, c.limit); got != c.want {
			t.Errorf("osa(%q,%q,%d) = %d, want %d", c.a, c.b, c.limit, got, c.want)
		}
	}
}

// TestTypedSlipsAreUnderstood: the corrected words read the query, and
// open slots keep what was typed.
func TestTypedSlipsAreUnderstood(t *testing.T) {
	h := newHarness(t)
	cases := []struct{ lang, q, action, data string }{
		{"en", "set a tiemr for 5 minuts", "SET_TIMER", `{"duration":300000,"label":""}`},
		{"en", "txt Anna I'm lte", "SEND_SMS", `{"contact":"Anna","text":"I'm lte"}`},
		{"en", "turn off the ligths", "POWER", `{"device":"lights","state":"off"}`},
		{"es", "pon un temporzador de 5 minutos", "SET_TIMER", `{"duration":300000,"label":""}`},
	}
	for _, c := range cases {
		r := h.ask(c.lang, c.q, 0)
		if a, d := actionJSON(t, r); a != c.action || d != c.data {
			t.Errorf("%q: got %s %s, want %s %s (%s)", c.q, a, d, c.action, c.data, r.Responses.Text)
		}
	}
	if r := h.ask("en", "wheather in madrid", 0); r.Intent != "weather" || h.k.lastQuery("weather")["city"] != "Madrid" {
		t.Errorf("wheather in madrid: %s %v", r.Intent, h.k.lastQuery("weather"))
	}
}

// Inflected verbs and Spanish pronouns joined to a verb read as the
// pattern's form of the verb; a known word is never touched.
func TestSpellerStems(t *testing.T) {
	known := map[string]bool{"set": true, "pon": true, "cancelar": true, "abrir": true, "abre": true}
	freq := map[string]int{"set": 5, "pon": 3, "cancelar": 2, "abrir": 2, "abre": 3}
	s := newSpeller(known, freq)
	for typed, want := range map[string]string{
		"setting": "set", "ponme": "pon", "cancela": "cancelar", "abrirme": "abrir", "set": "",
		"ponga": "pon", "abra": "abre",
	} {
		if got := s.correct(typed); got != want {
			t.Errorf("correct(%q) = %q, want %q", typed, got, want)
		}
	}
}

// Amounts written as one word ("1h30m") are read as the amounts they are;
// other words with digits stay whole.
func TestTokenizeUnitRuns(t *testing.T) {
	for q, want := range map[string]string{
		"timer 1h30m": "timer|1h|30m", "2m30s": "2m|30s", "3pm": "3pm", "mp3": "mp3", "5min": "5min",
	} {
		var got []string
		for _, tk := range tokenize(q) {
			got = append(got, tk.orig)
		}
		if g := strings.Join(got, "|"); g != want {
			t.Errorf("tokenize(%q) = %s, want %s", q, g, want)
		}
	}
}

// An English loanword written in Spanish as it sounds ("blutuz", "guifi")
// is the loanword; only Spanish writers spell so, and a known word is
// never touched.
func TestLoanwordsAsTheySound(t *testing.T) {
	known := map[string]bool{"bluetooth": true, "wifi": true, "activa": true}
	freq := map[string]int{"bluetooth": 3, "wifi": 3, "activa": 4}
	s := newSpeller(known, freq)
	s.silentH = true
	for typed, want := range map[string]string{"blutuz": "bluetooth", "guifi": "wifi", "wifi": "", "activa": ""} {
		if got := s.correct(typed); got != want {
			t.Errorf("correct(%q) = %q, want %q", typed, got, want)
		}
	}
	s.silentH = false
	if got := s.correct("blutuz"); got == "bluetooth" {
		t.Errorf("English: correct(blutuz) = %q, want no loanword reading", got)
	}
	checkReadings(t, []readCase{
		{"es", "enciende el blutuz", "ACTIVATE", []string{`"feature":"bluetooth"`}},
		{"es", "desactiva el guifi", "DEACTIVATE", []string{`"feature":"wifi"`}},
	})
}
