package dialogue

import (
	"cmp"
	"slices"
	"strings"
)

// Several requests in one go ("set an alarm for 7 and call mom", "turn
// off the lights and set an alarm for 6", "apaga las luces y pon
// música"): the best reading of the whole took one of them and dropped
// the others, or read both as one ("turn off ... alarm for 6" deleted an
// alarm, "navigate to boston and play some music" went to a place called
// so). Each is answered as if said alone, and the answer does all of
// them, its actions in the order said (nextActions is a list, DECISIONS
// §5).

// requestJoiners join one request to the next, the longest first.
var requestJoiners = map[string][][]string{
	"en": {{"and", "then"}, {"and", "also"}, {"and"}, {"then"}},
	"es": {{"y", "luego"}, {"y", "despues"}, {"y", "tambien"}, {"y"}, {"e"}, {"luego"}},
}

// switches are the requests whose verb a second one may share ("turn
// on the lights and the tv", "activa el wifi y el bluetooth").
var switches = map[string]bool{"POWER": true, "ACTIVATE": true, "DEACTIVATE": true}

// switchedTo is the state a switch's reading asks for: "on" or "off".
func switchedTo(mt match) string {
	switch mt.intent {
	case "ACTIVATE":
		return "on"
	case "DEACTIVATE":
		return "off"
	}
	return mt.slots["onoff"].text
}

// maxJoiners is the most joiners tried as places to split a query.
const maxJoiners = 4

// joiner is where a word joining one request to the next stands, and how
// many words it has.
type joiner struct{ at, n int }

// joiners gives the words that may join one request to the next, with
// two words at least before each ("the tv" of "turn on the lights and
// the tv" may be a request).
func (m *langModel) joiners(toks []token) []joiner {
	var out []joiner
	for k := 2; k < len(toks)-1 && len(out) < maxJoiners; k++ {
		if n := wordsIn(toks[k:], requestJoiners[m.lang]); n > 0 {
			out = append(out, joiner{k, n})
			k += n
		}
	}
	return out
}

// splits gives the ways to split toks at its joiners into two or three
// parts of two words or more before each joiner, the most parts first:
// "pon la alarma a las 7 y media y apaga las luces" splits at its second
// "y" once the first has failed.
func splits(toks []token, js []joiner) [][][]token {
	var out [][][]token
	cut := func(chosen ...joiner) {
		var parts [][]token
		from := 0
		for _, j := range chosen {
			if j.at-from < 2 {
				return
			}
			parts = append(parts, toks[from:j.at])
			from = j.at + j.n
		}
		out = append(out, append(parts, toks[from:]))
	}
	for a := range js {
		for b := a + 1; b < len(js); b++ {
			cut(js[a], js[b])
		}
	}
	for _, j := range js {
		cut(j)
	}
	return out
}

// several answers a query that says two or three requests, each of which
// reads whole on its own, led by a word of its pattern, and is answered
// with nothing left to ask but for one of them. whole is the reading of
// the whole query: one that carries a later request in a message or a
// title keeps it ("remind me to buy milk and call mom", "text mom I'm
// late and call her later"), and so does one that reads every word at
// no more cost than the parts, unless a name or a place runs over a
// joiner ("navigate to boston and play some music"; "a timer for an hour
// and a half" is one, "dime el tiempo y las noticias" two, the news
// read with three words inserted).
func (t *turn) several(whole match, wholeOK bool) (reply, bool) {
	js := t.m.joiners(t.toks)
	if js == nil || wholeOK && t.m.across(whole, js, func(s *slotDef) bool { return s.verbatim }) {
		return reply{}, false
	}
	one := wholeOK && whole.skipped == 0 && !t.m.across(whole, js, func(s *slotDef) bool { return s.kind == slotOpen })
	for _, parts := range splits(t.toks, js) {
		if cost, ok := t.readApart(parts); !ok || one && whole.cost <= cost {
			continue
		}
		if r, ok := t.answerApart(parts); ok {
			return r, true
		}
	}
	return reply{}, false
}

// readApart reports whether every part reads whole on its own as a
// request, led by a word of its pattern, and what their readings cost; a
// part may take words from the one before (the thing it refers back to,
// the verb it shares), which it then holds.
func (t *turn) readApart(parts [][]token) (float32, bool) {
	var cost float32
	clean := func(mt match, ok bool) bool {
		return ok && mt.skipped == 0 && mt.literals > 0 && !social[mt.intent] && mt.intent != "cancel"
	}
	var prev match
	for i, p := range parts {
		mt, ok := t.m.understand(p)
		if i > 0 {
			// "cancel my alarm and set a new one for 8", "quita la alarma
			// y pon otra a las 8" (which read as a song): the thing of
			// the one before, said again
			if said := t.m.referredBack(p, prev.intent); said != nil {
				if alt, altOK := t.m.understand(said); clean(alt, altOK) {
					parts[i], mt, ok = said, alt, true
				}
			}
		}
		if (!clean(mt, ok) || switches[mt.intent]) && i > 0 && switches[prev.intent] {
			// "turn off the lights and the tv": the words of the one
			// before, up to what it switches, go for this one too ("and
			// wifi" alone would switch it on).
			if said, alt, found := t.m.sharing(parts[i-1], prev, p); found {
				parts[i], mt, ok = said, alt, true
			}
		}
		if !clean(mt, ok) || i > 0 && prev.intent == "SET_ALARM" && mt.intent == "SET_ALARM" {
			// (several alarms asked at once are one answer's: alarms.go)
			return 0, false
		}
		prev, cost = mt, cost+mt.cost
	}
	return cost, true
}

// answerApart answers each part as if said alone and joins the answers;
// false when one is not understood after all, or more than one asks.
func (t *turn) answerApart(parts [][]token) (reply, bool) {
	replies := make([]reply, len(parts))
	var read *match
	var before map[string]slotVal // "call john and tell him I'm late"
	var cost float32
	for i, p := range parts {
		if i > 0 {
			// "wake me up at 6 tomorrow and remind me to call the bank at
			// 9": a clock said with no day is on the day said before
			p = t.m.withDayOf(parts[i-1], p)
		}
		sub := *t
		sub.toks, sub.read, sub.alone = p, nil, true
		if before != nil {
			sub.before = before
		}
		replies[i] = sub.fresh()
		if r := replies[i]; r.intent == "fallback" || r.ask != "" && slices.ContainsFunc(replies[:i], asks) {
			// one may ask for what it lacks ("call mom and then text
			// dad": what should the text say?), and the conversation goes
			// on with it
			return reply{}, false
		}
		if sub.read != nil {
			before = sub.read.slots
			cost += sub.read.cost
			if read == nil {
				read = sub.read
			}
		}
	}
	if lists := slices.IndexFunc(replies, hasList); lists >= 0 && slices.ContainsFunc(replies[lists+1:], hasList) {
		return reply{}, false // two lists under one answer would read as one
	}
	t.read, t.requests, t.requestsCost = read, parts, cost
	all := reply{intent: replies[0].intent}
	if i := slices.IndexFunc(replies, asks); i >= 0 {
		all = reply{intent: replies[i].intent, ask: replies[i].ask, slots: replies[i].slots, asks: replies[i].asks}
	}
	for _, r := range replies {
		all.actions = append(all.actions, r.actions...)
	}
	// Said in the order asked, except that a question waiting for a yes,
	// a list and a question to answer come last, where the client shows
	// them.
	slices.SortStableFunc(replies, func(a, b reply) int { return cmp.Compare(lastness(a), lastness(b)) })
	var text, speech []string
	for _, r := range replies {
		text, speech = append(text, r.text), append(speech, r.speech)
		all.items, all.itemsSpeech = append(all.items, r.items...), append(all.itemsSpeech, r.itemsSpeech...)
	}
	all.text, all.speech = strings.Join(text, " "), strings.Join(speech, " ")
	return all, true
}

// lastness orders the answers of several requests: statements first, then
// a question waiting for a yes, a list, and a question to answer.
func lastness(r reply) int {
	switch {
	case asks(r):
		return 3
	case hasList(r):
		return 2
	case strings.HasSuffix(r.text, "?"):
		return 1
	}
	return 0
}

func hasList(r reply) bool { return len(r.items) > 0 }

func asks(r reply) bool { return r.ask != "" }

// sharing reads part with the first words of the request before it,
// prev read as mt ("turn off the" + "tv", "apaga" + "el wifi"): the most
// of them that read as a switch the same way (off), keeping every value
// those words gave both.
func (m *langModel) sharing(prev []token, mt match, part []token) ([]token, match, bool) {
	for n := len(prev) - 1; n > 0; n-- {
		// (words of their own: a span of them reads as what it says)
		said := tokenize(joinOrig(prev[:n]) + " " + joinOrig(part))
		alt, ok := m.understand(said)
		if !ok || alt.skipped > 0 || !switches[alt.intent] || switchedTo(alt) != switchedTo(mt) {
			continue
		}
		kept := true
		for name, v := range mt.slots {
			if a, has := alt.slots[name]; has && v.end <= n && a.text != v.text {
				kept = false
			}
		}
		if kept {
			return said, alt, true
		}
	}
	return nil, match{}, false
}

// across reports whether a value of mt in a slot of the kind asked (a
// message or title; any name, place or other open value) runs over one
// of the joiners.
func (m *langModel) across(mt match, js []joiner, kind func(*slotDef) bool) bool {
	for name, v := range mt.slots {
		i, ok := m.slotIndex[name]
		if ok && kind(m.slots[i]) && slices.ContainsFunc(js, func(j joiner) bool { return v.start < j.at && j.at < v.end }) {
			return true
		}
	}
	return false
}

// kinds name the thing of a request, which a later one may refer back to
// ("another", "a new one", "otra").
var kinds = map[string]map[string]string{
	"en": {"SET_ALARM": "alarm", "DELETE_ALARM": "alarm", "SET_TIMER": "timer", "DELETE_TIMER": "timer"},
	"es": {"SET_ALARM": "alarma", "DELETE_ALARM": "alarma", "SET_TIMER": "temporizador", "DELETE_TIMER": "temporizador"},
}

// referringArticles are the words that refer back to a thing ("set
// another"), with the article that says it again ("set a timer").
var referringArticles = map[string]string{"another": "a", "otra": "una", "otro": "un"}

// referredBack gives part with the thing of the request before, read as
// intent, said where part refers back to it: "another" is "a timer",
// "a new one" "a new alarm", "otra" "una alarma"; nil when part does not.
func (m *langModel) referredBack(part []token, intent string) []token {
	kind := kinds[m.lang][intent]
	if kind == "" {
		return nil
	}
	var words []string
	found := false
	for i, tok := range part {
		next := ""
		if i+1 < len(part) {
			next = part[i+1].norm
		}
		switch w := tok.norm; {
		case referringArticles[w] != "":
			words, found = append(words, referringArticles[w]), true
			if next != kind {
				words = append(words, kind)
			}
		case w == "one" && i > 0 && (part[i-1].norm == "a" || part[i-1].norm == "new" || part[i-1].norm == "the"):
			words, found = append(words, kind), true
		default:
			words = append(words, tok.orig)
		}
	}
	if !found {
		return nil
	}
	return tokenize(strings.Join(words, " "))
}

// withDayOf gives part with the day the part before it names ("tomorrow",
// "el lunes") when part says a clock and no day of its own; part as it is
// otherwise.
func (m *langModel) withDayOf(before, part []token) []token {
	clock := false
	for j := range part {
		w, n := m.parseWhen(part[j:])
		if n > 0 && w.day != dayNone {
			return part
		}
		clock = clock || n > 0 && w.hasClock && !w.hasRel
	}
	if !clock {
		return part
	}
	for j := range before {
		for n := 1; n <= 3 && j+n <= len(before); n++ {
			if w, read := m.parseWhen(before[j : j+n]); read == n && w.day != dayNone && !w.hasClock && !w.hasRel {
				return tokenize(joinOrig(part) + " " + joinOrig(before[j:j+n]))
			}
		}
	}
	return part
}
