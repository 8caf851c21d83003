package speech

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode"
)

// GrammarSource is the in-domain language of one recogniser: the phrases of
// the dialogue's intents and the values of their slots. Pattern and slot
// texts use words, {slot} references, [optional parts] and (a|b)
// alternatives; slot values may reference other slots.
type GrammarSource struct {
	Patterns []string
	Slots    map[string][]string
	// Courtesy phrases ("please", "could you") may come before or after
	// any pattern.
	Courtesy []string
}

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

// element is a parsed pattern part: a word, a slot reference, an optional
// sequence or a group of alternative sequences.
type element struct {
	word string
	slot string
	opt  []element
	alts [][]element
}

type grammarParser struct {
	src string
	pos int
}

func parseGrammarText(text string) ([]element, error) {
	p := grammarParser{src: text}
	seq, err := p.seq(0)
	if err != nil {
		return nil, fmt.Errorf("%q: %w", text, err)
	}
	if p.pos < len(p.src) {
		return nil, fmt.Errorf("%q: unexpected %q at %d", text, p.src[p.pos], p.pos)
	}
	return seq, nil
}

func (p *grammarParser) seq(depth int) ([]element, error) {
	if depth > 16 {
		return nil, fmt.Errorf("groups nested too deeply")
	}
	var out []element
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		switch c {
		case ']', ')', '|':
			return out, nil
		case '[', '(':
			p.pos++
			alts, err := p.alternatives(depth, map[byte]byte{'[': ']', '(': ')'}[c])
			if err != nil {
				return nil, err
			}
			switch {
			case c == '[' && len(alts) == 1:
				out = append(out, element{opt: alts[0]})
			case c == '[':
				// [a | b] is an optional group of alternatives.
				out = append(out, element{opt: []element{{alts: alts}}})
			default:
				out = append(out, element{alts: alts})
			}
		case '{':
			end := strings.IndexByte(p.src[p.pos:], '}')
			if end < 0 {
				return nil, fmt.Errorf("missing }")
			}
			name := strings.TrimSpace(p.src[p.pos+1 : p.pos+end])
			if name == "" {
				return nil, fmt.Errorf("empty slot name")
			}
			out = append(out, element{slot: name})
			p.pos += end + 1
		case '}':
			return nil, fmt.Errorf("unexpected } at %d", p.pos)
		default:
			start := p.pos
			for p.pos < len(p.src) && !strings.ContainsRune(" \t\n[]()|{}", rune(p.src[p.pos])) {
				p.pos++
			}
			if p.pos == start { // whitespace
				p.pos++
				continue
			}
			for _, w := range strings.Fields(normalizeWords(p.src[start:p.pos])) {
				out = append(out, element{word: w})
			}
		}
	}
	return out, nil
}

// alternatives reads "a | b | c" up to and including the closing bracket.
func (p *grammarParser) alternatives(depth int, closing byte) ([][]element, error) {
	var alts [][]element
	for {
		inner, err := p.seq(depth + 1)
		if err != nil {
			return nil, err
		}
		alts = append(alts, inner)
		if p.pos >= len(p.src) {
			return nil, fmt.Errorf("missing %c", closing)
		}
		switch p.src[p.pos] {
		case closing:
			p.pos++
			return alts, nil
		case '|':
			p.pos++
		default:
			return nil, fmt.Errorf("%c where %c was expected at %d", p.src[p.pos], closing, p.pos)
		}
	}
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
	slots   map[string][]string
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
	b := &grammarBuilder{known: known, slots: src.Slots, rules: map[string]string{},
		state: map[string]int{}, bodies: map[string]string{}, words: map[string]bool{}}
	var public []string
	seen := map[string]bool{}
	lang := &language{slots: map[string][][]element{}}
	for name, values := range src.Slots {
		for _, text := range values {
			if seq, err := parseGrammarText(text); err == nil { // a malformed value fails below if used
				lang.slots[name] = append(lang.slots[name], seq)
			}
		}
	}
	for _, text := range src.Patterns {
		seq, err := parseGrammarText(text)
		if err != nil {
			return Grammar{}, fmt.Errorf("pattern %w", err)
		}
		lang.patterns = append(lang.patterns, seq)
		body, ok, err := b.sequence(seq, "pattern "+quote(text))
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
		for _, text := range src.Courtesy {
			seq, err := parseGrammarText(text)
			if err != nil {
				return Grammar{}, fmt.Errorf("courtesy %w", err)
			}
			courtesy.alts = append(courtesy.alts, seq)
		}
		if rule, ok, err := b.sequence([]element{courtesy}, "courtesy"); err == nil && ok {
			b.bodies["courtesy"] = rule
			utterance = "[ <courtesy> ] ( " + utterance + " ) [ <courtesy> ]"
			around := element{opt: []element{courtesy}}
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

// sequence renders seq as JSGF; ok is false when a required part cannot
// be said.
func (b *grammarBuilder) sequence(seq []element, where string) (string, bool, error) {
	var parts []string
	var words []string
	for _, e := range seq {
		switch {
		case e.word != "":
			if !b.known(e.word) {
				b.dropped = append(b.dropped, fmt.Sprintf("%s: word %q is not in the dictionary", where, e.word))
				return "", false, nil
			}
			words = append(words, e.word)
			parts = append(parts, e.word)
		case e.slot != "":
			rule, ok, err := b.slot(e.slot, where)
			if err != nil || !ok {
				return "", false, err
			}
			parts = append(parts, "<"+rule+">")
		case e.opt != nil:
			body, ok, err := b.sequence(e.opt, where)
			if err != nil {
				return "", false, err
			}
			if ok { // an unsayable optional part is simply left out
				parts = append(parts, "[ "+body+" ]")
			}
		default:
			var alts []string
			for _, alt := range e.alts {
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
	for _, v := range values {
		seq, err := parseGrammarText(v)
		if err != nil {
			return "", false, fmt.Errorf("slot {%s} value %w", name, err)
		}
		body, ok, err := b.sequence(seq, fmt.Sprintf("slot {%s} value %q", name, v))
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
		case e.word != "":
			for _, p := range pos {
				if p < len(words) && words[p] == e.word {
					next = append(next, p+1)
				}
			}
		case e.slot != "":
			for _, v := range l.slots[e.slot] {
				next = append(next, l.match(v, pos, words, depth+1)...)
			}
		case e.opt != nil:
			next = append(slices.Clone(pos), l.match(e.opt, pos, words, depth+1)...)
		default:
			for _, alt := range e.alts {
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
