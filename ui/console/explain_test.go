package console

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/harkhq/hark/client"
	"github.com/harkhq/hark/ui/common"
)

// A spoken query's explain: the hypotheses arrive under the JSON names the
// server writes, and the view lists each, the chosen one marked with its
// reason; a typed query's explain shows no "heard as" block.
func TestExplainShowsSpokenHypotheses(t *testing.T) {
	const fixture = `{"lang":"en","langFrom":"request","intent":"weather.get","cost":0,
	  "slots":[],"corrections":[],
	  "hypotheses":[
	    {"text":"what's the weather","source":"grammar","score":-1.25,"chosen":true,"reason":"grammar match close to the full decoding"},
	    {"text":"what the whether","source":"full","score":-3.5,"chosen":false,"reason":""}]}`
	var x client.Explanation
	if err := json.Unmarshal([]byte(fixture), &x); err != nil {
		t.Fatal(err)
	}
	if len(x.Hypotheses) != 2 || !x.Hypotheses[0].Chosen || x.Hypotheses[1].Source != "full" || x.Hypotheses[0].Score != -1.25 {
		t.Fatalf("hypotheses decoded as %+v", x.Hypotheses)
	}
	view := strings.Join(explainLines(&x, common.NewTheme(true), 120), "\n")
	for _, want := range []string{
		"heard as:",
		`✓ "what's the weather" (grammar) score -1.25 — grammar match close to the full decoding`,
		`· "what the whether" (full) score -3.50`,
	} {
		if !strings.Contains(view, want) {
			t.Errorf("explain view lacks %q:\n%s", want, view)
		}
	}
	x.Hypotheses = nil
	if v := strings.Join(explainLines(&x, common.NewTheme(true), 120), "\n"); strings.Contains(v, "heard as") {
		t.Errorf("a typed query's explain shows hypotheses:\n%s", v)
	}
	// Round trip: the SDK writes the same names it reads, and omits the
	// field for typed queries.
	b, _ := json.Marshal(client.Explanation{Hypotheses: []client.Hypothesis{{Text: "a", Source: "full", Score: 1, Chosen: true, Reason: "r"}}})
	if !strings.Contains(string(b), `"hypotheses":[{"text":"a","source":"full","score":1,"chosen":true,"reason":"r"}]`) {
		t.Errorf("marshalled as %s", b)
	}
	if b, _ := json.Marshal(client.Explanation{}); strings.Contains(string(b), "hypotheses") {
		t.Errorf("empty hypotheses marshalled: %s", b)
	}
}
