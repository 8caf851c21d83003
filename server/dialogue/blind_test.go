package dialogue

import (
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
// "Dialogue"): en 0.950 / 0.903 / 11 of 11, es 0.960 / 0.908 / 6 of 6,
// which meets the goal of 0.95 / 0.90 / 90 %. Dev must not fall below
// them either.
var blindTargets = map[string]blindTarget{
	"en": {action: 0.95, slots: 0.90, sequences: 0.90},
	"es": {action: 0.95, slots: 0.90, sequences: 0.90},
}

// holdout3Targets sit just below what the third author's held-back part
// reached: en 0.942 / 0.940 / 4 of 6, es 0.975 / 0.953 / 3 of 3.
var holdout3Targets = map[string]blindTarget{
	"en": {action: 0.94, slots: 0.935, sequences: 0.66},
	"es": {action: 0.97, slots: 0.95, sequences: 1.00},
}

func TestBlindDev(t *testing.T) {
	for _, lang := range languages {
		t.Run(lang, func(t *testing.T) { runBlind(t, "dev", lang, true) })
	}
}

// dev2 was written later by a second independent author with other
// personas (hurried typists, chatty older people, non-native speakers,
// power users); it is scored apart so that what round 1 tuned on dev
// does not hide how it generalises.
func TestBlindDev2(t *testing.T) {
	for _, lang := range languages {
		t.Run(lang, func(t *testing.T) { runBlindWant(t, "dev2", lang, true, dev2Targets[lang]) })
	}
}

// dev3 was written by a third independent author (a parent in the
// kitchen correcting themselves, a teenager in slang, a user who spells
// every request out, a professional dictating 24-hour times); like dev2 it
// may be tuned on, and it is scored apart.
func TestBlindDev3(t *testing.T) {
	for _, lang := range languages {
		t.Run(lang, func(t *testing.T) { runBlindWant(t, "dev3", lang, true, dev3Targets[lang]) })
	}
}

// dev4 was written by a fourth independent author, weighted towards
// multi-turn slot filling (bare answers, corrections, three-turn
// sequences) and lines with several slots; it may be tuned on.
func TestBlindDev4(t *testing.T) {
	for _, lang := range languages {
		t.Run(lang, func(t *testing.T) { runBlindWant(t, "dev4", lang, true, dev4Targets[lang]) })
	}
}

// dev5 was written by a fifth independent author, weighted towards slots
// in varied forms; it may be tuned on.
func TestBlindDev5(t *testing.T) {
	for _, lang := range languages {
		t.Run(lang, func(t *testing.T) { runBlindWant(t, "dev5", lang, true, dev5Targets[lang]) })
	}
}

// dev6 was written by a sixth independent author, weighted towards
// multi-turn sequences and Spanish slots; it may be tuned on.
func TestBlindDev6(t *testing.T) {
	for _, lang := range languages {
		t.Run(lang, func(t *testing.T) { runBlindWant(t, "dev6", lang, true, dev6Targets[lang]) })
	}
}

// dev7 was written by a seventh independent author, in English only,
// weighted towards multi-turn sequences; it may be tuned on.
func TestBlindDev7(t *testing.T) {
	runBlindWant(t, "dev7", "en", true, dev7Target)
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

// dev2Targets sit just below what dev2 reaches (README, "Dialogue"):
// round 3, en 0.997 / 1.000 / 12 of 12, es 1.000 / 1.000 / 6 of 6.
var dev2Targets = map[string]blindTarget{
	"en": {action: 0.99, slots: 0.99, sequences: 0.90},
	"es": {action: 0.99, slots: 0.99, sequences: 0.83},
}

// dev3Targets sit just below what dev3 reaches (README, "Dialogue"):
// round 3, en 1.000 / 0.985 / 11 of 11, es 0.992 / 0.985 / 6 of 6.
var dev3Targets = map[string]blindTarget{
	"en": {action: 0.99, slots: 0.98, sequences: 0.90},
	"es": {action: 0.98, slots: 0.97, sequences: 0.83},
}

// dev4Targets sit just below what dev4 reaches (README, "Dialogue"):
// round 4, en 0.984 / 0.972 / 24 of 24, es 0.992 / 0.959 / 9 of 9.
var dev4Targets = map[string]blindTarget{
	"en": {action: 0.98, slots: 0.96, sequences: 0.95},
	"es": {action: 0.99, slots: 0.95, sequences: 0.95},
}

// dev5Targets sit just below what dev5 reaches (README, "Dialogue"):
// round 5, en 0.991 / 0.972 / 15 of 16, es 1.000 / 0.989 / 8 of 8.
var dev5Targets = map[string]blindTarget{
	"en": {action: 0.98, slots: 0.96, sequences: 0.90},
	"es": {action: 0.99, slots: 0.98, sequences: 0.95},
}

// dev6Targets sit just below what dev6 reaches (README, "Dialogue"):
// round 6, en 0.981 / 0.932 / 31 of 32, es 0.990 / 0.959 / 21 of 22.
var dev6Targets = map[string]blindTarget{
	"en": {action: 0.97, slots: 0.92, sequences: 0.93},
	"es": {action: 0.98, slots: 0.95, sequences: 0.93},
}

// dev7Target sits just below what dev7 reaches (README, "Dialogue"):
// round 7, 0.990 / 0.927 / 38 of 43.
var dev7Target = blindTarget{action: 0.98, slots: 0.92, sequences: 0.88}

func runBlind(t *testing.T, part, lang string, showFailures bool) {
	runBlindWant(t, part, lang, showFailures, blindTargets[lang])
}

func runBlindWant(t *testing.T, part, lang string, showFailures bool, want blindTarget) {
	s := evalNLU(t, lang, loadNLU(t, "testdata/blind/"+part+"_"+lang+".jsonl"))
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
