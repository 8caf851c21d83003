package flow

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseReadsTheIssuesExample(t *testing.T) {
	f, err := Parse([]byte(`name: two-turn alarm
lang: en
voice: slt            # default for 'say' turns
rate: 8000
turns:
  - say: please set an alarm
    expect: {action: OPEN_ASR}
  - wav: fixtures/seven-thirty.wav
    expect:
      heard: seven thirty
      action: SET_ALARM
      answer: "7:30"
      data: {time: "\\d+", label: ^$}
  - type: what time is it
    expect: {answer: "\\d+:\\d\\d"}
`))
	if err != nil {
		t.Fatal(err)
	}
	if f.Name != "two-turn alarm" || f.Lang != "en" || f.Voice != "slt" || f.Rate != 8000 || len(f.Turns) != 3 {
		t.Fatalf("flow %+v", f)
	}
	want := []struct {
		kind Kind
		text string
		line int
	}{{Say, "please set an alarm", 6}, {WAV, "fixtures/seven-thirty.wav", 8}, {Type, "what time is it", 14}}
	for i, w := range want {
		if got := f.Turns[i]; got.Kind != w.kind || got.Text != w.text || got.Line != w.line {
			t.Errorf("turn %d: %+v, want %+v", i+1, got, w)
		}
	}
	e := f.Turns[1].Expect
	if e.Action != "SET_ALARM" || !e.Heard.MatchString("Seven Thirty AM") || e.Answer.MatchString("7.30") || !e.Answer.MatchString("at 7:30") {
		t.Fatalf("expectations of turn 2: %+v", e)
	}
	if len(e.Data) != 2 || e.Data[0].Key != "label" || e.Data[1].Key != "time" || !e.Data[1].Pattern.MatchString("1795591800000") {
		t.Fatalf("data expectations: %+v", e.Data)
	}
	if f.Turns[0].Expect.Heard != nil || f.Turns[2].Expect.Action != "" {
		t.Fatal("unset expectations must stay unchecked")
	}
	if !f.Speaks() {
		t.Fatal("a flow with a 'say' turn speaks")
	}
}

func TestParseDefaults(t *testing.T) {
	f, err := Parse([]byte("turns:\n  - type: hello\n"))
	if err != nil {
		t.Fatal(err)
	}
	if f.Lang != "en" || f.Voice != "kal16" || f.Rate != 16000 || f.Speaks() {
		t.Fatalf("defaults: %+v", f)
	}
}

// TestParseErrorsNameTheLine: every problem is reported with its line, all at once, and
// nothing unknown is ignored.
func TestParseErrorsNameTheLine(t *testing.T) {
	cases := []struct {
		name, yaml string
		want       []string // each "line N: ..." substring, in order
	}{
		{"syntax", "name: x\n  bad: [\nturns:\n", []string{"line 2: mapping values are not allowed"}},
		{"unclosed flow mapping", "turns:\n  - say: hi\n    expect: {action: OPEN_ASR\n", []string{"line 3:"}},
		{"unclosed flow sequence at the end of the file", "turns: [\n", []string{"line 2: did not find expected node content"}},
		{"bad indentation", "name: x\nturns:\n  - say: hi\n   expect: {action: OPEN_ASR}\n  - type: x\n", []string{"line 3:"}},
		{"a key where a list item goes", "name: x\nturns:\n  - type: a\n  lang: es\n", []string{"line 3: did not find expected '-' indicator"}},
		{"tab indentation", "turns:\n\t- say: hi\n", []string{"line 2: found character that cannot start any token"}},
		{"unknown top-level key", "name: x\nvoices: slt\nturns:\n  - type: hi\n",
			[]string{`line 2: unknown key "voices" in a flow (name, lang, voice, rate, turns)`}},
		{"unknown turn key", "turns:\n  - type: hi\n  - sya: hello\n",
			[]string{`line 3: unknown key "sya" in a turn (say, wav, type, expect)`, "line 3: a turn needs one of say, wav or type"}},
		{"unknown expect key", "turns:\n  - type: hi\n    expect:\n      action: SET_ALARM\n      colour: red\n",
			[]string{`line 5: unknown key "colour" in expect (heard, action, answer, data)`}},
		{"unknown action code", "turns:\n  - type: hi\n    expect: {action: SET_ALARMS}\n",
			[]string{`line 3: unknown action code "SET_ALARMS" (one of ACTIVATE,`}},
		{"action codes are the contract's spelling", "turns:\n  - type: hi\n    expect: {action: set_alarm}\n",
			[]string{`line 3: unknown action code "set_alarm"`}},
		{"bad regular expression", "turns:\n  - type: hi\n    expect:\n      heard: \"(seven\"\n",
			[]string{`line 4: bad regular expression "(seven"`}},
		{"bad data regular expression", "turns:\n  - type: hi\n    expect:\n      action: SET_TIMER\n      data: {duration: \"[\"}\n",
			[]string{`line 5: bad regular expression "["`}},
		{"a list where a value goes", "turns:\n  - type: hi\n    expect: {action: [SET_ALARM]}\n",
			[]string{"line 3: expected a single value, not a list"}},
		{"unknown voice, rate and language", "voice: bob\nrate: 44100\nlang: fr\nturns:\n  - type: hi\n",
			[]string{`line 1: unknown voice "bob" (one of kal16, slt, awb, rms)`, `line 2: unknown rate "44100" (one of 16000, 8000)`,
				`line 3: unknown language "fr" (one of en, es)`}},
		{"a voice for Spanish", "lang: es\nvoice: slt\nturns:\n  - type: hola\n", []string{"line 2: voice is for English flows"}},
		{"two kinds in one turn", "turns:\n  - {say: a, type: b}\n", []string{"line 2: a turn takes one of say, wav or type, not 2"}},
		{"an empty turn", "turns:\n  - type: hi\n  - {}\n", []string{"line 3: a turn needs one of say, wav or type"}},
		{"empty text", "turns:\n  - wav: \"\"\n", []string{"line 2: wav is empty"}},
		{"data without action", "turns:\n  - type: hi\n    expect: {data: {a: b}}\n",
			[]string{"line 2: expect.data checks the data of expect.action"}},
		{"no turns", "name: x\n", []string{"line 1: a flow needs turns"}},
		{"an empty list of turns", "name: x\nturns: []\n", []string{"line 1: a flow needs turns"}},
		{"turns without a value", "name: x\nturns:\n", []string{"line 1: a flow needs turns"}},
		{"turns not a list", "turns: 3\n", []string{"line 1: cannot unmarshal int `3` into a list of turns"}},
		{"empty file", "", []string{"line 1: the file holds no flow"}},
		{"a list at the top", "- say: hi\n", []string{"line 1: a flow is a mapping"}},
		{"two documents", "turns:\n  - type: a\n---\nturns:\n  - type: b\n", []string{"line 3: a second document: one flow per file"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f, err := Parse([]byte(c.yaml))
			var fe *FileError
			if !errors.As(err, &fe) || f != nil {
				t.Fatalf("got %v, %v; want a *FileError", f, err)
			}
			msg := err.Error()
			lines := strings.Split(msg, "\n")
			if len(lines) != len(c.want) {
				t.Fatalf("%d problems, want %d:\n%s", len(lines), len(c.want), msg)
			}
			for i, w := range c.want {
				if !strings.HasPrefix(lines[i], w) && !strings.Contains(lines[i], w) {
					t.Errorf("problem %d: %q, want %q", i+1, lines[i], w)
				}
				if !strings.HasPrefix(lines[i], "line ") {
					t.Errorf("problem %d names no line: %q", i+1, lines[i])
				}
			}
		})
	}
}

func TestLoadNamesTheFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "broken.yaml")
	os.WriteFile(p, []byte("name: x\nturns:\n  - say: hi\n    expect: {action: NOPE}\n  - typ: x\n"), 0o600)
	_, err := Load(p)
	if err == nil {
		t.Fatal("a broken file loaded")
	}
	want := p + ":4: unknown action code \"NOPE\""
	if lines := strings.Split(err.Error(), "\n"); len(lines) != 3 || !strings.HasPrefix(lines[0], want) ||
		!strings.HasPrefix(lines[1], p+":5: unknown key \"typ\"") || !strings.HasPrefix(lines[2], p+":5: a turn needs") {
		t.Fatalf("error:\n%v", err)
	}

	good := filepath.Join(dir, "good-one.yaml")
	os.WriteFile(good, []byte("turns:\n  - type: hi\n"), 0o600)
	f, err := Load(good)
	if err != nil || f.Name != "good-one" || f.Path != good {
		t.Fatalf("%+v %v: an unnamed flow takes its file's name", f, err)
	}
	if _, err := Load(filepath.Join(dir, "missing.yaml")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("missing file: %v", err)
	}
	big := filepath.Join(dir, "big.yaml")
	os.WriteFile(big, []byte("name: "+strings.Repeat("x", maxFlowFile)+"\n"), 0o600)
	if _, err := Load(big); err == nil || !strings.Contains(err.Error(), "not a flow file") {
		t.Fatalf("a huge file: %v", err)
	}
}

// TestExamplesLoad keeps examples/flows valid; running them is cmd/hark's test.
func TestExamplesLoad(t *testing.T) {
	paths, _ := filepath.Glob("../examples/flows/*.yaml")
	if len(paths) < 7 {
		t.Fatalf("%d example flows, want alarms, timers, music, messages, navigation, weather and Spanish", len(paths))
	}
	for _, p := range paths {
		if _, err := Load(p); err != nil {
			t.Error(err)
		}
	}
}
