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

// maxRequests is the most requests read in one query.
const maxRequests = 3

// requests splits toks at the words that join one request to the next,
// with two words at least before each joiner ("the tv" of "turn on the
// lights and the tv" may be one); nil when there is one part.
func (m *langModel) requests(toks []token) (parts [][]token, at []int) {
	from := 0
	for k := 2; k < len(toks)-1 && len(parts) < maxRequests-1; k++ {
		if k-from < 2 {
			continue
		}
		if n := wordsIn(toks[k:], requestJoiners[m.lang]); n > 0 {
			parts, at = append(parts, toks[from:k]), append(at, k)
			from = k + n
			k = from
		}
	}
	if parts == nil {
		return nil, nil
	}
	return append(parts, toks[from:]), at
}

// several answers a query that says two or three requests, each of which
// reads whole on its own, led by a word of its pattern, and is answered
// with nothing left to ask but for one of them. whole is the reading of the whole query: one
// that carries a later request in a message or a title keeps it ("remind
// me to buy milk and call mom", "text mom I'm late and call her later"),
// and so does one that reads every word, unless a name or a place runs
// over a joiner ("navigate to boston and play some music").
func (t *turn) several(whole match, wholeOK bool) (reply, bool) {
	parts, at := t.m.requests(t.toks)
	if parts == nil || wholeOK && (t.carriesFrom(whole, at[0]) || whole.skipped == 0 && !t.m.openAcross(whole, at)) {
		// one request: its message or title says the others, or it
		// reads every word with the joiner inside a value ("a timer for
		// an hour and a half")
		return reply{}, false
	}
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
		if !clean(mt, ok) && i > 0 && switches[prev.intent] {
			// "turn off the lights and the tv": the words of the one
			// before, up to what it switches, go for this one too.
			if said, alt, found := t.m.sharing(parts[i-1], prev, p); found {
				parts[i], mt, ok = said, alt, true
			}
		}
		if !clean(mt, ok) || i > 0 && prev.intent == "SET_ALARM" && mt.intent == "SET_ALARM" {
			// (several alarms asked at once are one answer's: alarms.go)
			return reply{}, false
		}
		prev = mt
	}
	replies := make([]reply, len(parts))
	var read *match
	var before map[string]slotVal // "call john and tell him I'm late"
	var cost float32
	for i, p := range parts {
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
// a question waiting for a yes, a list, and what the last asks for.
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
// prev read as mt ("turn off the" + "tv"): the most of them that read
// as the same request, keeping every value those words gave it ("off").
func (m *langModel) sharing(prev []token, mt match, part []token) ([]token, match, bool) {
	for n := len(prev) - 1; n > 0; n-- {
		said := append(slices.Clone(prev[:n]), part...)
		alt, ok := m.understand(said)
		if !ok || alt.skipped > 0 || alt.intent != mt.intent {
			continue
		}
		kept := true
		for name, v := range mt.slots {
			a, has := alt.slots[name]
			kept = kept && has && (v.end > n || a.text == v.text)
		}
		if kept {
			return said, alt, true
		}
	}
	return nil, match{}, false
}

// openAcross reports whether a name, a place or other open value of mt
// runs over one of the joiners at.
func (m *langModel) openAcross(mt match, at []int) bool {
	for name, v := range mt.slots {
		i, ok := m.slotIndex[name]
		if ok && m.slots[i].kind == slotOpen && slices.ContainsFunc(at, func(k int) bool { return v.start < k && k < v.end }) {
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
		case w == "another" || w == "otra" || w == "otro":
			article := map[string]string{"another": "a", "otra": "una", "otro": "un"}[w]
			words, found = append(words, article), true
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
