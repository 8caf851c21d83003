package flow

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/harkhq/hark/client"
)

func TestAnswerPatternKeepsTheStablePart(t *testing.T) {
	for _, c := range []struct{ answer, want string }{
		{"In London it's 12°C and cloudy, with a high of 14°C.", `^In London it's -?\d+°C`},
		{"In London it's -3°C and snowing.", `^In London it's -?\d+°C`},
		{"Timer set for 5 minutes.", `^Timer set for -?\d+`},
		{"It's 17:34.", ""}, // only the clock: nothing stable
		{"Alarm set for tomorrow at 7:00 AM.", `^Alarm set for`}, // the day and time go
		{"OK.", ""},
		{"Sorry (I think) [a] $b?", `^Sorry \(I think\) \[a\] \$b\?`},
	} {
		got := AnswerPattern(c.answer)
		if got != c.want {
			t.Errorf("AnswerPattern(%q) = %q, want %q", c.answer, got, c.want)
			continue
		}
		if got != "" && !regexp.MustCompile(got).MatchString(c.answer) {
			t.Errorf("%q does not match its own answer %q", got, c.answer)
		}
	}
	long := strings.Repeat("word ", 40)
	if p := AnswerPattern(long); len(p) > maxAnswerPrefix+1 || strings.HasSuffix(p, " ") {
		t.Errorf("a long answer's pattern: %q", p)
	}
}

func answer(query, text string, actions ...string) *client.DialogueResponse {
	r := &client.DialogueResponse{Lang: "en"}
	r.Responses.Query, r.Responses.Text = query, text
	for _, a := range actions {
		r.NextActions = append(r.NextActions, client.Action{Action: a})
	}
	return r
}

// Each turn rewrites a file the strict parser reads, spoken turns beside it as WAV; an
// existing file is refused without force.
func TestRecorderWritesAValidFlowAfterEachTurn(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.yaml")
	r, err := NewRecorder(path, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err == nil {
		t.Fatal("written before any turn")
	}
	if err := r.RecordTurn("set a timer for 5 minutes", nil, 0, answer("set a timer for 5 minutes", "Timer set for 5 minutes.", "SET_TIMER")); err != nil {
		t.Fatal(err)
	}
	f, err := Load(path)
	if err != nil || len(f.Turns) != 1 || f.Turns[0].Kind != Type || f.Turns[0].Expect.Action != "SET_TIMER" {
		t.Fatalf("after one turn: %+v %v", f, err)
	}
	if !f.Turns[0].Expect.Heard.MatchString("SET A TIMER FOR 5 MINUTES") || f.Turns[0].Expect.Heard.MatchString("set a timer for 5 minutes please") {
		t.Errorf("heard is not anchored and caseless: %s", f.Turns[0].Expect.Heard)
	}
	pcm := make([]byte, 3200)
	if err := r.RecordTurn("", pcm, 16000, answer("what's the weather (in) london?", "In London it's 3°C.")); err != nil {
		t.Fatal(err)
	}
	f, err = Load(path)
	if err != nil || len(f.Turns) != 2 || f.Turns[1].Kind != WAV || f.Turns[1].Text != "s-turn-1.wav" {
		t.Fatalf("after the spoken turn: %+v %v", f, err)
	}
	if !f.Turns[1].Expect.Heard.MatchString("What's the weather (in) London?") {
		t.Errorf("heard does not quote the query: %s", f.Turns[1].Expect.Heard)
	}
	if pcm2, rate, err := readWAV(path, "s-turn-1.wav"); err != nil || rate != 16000 || len(pcm2) != len(pcm) {
		t.Fatalf("the turn's WAV: %d bytes at %d, %v", len(pcm2), rate, err)
	}
	if r.RecordTurn("", nil, 0, nil) == nil {
		t.Error("an empty turn was recorded")
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".*.tmp")); len(left) != 0 {
		t.Errorf("temp files left: %v", left)
	}
	if _, err := NewRecorder(path, false); err == nil || !strings.Contains(err.Error(), "--force") {
		t.Errorf("an existing file: %v", err)
	}
	r2, err := NewRecorder(path, true)
	if err != nil {
		t.Fatal(err)
	}
	if err := r2.RecordTurn("", pcm, 16000, answer("hi", "")); err != nil {
		t.Fatalf("--force does not overwrite the turn's WAV: %v", err)
	}
	if _, err := NewRecorder(filepath.Join(dir, "no", "s.yaml"), false); err == nil {
		t.Error("a file in a missing directory was accepted")
	}
}
