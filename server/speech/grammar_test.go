package speech

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/harkhq/hark/server/dialogue"
	"github.com/harkhq/hark/server/speech/sphinx"
)

// spec parses a grammar's texts with the dialogue's parser.
func spec(t *testing.T, patterns []string, slots map[string][]string, courtesy []string) GrammarSource {
	t.Helper()
	src, err := dialogue.ParseGrammar(patterns, slots, courtesy)
	if err != nil {
		t.Fatal(err)
	}
	return src
}

func knownWords(words ...string) func(string) bool {
	set := map[string]bool{}
	for _, w := range words {
		set[w] = true
	}
	return func(w string) bool { return set[w] }
}

func TestBuildGrammarWritesJSGF(t *testing.T) {
	src := spec(t, []string{
		"Set an alarm (for | at) {time}",
		"what's the weather [in {city}] [today | tomorrow]",
		"set an alarm (for | at) {time}", // duplicate after lower-casing
	}, map[string][]string{
		"time": {"{hour} [am | pm]", "noon"},
		"hour": {"seven", "eight"},
		"city": {"new york", "madrid"},
	}, nil)
	known := knownWords("set", "an", "alarm", "for", "at", "am", "pm", "noon", "seven", "eight",
		"what's", "the", "weather", "in", "today", "tomorrow", "new", "york", "madrid")
	g, err := BuildGrammar(src, known)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"public <utterance> = ( set an alarm ( for | at ) <slot_time> )",
		"| ( what's the weather [ in <slot_city> ] [ ( today | tomorrow ) ] )",
		"<slot_time> = <slot_hour> [ ( am | pm ) ] | noon;",
		"<slot_hour> = seven | eight;",
		"<slot_city> = new york | madrid;",
	} {
		if !strings.Contains(g.JSGF, want) {
			t.Errorf("grammar lacks %q:\n%s", want, g.JSGF)
		}
	}
	if strings.Count(g.JSGF, "set an alarm") != 1 {
		t.Errorf("duplicate pattern kept:\n%s", g.JSGF)
	}
	if len(g.Dropped) != 0 {
		t.Errorf("dropped %q", g.Dropped)
	}
	if len(g.Words) != 19 {
		t.Errorf("%d words: %q", len(g.Words), g.Words)
	}
}

func TestGrammarCourtesyAndContains(t *testing.T) {
	src := spec(t, []string{"set an alarm [(for | at) {time}]", "what time is it"},
		map[string][]string{"time": {"(seven | eight) [am | pm]"}},
		[]string{"please", "could you", "could you please", "kindly"})
	known := knownWords("set", "an", "alarm", "for", "at", "seven", "eight", "am", "pm",
		"what", "time", "is", "it", "please", "could", "you")
	g, err := BuildGrammar(src, known)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(g.JSGF, "public <utterance> = [ <courtesy> ] ( ( set an alarm") ||
		!strings.Contains(g.JSGF, "<courtesy> = ( please | could you | could you please );") {
		t.Errorf("courtesy missing or unpruned:\n%s", g.JSGF)
	}
	for text, want := range map[string]bool{
		"set an alarm":                     true,
		"Please set an alarm for seven AM": true,
		"could you please set an alarm":    true,
		"what time is it please":           true,
		"set an alarm for":                 false, // the slot is not optional after "for"
		"set ten alarm":                    false,
		"please":                           false,
		"what time is it set an alarm":     false,
		"":                                 false,
	} {
		if got := g.Contains(text); got != want {
			t.Errorf("Contains(%q) = %v, want %v", text, got, want)
		}
	}
	if (Grammar{}).Contains("set an alarm") {
		t.Error("an empty grammar contains a sentence")
	}
}

func TestBuildGrammarDropsWhatTheDictionaryCannotSay(t *testing.T) {
	src := spec(t, []string{
		"call {contact}",
		"play {genre} [right now]",
		"xyzzy the lights", // whole pattern unsayable
		"open {app}",       // slot with no sayable value
		"loop {a}",         // recursive slots
		"go to {nowhere}",  // undefined slot
	}, map[string][]string{
		"contact": {"mom", "zorblax", "my (sister | qqq)"},
		"genre":   {"jazz"},
		"app":     {"frobnicator"},
		"a":       {"{b}"},
		"b":       {"{a}"},
	}, nil)
	known := knownWords("call", "mom", "my", "sister", "play", "jazz", "right", "the", "lights", "open", "loop", "go", "to")
	g, err := BuildGrammar(src, known)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(g.JSGF, "<slot_contact> = mom | my ( sister );") {
		t.Errorf("contact rule:\n%s", g.JSGF)
	}
	if !strings.Contains(g.JSGF, "( play <slot_genre> )") {
		t.Errorf("the optional part with an unknown word must go, the pattern stay:\n%s", g.JSGF)
	}
	for _, gone := range []string{"xyzzy", "open", "loop", "nowhere", "zorblax", "qqq", "now"} {
		if strings.Contains(g.JSGF, gone) {
			t.Errorf("%q still in the grammar:\n%s", gone, g.JSGF)
		}
	}
	report := strings.Join(g.Dropped, "\n")
	for _, want := range []string{`word "zorblax"`, `word "qqq"`, `word "xyzzy"`, `word "now"`,
		"slot {app} has no sayable value", "refers to itself", "slot {nowhere} is not defined"} {
		if !strings.Contains(report, want) {
			t.Errorf("report lacks %q:\n%s", want, report)
		}
	}
}

func TestBuildGrammarErrors(t *testing.T) {
	known := knownWords("hello")
	for _, src := range []GrammarSource{
		spec(t, []string{"unknown words only"}, nil, nil),
		{},
	} {
		if _, err := BuildGrammar(src, known); err == nil {
			t.Errorf("%+v accepted", src)
		}
	}
}

func TestWER(t *testing.T) {
	for _, c := range []struct {
		ref, hyp string
		want     float64
	}{
		{"set an alarm", "set an alarm", 0},
		{"Set an alarm!", "set an alarm", 0},
		{"set an alarm", "set alarm", 1.0 / 3},
		{"call mom", "call my mom now", 1},
		{"", "", 0},
		{"", "noise", 1},
	} {
		if got := wordErrorRate(c.ref, c.hyp); got != c.want {
			t.Errorf("WER(%q, %q) = %v, want %v", c.ref, c.hyp, got, c.want)
		}
	}
}

// TestUnknownWordsWouldBreakPocketsphinx shows why BuildGrammar drops
// unknown words: pocketsphinx refuses a grammar holding one, and accepts
// the pruned grammar.
func TestUnknownWordsWouldBreakPocketsphinx(t *testing.T) {
	dict, err := LoadDictionary(filepath.Join(DefaultModelDir, "cmudict-en-us.dict"))
	if err != nil {
		t.Skipf("no pocketsphinx model (Debian package pocketsphinx-en-us): %v", err)
	}
	src := spec(t, []string{"turn (on | off) {feature}"}, map[string][]string{"feature": {"wifi", "bluetoothh"}}, nil)
	cfg := sphinx.Config{HMM: filepath.Join(DefaultModelDir, "en-us"), Dict: filepath.Join(DefaultModelDir, "cmudict-en-us.dict")}
	cfg.JSGF = "#JSGF V1.0;\ngrammar raw;\npublic <u> = turn (on | off) (wifi | bluetoothh);\n"
	if d, err := sphinx.NewDecoder(cfg); err == nil {
		d.Close()
		t.Fatal("pocketsphinx accepted a grammar with an unknown word")
	}
	g, err := BuildGrammar(src, func(w string) bool { return dict[w] })
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Dropped) != 1 || !strings.Contains(g.Dropped[0], `"bluetoothh"`) {
		t.Fatalf("dropped %q", g.Dropped)
	}
	cfg.JSGF = g.JSGF
	d, err := sphinx.NewDecoder(cfg)
	if err != nil {
		t.Fatalf("pruned grammar refused: %v\n%s", err, g.JSGF)
	}
	d.Close()
}
