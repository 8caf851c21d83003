package dialogue

import "fmt"

// Node is one element of the pattern language, parsed: exactly one of a
// word, a {slot} reference, an [optional] sequence or a (one|two) group of
// alternative sequences. It is what the speech grammar is built from, so
// the language has one parser: this package's.
type Node struct {
	Word     string
	Slot     string
	Optional []Node
	Alts     [][]Node
}

// ParsePattern parses one pattern or slot alternative ("set [an] alarm
// (for|at) {time}"). Unbalanced brackets, empty groups and bad slot names
// are errors.
func ParsePattern(text string) ([]Node, error) {
	seq, err := parsePattern(text)
	if err != nil {
		return nil, err
	}
	return exportNodes(seq), nil
}

func exportNodes(seq []node) []Node {
	out := make([]Node, len(seq))
	for i, n := range seq {
		switch n.kind {
		case nodeWord:
			out[i] = Node{Word: n.word}
		case nodeSlot:
			out[i] = Node{Slot: n.slot}
		case nodeOpt:
			out[i] = Node{Optional: exportNodes(n.items)}
		case nodeAlt:
			alts := make([][]Node, len(n.alts))
			for j, a := range n.alts {
				alts[j] = exportNodes(a)
			}
			out[i] = Node{Alts: alts}
		}
	}
	return out
}

// GrammarSpec is a language's recognisable phrasings, parsed: the
// patterns, every slot's alternatives (which may reference other slots)
// the courtesy phrases a speaker may say around any pattern, and the
// openers a speaker may say before one.
type GrammarSpec struct {
	Patterns [][]Node
	Slots    map[string][][]Node
	Courtesy [][]Node
	Openers  [][]Node `json:",omitempty"`
}

// ParseGrammar parses texts into a GrammarSpec (for grammars that do not
// come from the language files, such as tests').
func ParseGrammar(patterns []string, slots map[string][]string, courtesy []string) (GrammarSpec, error) {
	spec := GrammarSpec{Slots: map[string][][]Node{}}
	for _, p := range patterns {
		seq, err := ParsePattern(p)
		if err != nil {
			return GrammarSpec{}, err
		}
		spec.Patterns = append(spec.Patterns, seq)
	}
	for name, alts := range slots {
		for _, a := range alts {
			seq, err := ParsePattern(a)
			if err != nil {
				return GrammarSpec{}, fmt.Errorf("slot {%s}: %w", name, err)
			}
			spec.Slots[name] = append(spec.Slots[name], seq)
		}
	}
	for _, c := range courtesy {
		seq, err := ParsePattern(c)
		if err != nil {
			return GrammarSpec{}, fmt.Errorf("courtesy: %w", err)
		}
		spec.Courtesy = append(spec.Courtesy, seq)
	}
	return spec, nil
}

// GrammarSpecOf is the parsed grammar of one language ("en", "es") as the
// language file gives it; unknown languages yield an empty spec.
func GrammarSpecOf(lang string) GrammarSpec {
	ms, err := loadModels()
	if err != nil || ms[lang] == nil {
		return GrammarSpec{Slots: map[string][][]Node{}}
	}
	return ms[lang].spec()
}

// GrammarSpec is GrammarSpecOf with the music library's titles and
// artists as alternatives of the song and artist slots, and the apps'
// names (apps.json) of the app slot, so a recogniser can hear them.
func (e *Engine) GrammarSpec(lang string) GrammarSpec {
	spec := GrammarSpecOf(lang)
	if len(spec.Patterns) == 0 {
		return spec
	}
	for _, add := range e.libraryPhrases() {
		var seq []Node
		for _, w := range add.words {
			seq = append(seq, Node{Word: w})
		}
		spec.Slots[add.slot] = append(spec.Slots[add.slot], seq)
	}
	return spec
}

func (m *langModel) spec() GrammarSpec {
	spec := GrammarSpec{Slots: make(map[string][][]Node, len(m.parsedSlots))}
	for i, seq := range m.parsedPatterns {
		if i < len(m.typedOnly) && m.typedOnly[i] {
			continue
		}
		spec.Patterns = append(spec.Patterns, exportNodes(seq))
	}
	for name, alts := range m.parsedSlots {
		for _, seq := range alts {
			spec.Slots[name] = append(spec.Slots[name], exportNodes(seq))
		}
	}
	for _, seq := range m.parsedCourtesy {
		spec.Courtesy = append(spec.Courtesy, exportNodes(seq))
	}
	for _, seq := range m.parsedOpeners {
		spec.Openers = append(spec.Openers, exportNodes(seq))
	}
	return spec
}
