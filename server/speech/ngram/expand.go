package ngram

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/harkhq/hark/server/dialogue"
)

type node = dialogue.Node

// weighted is one expansion of a pattern with its probability under the
// random walk that picks every alternative of a group or slot with equal
// probability and takes an optional part with probability optionalProb.
type weighted struct {
	words []string
	p     float64
}

// optionalProb is the chance an [optional] part is said. One half: the
// pattern language gives no reason to prefer either reading.
const optionalProb = 0.5

// pruner drops the parts of a spec that cannot be said: a word the
// dictionary lacks, an undefined, empty or recursive slot. It keeps the
// smallest enclosing alternative, optional part, slot value or pattern
// out, as speech.BuildGrammar does for the JSGF grammar, so both models
// describe the same language.
type pruner struct {
	known   func(string) bool
	raw     map[string][][]node
	slots   map[string][][]node // pruned values of usable slots
	state   map[string]int      // 0 unseen, 1 in progress, 2 done
	dropped []string
}

func (p *pruner) seq(seq []node, where string) ([]node, bool) {
	var out []node
	for _, e := range seq {
		switch {
		case e.Word != "":
			if p.known != nil && !p.known(e.Word) {
				p.dropped = append(p.dropped, fmt.Sprintf("%s: word %q is not in the dictionary", where, e.Word))
				return nil, false
			}
			out = append(out, e)
		case e.Slot != "":
			if !p.slot(e.Slot, where) {
				return nil, false
			}
			out = append(out, e)
		case e.Optional != nil:
			if o, ok := p.seq(e.Optional, where); ok {
				out = append(out, node{Optional: o})
			}
		default:
			var alts [][]node
			for _, a := range e.Alts {
				if len(a) == 0 {
					alts = append(alts, nil)
					continue
				}
				if s, ok := p.seq(a, where); ok {
					alts = append(alts, s)
				}
			}
			if len(alts) == 0 {
				return nil, false
			}
			out = append(out, node{Alts: alts})
		}
	}
	return out, len(out) > 0
}

func (p *pruner) slot(name, where string) bool {
	switch p.state[name] {
	case 1:
		p.dropped = append(p.dropped, fmt.Sprintf("%s: slot {%s} refers to itself", where, name))
		return false
	case 2:
		_, ok := p.slots[name]
		return ok
	}
	values, defined := p.raw[name]
	p.state[name] = 1
	var kept [][]node
	for _, v := range values {
		if s, ok := p.seq(v, fmt.Sprintf("slot {%s}", name)); ok {
			kept = append(kept, s)
		}
	}
	p.state[name] = 2
	switch {
	case !defined:
		p.dropped = append(p.dropped, fmt.Sprintf("%s: slot {%s} is not defined", where, name))
		return false
	case len(kept) == 0:
		p.dropped = append(p.dropped, fmt.Sprintf("%s: slot {%s} has no sayable value", where, name))
		return false
	}
	p.slots[name] = kept
	return true
}

// walker expands pruned sequences.
type walker struct {
	slots map[string][][]node
}

// count is the number of distinct paths through seq, saturating at limit
// so a huge product does not overflow.
func (w *walker) count(seq []node, limit float64) float64 {
	n := 1.0
	for _, e := range seq {
		var k float64
		switch {
		case e.Word != "":
			k = 1
		case e.Slot != "":
			for _, v := range w.slots[e.Slot] {
				k += w.count(v, limit)
			}
		case e.Optional != nil:
			k = 1 + w.count(e.Optional, limit)
		default:
			for _, a := range e.Alts {
				k += w.count(a, limit)
			}
		}
		n = min(n*k, limit)
	}
	return n
}

// enumerate lists every path through seq with its walk probability.
func (w *walker) enumerate(seq []node) []weighted {
	out := []weighted{{p: 1}}
	for _, e := range seq {
		var choices []weighted
		switch {
		case e.Word != "":
			choices = []weighted{{words: []string{e.Word}, p: 1}}
		case e.Slot != "":
			choices = w.union(w.slots[e.Slot])
		case e.Optional != nil:
			choices = append([]weighted{{p: 1 - optionalProb}}, scale(w.enumerate(e.Optional), optionalProb)...)
		default:
			choices = w.union(e.Alts)
		}
		next := make([]weighted, 0, len(out)*len(choices))
		for _, a := range out {
			for _, b := range choices {
				next = append(next, weighted{words: append(slices.Clip(a.words), b.words...), p: a.p * b.p})
			}
		}
		out = next
	}
	return out
}

func (w *walker) union(alts [][]node) []weighted {
	var out []weighted
	for _, a := range alts {
		out = append(out, scale(w.enumerate(a), 1/float64(len(alts)))...)
	}
	return out
}

func scale(ws []weighted, f float64) []weighted {
	for i := range ws {
		ws[i].p *= f
	}
	return ws
}

// sample appends the words of one random walk through seq.
func (w *walker) sample(dst []string, seq []node, rng *rand.Rand) []string {
	for _, e := range seq {
		switch {
		case e.Word != "":
			dst = append(dst, e.Word)
		case e.Slot != "":
			v := w.slots[e.Slot]
			dst = w.sample(dst, v[rng.IntN(len(v))], rng)
		case e.Optional != nil:
			if rng.Float64() < optionalProb {
				dst = w.sample(dst, e.Optional, rng)
			}
		default:
			dst = w.sample(dst, e.Alts[rng.IntN(len(e.Alts))], rng)
		}
	}
	return dst
}
