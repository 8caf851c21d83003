package spokeneval

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/harkhq/hark/audio"
)

func TestNormalize(t *testing.T) {
	for in, want := range map[string]string{
		"Set an alarm for 7 A.M., please!": "set an alarm for 7 am please",
		"seven _a m":                       "seven am",
		"ten thirty p m tonight":           "ten thirty pm tonight",
		"a map":                            "a map", // only a lone "a m" is a.m.
		"twenty five per cent":             "twenty five percent",
		"what's   the 'weather'":           "whats the weather",
		"wi-fi":                            "wi fi",
		"okay call my neighbour, OK?":      "ok call my neighbor ok",
		"four colours":                     "four colors",
		"what's the temp, today's date":    "whats the temp todays date", // one sound, the apostrophe unheard
		"well we'll, im i'm":               "well we'll im i'm",          // other sounds
		"":                                 "",
	} {
		if got := Normalize(in); got != want {
			t.Errorf("Normalize(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestErrors(t *testing.T) {
	for _, c := range []struct {
		ref, hyp    string
		errs, words int
	}{
		{"cancel all my alarms", "cancel my alarms", 1, 4},
		{"start the stopwatch", "stop the stopwatch", 1, 3},
		{"play some jazz", "", 3, 3},
		{"play some jazz", "Play some jazz.", 0, 3},
		{"what time is it", "what time is it now please", 2, 4},
		{"", "hello", 1, 0},
		// filled pauses are optional on either side
		{"uh what day is it", "what day is it", 0, 4},
		{"what day is it", "um what day is it", 0, 4},
		// a word joined on one side and apart on the other
		{"turn on bluetooth", "turn on blue tooth", 0, 3},
		{"turn on wi fi", "turn on wifi", 0, 4},
		{"s m s laura", "sms laura", 0, 4},
		{"count down five minutes", "countdown five minutes", 0, 4},
		{"turn on bluetooth", "turn on blue", 1, 3}, // not the whole word
		{"play some one", "play someone", 0, 3},
		{"play some one", "play some one", 0, 3},
	} {
		e, n := Errors(c.ref, c.hyp)
		if e != c.errs || n != c.words {
			t.Errorf("Errors(%q, %q) = %d, %d, want %d, %d", c.ref, c.hyp, e, n, c.errs, c.words)
		}
	}
}

func needFlite(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("flite"); err != nil {
		t.Skip("flite is not installed (Debian package flite)")
	}
}

func TestSpokenKeepsWhatCanBeSaid(t *testing.T) {
	needFlite(t)
	dict := Dictionary{}
	for _, w := range []string{"set", "a", "timer", "for", "minutes", "alarm", "at", "am", "pm", "wi", "fi", "turn",
		"on", "the", "seven", "thirty", "five", "zero", "four", "twenty", "percent", "per", "cent", "volume", "to",
		"email", "text", "second", "ten", "p", "m", "one", "two", "thousand", "hundred", "call", "six", "seventeen", "twelve", "fifty", "forty",
		"i've", "got", "eleven", "doctor's", "doctors"} {
		dict[w] = true
	}
	s := &Selector{Dict: dict, Words: FliteWords}
	ctx := context.Background()
	for q, want := range map[string]string{
		"Set a timer for 5 minutes.": "set a timer for five minutes",
		"alarm at 7:30 am":           "alarm at seven thirty am",
		"alarm at 7:30am":            "alarm at seven thirty am",
		"alarm 0545":                 "alarm zero five four five",
		"turn on the wi-fi":          "turn on the wi fi",
		"set the volume to 25%":      "set the volume to twenty five percent",
		"alarm at 10:30pm":           "alarm at ten thirty pm",
		// read in the line: "1700" alone is "seventeen hundred", "212"
		// alone "two hundred twelve"
		"alarm for 1700":    "alarm for one thousand seven hundred",
		"call 212 555 0147": "call two one two five five five zero one four seven",
		// flite writes "i 've", "doctor 's" in a line it reads
		"i've got a doctor's at 11am": "i've got a doctors at eleven am",
	} {
		got, ok, err := s.Spoken(ctx, q)
		if err != nil || !ok || got != want {
			t.Errorf("Spoken(%q) = %q, %v, %v; want %q", q, got, ok, err, want)
		}
	}
	for _, q := range []string{
		"st a timer 5 min",        // a typo and an abbreviation the dictionary lacks
		"set a tiemr",             // a typo
		"email mark@example.com",  // an address
		"set a timer for 1h30m",   // digits that are not a number
		"text +1 646",             // a sign flite spells
		"alarm w/ the 7:30 alarm", // a symbol
		"...",                     // nothing to say
	} {
		if got, ok, err := s.Spoken(ctx, q); err != nil || ok {
			t.Errorf("Spoken(%q) = %q, %v, %v; want it dropped", q, got, ok, err)
		}
	}
}

func TestSelectKeepsWholeSequences(t *testing.T) {
	needFlite(t)
	dict := Dictionary{"set": true, "an": true, "alarm": true, "seven": true, "am": true}
	s := &Selector{Dict: dict, Words: FliteWords}
	cases := []Case{
		{Set: "t", Line: 1, Turns: []Turn{{Q: "set an alarm", Expect: "OPEN_ASR"}, {Q: "7 am", Expect: "SET_ALARM"}}},
		{Set: "t", Line: 2, Turns: []Turn{{Q: "set an alarm", Expect: "OPEN_ASR"}, {Q: "7 amm", Expect: "SET_ALARM"}}},
		{Set: "t", Line: 3, Turns: []Turn{{Q: "set an alrm", Expect: "OPEN_ASR"}}},
	}
	kept, err := s.Select(context.Background(), cases)
	if err != nil {
		t.Fatal(err)
	}
	if len(kept) != 1 || kept[0].Line != 1 || kept[0].Turns[1].Said != "seven am" || cases[0].Turns[1].Said != "" {
		t.Fatalf("kept %+v", kept)
	}
}

func TestLoad(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.jsonl")
	os.WriteFile(p, []byte(`{"q": "what time is it", "expect": "time"}

{"q": "weather", "expect": "OPEN_ASR", "nolocation": true}
{"turns": [{"q": "set an alarm", "expect": "OPEN_ASR"}, {"q": "7 am", "expect": "SET_ALARM", "slots": {"time": "x"}}]}
`), 0o644)
	got, err := Load(p, "x")
	if err != nil {
		t.Fatal(err)
	}
	want := []Case{
		{Set: "x", Line: 1, Turns: []Turn{{Q: "what time is it", Expect: "time"}}},
		{Set: "x", Line: 3, NoLocation: true, Turns: []Turn{{Q: "weather", Expect: "OPEN_ASR"}}},
		{Set: "x", Line: 4, Turns: []Turn{{Q: "set an alarm", Expect: "OPEN_ASR"}, {Q: "7 am", Expect: "SET_ALARM"}}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
	os.WriteFile(p, []byte(`{"q": "", "expect": "time"}`), 0o644)
	if _, err := Load(p, "x"); err == nil {
		t.Fatal("a turn without q loaded")
	}
	os.WriteFile(p, []byte(`{"q": "x"`), 0o644)
	if _, err := Load(p, "x"); err == nil {
		t.Fatal("broken JSON loaded")
	}
}

func TestSampleIsFixedAndOrdered(t *testing.T) {
	var cases []Case
	for i := range 100 {
		cases = append(cases, Case{Line: i})
	}
	a, b := Sample(cases, 10, 14), Sample(cases, 10, 14)
	if !reflect.DeepEqual(a, b) || len(a) != 10 {
		t.Fatalf("two samples with one seed differ: %v %v", a, b)
	}
	for i := 1; i < len(a); i++ {
		if a[i].Line <= a[i-1].Line {
			t.Fatalf("sample out of order: %v", a)
		}
	}
	if c := Sample(cases, 10, 15); reflect.DeepEqual(a, c) {
		t.Fatal("another seed gave the same sample")
	}
	if all := Sample(cases, 200, 14); len(all) != 100 {
		t.Fatalf("a sample larger than the set has %d cases", len(all))
	}
}

func TestSynthesizerCachesAndDownsamples(t *testing.T) {
	needFlite(t)
	s := &Synthesizer{Dir: t.TempDir()}
	ctx := context.Background()
	wide, err := s.WAV(ctx, Voice{Name: "kal16", Rate: 16000}, "set an alarm")
	if err != nil {
		t.Fatal(err)
	}
	pcm16, rate, err := audio.DecodeWAV(bytes.NewReader(wide))
	if err != nil || rate != 16000 || len(pcm16) < 16000 {
		t.Fatalf("16 kHz: rate %d, %d bytes, %v", rate, len(pcm16), err)
	}
	narrow, err := s.WAV(ctx, Voice{Name: "kal16", Rate: 8000}, "set an alarm")
	if err != nil {
		t.Fatal(err)
	}
	pcm8, rate, err := audio.DecodeWAV(bytes.NewReader(narrow))
	if err != nil || rate != 8000 || abs(len(pcm8)*2-len(pcm16)) > 8 {
		t.Fatalf("8 kHz: rate %d, %d bytes against %d at 16 kHz, %v", rate, len(pcm8), len(pcm16), err)
	}
	files, _ := filepath.Glob(filepath.Join(s.Dir, "*", "*.wav"))
	if len(files) != 2 {
		t.Fatalf("cache holds %v", files)
	}
	// A cached file is what is returned: change it and read it back.
	os.WriteFile(files[0], []byte("cached"), 0o644)
	again, _ := s.WAV(ctx, Voice{Name: "kal16", Rate: 16000}, "set an alarm")
	again8, _ := s.WAV(ctx, Voice{Name: "kal16", Rate: 8000}, "set an alarm")
	if string(again) != "cached" && string(again8) != "cached" {
		t.Fatal("the cache was not read")
	}
	if _, err := s.WAV(ctx, Voice{Name: "kal16", Rate: 11025}, "x"); err == nil {
		t.Fatal("a rate the server refuses was synthesised")
	}
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

func TestCanonical(t *testing.T) {
	needFlite(t)
	s := &Selector{Dict: Dictionary{"three": true, "seven": true, "thirty": true, "am": true, "a": true, "m": true}, Words: FliteWords}
	ctx := context.Background()
	for in, want := range map[string]string{
		"can you pick up the kids at 3": "can you pick up the kids at three",
		"My brother Daniel.":            "my brother daniel",
		"alarm 7:30am":                  "alarm seven thirty am",
		"see you at 1h30m":              "see you at 1h30m", // not a number: left as written
	} {
		if got := s.Canonical(ctx, in); got != want {
			t.Errorf("Canonical(%q) = %q, want %q", in, got, want)
		}
	}
}

// Every English blind set keeps most of its lines: the typo lines (about
// a tenth) and those with abbreviations or addresses fall out, the rest
// can be spoken. Counts only; no line is printed.
func TestSelectBlindSets(t *testing.T) {
	needFlite(t)
	dict, err := LoadDictionary(DictPath)
	if err != nil {
		t.Skipf("no pronunciation dictionary (Debian package pocketsphinx-en-us): %v", err)
	}
	s := &Selector{Dict: dict, Words: FliteWords}
	for _, set := range []string{"dev", "dev2", "dev3", "dev4", "dev5", "dev6", "dev7", "holdout", "holdout3"} {
		cases, err := Load(filepath.Join("..", "dialogue", "testdata", "blind", set+"_en.jsonl"), set)
		if err != nil {
			t.Fatal(err)
		}
		kept, err := s.Select(context.Background(), cases)
		if err != nil {
			t.Fatal(err)
		}
		single, seq, keptSingle, keptSeq := 0, 0, 0, 0
		for _, c := range cases {
			if len(c.Turns) > 1 {
				seq++
			} else {
				single++
			}
		}
		for _, c := range kept {
			if len(c.Turns) > 1 {
				keptSeq++
			} else {
				keptSingle++
			}
			for _, turn := range c.Turns {
				if turn.Said == "" {
					t.Fatalf("%s: a kept turn has no reference text", set)
				}
			}
		}
		t.Logf("%-8s keeps %3d of %3d single turns, %2d of %2d sequences", set, keptSingle, single, keptSeq, seq)
		if keptSingle < single/2 {
			t.Errorf("%s keeps only %d of %d single turns", set, keptSingle, single)
		}
	}
}
