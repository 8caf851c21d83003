//go:build !race

// The spoken evaluation decodes hundreds of utterances; under the race
// detector the speech workers (this test binary, instrumented) take
// several times as long, so it is built only without -race: make test
// runs TestSpokenSample in a pass of its own, make eval TestSpokenFull.

package spokeneval_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"

	"github.com/harkhq/hark/client"
	"github.com/harkhq/hark/server"
	"github.com/harkhq/hark/server/servertest"
	"github.com/harkhq/hark/server/speech"
	"github.com/harkhq/hark/server/speechworker"
	"github.com/harkhq/hark/server/spokeneval"
)

// The server these tests start runs its speech workers from this binary.
func TestMain(m *testing.M) {
	speechworker.RunIfWorker()
	os.Exit(m.Run())
}

// target is what one way of speaking must reach on the held-back sample:
// at most MaxWER in-domain word error rate, at least MinAction of the
// turns taking the next action (code and data) they take when typed, and
// for open questions a chosen text at most MaxQuestionLoss (absolute WER)
// worse than the full decoder's own.
type target struct {
	MaxWER, MinAction, MaxQuestionLoss float64
}

// targets are the thresholds make test enforces, per way of speaking.
// The targets (#14 Part 1): kal16 and slt WER ≤ 5 % and action as
// typed ≥ 95 %; every voice action ≥ 90 %; open questions no worse than
// the full model alone. Until the recogniser reaches them the lead may set
// a row to the measured level (say so in a comment with the figure and
// the date), so that make test guards against regressions meanwhile.
//
// Not reached yet (2026-11-24): the rows below guard the levels measured on
// this sample after the domain language model and n-best choice (kal16
// WER 15.1 % / action 76.2 %, slt 17.1 / 73.8, awb 16.3 / 86.4, rms 9.2 /
// 81.8, kal16 at 8 kHz 34.7 / 68.2; open questions no worse than the full
// model in kal16 and slt), each about one turn below; before them, on
// main at 7a217cb, the same sample measured 19.5 / 71.4, 20.5 / 71.4,
// 15.3 / 81.8, 11.2 / 77.3 and 44.9 / 63.6. goalTargets keeps the issue's.
//
// 2026-11-25, the mixed model with every n-gram of the general model
// (server/speech, "The mixed model"), same run as main at 35cc30e: kal16
// 16.1 / 76.2 -> 11.7 / 78.6, slt 17.1 / 73.8 -> 19.0 / 73.8 (four words
// more of 205, the same actions; on dev3 slt went 16.7 / 76.8 -> 15.6 /
// 78.5). Both rows follow the same rule from the new levels: kal16's is
// raised, slt's WER bound moves from 0.19 to 0.21 (its measured 19.0 %
// passed 0.19 by a tenth of a word).
//
// 2026-11-25, later: make test speaks only kal16, slt and kal16@8k, so the
// mixed model's effect on awb went unseen until the whole sample was run:
// awb 16.3 / 86.4 -> 17.3 / 77.3 (two turns of 22 lost), rms 9.2 / 81.8
// -> 7.1 / 86.4. awb's row follows the rule (one turn below, 0.72): a
// regression on that voice, recorded as such.
//
// 2026-11-25, the mixed decoder's search settings (server/speech,
// "Search settings"), same session as HARK_SPOKEN_ARGS with
// pocketsphinx's own: kal16 11.7 / 78.6 -> 9.3 / 81.0 (open questions
// chosen 8.5 -> 5.1 %), slt 19.0 / 73.8 -> 19.0 / 76.2, kal16 at 8 kHz
// unchanged (its decoders are not). kal16's and slt's rows are raised to
// one turn below (three words more for WER). awb 17.3 / 77.3 unchanged;
// rms 7.1 / 86.4 -> 8.2 / 81.8, one turn lost (on dev3 rms keeps its
// actions, 91.0 %, and loses 5 words of 1027), within its row.
//
// 2026-11-28, speaker normalisation (server/speech, warp.go), each voice
// its own two speakers (speakers), in one session against
// HARK_SPOKEN_WARP=off (WER / action): kal16 9.3 / 81.0 -> 8.3 / 81.0
// (open questions chosen 5.1 -> 6.8 %, the full model's 8.5 %), slt
// 19.0 / 76.2 -> 12.2 / 78.6, awb 17.3 / 77.3 unchanged, rms 7.1 / 86.4
// -> 5.1 / 90.9, kal16 at 8 kHz unchanged (not warped). Rows follow the
// new levels, one turn below (three words more for WER). (Measured first
// with the voices sharing two accounts, each voice's first turns under
// the previous voice's warp: slt 15.1 / 76.2, awb 16.3 / 86.4, rms 5.1 /
// 86.4; awb's gain there came from slt's warp, not its own.)
//
// 2026-11-28, later: open questions from the blind set (testdata/questions)
// instead of server/speech's ten. make test's 12 held-back ones in kal16:
// chosen 12.2 %, the full model alone 13.5 %. All 71 spoken held-back ones
// (make eval), warp off -> on, chosen (full model alone): kal16 19.5 ->
// 19.3 % (17.2), slt 18.0 -> 16.1 (21.6), awb 15.3 -> 17.0 (15.7), rms
// 11.1 -> 10.1 (11.5), kal16 at 8 kHz 41.1 (37.7; not warped): the
// issue's bound fails in kal16 and 8 kHz whatever the warp, and in awb
// under it. The 48 dev ones, off -> on: kal16 18.8 -> 16.0 (21.3), slt
// 17.2 -> 9.1 (17.9), awb 17.6 -> 20.1 (17.6), rms 6.3 -> 7.5 (6.9).
//
// 2026-11-29, speaker adaptation at 16 kHz (a speaker's own MLLR
// transform from their fifth utterance) and the narrowband transform at 8
// kHz (server/speech's adaptation.go): this sample before -> after, kal16
// 7.8 / 81.0 -> 7.8 / 78.6 (open questions chosen 12.2 -> 9.5 %, the full
// model's 13.5), slt 11.7 / 78.6 -> 11.7 / 81.0, awb 16.3 / 77.3 -> 14.3 /
// 81.8, rms 4.1 / 90.9 unchanged, kal16 at 8 kHz 36.7 / 63.6 -> 22.4 /
// 68.2. The whole held-back part (299 turns), off -> on: kal16 10.4 / 88.0
// -> 8.7 / 88.3, slt 9.2 / 86.3 -> 8.4 / 87.0, awb 10.8 / 84.3 -> 11.3 /
// 85.6, rms 7.6 / 92.6 -> 6.9 / 92.3, kal16 at 8 kHz 29.2 / 64.9 -> 20.3 /
// 77.9. Rows follow the new levels, one turn below (three words more for
// WER): kal16's action row falls one turn with its sample.
var targets = map[string]target{
	"kal16":    {MaxWER: 0.10, MinAction: 0.76, MaxQuestionLoss: 0},
	"slt":      {MaxWER: 0.14, MinAction: 0.78, MaxQuestionLoss: 0},
	"awb":      {MaxWER: 0.18, MinAction: 0.77, MaxQuestionLoss: 0},
	"rms":      {MaxWER: 0.09, MinAction: 0.86, MaxQuestionLoss: 0},
	"kal16@8k": {MaxWER: 0.26, MinAction: 0.63, MaxQuestionLoss: 0},
}

// goalTargets are the targets, which make eval reports against.
var goalTargets = map[string]target{
	"kal16":    {MaxWER: 0.05, MinAction: 0.95, MaxQuestionLoss: 0},
	"slt":      {MaxWER: 0.05, MinAction: 0.95, MaxQuestionLoss: 0},
	"awb":      {MaxWER: 1, MinAction: 0.90, MaxQuestionLoss: 0},
	"rms":      {MaxWER: 1, MinAction: 0.90, MaxQuestionLoss: 0},
	"kal16@8k": {MaxWER: 1, MinAction: 0.90, MaxQuestionLoss: 0},
}

// sampleSizes are the held-back lines make test speaks per voice: enough
// to see a few points of accuracy move, small enough for make test. 60
// for kal16 and slt and 30 for the others took 4 min 45 s at load 3-7 on
// 2 cores (make test would pass 10 minutes); these took 84 s at load 4-6
// with the WAVs cached (README, "Spoken evaluation").
var sampleSizes = map[string]int{"kal16": 40, "slt": 40, "awb": 20, "rms": 20, "kal16@8k": 20}

// sampleQuestions are the voices whose held-back open questions make
// test speaks, and how many (kal16 only, to keep make test under 10
// minutes on 2 cores: each question is decoded twice, through the server
// and once more for the full decoder's text); make eval speaks all of
// them in every voice.
var sampleQuestions = map[string]int{"kal16": 12}

var allVoices = []spokeneval.Voice{{Name: "kal16", Rate: 16000}, {Name: "slt", Rate: 16000},
	{Name: "awb", Rate: 16000}, {Name: "rms", Rate: 16000}, {Name: "kal16", Rate: 8000}}

// voices are the ways of speaking a run uses: all of them, or those
// HARK_SPOKEN_VOICES names ("kal16,slt,kal16@8k"), to re-measure one
// voice quickly.
func voices(t *testing.T) []spokeneval.Voice {
	only := os.Getenv("HARK_SPOKEN_VOICES")
	if only == "" {
		return allVoices
	}
	var out []spokeneval.Voice
	for _, name := range strings.Split(only, ",") {
		found := false
		for _, v := range allVoices {
			if v.String() == strings.TrimSpace(name) {
				out, found = append(out, v), true
			}
		}
		if !found {
			t.Fatalf("HARK_SPOKEN_VOICES: no voice %q (kal16, slt, awb, rms, kal16@8k)", name)
		}
	}
	return out
}

const sampleSeed = 14

var (
	devSets  = []string{"dev", "dev2", "dev3", "dev4", "dev5", "dev6", "dev7"}
	heldSets = []string{"holdout", "holdout3"} // totals only, never their lines
)

// TestSpokenSample is make test's part: a fixed, seeded sample of the
// held-back lines per voice, totals only, checked against targets.
func TestSpokenSample(t *testing.T) {
	if testing.Short() {
		t.Skip("speaks a few hundred utterances; skipped in -short")
	}
	ev := newEvaluation(t)
	held := ev.selectSets(t, heldSets)
	questions := ev.questions(t, heldQuestions)
	for _, v := range voices(t) {
		start := time.Now()
		s := ev.run(t, v, spokeneval.Sample(held, sampleSizes[v.String()], sampleSeed), false)
		var q questionScore
		if n := sampleQuestions[v.String()]; n > 0 {
			q = ev.runQuestions(t, v, spokeneval.Sample(questions, n, sampleSeed), false)
		}
		t.Logf("%s, held-back sample: %s; %s (%.0f s)", v, s, q, time.Since(start).Seconds())
		check(t, targets, v, s, q)
	}
}

// TestSpokenFull is make eval's part: every spoken line of the dev sets
// (their failures with -v) and of the held-back sets (totals only), and
// the open questions, dev and held back, every voice. HARK_SPOKEN_SETS
// ("dev3,holdout,questions,questions-holdout") and HARK_SPOKEN_VOICES
// narrow a run.
func TestSpokenFull(t *testing.T) {
	if os.Getenv("HARK_SPOKEN_EVAL") != "full" {
		t.Skip("the full spoken evaluation takes hours on 2 cores; HARK_SPOKEN_EVAL=full (make eval) runs it")
	}
	ev := newEvaluation(t)
	dev := ev.selectSets(t, narrow(t, devSets))
	held := ev.selectSets(t, narrow(t, heldSets))
	var devQs, heldQs []spokeneval.Case
	for _, set := range narrow(t, []string{devQuestions}) {
		devQs = ev.questions(t, set)
	}
	for _, set := range narrow(t, []string{heldQuestions}) {
		heldQs = ev.questions(t, set)
	}
	var rows []string
	for _, v := range voices(t) {
		start := time.Now()
		row := fmt.Sprintf("%-9s", v)
		if len(dev) > 0 {
			row += fmt.Sprintf(" dev: %s |", ev.run(t, v, dev, true))
		}
		h := ev.run(t, v, held, false)
		if len(held) > 0 {
			row += fmt.Sprintf(" held-back: %s |", h)
		}
		if len(devQs) > 0 {
			row += fmt.Sprintf(" dev %s |", ev.runQuestions(t, v, devQs, true))
		}
		q := ev.runQuestions(t, v, heldQs, false)
		if len(heldQs) > 0 {
			row += fmt.Sprintf(" held-back %s |", q)
		}
		row += fmt.Sprintf(" (%.0f s)", time.Since(start).Seconds())
		t.Log(row)
		rows = append(rows, row)
		check(t, goalTargets, v, h, q)
	}
	t.Log("spoken evaluation\n" + strings.Join(rows, "\n"))
}

// narrow keeps the sets HARK_SPOKEN_SETS names, all when it is empty.
func narrow(t *testing.T, sets []string) []string {
	only := os.Getenv("HARK_SPOKEN_SETS")
	if only == "" {
		return sets
	}
	var out []string
	for _, s := range sets {
		for _, name := range strings.Split(only, ",") {
			if strings.TrimSpace(name) == s {
				out = append(out, s)
			}
		}
	}
	return out
}

func check(t *testing.T, targets map[string]target, v spokeneval.Voice, s score, q questionScore) {
	t.Helper()
	want, ok := targets[v.String()]
	if !ok {
		t.Fatalf("no target for %s", v)
	}
	if s.turns == 0 && q.n == 0 {
		t.Errorf("%s: nothing spoken to check", v)
	}
	if w := s.wer(); s.turns > 0 && w > want.MaxWER {
		t.Errorf("%s: held-back in-domain WER %.1f %%, want ≤ %.1f %%", v, 100*w, 100*want.MaxWER)
	}
	if a := s.actionRate(); s.turns > 0 && a < want.MinAction {
		t.Errorf("%s: next action as typed for %.1f %% of held-back turns, want ≥ %.1f %%", v, 100*a, 100*want.MinAction)
	}
	if loss := q.chosenWER() - q.fullWER(); q.n > 0 && loss > want.MaxQuestionLoss+1e-9 {
		t.Errorf("%s: open questions WER %.1f %% chosen against %.1f %% from the full model alone, want no worse (+%.1f points allowed)",
			v, 100*q.chosenWER(), 100*q.fullWER(), 100*want.MaxQuestionLoss)
	}
}

// evaluation is one server and what is needed to speak to it.
type evaluation struct {
	p     *servertest.Platform
	clock func() time.Time
	synth *spokeneval.Synthesizer
	sel   *spokeneval.Selector
	ctx   context.Context
}

// The blind sets' clock and place (testdata/blind/README.md, "Reading
// rules"; server/dialogue's nluClock): Wednesday 4 March 2026, 10:15 in
// New York, the user in New York unless a line says nolocation.
const (
	zone     = "America/New_York"
	lat, lon = 40.71, -74.0
)

func newEvaluation(t *testing.T) *evaluation {
	for _, tool := range []string{"flite"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed (Debian package %s): nothing to speak with", tool, tool)
		}
	}
	loc, err := time.LoadLocation(zone)
	if err != nil {
		t.Skipf("no zone data: %v", err)
	}
	now := time.Date(2026, 3, 4, 10, 15, 0, 0, loc)
	clock := func() time.Time { return now }
	cfg := server.Config{Now: clock}
	// HARK_SPOKEN_LAMBDA and HARK_SPOKEN_MARGIN set the mixed model's
	// domain weight and choice margin for a run (the package doc of
	// server/speech records what they measured); unset, the defaults.
	for _, e := range []struct {
		name string
		to   *float64
	}{{"HARK_SPOKEN_LAMBDA", &cfg.SpeechDomainWeight}, {"HARK_SPOKEN_MARGIN", &cfg.SpeechMixedMargin}} {
		if v := os.Getenv(e.name); v != "" {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Fatalf("%s: %v", e.name, err)
			}
			*e.to = f
			t.Logf("%s=%g", e.name, f)
		}
	}
	// HARK_SPOKEN_ARGS sets the in-domain decoders' search settings
	// ("-lw 6.5 -beam 1e-48" measures pocketsphinx's own).
	if v := os.Getenv("HARK_SPOKEN_ARGS"); v != "" {
		cfg.SpeechSearchArgs = strings.Fields(v)
		t.Logf("HARK_SPOKEN_ARGS=%s", v)
	}
	// HARK_SPOKEN_DOMAIN_ARGS sets the domain decoder's (8 kHz audio and
	// short commands; "-lw 6.5" measures pocketsphinx's own).
	if v := os.Getenv("HARK_SPOKEN_DOMAIN_ARGS"); v != "" {
		cfg.SpeechDomainSearchArgs = strings.Fields(v)
		t.Logf("HARK_SPOKEN_DOMAIN_ARGS=%s", v)
	}
	// HARK_SPOKEN_WARP=off decodes every speaker with the model's own
	// filters (no speaker normalisation).
	if os.Getenv("HARK_SPOKEN_WARP") == "off" {
		cfg.SpeechNoWarp = true
		t.Log("HARK_SPOKEN_WARP=off")
	}
	// HARK_SPOKEN_ADAPT=off decodes every speaker with the model's own
	// means (no speaker adaptation).
	if os.Getenv("HARK_SPOKEN_ADAPT") == "off" {
		cfg.SpeechNoAdapt = true
		t.Log("HARK_SPOKEN_ADAPT=off")
	}
	// HARK_SPOKEN_NARROWBAND=off decodes 8 kHz audio under the model's own
	// means (no band compensation).
	if os.Getenv("HARK_SPOKEN_NARROWBAND") == "off" {
		cfg.SpeechNoNarrowband = true
		t.Log("HARK_SPOKEN_NARROWBAND=off")
	}
	p := servertest.Start(t, cfg)
	ctx := context.Background()
	wait, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	if _, err := p.Server.Recognizer(wait); err != nil {
		t.Skipf("speech recognition is not available here: %v", err)
	}
	dict, err := spokeneval.LoadDictionary(spokeneval.DictPath)
	if err != nil {
		t.Skipf("no pronunciation dictionary (Debian package pocketsphinx-en-us): %v", err)
	}
	dir, err := spokeneval.CacheDir()
	if err != nil {
		t.Fatal(err)
	}
	return &evaluation{p: p, clock: clock, ctx: ctx, synth: &spokeneval.Synthesizer{Dir: dir},
		sel: &spokeneval.Selector{Dict: dict, Words: spokeneval.FliteWords}}
}

// selectSets loads the English blind sets and keeps the lines that can be
// spoken, logging how many each set keeps.
func (ev *evaluation) selectSets(t *testing.T, sets []string) []spokeneval.Case {
	var all []spokeneval.Case
	for _, set := range sets {
		cases, err := spokeneval.Load(filepath.Join("..", "dialogue", "testdata", "blind", set+"_en.jsonl"), set)
		if err != nil {
			t.Fatal(err)
		}
		kept, err := ev.sel.Select(ev.ctx, cases)
		if err != nil {
			t.Fatal(err)
		}
		singles, seqs, keptSingles, keptSeqs := 0, 0, 0, 0
		for _, c := range cases {
			if len(c.Turns) > 1 {
				seqs++
			} else {
				singles++
			}
		}
		for _, c := range kept {
			if len(c.Turns) > 1 {
				keptSeqs++
			} else {
				keptSingles++
			}
		}
		t.Logf("%s: speaks %d of %d single turns, %d of %d multi-turn sequences", set, keptSingles, singles, keptSeqs, seqs)
		all = append(all, kept...)
	}
	return all
}

// reply is what one turn did.
type reply struct {
	Code   string // first next action, OPEN_ASR when it asks for more, else the intent
	Action string // Code and its data in canonical form (see canonicalData)
	Heard  string // responses.query
	Ref    int64
	// Readings are the texts of every reading of the audio the server
	// weighed (explain.hypotheses), the chosen one among them.
	Readings []string
}

func (r reply) sameAction(o reply) bool { return r.Action == o.Action }

// ask sends one turn, typed (wav nil) or spoken.
func (ev *evaluation) ask(token string, c spokeneval.Case, q string, wav []byte, rate int, ref int64) (reply, error) {
	var req *http.Request
	if wav == nil {
		body, _ := json.Marshal(map[string]string{"q": q})
		req, _ = http.NewRequestWithContext(ev.ctx, "POST", ev.p.BaseURL+"/query/text", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
	} else {
		req, _ = http.NewRequestWithContext(ev.ctx, "POST", ev.p.BaseURL+"/query/audio/data", bytes.NewReader(wav))
		req.Header.Set("Content-Type", fmt.Sprintf("audio/x-wav;codec=pcm;bit=16;rate=%d", rate))
	}
	req.Header.Set("Authorization", "Basic "+token)
	req.Header.Set("Accept-Language", "en")
	req.Header.Set("Time-Zone", zone)
	req.Header.Set("Service-Explain", "1")
	info := map[string]any{"ref": ref}
	if !c.NoLocation {
		info["lat"], info["lon"] = lat, lon
	}
	b, _ := json.Marshal(info)
	req.Header.Set("Service-Request-Info", string(b))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return reply{}, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return reply{}, err
	}
	if resp.StatusCode != http.StatusOK {
		return reply{}, fmt.Errorf("status %d: %s", resp.StatusCode, raw)
	}
	var a struct {
		Context     struct{ Ref int64 }
		Responses   struct{ Query string }
		NextActions []struct {
			Action string `json:"action"`
			Data   any    `json:"data"`
		}
		Explain *struct {
			Intent     string
			Slots      []struct{ Name, Value string }
			Hypotheses []struct{ Text string }
		}
	}
	if err := json.Unmarshal(raw, &a); err != nil {
		return reply{}, err
	}
	r := reply{Heard: a.Responses.Query, Ref: a.Context.Ref}
	if a.Explain != nil {
		for _, h := range a.Explain.Hypotheses {
			r.Readings = append(r.Readings, h.Text)
		}
	}
	var data any
	switch {
	case len(a.NextActions) > 0 && a.NextActions[len(a.NextActions)-1].Action == "OPEN_ASR":
		r.Code = "OPEN_ASR"
	case len(a.NextActions) > 0:
		r.Code, data = a.NextActions[0].Action, a.NextActions[0].Data
	case a.Explain != nil:
		r.Code = a.Explain.Intent
	}
	// An answer without an action (weather, news, ...) and PLAY_MUSIC,
	// which draws a random track from the pool the request names, are
	// compared by what was understood: the explain view's slots.
	if (data == nil || r.Code == "PLAY_MUSIC") && a.Explain != nil && r.Code != "OPEN_ASR" {
		slots := map[string]any{}
		for _, sl := range a.Explain.Slots {
			slots[sl.Name] = sl.Value
		}
		data = slots
	}
	canon, err := json.Marshal(ev.canonicalData(data))
	if err != nil {
		return reply{}, err
	}
	r.Action = r.Code + " " + string(canon)
	return r, nil
}

// canonicalData puts the strings of an action's data in the form the word
// error rate compares texts in (spokeneval.Selector.Canonical): a typed
// "call my brother Daniel" and "at 3" and a spoken "call my brother
// daniel" and "at three" do the same thing; a different word does not.
// Strings without letters (times in milliseconds, numbers, channels) are
// compared as they are.
func (ev *evaluation) canonicalData(v any) any {
	switch x := v.(type) {
	case string:
		if strings.IndexFunc(x, unicode.IsLetter) < 0 {
			return x
		}
		return ev.sel.Canonical(ev.ctx, x)
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = ev.canonicalData(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = ev.canonicalData(e)
		}
		return out
	}
	return v
}

// score sums one way of speaking over a set of cases.
type score struct {
	turns, words, errs        int
	bestErrs                  int // with the reading of fewest errors among those the server weighed
	bestAction                int // turns some reading the server weighed would have acted as typed on
	codeSame, actionSame      int
	spokenExpect, typedExpect int
	sequences, sequencesSame  int
}

func (s score) wer() float64        { return float64(s.errs) / float64(max(1, s.words)) }
func (s score) actionRate() float64 { return float64(s.actionSame) / float64(max(1, s.turns)) }

func (s score) String() string {
	seq := ""
	if s.sequences > 0 {
		seq = fmt.Sprintf(", sequences as typed %d/%d", s.sequencesSame, s.sequences)
	}
	return fmt.Sprintf("%d turns, WER %.1f %% (%d/%d words; best reading %.1f %%), action as typed %.1f %% (best reading %.1f %%; code %.1f %%), expected code spoken %.1f %% typed %.1f %%%s",
		s.turns, 100*s.wer(), s.errs, s.words, 100*float64(s.bestErrs)/float64(max(1, s.words)), 100*s.actionRate(),
		100*float64(s.bestAction)/float64(max(1, s.turns)), 100*float64(s.codeSame)/float64(max(1, s.turns)),
		100*float64(s.spokenExpect)/float64(max(1, s.turns)), 100*float64(s.typedExpect)/float64(max(1, s.turns)), seq)
}

func (s *score) add(o score) {
	s.turns += o.turns
	s.words += o.words
	s.errs += o.errs
	s.bestErrs += o.bestErrs
	s.bestAction += o.bestAction
	s.codeSame += o.codeSame
	s.actionSame += o.actionSame
	s.spokenExpect += o.spokenExpect
	s.typedExpect += o.typedExpect
	s.sequences += o.sequences
	s.sequencesSame += o.sequencesSame
}

// speakers signs in v's two speakers, one per case run at once (see run),
// and returns their tokens; the same two every call for v. Each voice is
// people of its own: harkd learns a speaker's voice from their earlier
// utterances (cepstral mean, frequency warp), and one voice's never
// carries over to the next voice's first turns.
func (ev *evaluation) speakers(t *testing.T, v spokeneval.Voice) [2]string {
	t.Helper()
	var tokens [2]string
	for i := range tokens {
		c, err := client.New(client.Config{BaseURL: ev.p.BaseURL, PublicKey: ev.p.PublicKey, PrivateKey: ev.p.PrivateKey, Now: ev.clock})
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := c.Auth.Anonymous(ev.ctx, fmt.Sprintf("spoken-eval-%s-%d", v, i), "test", ""); err != nil {
			t.Fatal(err)
		}
		tokens[i] = c.Token()
	}
	return tokens
}

// run speaks every case in voice v, two at a time (the server decodes
// NumCPU utterances at once), each case as two conversations: typed and
// spoken. Each of the two is a speaker of its own, taking every other
// case in order, so that what harkd learns of a speaker's voice from
// their earlier turns (cepstral mean, frequency warp) is the same in
// every run. showFailures logs the turns whose spoken action differs (dev
// sets only: a held-back line is never printed, not even in an error).
func (ev *evaluation) run(t *testing.T, v spokeneval.Voice, cases []spokeneval.Case, showFailures bool) score {
	t.Helper()
	var (
		mu    sync.Mutex
		total score
		wg    sync.WaitGroup
		first error
	)
	tokens := ev.speakers(t, v)
	for w, token := range tokens {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(cases); i += len(tokens) {
				c := cases[i]
				s, fails, err := ev.runCase(token, v, c)
				mu.Lock()
				if err != nil && first == nil {
					first = err
					if showFailures {
						first = fmt.Errorf("%s: %w", c.Label(), err)
					}
				}
				total.add(s)
				if showFailures && testing.Verbose() {
					for _, f := range fails {
						t.Logf("%s %s: %s", v, c.Label(), f)
					}
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if first != nil {
		t.Fatalf("%s: %v", v, first)
	}
	return total
}

func (ev *evaluation) runCase(token string, v spokeneval.Voice, c spokeneval.Case) (s score, fails []string, err error) {
	var typedRef, spokenRef int64
	seqSame := true
	for _, turn := range c.Turns {
		wav, err := ev.synth.WAV(ev.ctx, v, turn.Q)
		if err != nil {
			return s, nil, err
		}
		typed, err := ev.ask(token, c, turn.Q, nil, 0, typedRef)
		if err != nil {
			return s, nil, fmt.Errorf("typed: %w", err)
		}
		spoken, err := ev.ask(token, c, turn.Q, wav, v.Rate, spokenRef)
		if err != nil {
			return s, nil, fmt.Errorf("spoken: %w", err)
		}
		first := typedRef == 0
		typedRef, spokenRef = typed.Ref, spoken.Ref
		s.turns++
		// WER counts in-domain turns only: every blind line expects an
		// action code or an answer intent, but a line of another set
		// expecting the fallback would measure the general model instead.
		if turn.Expect != "fallback" {
			e, n := spokeneval.Errors(turn.Said, spoken.Heard)
			s.errs += e
			s.words += n
			// how far choosing among the readings could go
			best := e
			for _, r := range spoken.Readings {
				if re, _ := spokeneval.Errors(turn.Said, r); re < best {
					best = re
				}
			}
			s.bestErrs += best
		}
		if spoken.Code == typed.Code {
			s.codeSame++
		}
		reading, reachable, err := ev.reachable(token, c, typed, spoken, first)
		if err != nil {
			return s, nil, err
		}
		if reachable {
			s.bestAction++
		}
		if spoken.sameAction(typed) {
			s.actionSame++
		} else {
			seqSame = false
			f := fmt.Sprintf("%q heard as %q: %s, typed %s", turn.Said, spokeneval.Normalize(spoken.Heard), spoken.Action, typed.Action)
			if reachable && first {
				f += fmt.Sprintf("; the reading %q acts as typed", reading)
			}
			fails = append(fails, f)
		}
		if spoken.Code == turn.Expect {
			s.spokenExpect++
		}
		if typed.Code == turn.Expect {
			s.typedExpect++
		}
	}
	if len(c.Turns) > 1 {
		s.sequences++
		if seqSame {
			s.sequencesSame++
		}
	}
	return s, fails, nil
}

// reachable tells whether some reading the server weighed for a spoken
// turn acts as the typed turn did: how far choosing among the readings
// could take the action rate. A first turn's readings are typed into new
// conversations; a later turn's cannot be (a conversation has no way back
// to the state before a turn), so it counts as reachable: the bound is an
// upper one. reading is the first that does.
func (ev *evaluation) reachable(token string, c spokeneval.Case, typed, spoken reply, first bool) (reading string, ok bool, err error) {
	if spoken.sameAction(typed) || !first {
		return spoken.Heard, true, nil
	}
	for _, text := range spoken.Readings {
		if text == spoken.Heard {
			continue
		}
		r, err := ev.ask(token, c, text, nil, 0, 0)
		if err != nil {
			return "", false, fmt.Errorf("a reading typed: %w", err)
		}
		if r.sameAction(typed) {
			return text, true, nil
		}
	}
	return "", false, nil
}

// questionScore compares, on open questions, the text the server chose
// with the full decoder's own.
type questionScore struct {
	n, words, chosenErrs, fullErrs int
}

func (q questionScore) chosenWER() float64 { return float64(q.chosenErrs) / float64(max(1, q.words)) }
func (q questionScore) fullWER() float64   { return float64(q.fullErrs) / float64(max(1, q.words)) }
func (q questionScore) String() string {
	if q.n == 0 {
		return "open questions not spoken"
	}
	return fmt.Sprintf("open questions (%d): WER chosen %.1f %%, full model %.1f %%", q.n, 100*q.chosenWER(), 100*q.fullWER())
}

// Open questions (testdata/questions, written blind; its README): the
// dev part may be studied line by line, the held-back part only totalled.
const (
	devQuestions  = "questions"
	heldQuestions = "questions-holdout"
)

// questions are the open questions of a set (devQuestions or
// heldQuestions) that can be spoken.
func (ev *evaluation) questions(t *testing.T, set string) []spokeneval.Case {
	file := map[string]string{devQuestions: "dev.txt", heldQuestions: "holdout.txt"}[set]
	b, err := os.ReadFile(filepath.Join("testdata", "questions", file))
	if err != nil {
		t.Fatal(err)
	}
	var cases []spokeneval.Case
	for i, q := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		cases = append(cases, spokeneval.Case{Set: set, Line: i + 1, Turns: []spokeneval.Turn{{Q: q, Expect: "fallback"}}})
	}
	kept, err := ev.sel.Select(ev.ctx, cases)
	if err != nil {
		t.Fatal(err)
	}
	return kept
}

// runQuestions speaks each question through /query/audio/data (the
// chosen text is responses.query) and through the server's recogniser
// directly (Result.FullText, the full decoder's hypothesis for the same
// audio, which no response carries); with lines (dev questions only) and
// -v it logs each question the chosen text heard worse.
func (ev *evaluation) runQuestions(t *testing.T, v spokeneval.Voice, qs []spokeneval.Case, lines bool) questionScore {
	t.Helper()
	rec, err := ev.p.Server.Recognizer(ev.ctx)
	if err != nil {
		t.Fatal(err)
	}
	var s questionScore
	speaker := ev.speakers(t, v)[0]
	for _, c := range qs {
		turn := c.Turns[0]
		wav, err := ev.synth.WAV(ev.ctx, v, turn.Q)
		if err != nil {
			t.Fatal(err)
		}
		spoken, err := ev.ask(speaker, c, turn.Q, wav, v.Rate, 0)
		if err != nil {
			t.Fatalf("%q: %v", turn.Q, err)
		}
		res, err := speech.Recognize(ev.ctx, rec, "en", v.Rate, bytes.NewReader(wav))
		if err != nil {
			t.Fatalf("%q: %v", turn.Q, err)
		}
		e, n := spokeneval.Errors(turn.Said, spoken.Heard)
		f, _ := spokeneval.Errors(turn.Said, res.FullText)
		s.n++
		s.words += n
		s.chosenErrs += e
		s.fullErrs += f
		if lines && testing.Verbose() && e > f {
			t.Logf("%s question %q: chosen %q, full model %q", v, turn.Said, spokeneval.Normalize(spoken.Heard), spokeneval.Normalize(res.FullText))
		}
	}
	return s
}
