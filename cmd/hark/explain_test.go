package main

import (
	"encoding/json"
	"strings"
	"testing"
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
