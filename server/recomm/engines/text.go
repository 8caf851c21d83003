package engines

import (
	"strings"
	"unicode"
)

// accentFold maps accented Latin letters (Spanish and the other Western European ones) to their
// base letter, so "canción" and "cancion" are the same term.
var accentFold = map[rune]rune{
	'á': 'a', 'à': 'a', 'â': 'a', 'ä': 'a', 'ã': 'a', 'å': 'a',
	'é': 'e', 'è': 'e', 'ê': 'e', 'ë': 'e',
	'í': 'i', 'ì': 'i', 'î': 'i', 'ï': 'i',
	'ó': 'o', 'ò': 'o', 'ô': 'o', 'ö': 'o', 'õ': 'o',
	'ú': 'u', 'ù': 'u', 'û': 'u', 'ü': 'u',
	'ñ': 'n', 'ç': 'c', 'ý': 'y', 'ÿ': 'y',
}

// stopwords are frequent English and Spanish words that carry no topic.
var stopwords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a an and are as at be but by for from has have he her his i in is
		it its of on or she that the their them they this to was were will with you your we our not no
		so if than then there these those what which who whom why how all any can do does did
		el la los las un una unos unas y o de del al en con por para que se su sus es son lo le les
		mi tu mas pero como sin sobre entre ya muy`) {
		stopwords[w] = true
	}
}

// terms splits text into normalised terms: lowercase, accents folded, split on anything that is not a
// letter or digit, stopwords and one-character tokens dropped, English words Porter-stemmed.
func terms(text string) []string {
	var out []string
	var cur []rune
	flush := func() {
		if len(cur) > 1 {
			w := string(cur)
			if !stopwords[w] {
				out = append(out, porterStem(w))
			}
		}
		cur = cur[:0]
	}
	for _, r := range text {
		r = unicode.ToLower(r)
		if f, ok := accentFold[r]; ok {
			r = f
		}
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			cur = append(cur, r)
		} else {
			flush()
		}
	}
	flush()
	return out
}
