package flow

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"reflect"
	"strings"
	"testing"

	"github.com/harkhq/hark/client"
)

// sampleResults are two runs as Run makes them: one passing, one with a failed
// expectation, a turn that could not run, and text a hostile platform might send.
func sampleResults() []*Result {
	return []*Result{
		{Name: "alarm", File: "examples/flows/alarms.yaml", Lang: "en", Voice: "kal16", Rate: 16000, Pace: RealTime, Pass: true,
			DurationMs: 2400, Turns: []TurnResult{
				{N: 1, Line: 7, Kind: Say, Input: "please set an alarm", Pass: true, Heard: "please set an alarm",
					Answer: "For what time?", Actions: []client.Action{{Action: "OPEN_ASR", Data: json.RawMessage(`""`)}}, Ref: 42,
					Timing: Waterfall{AudioMs: 1450, UploadEndMs: 1460, RecognisedMs: 1700, FirstByteMs: 1760, AnswerEndMs: 1770, AnswerBytes: 7314}},
				{N: 2, Line: 12, Kind: Type, Input: "what time is it", Pass: true, Answer: "It's 12:27 PM.",
					Actions: []client.Action{}, Ref: 43, Timing: Waterfall{AnsweredMs: 3.2}},
			}},
		{Name: "weird <&> \x1b[2J", File: "w.yaml", Lang: "en", Voice: "slt", Rate: 8000, Pace: Fast, DurationMs: 900,
			Turns: []TurnResult{
				{N: 1, Line: 3, Kind: Say, Input: "play some jazz", Failures: []string{"action SET_ALARM expected, got PLAY_MUSIC", `heard "x\x00y]]>", expected /jazz/ (any case)`},
					Heard: "x\x00y]]>", Answer: "Playing \x1b[31mred\x1b[0m", Actions: []client.Action{{Action: "PLAY_MUSIC", Data: json.RawMessage(`{"title":"Blue"}`)}},
					Timing: Waterfall{AudioMs: 1370, UploadEndMs: 2, RecognisedMs: 400, SpeechWaitMs: 350, FirstByteMs: 420, AnswerEndMs: 430}},
				{N: 2, Line: 5, Kind: WAV, Input: "missing.wav", Error: "open missing.wav: no such file or directory", Actions: []client.Action{}},
			}},
	}
}

func TestJUnitIsValidAndCounts(t *testing.T) {
	var b bytes.Buffer
	if err := WriteJUnit(&b, sampleResults()); err != nil {
		t.Fatal(err)
	}
	var got junitSuites
	if err := xml.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatalf("not XML: %v\n%s", err, b.String())
	}
	if got.Tests != 4 || got.Failures != 1 || got.Errors != 1 || len(got.Suites) != 2 || got.Time != "3.300" {
		t.Fatalf("totals %+v", got)
	}
	s := got.Suites[1]
	if s.Name != "weird <&> \uFFFD[2J [slt] [8000 Hz]" || s.Tests != 2 || s.Failures != 1 || s.Errors != 1 || s.File != "w.yaml" {
		t.Fatalf("suite %+v", s)
	}
	fail := s.Cases[0].Failure
	if fail == nil || fail.Message != "action SET_ALARM expected, got PLAY_MUSIC" || !strings.Contains(fail.Text, "expected /jazz/") || s.Cases[0].Line != 3 {
		t.Fatalf("failure %+v", s.Cases[0])
	}
	if e := s.Cases[1].Error; e == nil || !strings.Contains(e.Message, "no such file") || s.Cases[1].Failure != nil {
		t.Fatalf("error %+v", s.Cases[1])
	}
	if c := got.Suites[0].Cases[0]; c.Failure != nil || c.Error != nil || c.Name != "turn 1: say please set an alarm" ||
		c.Time != "1.770" || !strings.Contains(c.SystemOut, "action: OPEN_ASR") || !strings.Contains(c.SystemOut, "recognised +240 ms") {
		t.Fatalf("passing case %+v", c)
	}
	if bytes.ContainsAny(b.Bytes(), "\x00\x1b") {
		t.Fatal("control characters reached the XML")
	}
}

func TestJSONRoundTrips(t *testing.T) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	in := sampleResults()
	for _, r := range in {
		if err := enc.Encode(r); err != nil {
			t.Fatal(err)
		}
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d lines for 2 flows", len(lines))
	}
	for i, l := range lines {
		var back Result
		if err := json.Unmarshal([]byte(l), &back); err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		if !reflect.DeepEqual(&back, in[i]) {
			t.Fatalf("line %d round trip:\n%+v\n%+v", i+1, back, *in[i])
		}
	}
	var raw map[string]any
	json.Unmarshal([]byte(lines[0]), &raw)
	turn := raw["turns"].([]any)[0].(map[string]any)
	if raw["pass"] != true || turn["heard"] != "please set an alarm" || turn["timing"].(map[string]any)["recognisedMs"] != 1700.0 {
		t.Fatalf("field names: %s", lines[0])
	}
}

func TestTextReport(t *testing.T) {
	var b bytes.Buffer
	if err := WriteText(&b, sampleResults()); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"PASS alarm (examples/flows/alarms.yaml; voice kal16, 16000 Hz, real pace) 2.40 s\n",
		"  pass turn 1 (line 7) say \"please set an alarm\"\n",
		"       timing:  upload 1.46 s of 1.45 s audio → recognised +240 ms → first answer byte +300 ms → answer end +310 ms\n",
		"       action:  OPEN_ASR\n",
		"       timing:  answered in 3.2 ms\n",
		"FAIL weird <&>  [2J (w.yaml; voice slt, 8000 Hz, fast pace) 900 ms\n",
		"       reason:  action SET_ALARM expected, got PLAY_MUSIC\n",
		"       timing:  upload 2.0 ms of 1.37 s audio → recognised +398 ms (waited 350 ms for the speech engines to start) → first answer byte +418 ms",
		"       action:  PLAY_MUSIC {\"title\":\"Blue\"}\n",
		"  FAIL turn 2 (line 5) wav missing.wav\n       error:   open missing.wav: no such file or directory\n",
		"1 of 2 flow runs passed; 2 of 4 turns\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	if strings.ContainsAny(out, "\x00\x1b") {
		t.Fatal("control characters reached the terminal")
	}
}
