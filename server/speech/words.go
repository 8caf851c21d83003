package speech

import (
	"context"
	"maps"
	"slices"

	"github.com/harkhq/hark/server/speech/lexicon"
)

// The dialogue knows words the pronouncing dictionary lacks: app names
// ("netflix", "tiktok", "waze"), dishes, genres and titles of the music
// library ("ramen", "chillout", "clair de lune"). Without a pronunciation
// the in-domain models leave out every phrase that holds one (the grammar
// still does), and "open netflix" could not be heard at all. The domain
// and mixed decoders get those words spelt by package lexicon (espeak-ng's
// letter-to-sound rules, in a child process when a recogniser is made:
// 14 ms for sixteen words, BenchmarkPronounce); without espeak-ng they are
// left out as before.

// newWords spells the words of cfg's grammar that dict lacks; nil when
// there are none or they cannot be spelt here.
func (cfg Config) newWords(dict map[string]bool) map[string][]string {
	var missing []string
	seen := map[string]bool{}
	var walk func(seq []element)
	walk = func(seq []element) {
		for _, e := range seq {
			switch {
			case e.Word != "":
				if !dict[e.Word] && !seen[e.Word] {
					seen[e.Word] = true
					missing = append(missing, e.Word)
				}
			case e.Optional != nil:
				walk(e.Optional)
			default:
				for _, a := range e.Alts {
					walk(a)
				}
			}
		}
	}
	spec := dictionarySpec(cfg.Grammar)
	for _, p := range spec.Patterns {
		walk(p)
	}
	for _, alts := range spec.Slots {
		for _, a := range alts {
			walk(a)
		}
	}
	for _, c := range spec.Courtesy {
		walk(c)
	}
	for _, o := range spec.Openers {
		walk(o)
	}
	if len(missing) == 0 || lexicon.Available() != nil {
		return nil
	}
	slices.Sort(missing)
	words, err := lexicon.Pronounce(context.Background(), missing)
	if err != nil || len(words) == 0 {
		return nil
	}
	return words
}

// wordList is the sorted words of a spelling, for a cache key.
func wordList(words map[string][]string) []string {
	return slices.Sorted(maps.Keys(words))
}
