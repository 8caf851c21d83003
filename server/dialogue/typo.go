package dialogue

import (
	"sort"
	"strings"
)

// speller corrects typed words the engine does not know ("remnd",
// "wheather", "txt") to words it does. It only ever touches unknown
// words: a word the patterns, slots, numbers or time words hold is never
// turned into another, and open slots (names, message bodies) keep what
// was written because their values come from the original text.
type speller struct {
	known map[string]bool
	// verbs are the words patterns open with ("set", "play"): an -ing or
	// -ed form is read as one of them only ("setting" is "set", "parking"
	// is no "park").
	verbs     map[string]bool
	shorthand map[string]string // typed abbreviations -> pattern words
	// silentH: the language does not sound an initial h, so writers
	// leave it out ("ola", "asta luego"); Spanish.
	silentH bool
	// freq of every target, for the first-letter slips the buckets miss
	freq map[string]int
	// targets per first byte: typing errors rarely hit the first letter,
	// and the bucket keeps a correction to a few hundred comparisons.
	targets map[byte][]target
	// loans are the known words spelt the English way, by how a Spanish
	// writer spells them as they sound ("blutuz" for bluetooth, "guifi"
	// for wifi); Spanish only.
	loans map[string]string
}

type target struct {
	word string
	freq int // how many patterns and slot phrases use the word
}

// costTypo is what the matcher charges for a corrected word on top of an
// exact one, so an exact reading always wins a tie.
const costTypo = 0.3

func newSpeller(known map[string]bool, freq map[string]int) *speller {
	s := &speller{known: known, freq: freq, targets: map[byte][]target{}, loans: map[string]string{}}
	for w, n := range freq {
		if key := soundSpelling(w); key != w && len(w) >= 4 && lettersOnly(w) {
			// (of two words that sound alike, the likelier)
			if prev, ok := s.loans[key]; !ok || freq[prev] < n || freq[prev] == n && prev > w {
				s.loans[key] = w
			}
		}
		if len(w) < 2 || !lettersOnly(w) {
			continue
		}
		s.targets[w[0]] = append(s.targets[w[0]], target{w, n})
	}
	for _, ts := range s.targets {
		sort.Slice(ts, func(i, j int) bool {
			if ts[i].freq != ts[j].freq {
				return ts[i].freq > ts[j].freq
			}
			return ts[i].word < ts[j].word
		})
	}
	return s
}

// correct returns the known word w was probably meant to be, or "" when
// w is known, too short to judge, not a plain word, or near nothing.
// Among the nearest words (Damerau-Levenshtein, optimal string
// alignment) the one the patterns use most wins.
func (s *speller) correct(w string) string {
	if s == nil || s.known[w] {
		return ""
	}
	if full, ok := s.shorthand[w]; ok {
		return full
	}
	if len(w) < 3 || !lettersOnly(w) {
		return ""
	}
	// "heyyy", "pleeease", "holaaa": a letter held down says the word
	// with feeling, not another word.
	if c := s.unstretch(w); c != "" {
		return c
	}
	// A silent h typed before a word ("habre") or, in Spanish, left out
	// ("ola", "asta luego") is the likeliest slip.
	if w[0] == 'h' && len(w) >= 5 && s.freq[w[1:]] > 0 {
		return w[1:]
	}
	if s.silentH && w[0] != 'h' && s.freq["h"+w] > 0 {
		return "h" + w
	}
	// "yama", "yévame", "cabayo": most Spanish speakers say ll and y
	// alike (yeísmo) and write one for the other.
	if s.silentH {
		if c := s.yeismo(w); c != "" {
			return c
		}
	}
	// "blutuz", "guifi": an English loanword written as it sounds.
	if s.silentH {
		if c := s.loan(w); c != "" {
			return c
		}
	}
	// "pondría", "cambiaría", "abriría": the conditional asks politely
	// for what the imperative does; read before slips, which would make
	// "pondria" "podria".
	if c := s.conditional(w); c != "" {
		return c
	}
	maxDist := 1
	if len(w) >= 8 {
		maxDist = 2
	}
	best, bestDist, bestKind := "", maxDist+1, 0
	for _, t := range s.targets[w[0]] {
		if d := len(t.word) - len(w); d > maxDist || -d > maxDist {
			continue
		}
		// Three letters say too little: only a missing letter ("txt") is
		// read as a typo of a longer word.
		if len(w) == 3 && len(t.word) != 4 {
			continue
		}
		// Among words as near, a letter left out is the likelier slip
		// than one typed too many: "navegaor" is "navegador", not the
		// more used "navegar" (the patterns' frequency breaks the rest).
		kind, limit := slipKind(w, t.word), bestDist-1
		if kind < bestKind {
			limit = bestDist // a tie would do
		}
		if d := osaDistance(w, t.word, limit); (d < bestDist || d == bestDist && kind < bestKind) && !inflected(w, t.word) && !stemOf(w, t.word) && (d > 1 || likelySlip(w, t.word)) {
			best, bestDist, bestKind = t.word, d, kind
		}
	}
	if best != "" || len(w) < 4 {
		return best
	}
	if stem := s.stem(w); stem != "" {
		return stem
	}
	// The first letter is the one the buckets trust; a word of five
	// letters or more may still have lost it ("larma"). A shorter one is
	// too often another word ("lock" is no "block").
	for c := byte('a'); c <= 'z'; c++ {
		if word := string(c) + w; len(w) >= 5 && s.freq[word] > 0 && !s.known[w] {
			return word
		}
	}
	return ""
}

// yeismo gives the word w is with one "y" written as "ll" or one "ll" as
// "y", when the patterns use it, else "".
func (s *speller) yeismo(w string) string {
	for i := 0; i < len(w); i++ {
		var c string
		switch {
		case w[i] == 'y':
			c = w[:i] + "ll" + w[i+1:]
		case strings.HasPrefix(w[i:], "ll"):
			c = w[:i] + "y" + w[i+2:]
		default:
			continue
		}
		if s.freq[c] > 0 {
			return c
		}
	}
	return ""
}

// loan gives the known word spelt the English way that w spells as it
// sounds, or "".
func (s *speller) loan(w string) string {
	if len(w) < 4 {
		return ""
	}
	return s.loans[soundSpelling(w)]
}

// soundSpelling writes an English spelling as a Spanish writer hears it:
// "th" as z (as Spain says it), "oo" and "ue" as u, "ee" as i, "w" as gu,
// "sh" as s, "ph" as f, a closing y as i, double letters once.
func soundSpelling(w string) string {
	r := strings.NewReplacer("th", "z", "oo", "u", "ue", "u", "ee", "i", "w", "gu", "sh", "s", "ph", "f")
	out := r.Replace(w)
	if strings.HasSuffix(out, "y") {
		out = out[:len(out)-1] + "i"
	}
	var b strings.Builder
	for i := 0; i < len(out); i++ {
		if i == 0 || out[i] != out[i-1] {
			b.WriteByte(out[i])
		}
	}
	return b.String()
}

// slipKind orders the slips that turn typed into word: a letter left out
// (0), one changed or two swapped (1), one typed too many (2).
func slipKind(typed, word string) int {
	switch {
	case len(word) > len(typed):
		return 0
	case len(word) == len(typed):
		return 1
	}
	return 2
}

// osaDistance is the optimal string alignment distance of a and b (edits:
// insert, delete, substitute, swap two neighbours), or limit+1 as soon as
// it must exceed limit.
func osaDistance(a, b string, limit int) int {
	if limit < 0 {
		return 1
	}
	var rows [3][32]int
	if len(a) >= 31 || len(b) >= 31 {
		return limit + 1
	}
	prev2, prev, cur := &rows[0], &rows[1], &rows[2]
	for j := 0; j <= len(b); j++ {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			v := min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				v = min(v, prev2[j-2]+1)
			}
			cur[j] = v
			rowMin = min(rowMin, v)
		}
		if rowMin > limit {
			return limit + 1
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}

// likelySlip reports whether one edit turning typed into word is a slip
// of fast typing rather than another real word. A left-out letter
// ("remnd") or two swapped ones ("tiemr") seldom make a word; an extra
// letter or a wrong one often do ("works", "sure" for "surf"), so those
// count only in long words, a wrong letter only when its key is next to
// the right one, and an ending added to the word ("works", "quarterly")
// is an inflection, never a slip.
func likelySlip(typed, word string) bool {
	switch {
	case len(word) == len(typed)+1:
		return true
	case len(word)+1 == len(typed):
		// A doubled key ("texxt", "calll") is a slip at any length.
		for i := 1; i < len(typed); i++ {
			if typed[i] == typed[i-1] && typed[:i]+typed[i+1:] == word {
				return true
			}
		}
		return len(typed) >= 6
	}
	for i := 0; i < len(typed); i++ {
		if typed[i] == word[i] {
			continue
		}
		if i+1 < len(typed) && typed[i] == word[i+1] && typed[i+1] == word[i] {
			return len(typed) >= 4
		}
		if i == len(typed)-1 && typed[i] == 'z' && word[i] == 's' {
			// "newz", "tunez": a closing s written as z is a texting
			// spelling, not another word.
			return true
		}
		if soundAlike(typed[i], word[i]) {
			// "grasias", "emvia": letters that sound alike or sit together.
			return len(typed) >= 5
		}
		if i > 0 && isVowel(typed[i]) && isVowel(word[i]) {
			// "calender": an unstressed vowel written as another is a
			// spelling slip in a long word (in shorter ones a vowel
			// makes another word: "porque", "parque")
			return len(typed) >= 7
		}
		return len(typed) >= 6 && keysAdjacent(typed[i], word[i])
	}
	return false
}

// inflections are endings that make another word of a known one
// ("works", "quarterly"), never a slip; nor is a known word's stem
// ("title" of "titled").
var inflections = []string{"s", "es", "ed", "d", "ing", "ly", "er", "ers", "y"}

// stemOf reports whether typed is word without an inflection ("title" of
// "titled"), unless the ending only doubles typed's last letter
// ("brightnes" of "brightness" lost a letter).
func stemOf(typed, word string) bool {
	for _, e := range inflections {
		if word == typed+e && typed[len(typed)-1] != e[0] {
			return true
		}
	}
	return false
}

func inflected(typed, word string) bool {
	if !strings.HasPrefix(typed, word) {
		return false
	}
	for _, e := range inflections {
		if typed == word+e {
			return true
		}
	}
	return false
}

// soundAlike pairs letters writers swap because they sound the same
// (Spanish b/v, s/c/z, g/j, y/i) or because their keys touch on the
// bottom row (m/n).
func soundAlike(a, b byte) bool {
	if a > b {
		a, b = b, a
	}
	switch string([]byte{a, b}) {
	case "bv", "cs", "sz", "cz", "gj", "iy", "mn":
		return true
	}
	return false
}

// qwertyRows places the letters for keysAdjacent.
var qwertyRows = [3]string{"qwertyuiop", "asdfghjkl", "zxcvbnm"}

func keysAdjacent(a, b byte) bool {
	ra, ca, rb, cb := -1, -1, -1, -1
	for r, row := range qwertyRows {
		if i := strings.IndexByte(row, a); i >= 0 {
			ra, ca = r, i
		}
		if i := strings.IndexByte(row, b); i >= 0 {
			rb, cb = r, i
		}
	}
	if ra < 0 || rb < 0 {
		return false
	}
	dr, dc := ra-rb, ca-cb
	// Rows are staggered to the right: a key touches the keys of the row
	// above at its column and the next one.
	switch dr {
	case 0:
		return dc == 1 || dc == -1
	case 1:
		return dc == 0 || dc == -1
	case -1:
		return dc == 0 || dc == 1
	}
	return false
}

func lettersOnly(w string) bool {
	for i := 0; i < len(w); i++ {
		if c := w[i]; c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}

// joinSplit joins two words typed apart that make one word of the
// patterns when one of them alone is no word the language knows ("bright
// ness" -> "brightness", "time r"): a space slipped into a word.
func (m *langModel) joinSplit(toks []token) []token {
	var out []token
	for i := 0; i < len(toks); i++ {
		if i+1 < len(toks) && m.spell != nil {
			a, b := toks[i].norm, toks[i+1].norm
			if joined := a + b; lettersOnly(a) && lettersOnly(b) && m.spell.freq[joined] > 0 &&
				(!m.spell.known[a] || !m.spell.known[b]) {
				if out == nil {
					out = append(out, toks[:i]...)
				}
				j := toks[i]
				// Shown as a correction, and charged like one.
				j.norm, j.orig, j.typo = joined, toks[i].orig+toks[i+1].orig, a+" "+b
				out = append(out, j)
				i++
				continue
			}
		}
		if out != nil {
			out = append(out, toks[i])
		}
	}
	if out == nil {
		return toks
	}
	return out
}

// correctTokens replaces the norm of each unknown word by its correction,
// keeping what was typed in typo.
func (m *langModel) correctTokens(toks []token) {
	for i := range toks {
		if fix := m.spell.correct(toks[i].norm); fix != "" {
			toks[i].typo, toks[i].norm = toks[i].norm, fix
		}
	}
}

// spellingData lists every word the language file holds (known) and how
// often the patterns and closed slots use each (freq, the correction
// targets). Open-slot examples are known but never a target: a name is
// not what a typo was meant to be.
func spellingData(f langFile) (known map[string]bool, freq map[string]int) {
	known, freq = map[string]bool{}, map[string]int{}
	words := func(text string, count bool) {
		for _, w := range strings.FieldsFunc(fold(text), func(r rune) bool {
			return strings.ContainsRune(" []()|{}", r)
		}) {
			known[w] = true
			if count {
				freq[w]++
			}
		}
	}
	stripSlots := func(text string) string {
		var b strings.Builder
		for {
			i := strings.IndexByte(text, '{')
			if i < 0 {
				b.WriteString(text)
				return b.String()
			}
			j := strings.IndexByte(text[i:], '}')
			if j < 0 {
				b.WriteString(text)
				return b.String()
			}
			b.WriteString(text[:i])
			b.WriteByte(' ')
			text = text[i+j+1:]
		}
	}
	open := map[string]bool{}
	for _, name := range f.Open {
		open[name] = true
	}
	for _, pats := range f.Intents {
		for _, p := range pats {
			words(stripSlots(p), true)
		}
	}
	for name, alts := range f.Slots {
		for _, a := range alts {
			words(stripSlots(a), !open[name])
		}
	}
	for w := range f.Numbers {
		words(w, true)
	}
	for w := range f.Scales {
		words(w, true)
	}
	for w := range f.TimeWords {
		words(w, true)
	}
	for _, w := range append(append([]string(nil), f.Fillers...), f.Courtesy...) {
		words(w, true)
	}
	for w := range f.Spoken {
		words(w, true)
	}
	// words of the language's own lists are words, never slips: known,
	// but no target of a correction
	for _, w := range append(append(append(append(append([]string(nil), f.Asides...), f.NotPlaces...), f.Hesitations...), f.Exclamations...), f.Manner...) {
		words(w, false)
	}
	return known, freq
}

// stem reads an inflected form of a pattern word as that word: verb
// forms ("setting", "cancelled"; not "works", a noun as often as a verb) and Spanish pronouns written
// onto the verb ("ponme", "abrirme", "despiertame", "cancelarlo"), with
// an infinitive standing for its imperative and back ("cancelar",
// "cancela"), and the polite imperative for the familiar one. Patterns
// then need one form of each verb, not every one.
func (s *speller) stem(w string) string {
	var cands []string
	for _, e := range []string{"ing", "ed"} {
		if b, ok := strings.CutSuffix(w, e); ok && len(b) >= 3 {
			forms := []string{b, b + "e"}
			if n := len(b); b[n-1] == b[n-2] {
				forms = append(forms, b[:n-1]) // "setting", "stopped"
			}
			for _, c := range forms {
				if s.verbs == nil || s.verbs[c] {
					cands = append(cands, c)
				}
			}
		}
	}
	for _, e := range []string{"selo", "sela", "melo", "mela", "noslo", "me", "te", "le", "lo", "la", "les", "los", "las", "nos"} {
		if b, ok := strings.CutSuffix(w, e); ok && len(b) >= 3 {
			cands = append(cands, b)
		}
	}
	// "lléveme", "dígame": the polite imperative with its pronoun is the
	// familiar one with the same pronoun ("llévame").
	for _, e := range []string{"me", "nos", "lo", "la", "le"} {
		if b, ok := strings.CutSuffix(w, e); ok && len(b) >= 3 {
			switch n := len(b); b[n-1] {
			case 'e':
				cands = append(cands, b[:n-1]+"a"+e)
			case 'a':
				cands = append(cands, b[:n-1]+"e"+e)
			}
		}
	}
	// The polite Spanish imperative swaps the verb's vowel ("abra",
	// "cambie", "ponga" for "abre", "cambia", "pon").
	for _, b := range append([]string{w}, cands...) {
		if n := len(b); n >= 4 {
			switch {
			case strings.HasSuffix(b, "gue"):
				cands = append(cands, b[:n-3]+"ga") // "apague" -> "apaga"
			case strings.HasSuffix(b, "que"):
				cands = append(cands, b[:n-3]+"ca") // "busque" -> "busca"
			case strings.HasSuffix(b, "ga"):
				cands = append(cands, b[:n-2])
			case b[n-1] == 'e':
				cands = append(cands, b[:n-1]+"a")
			case b[n-1] == 'a':
				cands = append(cands, b[:n-1]+"e")
			}
		}
	}
	for _, b := range append([]string{w}, cands...) {
		if n := len(b); n >= 4 && b[n-1] == 'r' {
			cands = append(cands, b[:n-1]) // "cancelar" -> "cancela"
		} else if n >= 3 && strings.ContainsRune("aei", rune(b[n-1])) {
			cands = append(cands, b+"r") // "cancela" -> "cancelar"
		}
	}
	best, bestFreq := "", 0
	for _, c := range cands {
		if len(c) >= 3 && c != w && s.freq[c] > bestFreq {
			best, bestFreq = c, s.freq[c]
		}
	}
	return best
}

// conditional reads a Spanish conditional as the verb the patterns use:
// the infinitive ("cambiaría" -> "cambiar") or, for the verbs that drop a
// letter before "-dría", the short imperative ("pondría" -> "pon",
// "tendría" -> "ten"). Pronouns joined to it go ("pondríamelo" is rare,
// "pondríame" archaic), so only the plain forms are read.
func (s *speller) conditional(w string) string {
	for _, e := range []string{"riamos", "rias", "rian", "ria"} {
		b, ok := strings.CutSuffix(w, e)
		if !ok || len(b) < 2 {
			continue
		}
		cands := []string{b + "r"}
		if strings.HasSuffix(b, "d") {
			cands = append(cands, b[:len(b)-1])
		}
		for _, c := range cands {
			if s.freq[c] > 0 {
				return c
			}
		}
	}
	return ""
}

// unstretch gives the known word w is when its runs of three or more of
// one letter are cut to one or two ("heyyy" -> "hey", "sooo" -> "so"),
// or "".
func (s *speller) unstretch(w string) string {
	stretched := false
	for i := 2; i < len(w); i++ {
		if w[i] == w[i-1] && w[i] == w[i-2] {
			stretched = true
			break
		}
	}
	if !stretched {
		return ""
	}
	for _, keep := range []int{1, 2} {
		var b strings.Builder
		for i := 0; i < len(w); i++ {
			run := 1
			for i+run < len(w) && w[i+run] == w[i] {
				run++
			}
			n := run
			if run >= 3 {
				n = keep
			}
			b.WriteString(strings.Repeat(w[i:i+1], n))
			i += run - 1
		}
		if c := b.String(); s.known[c] {
			return c
		}
	}
	return ""
}

func isVowel(c byte) bool { return strings.IndexByte("aeiou", c) >= 0 }
