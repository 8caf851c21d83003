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
	  "slots":[],"corrections":[],"speechWaitMs":18960,"speaker":{"warp":0.9,"adapted":"speaker"},
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
		"waited 19.0 s for the speech engines to start",
		"speaker: filters warped ×0.90, model adapted to this voice",
		"heard as:",
		`✓ "what's the weather" (grammar) score -1.25 — grammar match close to the full decoding`,
		`· "what the whether" (full) score -3.50`,
	} {
		if !strings.Contains(view, want) {
			t.Errorf("explain view lacks %q:\n%s", want, view)
		}
	}
	for reading, want := range map[client.SpeakerReading]string{
		{Warp: 1}:                        "speaker: the model's own filters, model not adapted to this voice",
		{Warp: 1, Adapted: "narrowband"}: "speaker: the model's own filters, model adapted to the 8 kHz band",
	} {
		x.Speaker = &reading
		if v := strings.Join(explainLines(&x, common.NewTheme(true), 120), "\n"); !strings.Contains(v, want) {
			t.Errorf("explain of %+v lacks %q:\n%s", reading, want, v)
		}
	}
	x.Hypotheses, x.SpeechWaitMs, x.Speaker = nil, 0, nil
	if v := strings.Join(explainLines(&x, common.NewTheme(true), 120), "\n"); strings.Contains(v, "heard as") || strings.Contains(v, "waited") || strings.Contains(v, "speaker") {
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

// A spoken turn's readings turned down by the acoustic gate (the server's
// gate field) fold into one line; the chosen reading and those turned down
// for another reason keep theirs, in order; the lines fit 80 columns. The
// fixture is the server's explain of kal16 "text anna" (the golden's).
func TestExplainFoldsGatedReadings(t *testing.T) {
	const fixture = `{"lang":"en","langFrom":"request","intent":"SEND_SMS","cost":0.2,"slots":[],"corrections":[],
	  "hypotheses":[
	    {"text":"text anna","source":"domain","score":8.97,"chosen":true,"reason":"the recogniser's choice, SEND_SMS without its message, cost 0.20 + gap 0.00"},
	    {"text":"doug stanhope","source":"full","score":0,"chosen":false,"reason":"another request, which does not complete the recogniser's choice"},
	    {"text":"trucks planet","source":"full","score":-2.25,"chosen":false,"reason":"2.25 per frame below the best path (more than 1.0)","gate":1},
	    {"text":"ducks planet","source":"full","score":-2.54,"chosen":false,"reason":"2.54 per frame below the best path (more than 1.0)","gate":1},
	    {"text":"text grandma","source":"domain","score":-3.81,"chosen":false,"reason":"3.81 per frame below the domain decoder's best path (more than 1.0)","gate":1},
	    {"text":"text mum","source":"domain","score":-0.2,"chosen":false,"reason":"not understood"},
	    {"text":"text on the","source":"domain","score":-11.79,"chosen":false,"reason":"11.79 per frame below the domain decoder's best path (more than 1.0)","gate":1}]}`
	var x client.Explanation
	if err := json.Unmarshal([]byte(fixture), &x); err != nil {
		t.Fatal(err)
	}
	lines := explainLines(&x, common.NewTheme(true), 80)
	var heard []string
	for i, l := range lines {
		if w := common.CellWidth(l); w > 80 {
			t.Errorf("line %d is %d columns wide: %q", i, w, l)
		}
		if strings.HasPrefix(strings.TrimSpace(l), "✓") || strings.HasPrefix(strings.TrimSpace(l), "·") {
			heard = append(heard, strings.TrimSpace(l))
		}
	}
	want := []string{
		`✓ "text anna" (domain) score 8.97`,
		`· "doug stanhope" (full) score 0.00 — another request`,
		`· "text mum" (domain) score -0.20 — not understood`,
		`· 4 more readings, over 1.0 per frame below their decoder's best path`,
	}
	if len(heard) != len(want) {
		t.Fatalf("heard as:\n%s\nwant %d lines", strings.Join(heard, "\n"), len(want))
	}
	for i := range want {
		if !strings.HasPrefix(heard[i], want[i]) {
			t.Errorf("line %d: %q, want it to start %q", i, heard[i], want[i])
		}
	}

	// Gates of different values (the full and the in-domain decoders'
	// are both 1.0 today) are each named.
	g := 1.5
	x.Hypotheses[4].Gate, x.Hypotheses[6].Gate = &g, &g
	if got := heardLines(x.Hypotheses); !strings.Contains(got[len(got)-1], "· 4 more readings, over 1.0/1.5 per frame below") {
		t.Errorf("with gates 1.0 and 1.5: %q", got[len(got)-1])
	}

	// One gated reading keeps its own line; a server without the field
	// (an older harkd) gets every reading listed.
	x.Hypotheses = x.Hypotheses[:3]
	if got := heardLines(x.Hypotheses); len(got) != 3 || !strings.Contains(got[2], `"trucks planet"`) {
		t.Errorf("with one gated reading:\n%s", strings.Join(got, "\n"))
	}
	var old client.Explanation
	json.Unmarshal([]byte(strings.ReplaceAll(fixture, `,"gate":1`, "")), &old)
	if got := heardLines(old.Hypotheses); len(got) != 7 {
		t.Errorf("without gates %d lines, want all 7:\n%s", len(got), strings.Join(got, "\n"))
	}
}
