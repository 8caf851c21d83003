//go:build !race

package speech

import (
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harkhq/hark/server/speech/ngram"
	"github.com/harkhq/hark/server/speech/sphinx"
)

// This file is left out of race-detector builds: mixing the general
// model's millions of n-grams in a race-built test took 42 s on a quiet
// machine (minutes under load) against 8 s without it, and the mixing runs
// on one goroutine. make test runs it in its pass without the race
// detector.

// TestMixedModel checks the mixture of the dialogue's domain model with
// the general English model: it keeps the general vocabulary (an open
// question stays sayable), each history's distribution still sums to one,
// and in-domain commands are far more probable than under the general
// model alone while open questions lose little (the general model's
// trigrams are in the mixture).
func TestMixedModel(t *testing.T) {
	dict, err := LoadDictionary(filepath.Join(DefaultModelDir, "cmudict-en-us.dict"))
	if err != nil {
		t.Skipf("no pocketsphinx model: %v", err)
	}
	domain, err := BuildDomainModel(dialogueGrammar(), func(w string) bool { return dict[w] })
	if err != nil {
		t.Fatal(err)
	}
	general := filepath.Join(DefaultModelDir, "en-us.lm.bin")
	mixed, err := MixedModel(domain, general, DefaultDomainWeight)
	if err != nil {
		t.Fatal(err)
	}
	lm, err := sphinx.ReadLM(general)
	if err != nil {
		t.Fatal(err)
	}
	defer lm.Close()
	if got, want := mixed.Counts()[0], lm.Counts()[0]; got < want {
		t.Errorf("mixed model has %d words, the general one %d", got, want)
	}
	targets := append(append([]string(nil), mixed.Vocabulary...), ngram.End)
	for _, h := range [][]string{nil, {"<s>"}, {"set", "an"}, {"the"}, {"weather", "in"}, {"who", "painted"}} {
		var sum float64
		for _, w := range targets {
			sum += math.Pow(10, mixed.LogProb(h, w))
		}
		if math.Abs(sum-1) > 1e-9 {
			t.Errorf("mixed model after %v sums to %.9f", h, sum)
		}
	}
	logProb := func(sentence string, p func(h []string, w string) float64) float64 {
		words := append(strings.Fields(sentence), ngram.End)
		hist := []string{ngram.Start}
		var sum float64
		for _, w := range words {
			sum += p(hist, w)
			hist = append(hist, w)
		}
		return sum
	}
	gen := func(h []string, w string) float64 {
		v, err := lm.LogProb(append(append([]string(nil), h...), w)...)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	for _, c := range []struct {
		sentence  string
		minGainDB float64 // log10 of P(mixed)/P(general), at least
	}{
		{"set an alarm for seven am", 3},
		{"what's the weather like in london tomorrow", 3},
		{"start the stopwatch", 2},
		// Open questions lose little now that every n-gram of the general
		// model is carried over (about 0.3 in log10 measured; with its
		// bigrams among frequent words only and no trigram, up to 10).
		{"who painted the mona lisa", -1},
		{"how far is the moon from the earth", -1},
	} {
		m, g := logProb(c.sentence, mixed.LogProb), logProb(c.sentence, gen)
		t.Logf("%-45q log10 P mixed %7.2f general %7.2f", c.sentence, m, g)
		if math.IsInf(m, -1) || m-g < c.minGainDB {
			t.Errorf("%q: log10 P %.2f under the mixed model, %.2f under the general one", c.sentence, m, g)
		}
	}
}
