package dialogue

import (
	"fmt"
	"strings"
)

// Pattern is one recognisable phrasing of an intent, in the JSGF subset the
// speech grammar understands: plain words, {slot} references, [optional
// parts] and (alternative one|alternative two) groups.
type Pattern struct {
	Lang, Intent, Text string
}

// alternatives reads "a|b|c" up to closer, which it consumes.
func (p *patternParser) alternatives(closer byte, depth int) ([][]node, error) {
	var alts [][]node
	for {
		inner, err := p.seq(depth + 1)
		if err != nil {
			return nil, err
		}
		if len(inner) == 0 {
			return nil, fmt.Errorf("empty group or alternative")
		}
		alts = append(alts, inner)
		if p.pos >= len(p.src) {
			return nil, fmt.Errorf("missing %c", closer)
		}
		switch p.src[p.pos] {
		case '|':
			p.pos++
		case closer:
			p.pos++
			return alts, nil
		default:
			return nil, fmt.Errorf("missing %c", closer)
		}
	}
}

// node is the parsed form of a pattern or slot alternative.
type node struct {
	kind  nodeKind
	word  string   // nodeWord
	slot  string   // nodeSlot
	items []node   // nodeSeq, nodeOpt (a sequence)
	alts  [][]node // nodeAlt
}

type nodeKind int

const (
	nodeWord nodeKind = iota
	nodeSlot
	nodeOpt
	nodeAlt
)

// parsePattern turns pattern text into a node sequence. It rejects
// unbalanced brackets, empty groups and empty slot names, so a broken data
// file fails at New rather than at the first query.
func parsePattern(text string) ([]node, error) {
	p := patternParser{src: text}
	seq, err := p.seq(0)
	if err != nil {
		return nil, fmt.Errorf("pattern %q: %w", text, err)
	}
	if p.pos < len(p.src) {
		return nil, fmt.Errorf("pattern %q: unexpected %q at %d", text, p.src[p.pos], p.pos)
	}
	if len(seq) == 0 {
		return nil, fmt.Errorf("pattern %q: empty", text)
	}
	return seq, nil
}

type patternParser struct {
	src string
	pos int
}

// seq reads elements until a closing bracket, a '|' or the end.
func (p *patternParser) seq(depth int) ([]node, error) {
	if depth > 8 {
		return nil, fmt.Errorf("groups nested too deeply")
	}
	var out []node
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		switch {
		case c == ' ' || c == '\t':
			p.pos++
		case c == ']' || c == ')' || c == '|':
			return out, nil
		case c == '[' || c == '(':
			p.pos++
			closer := byte(')')
			if c == '[' {
				closer = ']'
			}
			alts, err := p.alternatives(closer, depth)
			if err != nil {
				return nil, err
			}
			group := node{kind: nodeAlt, alts: alts}
			if c == '[' {
				// [a|b] is an optional group of alternatives.
				if len(alts) == 1 {
					group = node{kind: nodeOpt, items: alts[0]}
				} else {
					group = node{kind: nodeOpt, items: []node{group}}
				}
			}
			out = append(out, group)
		case c == '{':
			end := strings.IndexByte(p.src[p.pos:], '}')
			if end < 0 {
				return nil, fmt.Errorf("missing }")
			}
			name := p.src[p.pos+1 : p.pos+end]
			if name == "" || strings.ContainsAny(name, " []()|{") {
				return nil, fmt.Errorf("bad slot name %q", name)
			}
			out = append(out, node{kind: nodeSlot, slot: name})
			p.pos += end + 1
		case c == '}':
			return nil, fmt.Errorf("unexpected }")
		default:
			start := p.pos
			for p.pos < len(p.src) && !strings.ContainsRune(" \t[]()|{}", rune(p.src[p.pos])) {
				p.pos++
			}
			out = append(out, node{kind: nodeWord, word: p.src[start:p.pos]})
		}
	}
	return out, nil
}

// elem is one step of a flattened pattern variant. A word step accepts any
// of its words; optional steps may be skipped at no cost.
type elem struct {
	words     []string   // folded words, for a word step
	phrases   [][]string // folded phrases of several words, also accepted by a word step
	ids       []int32    // words as ids of the language's vocabulary
	phraseID  [][]int32  // phrases as ids
	slot      int        // slot index, -1 for a word step
	optional  bool
	filler    bool // every word of the step is a filler: missing it costs little
	addressee bool // a word of the step points at the assistant ("you"): langFile.Addressee
}

const maxVariants = 256

// flatten expands a node sequence into variants the matcher can walk
// linearly. Single-word alternatives stay one step with several words and
// optional parts become optional steps, so most patterns yield one variant;
// only alternatives of several words multiply.
func flatten(seq []node, slotIndex func(string) (int, error)) ([][]elem, error) {
	variants := [][]elem{nil}
	for _, n := range seq {
		tails, err := flattenNode(n, slotIndex)
		if err != nil {
			return nil, err
		}
		var next [][]elem
		for _, v := range variants {
			for _, t := range tails {
				joined := make([]elem, 0, len(v)+len(t))
				joined = append(joined, v...)
				joined = append(joined, t...)
				next = append(next, joined)
			}
		}
		if len(next) > maxVariants {
			return nil, fmt.Errorf("more than %d variants", maxVariants)
		}
		variants = next
	}
	return variants, nil
}

func flattenNode(n node, slotIndex func(string) (int, error)) ([][]elem, error) {
	switch n.kind {
	case nodeWord:
		return [][]elem{{{words: []string{fold(n.word)}, slot: -1}}}, nil
	case nodeSlot:
		i, err := slotIndex(n.slot)
		if err != nil {
			return nil, err
		}
		return [][]elem{{{slot: i}}}, nil
	case nodeOpt:
		inner, err := flatten(n.items, slotIndex)
		if err != nil {
			return nil, err
		}
		// A group of words, or a lone slot, becomes optional steps. A group
		// that joins words and a slot ("in {place}") is taken whole or not
		// at all, so the slot never appears without its words.
		if len(inner) == 1 && (len(inner[0]) == 1 || !hasSlot(inner[0])) {
			opt := make([]elem, len(inner[0]))
			for i, e := range inner[0] {
				e.optional = true
				opt[i] = e
			}
			return [][]elem{opt}, nil
		}
		return append(inner, nil), nil
	default: // nodeAlt
		// Alternatives made only of words stay one step, so "(show me|find)"
		// does not multiply the variants.
		step := elem{slot: -1}
		plain := true
		for _, a := range n.alts {
			var phrase []string
			for _, x := range a {
				if x.kind != nodeWord {
					plain = false
					break
				}
				phrase = append(phrase, fold(x.word))
			}
			if !plain {
				break
			}
			if len(phrase) == 1 {
				step.words = append(step.words, phrase[0])
			} else {
				step.phrases = append(step.phrases, phrase)
			}
		}
		if plain {
			return [][]elem{{step}}, nil
		}
		var out [][]elem
		for _, a := range n.alts {
			inner, err := flatten(a, slotIndex)
			if err != nil {
				return nil, err
			}
			out = append(out, inner...)
		}
		return out, nil
	}
}

func hasSlot(es []elem) bool {
	for _, e := range es {
		if e.slot >= 0 {
			return true
		}
	}
	return false
}

// expandWords lists every word sequence a node sequence can produce, used
// for closed slots (whose alternatives may reference other closed slots).
// limit bounds the expansion so a careless data file cannot explode.
func expandWords(seq []node, slotAlts func(string) ([][]node, error), limit, depth int) ([]string, error) {
	if depth > 6 {
		return nil, fmt.Errorf("slot references nested too deeply")
	}
	out := []string{""}
	for _, n := range seq {
		var tails []string
		switch n.kind {
		case nodeWord:
			tails = []string{fold(n.word)}
		case nodeSlot:
			alts, err := slotAlts(n.slot)
			if err != nil {
				return nil, err
			}
			for _, a := range alts {
				t, err := expandWords(a, slotAlts, limit, depth+1)
				if err != nil {
					return nil, err
				}
				tails = append(tails, t...)
			}
		case nodeOpt:
			t, err := expandWords(n.items, slotAlts, limit, depth+1)
			if err != nil {
				return nil, err
			}
			tails = append(t, "")
		case nodeAlt:
			for _, a := range n.alts {
				t, err := expandWords(a, slotAlts, limit, depth+1)
				if err != nil {
					return nil, err
				}
				tails = append(tails, t...)
			}
		}
		var next []string
		for _, o := range out {
			for _, t := range tails {
				switch {
				case o == "":
					next = append(next, t)
				case t == "":
					next = append(next, o)
				default:
					next = append(next, o+" "+t)
				}
			}
		}
		if len(next) > limit {
			return nil, fmt.Errorf("slot expands to more than %d phrases", limit)
		}
		out = next
	}
	return out, nil
}
