package speech

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode"

	"github.com/harkhq/hark/server/dialogue"
)

// GrammarSource is the in-domain language of one recogniser: the phrases
// of the dialogue's intents and the values of their slots, parsed by the
// dialogue package (the one parser of the pattern language); slot values
// may reference other slots, and courtesy phrases ("please") may come
// before or after any pattern.
type GrammarSource = dialogue.GrammarSpec

// Grammar is a JSGF grammar generated from a GrammarSource.
type Grammar struct {
	JSGF string
	// Words are the distinct words the grammar can produce, sorted.
	Words []string
	// Dropped explains every part left out because a word is missing from
	// the pronunciation dictionary or a slot is undefined or recursive.
	Dropped []string
	lang    *language
}

// element is a pattern element with its words in the dictionary's form.
type element = dialogue.Node

// dictionaryForm rewrites every word of seq as the dictionary spells
// words (lower case, punctuation and hyphens separating words: "Wi-Fi" is
// "wi fi").
func dictionaryForm(seq []element) []element {
	var out []element
	for _, e := range seq {
		switch {
		case e.Word != "":
			for _, w := range strings.Fields(normalizeWords(e.Word)) {
				out = append(out, element{Word: w})
			}
		case e.Slot != "":
			out = append(out, e)
		case e.Optional != nil:
			out = append(out, element{Optional: dictionaryForm(e.Optional)})
		default:
			alts := make([][]element, len(e.Alts))
			for i, a := range e.Alts {
				alts[i] = dictionaryForm(a)
			}
			out = append(out, element{Alts: alts})
		}
	}
	return out
}

// normalizeWords lower-cases text and keeps letters, digits and inner
// apostrophes, the alphabet of the pronunciation dictionary; other
// characters (punctuation, hyphens) separate words.
func normalizeWords(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '\'':
			b.WriteRune(r)
		default:
			b.WriteByte(' ')
		}
	}
	fields := strings.Fields(b.String())
	for i, f := range fields {
		fields[i] = strings.Trim(f, "'")
	}
	return strings.Join(fields, " ")
}

// grammarBuilder prunes parsed texts to what the dictionary can say and
// writes them as JSGF.
type grammarBuilder struct {
	known   func(string) bool
	slots   map[string][][]element
	rules   map[string]string // slot name -> rule name, for usable slots
	state   map[string]int    // 0 unseen, 1 in progress, 2 done
	bodies  map[string]string // rule name -> JSGF body
	words   map[string]bool
	dropped []string
}

// BuildGrammar turns src into a JSGF grammar. known reports whether the
// recogniser's dictionary has a word; parts holding unknown words are left
// out (an alternative, an optional part, a slot value or a whole pattern,
// whichever is the smallest enclosing one) and listed in Dropped, because
// pocketsphinx refuses a grammar with a single unknown word. It fails only
// when a text is malformed or nothing usable remains.
func BuildGrammar(src GrammarSource, known func(string) bool) (Grammar, error) {
	lang := &language{slots: map[string][][]element{}}
	for name, values := range src.Slots {
		for _, seq := range values {
			lang.slots[name] = append(lang.slots[name], dictionaryForm(seq))
		}
	}
	b := &grammarBuilder{known: known, slots: lang.slots, rules: map[string]string{},
		state: map[string]int{}, bodies: map[string]string{}, words: map[string]bool{}}
	var public []string
	seen := map[string]bool{}
	for _, p := range src.Patterns {
		seq := dictionaryForm(p)
		lang.patterns = append(lang.patterns, seq)
		body, ok, err := b.sequence(seq, "pattern "+quote(spell(seq)))
		if err != nil {
			return Grammar{}, err
		}
		if !ok {
			continue
		}
		if !seen[body] {
			seen[body] = true
			public = append(public, body)
		}
	}
	if len(public) == 0 {
		return Grammar{}, fmt.Errorf("grammar: no pattern is expressible with the dictionary's words (%d patterns)", len(src.Patterns))
	}
	var body strings.Builder
	for i, p := range public {
		if i > 0 {
			body.WriteString("\n    | ")
		}
		body.WriteString("( " + p + " )")
	}
	utterance := body.String()
	if len(src.Courtesy) > 0 {
		courtesy := element{}
		for _, seq := range src.Courtesy {
			courtesy.Alts = append(courtesy.Alts, dictionaryForm(seq))
		}
		if rule, ok, err := b.sequence([]element{courtesy}, "courtesy"); err == nil && ok {
			b.bodies["courtesy"] = rule
			utterance = "[ <courtesy> ] ( " + utterance + " ) [ <courtesy> ]"
			around := element{Optional: []element{courtesy}}
			for i, p := range lang.patterns {
				lang.patterns[i] = append(append([]element{around}, p...), around)
			}
		}
	}
	var sb strings.Builder
	sb.WriteString("#JSGF V1.0;\n\ngrammar hark;\n\npublic <utterance> = " + utterance + ";\n")
	names := make([]string, 0, len(b.bodies))
	for name := range b.bodies {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		fmt.Fprintf(&sb, "\n<%s> = %s;", name, b.bodies[name])
	}
	sb.WriteString("\n")
	g := Grammar{JSGF: sb.String(), Dropped: b.dropped, lang: lang}
	for w := range b.words {
		g.Words = append(g.Words, w)
	}
	sort.Strings(g.Words)
	return g, nil
}

func quote(s string) string { return fmt.Sprintf("%q", s) }

// spell writes a parsed sequence back in the pattern syntax, for reports.
func spell(seq []element) string {
	var parts []string
	for _, e := range seq {
		switch {
		case e.Word != "":
			parts = append(parts, e.Word)
		case e.Slot != "":
			parts = append(parts, "{"+e.Slot+"}")
		case e.Optional != nil:
			parts = append(parts, "["+spell(e.Optional)+"]")
		default:
			alts := make([]string, len(e.Alts))
			for i, a := range e.Alts {
				alts[i] = spell(a)
			}
			parts = append(parts, "("+strings.Join(alts, "|")+")")
		}
	}
	return strings.Join(parts, " ")
}

// sequence renders seq as JSGF; ok is false when a required part cannot
// be said.
func (b *grammarBuilder) sequence(seq []element, where string) (string, bool, error) {
	var parts []string
	var words []string
	for _, e := range seq {
		switch {
		case e.Word != "":
			if !b.known(e.Word) {
				b.dropped = append(b.dropped, fmt.Sprintf("%s: word %q is not in the dictionary", where, e.Word))
				return "", false, nil
			}
			words = append(words, e.Word)
			parts = append(parts, e.Word)
		case e.Slot != "":
			rule, ok, err := b.slot(e.Slot, where)
			if err != nil || !ok {
				return "", false, err
			}
			parts = append(parts, "<"+rule+">")
		case e.Optional != nil:
			body, ok, err := b.sequence(e.Optional, where)
			if err != nil {
				return "", false, err
			}
			if ok { // an unsayable optional part is simply left out
				parts = append(parts, "[ "+body+" ]")
			}
		default:
			var alts []string
			for _, alt := range e.Alts {
				if len(alt) == 0 {
					alts = append(alts, "<NULL>")
					continue
				}
				body, ok, err := b.sequence(alt, where)
				if err != nil {
					return "", false, err
				}
				if ok && !slices.Contains(alts, body) {
					alts = append(alts, body)
				}
			}
			if len(alts) == 0 {
				return "", false, nil
			}
			parts = append(parts, "( "+strings.Join(alts, " | ")+" )")
		}
	}
	if len(parts) == 0 {
		return "", false, nil
	}
	for _, w := range words {
		b.words[w] = true
	}
	return strings.Join(parts, " "), true, nil
}

// slot returns the rule name of a slot, building its rule on first use.
// An undefined, empty or recursive slot is unusable (ok false).
func (b *grammarBuilder) slot(name, where string) (string, bool, error) {
	switch b.state[name] {
	case 1:
		b.dropped = append(b.dropped, fmt.Sprintf("%s: slot {%s} refers to itself", where, name))
		return "", false, nil
	case 2:
		rule, ok := b.rules[name]
		return rule, ok, nil
	}
	values, defined := b.slots[name]
	if !defined {
		b.state[name] = 2
		b.dropped = append(b.dropped, fmt.Sprintf("%s: slot {%s} is not defined", where, name))
		return "", false, nil
	}
	b.state[name] = 1
	var alts []string
	for _, seq := range values {
		body, ok, err := b.sequence(seq, fmt.Sprintf("slot {%s} value %q", name, spell(seq)))
		if err != nil {
			return "", false, err
		}
		if ok && !slices.Contains(alts, body) {
			alts = append(alts, body)
		}
	}
	b.state[name] = 2
	if len(alts) == 0 {
		b.dropped = append(b.dropped, fmt.Sprintf("%s: slot {%s} has no sayable value", where, name))
		return "", false, nil
	}
	rule := b.ruleName(name)
	b.rules[name] = rule
	b.bodies[rule] = strings.Join(alts, " | ")
	return rule, true, nil
}

// ruleName makes a JSGF-safe, unique rule name for a slot.
func (b *grammarBuilder) ruleName(slot string) string {
	var sb strings.Builder
	sb.WriteString("slot_")
	for _, r := range slot {
		if r < 128 && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			sb.WriteRune(r)
		} else {
			sb.WriteByte('_')
		}
	}
	name := sb.String()
	for i := 2; ; i++ {
		if _, taken := b.bodies[name]; !taken {
			return name
		}
		name = fmt.Sprintf("%s_%d", sb.String(), i)
	}
}

// language holds a GrammarSource parsed, to tell whether a text is one of
// its sentences. Unknown words need no pruning here: a decoder cannot
// produce them anyway. It is read-only once built.
type language struct {
	patterns [][]element
	slots    map[string][][]element
}

// Contains reports whether text, normalised to dictionary words, is a
// sentence of the grammar.
func (g Grammar) Contains(text string) bool {
	if g.lang == nil {
		return false
	}
	words := strings.Fields(normalizeWords(text))
	for _, p := range g.lang.patterns {
		if slices.Contains(g.lang.match(p, []int{0}, words, 0), len(words)) {
			return true
		}
	}
	return false
}

// match returns the word positions seq can end at when it starts at any
// of starts.
func (l *language) match(seq []element, starts []int, words []string, depth int) []int {
	if depth > 16 { // a slot that refers to itself
		return nil
	}
	pos := starts
	for _, e := range seq {
		var next []int
		switch {
		case e.Word != "":
			for _, p := range pos {
				if p < len(words) && words[p] == e.Word {
					next = append(next, p+1)
				}
			}
		case e.Slot != "":
			for _, v := range l.slots[e.Slot] {
				next = append(next, l.match(v, pos, words, depth+1)...)
			}
		case e.Optional != nil:
			next = append(slices.Clone(pos), l.match(e.Optional, pos, words, depth+1)...)
		default:
			for _, alt := range e.Alts {
				next = append(next, l.match(alt, pos, words, depth+1)...)
			}
		}
		slices.Sort(next)
		pos = slices.Compact(next)
		if len(pos) == 0 {
			return nil
		}
	}
	return pos
}
