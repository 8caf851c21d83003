package lexicon

import (
	"bufio"
	"context"
	"math/rand/v2"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

func TestFromIPA(t *testing.T) {
	for _, c := range []struct{ ipa, want string }{
		{"nˈɛtflɪks", "N EH T F L IH K S"},
		{"tʃˈɪlaʊt", "CH IH L AW T"},
		{"ʃˈoʊtaɪmz", "SH OW T AY M Z"},
		{"mˈoʊɾɚspˌoːɹt", "M OW T ER S P AO R T"},
		{"bˈʌʔn̩", "B AH T AH N"}, // a syllabic n
		{"dʒˈɔɪ", "JH OY"},
		{"", ""},
		{"ˈ?!", ""}, // nothing it knows
	} {
		if got := strings.Join(FromIPA(c.ipa), " "); got != c.want {
			t.Errorf("%q: %q, want %q", c.ipa, got, c.want)
		}
	}
}

// FuzzFromIPA: any text gives phones of the model's set and never panics.
func FuzzFromIPA(f *testing.F) {
	for _, s := range []string{"nˈɛtflɪks", "bˈʌʔn̩", "\u0329", "ɑːɹ", "\xff"} {
		f.Add(s)
	}
	valid := map[string]bool{}
	for _, p := range ipaPhones {
		for _, ph := range strings.Fields(p.phones) {
			valid[ph] = true
		}
	}
	valid["AH"] = true
	f.Fuzz(func(t *testing.T, s string) {
		for _, ph := range FromIPA(s) {
			if !valid[ph] {
				t.Fatalf("%q gave phone %q", s, ph)
			}
		}
	})
}

const dictionary = "/usr/share/pocketsphinx/model/en-us/cmudict-en-us.dict"

// Pronounce agrees with the pronouncing dictionary on most of its words
// (the package documentation has the measure): a broken mapping or a
// change in espeak-ng's output shows here.
func TestAgreesWithTheDictionary(t *testing.T) {
	if err := Available(); err != nil {
		t.Skip("espeak-ng is not installed (make test installs it)")
	}
	f, err := os.Open(dictionary)
	if err != nil {
		t.Skip("no pronouncing dictionary (Debian package pocketsphinx-en-us)")
	}
	defer f.Close()
	prons := map[string][][]string{}
	alt := regexp.MustCompile(`\(\d+\)$`)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) > 1 {
			w := alt.ReplaceAllString(fields[0], "")
			prons[w] = append(prons[w], fields[1:])
		}
	}
	var words []string
	for w := range prons {
		if word.MatchString(w) {
			words = append(words, w)
		}
	}
	slices.Sort(words)
	rng := rand.New(rand.NewPCG(1, 2))
	rng.Shuffle(len(words), func(i, j int) { words[i], words[j] = words[j], words[i] })
	words = append(words[:600], "netflix", "computer", "weather") // three it must spell right
	got, err := Pronounce(context.Background(), words)
	if err != nil {
		t.Fatal(err)
	}
	errs, phones, exact := 0, 0, 0
	for _, w := range words {
		p, ok := got[w]
		if !ok {
			t.Errorf("%q: no pronunciation", w)
			continue
		}
		if prons[w] == nil { // not in the dictionary: nothing to compare
			continue
		}
		best := -1
		var ref []string
		for _, r := range prons[w] {
			if d := distance(p, r); best < 0 || d < best {
				best, ref = d, r
			}
		}
		errs, phones = errs+best, phones+len(ref)
		if best == 0 {
			exact++
		}
	}
	per := float64(errs) / float64(phones)
	t.Logf("%d words: %.1f %% of phones differ, %d exact", len(words), 100*per, exact)
	if per > 0.15 {
		t.Errorf("%.1f %% of phones differ from the dictionary, want at most 15 %%", 100*per)
	}
	for w, want := range map[string]string{"netflix": "N EH T F L IH K S", "computer": "K AH M P Y UW T ER", "weather": "W EH DH ER"} {
		if g := strings.Join(got[w], " "); g != want {
			t.Errorf("%s: %s, want %s", w, g, want)
		}
	}
	if g, err := Pronounce(context.Background(), []string{"Bad Word", "x1", ""}); err != nil || len(g) != 0 {
		t.Errorf("words it does not spell: %v, %v", g, err)
	}
}

// distance is the edit distance of two phone strings. spokeneval's
// EditDistance is the same, but this test reads the package's own
// internals, and spokeneval imports server/speech, which imports this
// package: an import cycle.
func distance(a, b []string) int {
	d := make([]int, len(b)+1)
	for j := range d {
		d[j] = j
	}
	for i := 1; i <= len(a); i++ {
		prev := d[0]
		d[0] = i
		for j := 1; j <= len(b); j++ {
			cur := d[j]
			d[j] = min(d[j]+1, d[j-1]+1, prev+btoi(a[i-1] != b[j-1]))
			prev = cur
		}
	}
	return d[len(b)]
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// BenchmarkPronounce spells the words the English dialogue needs (those
// the dictionary lacked on 2026-11-29): what making a recogniser adds.
func BenchmarkPronounce(b *testing.B) {
	if err := Available(); err != nil {
		b.Skip("espeak-ng is not installed")
	}
	words := []string{"aeroplane", "chillout", "chrono", "chronometer", "electronica", "hiya", "lune", "motorsport",
		"netflix", "ramen", "showtimes", "tiktok", "waze", "calc", "insta", "gmaps"}
	for b.Loop() {
		if _, err := Pronounce(context.Background(), words); err != nil {
			b.Fatal(err)
		}
	}
}
