package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/harkhq/hark/client"
)

func TestSayExplain(t *testing.T) {
	isolate(t)
	r := remote(t)
	t.Setenv("HARK_PASSWORD", "correct horse")
	if code, out, errOut := hark(t, "", append(r, "register", "--email", "exp@example.com", "--name", "Exp")...); code != 0 {
		t.Fatalf("register: %d %s %s", code, out, errOut)
	}
	code, out, errOut := hark(t, "", append(r, "say", "--explain", "set a tiemr for 5 minutes")...)
	if code != 0 {
		t.Fatalf("say --explain: %d %s %s", code, out, errOut)
	}
	if !strings.Contains(errOut, "action SET_TIMER") {
		t.Errorf("say --explain: no action line on stderr:\n%s", errOut)
	}
	for _, want := range []string{"explain: language en", "intent SET_TIMER", "pattern ",
		`slot duration: "5 minutes" = 5m0s`, `corrected "tiemr" to "timer"`} {
		if !strings.Contains(out, want) {
			t.Errorf("say --explain output lacks %q:\n%s", want, out)
		}
	}
	// Without the flag, no explanation is asked for or shown.
	_, out, _ = hark(t, "", append(r, "say", "--json", "set a timer for 5 minutes")...)
	if strings.Contains(out, "explain") {
		t.Errorf("say --json without --explain carries an explanation:\n%s", out)
	}
	_, out, _ = hark(t, "", append(r, "say", "--json", "--explain", "hola")...)
	var body struct {
		Explain struct{ Lang, Intent string }
	}
	if err := json.Unmarshal([]byte(out), &body); err != nil || body.Explain.Intent != "greeting" {
		t.Errorf("say --json --explain: %v\n%s", err, out)
	}
}

// A spoken query's explanation lists each reading of the audio with its
// source, score and reason, the chosen one marked; a typed one lists none.
func TestPrintExplanationOfASpokenQuery(t *testing.T) {
	x := &client.Explanation{Lang: "en", LangFrom: "request", Intent: "SET_ALARM", Hypotheses: []client.Hypothesis{
		{Text: "set an alarm for seven m.", Source: "full", Score: 0, Reason: "SET_ALARM, 0.80: 0.80 is not below 0.15"},
		{Text: "set an alarm for seven am", Source: "full", Score: -0.35, Chosen: true, Reason: "SET_ALARM, 0.15, better than the recogniser's choice (SET_ALARM, 0.80)"},
	}}
	var b strings.Builder
	printExplanation(&b, x)
	want := `explain: language en (request), intent SET_ALARM
  heard as:
    "set an alarm for seven m." (full, score +0.00): SET_ALARM, 0.80: 0.80 is not below 0.15
  * "set an alarm for seven am" (full, score -0.35): SET_ALARM, 0.15, better than the recogniser's choice (SET_ALARM, 0.80)
`
	if b.String() != want {
		t.Errorf("printed\n%s\nwant\n%s", b.String(), want)
	}
	b.Reset()
	x.Hypotheses = nil
	if printExplanation(&b, x); strings.Contains(b.String(), "heard as") {
		t.Errorf("a typed query lists readings:\n%s", b.String())
	}
}

// A query of several requests names them all, above the first's reading;
// one of a single request names none.
func TestPrintExplanationOfSeveralRequests(t *testing.T) {
	x := &client.Explanation{Lang: "en", LangFrom: "detected", Intent: "POWER",
		Requests: []string{"turn off the lights", "set an alarm for 6"}, Pattern: "(turn|switch) {onoff} [the] {device}", Cost: -0.7}
	var b strings.Builder
	printExplanation(&b, x)
	want := `explain: language en (detected), intent POWER
  2 requests, all answered: "turn off the lights", "set an alarm for 6" (the first is read below)
  pattern "(turn|switch) {onoff} [the] {device}", cost -0.70
`
	if b.String() != want {
		t.Errorf("printed\n%s\nwant\n%s", b.String(), want)
	}
	x.Requests = x.Requests[:1]
	b.Reset()
	if printExplanation(&b, x); strings.Contains(b.String(), "requests") {
		t.Errorf("one request named as several:\n%s", b.String())
	}
}
