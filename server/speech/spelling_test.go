package speech

import (
	"testing"
)

func TestSpellingsAreAmericanAndLeaveOtherWordsAlone(t *testing.T) {
	sp, err := Spellings(DefaultModelDir)
	if err != nil {
		t.Skip(err)
	}
	for from, to := range map[string]string{
		"neighbour": "neighbor", "neighbours": "neighbors", "colour": "color", "favourite": "favorite",
		"centre": "center", "theatre": "theater", "kilometres": "kilometers", "realise": "realize",
		"recognised": "recognized", "catalogue": "catalog", "cancelled": "canceled", "travelling": "traveling",
		"defence": "defense", "licence": "license", "programme": "program", "honour": "honor",
	} {
		if got := sp[from]; got != to {
			t.Errorf("%s: %q, want %q", from, got, to)
		}
	}
	// Same or similar letters, other words: a different sound, or a stem too
	// short for the rule, or American already.
	for _, w := range []string{"four", "for", "pour", "your", "flour", "tour", "pence", "filled", "called",
		"neighbor", "center", "hour", "rise", "okay", "ok", "sylvestre", "fence"} {
		if got, ok := sp[w]; ok {
			t.Errorf("%s rewritten to %q", w, got)
		}
	}
	if len(sp) < 50 || len(sp) > 200 {
		t.Errorf("%d spellings: the rules have grown or lost a family", len(sp))
	}
}

// Every decoder of a recogniser writes American spellings.
func TestRecognizerDecodersRespell(t *testing.T) {
	r := testRecognizer(t)
	for _, kind := range r.kinds {
		if got := r.decoderConfig(kind).Spellings["neighbour"]; got != "neighbor" {
			t.Errorf("decoder %s: neighbour is written %q", kind, got)
		}
	}
}
