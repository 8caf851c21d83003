package dialogue

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// token is one word of a query: norm is lower-cased and accent-folded for
// matching, orig keeps what the user wrote for values shown back (names,
// message bodies).
type token struct {
	norm, orig string
}

// foldRunes strips the Spanish diacritics so "mañana", "manana" and
// "MAÑANA" match alike; typed queries often lose accents.
var foldRunes = map[rune]rune{
	'á': 'a', 'é': 'e', 'í': 'i', 'ó': 'o', 'ú': 'u', 'ü': 'u', 'ñ': 'n',
	'à': 'a', 'è': 'e', 'ì': 'i', 'ò': 'o', 'ù': 'u', 'ç': 'c',
	'’': '\'', '‘': '\'',
}

// fold lower-cases s and removes diacritics.
func fold(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= utf8.RuneSelf || (c >= 'A' && c <= 'Z') {
			ascii = false
			break
		}
	}
	if ascii {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		r = unicode.ToLower(r)
		if f, ok := foldRunes[r]; ok {
			r = f
		}
		b.WriteRune(r)
	}
	return b.String()
}

// innerPunct may stay inside a word: times (7:30), URLs and e-mail
// addresses (example.com, a@b.org), contractions (what's, o'clock).
func innerPunct(r rune) bool {
	switch r {
	case ':', '.', '/', '@', '\'', '-', '_', '+', '%', '’':
		return true
	}
	return false
}

// tokenize splits a query into words. Punctuation around words is dropped
// (typed "Set an alarm, please!" reads like spoken text); punctuation
// inside a word is kept when it joins letters or digits. A trailing '%'
// stays because "50%" is a level.
func tokenize(q string) []token {
	var out []token
	for _, field := range strings.FieldsFunc(q, func(r rune) bool {
		return unicode.IsSpace(r) || (unicode.IsPunct(r) && !innerPunct(r)) || unicode.IsSymbol(r) && r != '+'
	}) {
		w := strings.TrimFunc(field, func(r rune) bool { return innerPunct(r) && r != '%' })
		w = strings.TrimLeft(w, "%")
		if w == "" {
			continue
		}
		// "¿qué" and "¡pon" lose their opening marks through IsPunct above.
		out = append(out, token{norm: fold(w), orig: w})
		if len(out) >= maxTokens {
			break
		}
	}
	return out
}

// maxTokens bounds the work of one query; 1000 bytes of text rarely holds
// more than 200 words.
const maxTokens = 200

func joinOrig(toks []token) string {
	parts := make([]string, len(toks))
	for i, t := range toks {
		parts[i] = t.orig
	}
	return strings.Join(parts, " ")
}

func joinNorm(toks []token) string {
	parts := make([]string, len(toks))
	for i, t := range toks {
		parts[i] = t.norm
	}
	return strings.Join(parts, " ")
}
