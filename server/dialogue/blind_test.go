package dialogue

import (
	"strings"
	"testing"
)

// The blind set (testdata/blind) was written by someone who never read
// the patterns, from the list of intents, slots and action data shapes
// only. Its dev part is what the patterns may be tuned on; its holdout
// part is scored here and nowhere else, and its failures are never
// printed, so nobody tunes on them by accident.
type blindTarget struct {
	action, slots, sequences float64
}

// Thresholds sit just below what the holdout set reached (README,
// "Dialogue"): en 0.950 / 0.927 / 11 of 11, es 0.960 / 0.908 / 6 of 6,
// which meets the goal of 0.95 / 0.90 / 90 %. Dev must not fall below
// them either.
var blindTargets = map[string]blindTarget{
	"en": {action: 0.95, slots: 0.90, sequences: 0.90},
	"es": {action: 0.95, slots: 0.90, sequences: 0.90},
}

// holdout3Targets sit just below what the third author's held-back part
// reached: round 10, en 0.955 / 0.964 / 5 of 6, es 0.987 / 1.000 / 3 of 3.
var holdout3Targets = map[string]blindTarget{
	"en": {action: 0.95, slots: 0.96, sequences: 0.83},
	"es": {action: 0.98, slots: 0.99, sequences: 1.00},
}

func TestBlindDev(t *testing.T) {
	for _, lang := range languages {
		t.Run(lang, func(t *testing.T) { runBlind(t, "dev", lang, true) })
	}
}

// The later authors' development sets (dev2 to dev9; who wrote each and
// how: testdata/blind/README.md), each scored apart so that what was tuned
// on one does not hide how it generalises, each tunable.
func TestBlindLaterDevs(t *testing.T) {
	sets := []struct {
		part    string
		targets map[string]blindTarget
	}{{"dev2", dev2Targets}, {"dev3", dev3Targets}, {"dev4", dev4Targets}, {"dev5", dev5Targets},
		{"dev6", dev6Targets}, {"dev7", map[string]blindTarget{"en": dev7Target}}, {"dev8", dev8Targets},
		{"dev9", dev9Targets}}
	for _, set := range sets {
		for _, lang := range languages {
			if want, ok := set.targets[lang]; ok {
				t.Run(set.part+"/"+lang, func(t *testing.T) { runBlindWant(t, set.part, lang, true, want) })
			}
		}
	}
}

// holdout3 is the third author's held-back part: scored, never printed,
// never tuned on.
func TestBlindHoldout3(t *testing.T) {
	for _, lang := range languages {
		t.Run(lang, func(t *testing.T) { runBlindWant(t, "holdout3", lang, false, holdout3Targets[lang]) })
	}
}

func TestBlindHoldout(t *testing.T) {
	for _, lang := range languages {
		t.Run(lang, func(t *testing.T) { runBlind(t, "holdout", lang, false) })
	}
}

// The whole held-back blind set is both authors' held-back parts together (en 356 turns with 17
// sequences, es 204 with 9), and the goal holds on it: action accuracy ≥ 0.95, slot exact
// match ≥ 0.90, multi-turn ≥ 90 %. Each part alone is also guarded above, at its measured level; a
// part of 6 sequences moves 17 points with one of them, which is why the goal is read on the whole.
func TestBlindHeldBack(t *testing.T) {
	for _, lang := range languages {
		t.Run(lang, func(t *testing.T) { runBlindWant(t, "holdout+holdout3", lang, false, blindTargets[lang]) })
	}
}

// dev2Targets sit just below what dev2 reaches (README, "Dialogue"):
// round 3, en 0.997 / 1.000 / 12 of 12, es 1.000 / 1.000 / 6 of 6.
var dev2Targets = map[string]blindTarget{
	"en": {action: 0.99, slots: 0.99, sequences: 0.90},
	"es": {action: 0.99, slots: 0.99, sequences: 0.83},
}

// dev3Targets sit just below what dev3 reaches (README, "Dialogue"):
// round 10, en 1.000 / 1.000 / 11 of 11, es 1.000 / 1.000 / 6 of 6 (with
// room for one more miss).
var dev3Targets = map[string]blindTarget{
	"en": {action: 0.99, slots: 0.99, sequences: 0.90},
	"es": {action: 0.99, slots: 0.98, sequences: 0.83},
}

// dev4Targets sit just below what dev4 reaches (README, "Dialogue"):
// round 9, en 0.996 / 1.000 / 24 of 24, es 0.992 / 1.000 / 9 of 9 (each
// with room for one more miss where the set is large enough).
var dev4Targets = map[string]blindTarget{
	"en": {action: 0.99, slots: 0.99, sequences: 0.95},
	"es": {action: 0.99, slots: 0.98, sequences: 0.95},
}

// dev5Targets sit just below what dev5 reaches (README, "Dialogue"):
// round 9, en 1.000 / 1.000 / 16 of 16, es 1.000 / 1.000 / 8 of 8.
var dev5Targets = map[string]blindTarget{
	"en": {action: 0.99, slots: 0.99, sequences: 0.93},
	"es": {action: 0.99, slots: 0.98, sequences: 0.95},
}

// dev6Targets sit just below what dev6 reaches (README, "Dialogue"):
// round 9, en 1.000 / 0.993 / 32 of 32, es 1.000 / 1.000 / 22 of 22.
var dev6Targets = map[string]blindTarget{
	"en": {action: 0.99, slots: 0.98, sequences: 0.96},
	"es": {action: 0.99, slots: 0.99, sequences: 0.95},
}

// dev7Target sits just below what dev7 reaches (README, "Dialogue"):
// round 9, 1.000 / 1.000 / 43 of 43.
var dev7Target = blindTarget{action: 0.99, slots: 0.99, sequences: 0.97}

// dev8Targets sit just below what dev8 reaches (README, "Dialogue"):
// round 9, en 1.000 / 1.000 / 32 of 32, es 1.000 / 1.000 / 12 of 12
// (before tuning on it: en 0.968 / 0.935 / 30 of 32, es 0.980 / 0.961 /
// 11 of 12).
var dev8Targets = map[string]blindTarget{
	"en": {action: 0.99, slots: 0.99, sequences: 0.96},
	"es": {action: 0.99, slots: 0.98, sequences: 0.91},
}

// dev9Targets sit just below what dev9 reaches (README, "Dialogue"):
// round 10, en 1.000 / 1.000 / 45 of 45, es 1.000 / 1.000 / 15 of 15, with
// room for one more miss (before tuning on it, the round-9 engine: en
// 0.975 / 0.951 / 41 of 45, es 0.988 / 0.889 / 13 of 15).
var dev9Targets = map[string]blindTarget{
	"en": {action: 0.99, slots: 0.99, sequences: 0.97},
	"es": {action: 0.98, slots: 0.97, sequences: 0.93},
}

func runBlind(t *testing.T, part, lang string, showFailures bool) {
	runBlindWant(t, part, lang, showFailures, blindTargets[lang])
}

func runBlindWant(t *testing.T, part, lang string, showFailures bool, want blindTarget) {
	var cases []nluCase
	for _, p := range strings.Split(part, "+") {
		cases = append(cases, loadNLU(t, "testdata/blind/"+p+"_"+lang+".jsonl")...)
	}
	s := evalNLU(t, lang, cases)
	actionAcc, slotEM := s.rates()
	seqRate := float64(s.sequencesOK) / float64(max(1, s.sequences))
	if showFailures {
		for _, f := range s.failures {
			t.Log(f)
		}
	}
	t.Logf("blind %s %s: %d queries, action accuracy %.3f (%d/%d), slot exact match %.3f (%d/%d), multi-turn %.3f (%d/%d)",
		part, lang, s.queries, actionAcc, s.actionOK, s.queries, slotEM, s.slotOK, s.slotCases,
		seqRate, s.sequencesOK, s.sequences)
	if actionAcc < want.action {
		t.Errorf("action accuracy %.3f below %.3f", actionAcc, want.action)
	}
	if slotEM < want.slots {
		t.Errorf("slot exact match %.3f below %.3f", slotEM, want.slots)
	}
	if s.sequences > 0 && seqRate < want.sequences {
		t.Errorf("multi-turn %.3f below %.3f", seqRate, want.sequences)
	}
}
