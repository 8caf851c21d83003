package speech

import (
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harkhq/hark/server/speech/ngram"
	"github.com/harkhq/hark/server/speech/sphinx"
)

// TestTrieMatchesSphinx checks the Go reader of sphinxbase's binary trie
// format against sphinxbase's own queries on the general English model:
// random n-grams the trie lists (each must be held: sphinxbase uses all
// its words), and random word sequences it mostly does not hold (the
// back-off paths).
func TestTrieMatchesSphinx(t *testing.T) {
	general := filepath.Join(DefaultModelDir, "en-us.lm.bin")
	tr, err := ngram.ReadTrie(general)
	if err != nil {
		t.Fatal(err)
	}
	lm, err := sphinx.ReadLM(general)
	if err != nil {
		t.Fatal(err)
	}
	defer lm.Close()
	if got, want := tr.Counts(), lm.Counts(); len(got) != len(want) || got[0] != want[0] || got[1] > want[1] || got[2] > want[2] || got[1] < want[1]-100 || got[2] < want[2]-100 {
		t.Fatalf("counts %v, sphinxbase %v", got, want)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	checked := 0
	check := func(words []string) {
		t.Helper()
		checked++
		want, err := lm.LogProb(words...)
		if err != nil {
			t.Fatal(err)
		}
		got := tr.LogProb(words[:len(words)-1], words[len(words)-1])
		// sphinxbase returns its log-base integers; one unit is 4e-5 in
		// log10, a few of them are rounding.
		if math.Abs(got-want) > 2e-4 {
			t.Errorf("%q: log10 P %.5f, sphinxbase %.5f", strings.Join(words, " "), got, want)
		}
	}
	for n := 1; n <= 3; n++ {
		seen := 0
		tr.Each(n, func(words []string, _, _ float64) {
			seen++
			if rng.IntN(2000) == 0 {
				check(append([]string(nil), words...))
			}
		})
		if seen != tr.Counts()[n-1] {
			t.Errorf("%d %d-grams listed, the file declares %d", seen, n, tr.Counts()[n-1])
		}
	}
	words := tr.Words()
	for range 3000 {
		seq := make([]string, 1+rng.IntN(3))
		for i := range seq {
			// Frequent words (low ids are not frequent; pick among all,
			// and half of the time among the first 2000 to reach held
			// bigrams).
			if rng.IntN(2) == 0 {
				seq[i] = words[rng.IntN(min(2000, len(words)))]
			} else {
				seq[i] = words[rng.IntN(len(words))]
			}
		}
		check(seq)
	}
	t.Logf("counts %v (declared %v), %d probabilities compared", tr.Counts(), lm.Counts(), checked)
	if p := tr.LogProb([]string{"the"}, "no-such-word-here"); !math.IsInf(p, -1) {
		t.Errorf("an unknown word has log10 P %v", p)
	}
}
