package dialogue

import "strings"

// Spoken disfluencies: what a speaker says on the way to a request, which
// is no part of it. "oh shoot cancel the pasta timer" read its label as
// "oh shoot cancel the pasta"; "ok um put on some, like, classical music"
// gave the fillers to a channel's name. They are taken out before any
// reading, so every pattern, name and correction sees the request alone.

// fluent gives toks without the speaker's disfluencies: an exclamation
// that opens the query with the words that carry it on ("oh shoot", "oh
// my god", "ay no"), hesitation sounds anywhere ("um", "uh", "eh"), and
// words spoken as filler when commas set them off (", like,", ", you
// know,", "o sea,"). A query that is nothing else is left as it was.
// A message keeps the words inside it: its text is cut from the query
// as typed (spanText), so only what leads to it or trails it goes.
func (m *langModel) fluent(toks []token) []token {
	i := 0
	if len(toks) > 1 && m.exclamations[toks[0].norm] {
		i = 1
		for i < len(toks)-1 && (m.exclamations[toks[i].norm] || m.exclaimed[toks[i].norm]) {
			i++
		}
	}
	out := make([]token, 0, len(toks)-i)
	for j := i; j < len(toks); j++ {
		if m.hesitations[toks[j].norm] {
			continue
		}
		// "would you mind setting a timer": the mind of asking politely
		// is no part of the request, and the verb after it leads it
		// ("do you mind if I call" asks no such thing; the verb as said,
		// before a correction made it "set").
		if j == i+2 && j+1 < len(toks) && toks[j].norm == "mind" && toks[j-1].norm == "you" && mindOpeners[toks[i].norm] &&
			strings.HasSuffix(fold(toks[j+1].orig), "ing") {
			continue
		}
		if n := m.discourseAt(toks, j, i, m.allFillers(out)); n > 0 {
			j += n - 1
			continue
		}
		out = append(out, toks[j])
	}
	if len(out) == 0 {
		return toks
	}
	return out
}

// mindOpeners ask politely with "mind" two words after them ("would you
// mind", "do you mind").
var mindOpeners = map[string]bool{"would": true, "do": true}

// discourseAt gives the length of a filler phrase at toks[j] that commas
// set off: after a comma and before one (", like,"), or opening the
// request before one ("you know, …"); 0 when there is none. Without the
// commas the words may be the request's own ("music I like").
func (m *langModel) discourseAt(toks []token, j, from int, first bool) int {
	for _, phrase := range m.discourse {
		n := len(phrase)
		if j+n > len(toks) || !wordsAt(toks[j:], phrase) || !commaAfter(toks[j+n-1]) || j+n == len(toks) {
			continue
		}
		if first || j > from && commaAfter(toks[j-1]) {
			return n
		}
	}
	return 0
}

// mannerBefore gives the length of a manner phrase ("real quick", "al
// toque") that ends toks, 0 when none does.
func (m *langModel) mannerBefore(toks []token) int {
	for _, phrase := range m.manner {
		if n := len(phrase); n <= len(toks) && wordsAt(toks[len(toks)-n:], phrase) {
			return n
		}
	}
	return 0
}

// allFillers reports whether every word of toks is a filler ("so" before
// "like," in "so like, tell Jo…"): nothing of the request yet.
func (m *langModel) allFillers(toks []token) bool {
	for _, t := range toks {
		if !m.fillers[t.norm] {
			return false
		}
	}
	return true
}
