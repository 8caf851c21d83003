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
	// src is the text from this word to the end of the query, so a span
	// of words can be given back with its own punctuation.
	src string
	// typo is the word as typed when norm is a spelling correction of it.
	typo string
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
	case ':', '.', '/', '@', '\'', '-', '_', '+', '%', '’', '?', '=', '&', '#', '~':
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
	sep := func(r rune) bool {
		return unicode.IsSpace(r) || (unicode.IsPunct(r) || unicode.IsSymbol(r)) && !innerPunct(r)
	}
	for i := 0; i < len(q) && len(out) < maxTokens; {
		r, size := utf8.DecodeRuneInString(q[i:])
		if sep(r) {
			i += size
			continue
		}
		j := i
		for j < len(q) {
			r, size := utf8.DecodeRuneInString(q[j:])
			if sep(r) {
				break
			}
			j += size
		}
		field := q[i:j]
		// Trim joining punctuation at the edges ("late." "'quoted'"), but
		// keep a leading + (phone numbers) and a trailing % (levels).
		lead := len(field) - len(strings.TrimLeftFunc(field, func(r rune) bool { return innerPunct(r) && r != '+' }))
		w := strings.TrimRightFunc(field[lead:], func(r rune) bool { return innerPunct(r) && r != '%' })
		w = strings.TrimLeft(w, "%")
		if w != "" {
			// "¿qué" and "¡pon" lose their opening marks as separators.
			// "1h30m" is two amounts written as one word.
			for _, at := range unitRuns(w) {
				part := w[at[0]:at[1]]
				out = append(out, token{norm: fold(part), orig: part, src: q[i+lead+at[0]:]})
			}
		}
		i = j
	}
	return out
}

// spelledOut rewrites q with the letters said one by one made one word:
// "j f k airport", "s m s", "l a x", as a recogniser writes a spelled
// name and people type one. A letter that is also a word ("a", "i")
// joins only inside a run: "text b j i am late" keeps its "i". The word
// is written in capitals, as an acronym is. toks are q's words; ok is
// false when q spells nothing. Rewriting the text, not the words, keeps
// every span of the query its own text.
func (m *langModel) spelledOut(q string, toks []token) (out string, ok bool) {
	letter := func(i int) bool {
		w := toks[i].norm
		return len(w) == 1 && w[0] >= 'a' && w[0] <= 'z'
	}
	at := func(i int) int { return len(q) - len(toks[i].src) }
	var b strings.Builder
	done := 0
	for i := 0; i < len(toks); i++ {
		if !letter(i) || m.letterWords[toks[i].norm] {
			continue
		}
		j := i
		for j+1 < len(toks) && letter(j+1) &&
			strings.TrimSpace(q[at(j)+len(toks[j].orig):at(j+1)]) == "" {
			j++
		}
		for j > i && m.letterWords[toks[j].norm] {
			j--
		}
		if j == i {
			continue
		}
		b.WriteString(q[done:at(i)])
		for _, t := range toks[i : j+1] {
			b.WriteString(strings.ToUpper(t.orig))
		}
		done = at(j) + len(toks[j].orig)
		i = j
	}
	if done == 0 {
		return q, false
	}
	b.WriteString(q[done:])
	return b.String(), true
}

// words reads q's words as the matcher takes them: letters spelled one
// by one joined, and a word split by a slipped space mended.
func (m *langModel) words(q string) []token {
	toks := tokenize(q)
	if spelled, ok := m.spelledOut(q, toks); ok {
		toks = tokenize(spelled)
	}
	return m.joinSplit(toks)
}

// spanText gives back the words of toks as the user wrote them, with the
// punctuation between them ("running late, start without me").
func spanText(toks []token) string {
	if len(toks) == 0 {
		return ""
	}
	first, last := toks[0], toks[len(toks)-1]
	end := len(first.src) - len(last.src) + len(last.orig)
	if end < 0 || end > len(first.src) || !strings.HasPrefix(last.src, last.orig) {
		return joinOrig(toks)
	}
	return first.src[:end]
}

func (q *queryCtx) span(from, to int) string { return spanText(q.toks[from:to]) }

// closingMarks are the question and exclamation marks typed right after
// a word, which tokenize leaves out.
func closingMarks(t token) string {
	rest := strings.TrimPrefix(t.src, t.orig)
	if len(rest) == len(t.src) {
		return ""
	}
	n := 0
	for n < len(rest) && (rest[n] == '?' || rest[n] == '!') {
		n++
	}
	return rest[:n]
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

// clauses splits toks where the writer put a comma, a full stop, a
// semicolon or a question or exclamation mark between two words; nil
// when there is one clause.
func clauses(toks []token) [][]token {
	var out [][]token
	from := 0
	for k := 0; k+1 < len(toks); k++ {
		a, b := toks[k], toks[k+1]
		gapEnd := len(a.src) - len(b.src)
		if gapEnd < len(a.orig) || gapEnd > len(a.src) {
			continue
		}
		if strings.ContainsAny(a.src[len(a.orig):gapEnd], ",.;!?¿¡") {
			out = append(out, toks[from:k+1])
			from = k + 1
		}
	}
	if from == 0 {
		return nil
	}
	return append(out, toks[from:])
}

// clausesOf gives the clauses of a query: split at punctuation (clauses)
// and, inside a clause, before a word that joins a reason to what follows
// from it ("the truck comes at 6 am so I need an alarm at 5 am", "llego
// tarde así que pon una alarma") or a request put as a question opens
// ("I leave at twelve thirty can you set an alarm for then", as a
// recogniser writes it, with no comma), with two words at least on each
// side; nil when there is one clause.
func (m *langModel) clausesOf(toks []token) [][]token {
	parts := clauses(toks)
	if parts == nil {
		parts = [][]token{toks}
	}
	var out [][]token
	for _, c := range parts {
		from := 0
		for k := 2; k < len(c)-1; k++ {
			if k-from < 2 {
				continue
			}
			if n := m.joinerAt(c[k:]); n > 0 && len(c)-k-n >= 2 {
				out = append(out, c[from:k])
				from = k + n
				k = from
			} else if n := wordsIn(c[k:], requestOpeners[m.lang]); n > 0 && len(c)-k > n {
				out = append(out, c[from:k])
				from = k
			}
		}
		out = append(out, c[from:])
	}
	if len(out) < 2 {
		return nil
	}
	return out
}

// statementAt says whether toks open a statement of the speaker's, which
// a recogniser runs on from the request before it ("delete all the alarms
// the kids are off school tomorrow", "delete my alarms i'm on holiday"): a
// subject with its verb "to be" within the first three words, and a word
// at least after the verb.
func statementAt(toks []token) bool {
	if len(toks) < 3 {
		return false
	}
	if beingSubjects[toks[0].norm] {
		return true
	}
	for i := 1; i < 3; i++ {
		if being[toks[i].norm] {
			return i+1 < len(toks)
		}
	}
	return false
}

var (
	being         = map[string]bool{"is": true, "are": true, "was": true, "were": true}
	beingSubjects = map[string]bool{"i'm": true, "we're": true, "they're": true, "he's": true, "she's": true, "it's": true}
)

// joinerAt gives the length of a word that joins a reason to what follows
// from it at toks[0], 0 when there is none.
func (m *langModel) joinerAt(toks []token) int {
	return wordsIn(toks, clauseJoiners[m.lang])
}

// wordsIn gives the length of the first of phrases that toks start with
// and that more words follow, 0 when there is none.
func wordsIn(toks []token, phrases [][]string) int {
	for _, p := range phrases {
		if len(toks) > len(p) && wordsAt(toks, p) {
			return len(p)
		}
	}
	return 0
}

// clauseJoiners join a reason to what follows from it.
var clauseJoiners = map[string][][]string{
	"en": {{"so"}, {"and", "so"}},
	"es": {{"asi", "que"}, {"entonces"}, {"por", "eso"}},
}

// requestOpeners open a request put as a question, which starts a clause
// of its own after words of another.
var requestOpeners = map[string][][]string{
	"en": {{"can", "you"}, {"could", "you"}, {"would", "you"}, {"will", "you"}},
	"es": {{"puedes"}, {"podrias"}, {"podria"}, {"me", "puedes"}, {"me", "podrias"}},
}

// opensAt says whether a Spanish opening mark (¿ ¡) was typed right
// before toks[j].
func opensAt(toks []token, j int) bool {
	if j == 0 || j >= len(toks) {
		return false
	}
	a, b := toks[j-1], toks[j]
	gapEnd := len(a.src) - len(b.src)
	if gapEnd < len(a.orig) || gapEnd > len(a.src) {
		return false
	}
	return strings.ContainsAny(a.src[len(a.orig):gapEnd], "¿¡")
}

// unitRuns splits a word made of several amounts with short units
// ("1h30m", "2m30s") into them; any other word is one run.
func unitRuns(w string) [][2]int {
	var runs [][2]int
	for i := 0; i < len(w); {
		j := i
		for j < len(w) && w[j] >= '0' && w[j] <= '9' {
			j++
		}
		k := j
		for k < len(w) && w[k] >= 'a' && w[k] <= 'z' {
			k++
		}
		if j == i || k == j || k-j > 3 {
			return [][2]int{{0, len(w)}}
		}
		runs = append(runs, [2]int{i, k})
		i = k
	}
	if len(runs) < 2 {
		return [][2]int{{0, len(w)}}
	}
	return runs
}
