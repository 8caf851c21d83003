package dialogue

import (
	"math"
	"slices"
	"sort"
	"strings"
	"time"
)

// slotVal is the value a slot took in a query.
type slotVal struct {
	text string // canonical value of a closed slot, words of an open one, raw words of a typed one
	// start and end are the token span the value came from.
	start, end int
	num        int
	when       whenExpr
	dur        time.Duration
}

type cand struct {
	end  int
	val  slotVal
	typo float32 // cost of the corrected words it reads
}

// match is the best reading of a query.
type match struct {
	intent   string
	cost     float32
	literals int
	// optional counts the optional words of the pattern the query says
	// ("app" in "open the maps app"): not enough to anchor a pattern,
	// but evidence that a second reading is the right one.
	optional int
	slots    map[string]slotVal
	variant  int32 // ties between equal readings go to the earlier pattern
	// skipped counts the query's words, fillers aside, that the pattern
	// left unread.
	skipped int
	// rule names the reading when no pattern made it (a bare song title,
	// a title and a time); explain shows it in place of a pattern.
	rule string
}

// Costs of the alignment between a pattern and a query. The matcher is an
// edit distance: extra words in the query and missing words of the pattern
// cost something, fillers little, so free text still finds its pattern
// while the closest pattern wins.
const (
	costSkipWord   = 1.0
	costSkipFiller = 0.35
	costSkipAside  = 0.5
	costMissWord   = 1.6
	costMissFiller = 0.5
	costMissSlot   = 1.1
	costOpenWord   = 0.15
	costShortWord  = 0.3
	// Words matched by the pattern itself earn a little, so a pattern
	// that names "chronometer" beats one whose open slot swallows it.
	rewardWord = -0.1
	rewardSlot = -0.3
	// boundSlack keeps the column bound of align from cutting an
	// alignment whose float32 sums round a little differently.
	boundSlack = 0.05
)

// queryCtx holds one query and the slot candidates found in it, computed
// once per (slot, position) and shared by every pattern tried.
type queryCtx struct {
	m    *langModel
	toks []token
	ids  []int32   // vocabulary id of each token, -1 when no pattern has it
	skip []float32 // cost of skipping each token
	// asideFrom is where an aside starts (len(toks) when none does).
	asideFrom int
	typo      []float32 // extra cost of reading each token as its correction
	has       map[int32]bool
	// addressed tells whether the query says a word that points at the
	// assistant (langFile.Addressee).
	addressed bool
	// aside and filler tell, per token, whether the language lists its
	// word among the asides and the fillers (the alignment asks at every
	// step).
	aside, filler []bool
	// titled tells whether a token is a person's title said bare, before
	// a name ("Doctor Patel", not "the doctor").
	titled []bool
	// cands and done hold the candidates of each slot at each position,
	// allocated for a slot when it is first asked for; reach is the most
	// words a typed slot's value spans anywhere in the query (-1 until
	// known).
	cands [][][]cand
	done  [][]bool
	reach []int
	// skipSums[k] is the least it costs to skip any k of the tokens.
	skipSums []float32
	// exhaustive turns off the bounds of skipBound and of align's columns,
	// and positions counts the query positions aligned: tests check with
	// them that the bounds save work and change no reading.
	exhaustive bool
	positions  int
	// buffers of the alignment, reused from pattern to pattern
	cost []float32
	back []int32
	act  []uint8
	cidx []int16
	// jumpIn is the cheapest cost relaxed into each query position by a
	// step that reads several words at once (a phrase, a typed value).
	jumpIn []float32
}

func newQueryCtx(m *langModel, toks []token) *queryCtx {
	q := &queryCtx{m: m, toks: toks, cands: make([][][]cand, len(m.slots)), done: make([][]bool, len(m.slots)),
		reach: make([]int, len(m.slots)),
		ids:   make([]int32, len(toks)), skip: make([]float32, len(toks)), has: make(map[int32]bool, len(toks)),
		typo: make([]float32, len(toks)), aside: make([]bool, len(toks)), filler: make([]bool, len(toks)),
		titled: make([]bool, len(toks))}
	for k := range q.reach {
		q.reach[k] = -1
	}
	for j, t := range toks {
		q.aside[j], q.filler[j] = m.asides[t.norm], m.fillers[t.norm]
		q.titled[j] = honorifics[t.norm] && (j == 0 || !articles[toks[j-1].norm] && !possessives[toks[j-1].norm])
		if t.typo != "" {
			q.typo[j] = costTypo
		}
		// the "you" of "can you …" asks the assistant to do something,
		// and says nothing of what the query is about
		q.addressed = q.addressed || m.addressee[t.norm] && !(j == 1 && askedPolitely(toks))
		q.ids[j] = -1
		if id, ok := m.vocab[t.norm]; ok {
			q.ids[j] = id
			q.has[id] = true
		}
		q.skip[j] = costSkipWord
		// a word corrected into a filler ("mat" read as "mate") is still
		// the word typed: skipping it would cut it from a message
		if m.fillers[t.norm] && t.typo == "" {
			q.skip[j] = costSkipFiller
		}
	}
	// An aside ("…because my ramen", "call jake i locked myself out")
	// costs a reading little: from the first word that opens a clause
	// after a word of the request, to the end. A message still takes such
	// words, even mistyped, at a lower cost ("txt anna i'm lte").
	// A filler before the word keeps it in the request ("can i get"),
	// unless it is the "please" that closes one ("read me the headlines
	// please i've missed the paper").
	q.asideFrom = len(toks)
	request := false
	for j := 1; j < len(toks); j++ {
		prev := toks[j-1].norm
		opens := !m.fillers[prev] || m.courtesyEnds[prev] && request
		request = request || !m.fillers[prev]
		if m.asides[toks[j].norm] && opens && !q.startsName(j) {
			q.asideFrom = j
			for k := j; k < len(toks); k++ {
				q.skip[k] = min(q.skip[k], costSkipAside)
			}
			break
		}
	}
	return q
}

// lowerBound is a cost no alignment of v can go below: each required word
// absent from the query must be missed, and each anchor earns at most its
// reward. ok is false when too few anchors can match for the pattern to be
// accepted at all.
func (q *queryCtx) lowerBound(v *variant) (float32, bool) {
	absent := 0
	for _, k := range v.required {
		found := false
		for _, id := range v.elems[k].ids {
			if q.has[id] {
				found = true
				break
			}
		}
		if !found {
			absent++
		}
	}
	if absent*2 > v.anchors {
		// accepted alignments miss at most as many words as they match
		return 0, false
	}
	return float32(absent)*costMissWord + float32(v.anchors-absent)*rewardSlot, true
}

func (q *queryCtx) slotCands(slot, j int) []cand {
	slot = q.m.slots[slot].parsed
	if q.done[slot] == nil {
		q.done[slot] = make([]bool, len(q.toks)+1)
		q.cands[slot] = make([][]cand, len(q.toks)+1)
	}
	if q.done[slot][j] {
		return q.cands[slot][j]
	}
	q.done[slot][j] = true
	def := q.m.slots[slot]
	rest := q.toks[j:]
	var out []cand
	switch def.kind {
	case slotClosed:
		var b strings.Builder
		for l := 1; l <= def.maxLen && l <= len(rest); l++ {
			if l > 1 {
				b.WriteByte(' ')
			}
			b.WriteString(rest[l-1].norm)
			if v, ok := def.values[b.String()]; ok {
				out = append(out, cand{end: j + l, val: slotVal{text: v}, typo: q.typoCost(j, j+l)})
			}
		}
	case slotTyped:
		if def.typ == "time" && j > 0 && rangeOpeners[q.toks[j-1].norm] {
			// "from 6 to 7 pm" is a range, not six minutes to seven.
			for k := 1; k < len(rest); k++ {
				if role, _ := q.m.timeWords.match(rest[k:]); role == roleTo {
					rest = rest[:k]
					break
				}
			}
		}
		if v, n := q.m.parseTyped(def.typ, rest); n > 0 {
			out = append(out, cand{end: j + n, val: v, typo: q.typoCost(j, j+n)})
		}
	}
	q.cands[slot][j] = out
	return out
}

// typedReach is the most words a value of a typed slot spans anywhere in
// the query.
func (q *queryCtx) typedReach(slot int) int {
	slot = q.m.slots[slot].parsed
	if q.reach[slot] < 0 {
		q.reach[slot] = 0
		for j := range q.toks {
			for _, c := range q.slotCands(slot, j) {
				q.reach[slot] = max(q.reach[slot], c.end-j)
			}
		}
	}
	return q.reach[slot]
}

// skipBound is a cost no alignment of v can go below for the words of
// the query its steps cannot read: a pattern without an open slot reads
// at most one word or phrase per step, a closed value or a typed one per
// slot, and must skip the rest. On a long query that is most of it, so
// such a pattern is cut before it is aligned once a reading with an open
// slot (a message, a title) is cheaper.
func (q *queryCtx) skipBound(v *variant) float32 {
	reads := 0
	for i := range v.elems {
		e := &v.elems[i]
		switch {
		case e.slot < 0:
			longest := 0
			if len(e.ids) > 0 {
				longest = 1
			}
			for _, ph := range e.phraseID {
				longest = max(longest, len(ph))
			}
			reads += longest
		case q.m.slots[e.slot].kind == slotOpen:
			return float32(math.Inf(-1))
		case q.m.slots[e.slot].kind == slotClosed:
			reads += q.m.slots[e.slot].maxLen
		default:
			reads += q.typedReach(e.slot)
		}
		if reads >= len(q.toks) {
			return float32(math.Inf(-1))
		}
	}
	if q.skipSums == nil {
		costs := append([]float32(nil), q.skip...)
		slices.Sort(costs)
		q.skipSums = make([]float32, len(costs)+1)
		for k, c := range costs {
			q.skipSums[k+1] = q.skipSums[k] + c
		}
	}
	return q.skipSums[len(q.toks)-reads] + float32(len(v.elems))*rewardSlot
}

// parseTyped runs the parser of a typed slot at rest[0].
func (m *langModel) parseTyped(typ string, rest []token) (slotVal, int) {
	var v slotVal
	n := 0
	switch typ {
	case "time":
		v.when, n = m.parseWhen(rest)
	case "duration":
		v.dur, n = m.parseDuration(rest)
	case "number":
		v.num, n = m.parseNumber(rest)
	case "phone":
		v.text, n = m.parsePhone(rest)
	case "url":
		v.text, n = m.parseURL(rest)
	case "email":
		v.text, n = m.parseEmail(rest)
	}
	if n > 0 && v.text == "" {
		v.text = joinOrig(rest[:n])
	}
	return v, n
}

// understand finds the intent whose pattern reads the query best, or
// returns ok == false when nothing fits.
func (m *langModel) understand(toks []token) (match, bool) {
	return m.understandExcept(toks, "")
}

// understandExcept is understand with the patterns of one intent left
// out, for a second reading.
func (m *langModel) understandExcept(toks []token, except string) (match, bool) {
	return newQueryCtx(m, toks).best(except)
}

// best is the cheapest reading of the query by a pattern of any intent
// but except.
func (q *queryCtx) best(except string) (match, bool) {
	m, toks := q.m, q.toks
	seen := make([]uint64, (len(m.variants)+63)/64)
	type candidate struct {
		lb float32
		id int32
	}
	var cands []candidate
	for _, t := range toks {
		for _, id := range m.index[t.norm] {
			if seen[id/64]&(1<<(id%64)) != 0 {
				continue
			}
			seen[id/64] |= 1 << (id % 64)
			if lb, ok := q.lowerBound(&m.variants[id]); ok {
				if !q.exhaustive {
					lb = max(lb, q.skipBound(&m.variants[id]))
				}
				cands = append(cands, candidate{lb, id})
			}
		}
	}
	// Most promising first, so the best cost drops early and the rest are
	// cut by their bound. Ties keep index order, so answers are stable.
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].lb < cands[j].lb })
	var best match
	bestCost := float32(math.Inf(1))
	found := false
	for _, c := range cands {
		if c.lb > bestCost {
			break
		}
		if v := &m.variants[c.id]; v.intent == except || strict(v.intent) && !q.saysSteps(v) {
			continue
		}
		r, ok := q.align(&m.variants[c.id], bestCost)
		if !ok || strict(r.intent) && r.skipped > 0 {
			continue
		}
		if !found || r.cost < best.cost || r.cost == best.cost && (r.literals > best.literals ||
			r.literals == best.literals && c.id < best.variant) {
			best, bestCost, found = r, r.cost, true
			best.variant = c.id
		}
	}
	return best, found
}

// cannotDo are the intents that say what hark cannot do with its alarms,
// timers, music, heating, messages, lights and volume ("snooze the alarm",
// "how long is left on the timer", "skip this song", "turn the heat up",
// "read my messages", "dim the lights", "what's the volume"), or cannot
// know ("what song is this", "how is the traffic", "what do i have
// tomorrow"): read only when the query says each word their pattern
// needs, in order, and no other word but fillers, so that a request to
// set one worded loosely ("gimme a 3 min timer", "el viernes a mediodía,
// una alarma") stays one, and a question about something else ("how long
// until christmas", "when is the best time to set an alarm") is not one.
var cannotDo = map[string]bool{"change_alarm": true, "alarm_status": true, "music_control": true, "thermostat": true,
	"read_messages": true, "device_control": true, "volume_status": true, "song_name": true, "traffic": true,
	"call_place": true, "words_help": true, "phone_status": true, "calendar_asked": true, "call_history": true,
	"unmute": true}

// strict reports whether an intent is read only when the query says every
// word its pattern needs, in order, and no other word but fillers: what
// hark cannot do, and how long it is until a time ("how long until 5
// pm"), whose words ("long", "until", "many") would otherwise draw
// questions about anything ("how long should i sleep", "how long does it
// take to walk to the moon").
func strict(intent string) bool {
	return cannotDo[intent] || intent == "time_until" || intent == "where_am_i"
}

// saysSteps reports whether the query says every required word step of
// the variant, in its order: "how long until christmas" is no question
// about a timer, and "why did the music stop" stops no music.
func (q *queryCtx) saysSteps(v *variant) bool {
	j := 0
	for _, e := range v.elems {
		if e.slot >= 0 || e.optional || e.filler {
			continue
		}
		n := 0 // the words of the step said at j
		for ; j < len(q.toks) && n == 0; j++ {
			if slices.Contains(e.words, q.toks[j].norm) {
				n = 1
			}
			for _, p := range e.phrases {
				if j+len(p) <= len(q.toks) && slices.EqualFunc(p, q.toks[j:j+len(p)], func(w string, t token) bool { return w == t.norm }) {
					n = len(p)
				}
			}
		}
		if n == 0 {
			return false
		}
		j += n - 1
	}
	return true
}

// Back-pointer actions of the alignment.
const (
	actNone uint8 = iota
	actSkipTok
	actLit
	actSkipElem
	actSlot
	actOpenStart
	actOpenExt
	actOpenClose
)

// align computes the cheapest alignment of one pattern variant with the
// query. States are (pattern step i, query position j, inside an open
// slot); an open slot absorbs words one at a time so long message bodies
// stay linear. bound lets a pattern give up once it cannot beat the best.
func (q *queryCtx) align(v *variant, bound float32) (match, bool) {
	n, p := len(q.toks), len(v.elems)
	cols := n + 1
	// States are laid out position by position, so the states of one
	// position are together and positions the alignment never reaches
	// are never set.
	rows := (p + 1) * 2
	size := rows * cols
	if cap(q.cost) < size {
		q.cost = make([]float32, size)
		q.back = make([]int32, size)
		q.act = make([]uint8, size)
		q.cidx = make([]int16, size)
	}
	if cap(q.jumpIn) < cols {
		q.jumpIn = make([]float32, cols)
	}
	cost, back, act, cidx := q.cost[:size], q.back[:size], q.act[:size], q.cidx[:size]
	jumpIn := q.jumpIn[:cols]
	inf := float32(math.Inf(1))
	ready := 0 // positions whose states are set to inf
	prepare := func(col int) {
		for ; ready <= col; ready++ {
			clear := cost[ready*rows : (ready+1)*rows]
			for k := range clear {
				clear[k] = inf
			}
			jumpIn[ready] = inf
		}
	}
	st := func(i, j, o int) int { return j*rows + i*2 + o }
	relax := func(from, to int, c float32, a uint8, ci int) {
		if nc := cost[from] + c; nc < cost[to] {
			cost[to], back[to], act[to], cidx[to] = nc, int32(from), a, int16(ci)
		}
	}
	// The column bound: every step costs something except the reward of
	// reading a pattern element, at most -rewardSlot each, so an
	// alignment ends no cheaper than its cheapest state at position j (or
	// one a jump over j reached) less what the pattern's elements can
	// still earn. Once that is above bound the pattern cannot win: a
	// pattern that reads a few words of a long query gives up after it
	// skips enough of the rest, instead of aligning every word.
	jumpTo := 0 // the farthest position a jump reached
	earn := float32(p)*-rewardSlot + boundSlack
	jump := func(from, to, col int, c float32, a uint8, ci int) {
		prepare(col)
		relax(from, to, c, a, ci)
		jumpIn[col] = min(jumpIn[col], cost[to])
		jumpTo = max(jumpTo, col)
	}
	prepare(0)
	cost[st(0, 0, 0)] = 0
	for j := 0; j <= n; j++ {
		if j < n {
			prepare(j + 1)
		}
		q.positions++
		if j > 0 && bound < inf && !q.exhaustive {
			low := inf
			for _, c := range cost[j*rows : (j+1)*rows] {
				low = min(low, c)
			}
			for k := j + 1; k <= jumpTo; k++ {
				low = min(low, jumpIn[k])
			}
			if low-earn > bound {
				return match{}, false
			}
		}
		// what the words at j are, looked up once for every step
		aside, afterFiller := false, false
		if j < n {
			aside = q.aside[j]
		}
		if j > 0 {
			afterFiller = q.filler[j-1]
		}
		for i := 0; i <= p; i++ {
			from := st(i, j, 0)
			if c := cost[from]; c < inf {
				if j < n {
					relax(from, st(i, j+1, 0), q.skip[j], actSkipTok, 0)
				}
				if i < p {
					e := &v.elems[i]
					if e.slot < 0 {
						reward := float32(0)
						if !e.filler && !e.optional {
							reward = rewardWord
						}
						if j < n && containsID(e.ids, q.ids[j]) {
							relax(from, st(i+1, j+1, 0), reward+q.typo[j], actLit, 0)
						}
						for pi, ph := range e.phraseID {
							if phraseAt(q.ids[j:], ph) {
								jump(from, st(i+1, j+len(ph), 0), j+len(ph), reward+q.typoCost(j, j+len(ph)), actLit, pi)
							}
						}
						miss := float32(costMissWord)
						if e.optional {
							miss = 0
						} else if e.filler {
							miss = costMissFiller
						}
						relax(from, st(i+1, j, 0), miss, actSkipElem, 0)
					} else {
						miss := float32(costMissSlot)
						if e.optional {
							miss = 0
						}
						relax(from, st(i+1, j, 0), miss, actSkipElem, 0)
						def := q.m.slots[e.slot]
						if def.kind == slotOpen {
							// Nor does a name start in one ("open im timing",
							// "call mom i need a ride home").
							if j < n && (def.verbatim || j < q.asideFrom && !aside) {
								relax(from, st(i, j+1, 1), q.openCost(e.slot, j), actOpenStart, 0)
							}
						} else if j < n {
							reward := float32(0)
							if def.kind == slotClosed {
								reward = rewardSlot
							}
							for ci, c := range q.slotCands(e.slot, j) {
								jump(from, st(i+1, c.end, 0), c.end, reward+c.typo, actSlot, ci)
							}
						}
					}
				}
			}
			from = st(i, j, 1)
			if c := cost[from]; c < inf && i < p {
				def := q.m.slots[v.elems[i].slot]
				// "call jake i locked myself out": a name or title does
				// not run on into a clause of its own, nor past a
				// "please" into one ("open the camera please i want…").
				// A person's name does not run on past a "please" either
				// ("would you call my daughter for me please my daughter").
				if j < n && (def.verbatim || !aside || afterFiller && j != q.asideFrom) &&
					(def.perWord != costShortWord || !q.m.courtesyEnds[q.toks[j].norm]) {
					relax(from, st(i, j+1, 1), q.openCost(v.elems[i].slot, j), actOpenExt, 0)
				}
				// A name or title ends on a word of its own: "tv schedule
				// for tonight" is no appointment titled "for", "the page
				// reddit.com open please" no app called "please". Words
				// any request may carry are no value; a message takes
				// them as they come ("text lucas ok").
				// "an email to Doctor Patel", "text Doctor Lee I'm late": a
				// person's title goes with the name after it ("Doctor" is
				// no one's name, "Patel" no message); "the doctor", "my
				// doctor" and a title that ends the query are someone.
				if (q.skip[j-1] != costSkipFiller || def.message) && (j == n || !q.titled[j-1] || def.perWord != costShortWord) {
					relax(from, st(i+1, j, 0), 0, actOpenClose, 0)
				}
			}
		}
	}
	final := st(p, n, 0)
	if cost[final] == inf || cost[final] > bound {
		return match{}, false
	}
	r := match{intent: v.intent, cost: cost[final], slots: map[string]slotVal{}}
	missed, missedFillers, open := 0, 0, false
	openEnd := -1
	skipped, typed, words := 0, 0, 0
	// unknown counts the skipped words no part of the language knows,
	// self those by which the speaker points at themself; asked the
	// anchors that are question words, saidFillers the filler words of the
	// pattern the query says, missedSlots the required slots left to ask
	// for, missedAddressee whether the pattern lacks its word for the
	// assistant and unasked whether the query opens with a question word
	// the pattern does not say (see below).
	unknown, self, asked, saidFillers, missedSlots := 0, 0, 0, 0, 0
	missedAddressee, unasked := false, false
	// unknownVerb is whether the query opens with a skipped word nobody
	// knows (see below).
	unknownVerb := false
	// otherVerb is whether the query opens with a skipped word that calls
	// something off ("stop", "cancel", "silence"; see below).
	otherVerb := false
	// "how" is no such question word: it opens requests too ("how about a
	// timer", "how windy is it outside", read by patterns without it).
	question := len(q.toks) > 0 && questionWords[q.toks[0].norm] && !manners[q.toks[0].norm]
	// unaskedYesNo is whether the query opens with the auxiliary of a
	// yes-no question ("is the tv on") that the pattern does not say.
	unaskedYesNo := false
	for s := final; s != st(0, 0, 0); s = int(back[s]) {
		prev := int(back[s])
		pi, pj := prev%rows/2, prev/rows
		switch act[s] {
		case actSkipTok:
			if q.m.speaker[q.toks[pj].norm] {
				self++
			}
			unasked = unasked || pj == 0 && question
			unaskedYesNo = unaskedYesNo || pj == 0 && yesNo[q.toks[0].norm]
			if q.skip[pj] == costSkipWord {
				skipped++
				if q.unknownWord(pj) {
					unknown++
					unknownVerb = unknownVerb || pj == 0
				}
				if w := q.toks[0].norm; pj == 0 && q.m.undoWords[w] && !q.m.intentWords[v.intent][w] {
					otherVerb = true
				}
			}
		case actLit:
			// Only required words anchor a pattern: an optional "about"
			// alone must not make a query about anything.
			if e := v.elems[pi]; !e.optional && !e.filler {
				r.literals++
				words++
				if questionWords[q.toks[pj].norm] {
					asked++
				}
			} else if !e.optional {
				saidFillers++
			} else if !e.filler && !q.m.fillers[q.toks[pj].norm] {
				r.optional++
			}
		case actSkipElem:
			// an optional word for the assistant too: "cómo funciona
			// [esto]" is no reading of "cómo funcionan los volcanes"
			missedAddressee = missedAddressee || v.elems[pi].addressee && !q.addressed
			if e := v.elems[pi]; !e.optional && e.slot < 0 {
				if e.filler {
					missedFillers++
				} else {
					missed++
				}
			} else if !e.optional && q.m.slots[e.slot].kind == slotClosed {
				// A closed slot is an anchor: "good {cuisine}" without a
				// cuisine is not about food. Other slots may be asked for.
				missed++
			} else if !e.optional {
				missedSlots++
			}
		case actSlot:
			c := q.slotCands(v.elems[pi].slot, pj)[cidx[s]]
			def := q.m.slots[v.elems[pi].slot]
			val := c.val
			val.start, val.end = pj, c.end
			if def.typ == "duration" && v.intent == "SET_APPOINTMENT" && val.dur < time.Minute {
				// "book a second appointment with the dentist" says which
				// appointment, not that it lasts a second.
				return match{}, false
			}
			r.slots[def.name] = val
			if def.kind == slotClosed {
				// A closed slot anchors a pattern like a word does
				// ("lights off", "louder").
				r.literals++
			} else if !bareNumber(val, c.end-pj) {
				typed++
			}
		case actOpenClose:
			openEnd = s / rows
		case actOpenStart:
			open = true
			if openEnd > pj {
				def := q.m.slots[v.elems[pi].slot]
				end := openEnd
				if pj == 0 && question && !messageSlots[def.name] {
					// "when is my next appointment" asks; it names no
					// appointment "when is my next".
					return match{}, false
				}
				if tellsMessage(v, pi+1) && def.perWord == costShortWord {
					// "tell me who you are": the speaker is nobody's
					// contact, said before the name or at its start.
					for k := max(0, pj-1); k < end && (k <= pj || q.m.fillers[q.toks[k].norm]); k++ {
						if selfWords[q.toks[k].norm] {
							return match{}, false
						}
					}
				}
				if !def.verbatim {
					// "phone to Maria", "email to anna@mail.com": a name
					// starts after the words that lead to it, but keeps
					// its article or possessive ("the office", "my son").
					// An app is no one's: "open my calendar" opens the
					// calendar.
					for pj < end-1 && q.m.fillers[q.toks[pj].norm] && (!possessives[q.toks[pj].norm] || def.name == "app") && !articles[q.toks[pj].norm] {
						pj++
					}
				}
				if !messageSlots[def.name] {
					// "new event tomorrow 6 pm: dentist" has no title
					// "tomorrow": a name or title is not a time, nor
					// the words that lead to one ("a new calendar event
					// for friday at noon").
					k := pj
					for k < end-1 && q.m.fillers[q.toks[k].norm] {
						k++
					}
					if w, n := q.m.parseWhen(q.toks[k:end]); n == end-k && (w.day != dayNone || w.mer != "" || w.hasRel) {
						return match{}, false
					}
					// Nor a length: "set a second timer for 5 minutes"
					// labels no timer "5 minutes".
					if d, n := q.m.parseDuration(q.toks[k:end]); n == end-k && d > 0 {
						return match{}, false
					}
					// Nor a bare number a label: "set an alarm for 7 and
					// another for 8" labels no alarm "8".
					if _, n := q.m.parseNumber(q.toks[k:end]); def.name == "label" && n == end-k {
						return match{}, false
					}
				}
				if !def.verbatim {
					// "weather for tomorrow in madrid": a name starts
					// after the day said before it.
					for {
						w, n := q.m.parseWhen(q.toks[pj:end])
						if n == 0 && articles[q.toks[pj].norm] && pj+1 < end {
							// "the 5th in madrid"
							if w, n = q.m.parseWhen(q.toks[pj+1 : end]); n > 0 {
								n++
							}
						}
						if n == 0 || w.day == dayNone {
							break
						}
						if pj+n < end && streetWords[q.toks[pj+n].norm] {
							// "directions to 350 5th Avenue": a street's
							// number, not the 5th of the month.
							break
						}
						if n >= end-pj {
							// "wed 3/11 at 10am" names nobody.
							return match{}, false
						}
						if _, said := r.slots["day"]; !said && q.m.intentSlots[v.intent]["day"] {
							// ... and is the request's day ("weather for
							// the 5th in madrid" is the 5th's).
							r.slots["day"] = slotVal{text: q.span(pj, pj+n), when: w, start: pj, end: pj + n}
						}
						pj += n
						for pj < end-1 && q.skip[pj] == costSkipFiller {
							pj++
						}
					}
					// "weather in london for monday": a name ends before
					// the day or time said after it.
					for k := max(pj+1, end-maxTimeWords); k < end; k++ {
						if w, n := q.m.parseWhen(q.toks[k:end]); n == end-k && (w.day != dayNone || w.hasClock && n > 1) {
							end = k
							break
						}
					}
					// "channel 42 please": politeness is not part of a name.
					// Nor are the words that name what the request is
					// about: "channel 3 on the tv", "the photos application".
					iw := q.m.intentWords[v.intent]
					for end > pj+1 && (q.m.fillers[q.toks[end-1].norm] || iw[q.toks[end-1].norm]) {
						end--
					}
					// "call Marco real quick", "márcale a Jhonatan al
					// toque": how soon is no part of a name.
					if n := q.m.mannerBefore(q.toks[pj:end]); n > 0 && end-n > pj {
						end -= n
					}
				}
				// A name does not run across a clause: "what's going on in
				// the world, headlines please" names no place "the world,
				// headlines". Messages and titles take any words.
				if !def.verbatim && spansComma(q.toks[pj:end]) {
					return match{}, false
				}
				// A name is a few words: "start a stopwatch for me so I
				// can time my walk" names no app, it asks for something
				// else.
				if limit, named := nameWords[def.name]; named && end-pj > limit ||
					def.perWord == costShortWord && end-pj > maxPersonWords {
					return match{}, false
				}
				// Nor is a person named by one of the request's own words:
				// "shoot a text to like saying call me" names no one
				// "saying" ("her", "them" stand for someone).
				if w := q.toks[pj].norm; def.perWord == costShortWord && end-pj == 1 && q.m.intentWords[v.intent][w] && !q.m.notPlaces[w] {
					return match{}, false
				}
				// An entry put on a list is no calendar entry: "add milk to
				// my shopping list" is for a list hark does not keep.
				if def.name == "title" && end-pj >= 3 && listWords[q.toks[end-1].norm] {
					for k := max(pj, end-7); k < end-2; k++ {
						if next := q.toks[k+1].norm; placeWords[q.toks[k].norm] && (articles[next] || possessives[next]) {
							return match{}, false
						}
					}
				}
				// A channel is no one's: "what's on my calendar tomorrow"
				// asks about no channel.
				if def.name == "channel" && possessives[q.toks[pj].norm] {
					return match{}, false
				}
				// A person named right after "me" is not who the request
				// is for: "call me later", "call me a taxi", "text me a
				// reminder" ask for no call or message to "later", "taxi"
				// or "reminder".
				if def.perWord == costShortWord && def.name != "label" {
					k := pj - 1
					for k >= 0 && (articles[q.toks[k].norm] || indefinite[q.toks[k].norm]) {
						k--
					}
					if k >= 0 && selfWords[q.toks[k].norm] {
						return match{}, false
					}
				}
				// Nor is a timer labelled, or an entry titled, by words that
				// only describe it: "set another timer for 5 minutes", "a
				// quick timer", "create another appointment" (with the
				// request's own verb; the kind of entry stands for a title:
				// "schedule a meeting today at 4"). A timer "for me" is for
				// the speaker, not labelled "me"; "call another number"
				// names no one. Which one to cancel they do say ("cancel
				// the other timer").
				if (def.perWord == costShortWord || def.name == "title") && !strings.HasPrefix(v.intent, "DELETE_") {
					names := false
					for k := pj; k < end && !names; k++ {
						w := q.toks[k].norm
						verb := def.name == "title" && q.m.intentWords[v.intent][w] && !titleKinds[w] && !kindOnly[w]
						names = !q.m.describers[w] && !articles[w] && !indefinite[w] && !verb &&
							!(def.name == "label" && q.m.notPlaces[w])
					}
					if !names {
						return match{}, false
					}
				}
				if messageSlots[def.name] && tellsMessage(v, pi) && !subjects[q.toks[pj].norm] {
					// "tell Rosa I left the keys under the mat" tells a
					// message, a clause with its subject; "tell the kids a
					// joke", "tell me the weather" tell a thing.
					return match{}, false
				}
				text := q.span(pj, end)
				if def.verbatim && end == len(q.toks) {
					// A message ends with its own question or exclamation
					// mark ("are you free on friday?").
					// In Spanish a question mark closes what "¿" opened:
					// "¿podría mandarle que la quiero mucho?" asks the
					// assistant; only "¿" before the message makes it
					// the message's.
					// In English "would you let Charlotte know that the
					// train is delayed?" asks the assistant too: a request
					// put as a question keeps its mark out of a message
					// that is no question itself.
					if marks := closingMarks(q.toks[end-1]); q.m.lang == "es" && opensAt(q.toks, pj) ||
						q.m.lang != "es" && (!askedPolitely(q.toks) || asksItself(q.toks[pj]) || strings.Contains(marks, "!")) {
						text += marks
					}
				}
				r.slots[def.name] = slotVal{text: text, start: pj, end: end}
			}
			openEnd = -1
		}
	}
	// Open slots take any words, so a pattern with one must show all its
	// required words; others may miss fewer words than they match.
	if r.literals == 0 || missed > 0 && missed >= r.literals || open && missed+missedFillers > 0 {
		return match{}, false
	}
	// The pattern must explain the query: words it skipped and words it
	// lacks may outweigh what it matched by less than two, or "what is the
	// capital of France" would read as "what are you".
	slack := 4
	if words == 0 {
		// Patterns made of closed slots only ("louder", "lights off") must
		// explain nearly everything: "my car broke down" is not about volume.
		slack = 2
	}
	if 2*(skipped+missed)+missedFillers >= 2*(r.literals+typed)+slack {
		return match{}, false
	}
	// A word nobody knows, said where the pattern has words the query
	// lacks, is what the query is about. It is about something else than
	// the pattern when the pattern names its subject only by those words:
	// - a pattern anchored by a question word alone ("what can i do"):
	//   "what is inflation", "what is a haiku" share only "what" with it;
	// - a pattern about the assistant, said with none of the words that
	//   point at it ("how does this work", "what are you"): "how do
	//   submarines work" asks about submarines.
	// A known word in the gap keeps the reading ("who made you", "what
	// day is tomorrow").
	if unknown > 0 && (missedAddressee || asked == r.literals && typed == 0 && saidFillers == 0 && missed+missedFillers > 0) {
		return match{}, false
	}
	// A request opened by a word nobody knows, read by a pattern that
	// lacks a slot it needs, asks for what that word does: "pause the
	// timer", "snooze the alarm" ask for no new timer or alarm (and would
	// be asked "for how long?").
	if unknownVerb && missedSlots > 0 && actionIntent(v.intent) {
		return match{}, false
	}
	// Nor is a pattern without a word of its own to open it read past a
	// word that calls something off: "stop the music" asks for no music.
	// (A verb nobody knows may ask for it: "contame un chiste".)
	if otherVerb && (v.elems[0].optional || v.elems[0].slot >= 0) {
		return match{}, false
	}
	// The speaker where the pattern has the assistant: "what's my name",
	// "how many timers do i have" ask about the speaker, not "what's your
	// name", "how have you been".
	if missedAddressee && self > 0 {
		return match{}, false
	}
	// A question that the pattern does not ask, read only by leaving out
	// the pattern's own words or slots: "what's my location" is not
	// "location on", "when is my next appointment" no appointment to make.
	if unasked && missed+missedFillers+missedSlots > 0 {
		return match{}, false
	}
	// Nor is a question with its auxiliary after the question word a
	// request the pattern makes of the words after them: "when do the
	// yankees play next" plays no song "next", "who sings this song" calls
	// no one, "when will the rain stop" calls nothing off. ("why don't you
	// play some jazz" asks for jazz.)
	if unasked && (actionIntent(v.intent) || v.intent == "cancel") && len(q.toks) > 1 && q.toks[0].norm != "why" &&
		(yesNo[q.toks[1].norm] || auxiliaries[q.toks[1].norm] || asksWhich(q.toks)) {
		return match{}, false
	}
	// A yes-no question about the device asks how things are; it does not
	// ask to make them so: "is the tv on" is not "tv on".
	if unaskedYesNo && actionIntent(v.intent) && saysOfSubject(q.toks) {
		return match{}, false
	}
	r.skipped = skipped
	return r, true
}

// unknownWord reports whether the query's word at j is one no pattern,
// number, time expression or word for the assistant ("dis") of the
// language knows, typed as it stands (a correction is a known word).
func (q *queryCtx) unknownWord(j int) bool {
	if q.ids[j] >= 0 && !q.m.strictOnly[q.toks[j].norm] || q.toks[j].typo != "" || q.m.addressee[q.toks[j].norm] {
		return false
	}
	if _, n := q.m.parseNumber(q.toks[j:]); n > 0 {
		return false
	}
	_, n := q.m.parseWhen(q.toks[j : j+1])
	return n == 0
}

// bareNumber reports whether a time slot's value is one number and no
// more ("what is seven times eight"): a time only because the pattern
// puts it there, it anchors nothing, as a word the pattern names would.
func bareNumber(v slotVal, words int) bool {
	w := v.when
	return words == 1 && w.hasClock && !w.hasRel && w.day == dayNone && w.mer == ""
}

// startsName reports whether a name of two words or more that a closed
// slot knows starts at position j: "play so what" names a song.
func (q *queryCtx) startsName(j int) bool {
	for slot, def := range q.m.slots {
		if def.kind != slotClosed {
			continue
		}
		for _, c := range q.slotCands(slot, j) {
			if c.end-j > 1 {
				return true
			}
		}
	}
	return false
}

// rangeOpeners lead to the start of a span of time.
var rangeOpeners = map[string]bool{"from": true, "between": true, "desde": true, "de": true, "entre": true}

// askedPolitely reports whether an English query opens as a request put
// as a question ("could you…", "would you mind…", "can you please…").
func askedPolitely(toks []token) bool {
	return len(toks) > 1 && politeOpeners[toks[0].norm] && toks[1].norm == "you"
}

var politeOpeners = map[string]bool{"could": true, "would": true, "can": true, "will": true, "won't": true}

// asksItself reports whether a message opens with the words of a question
// ("are you free on friday?").
func asksItself(t token) bool { return questionOpeners[t.norm] }

// questionWords open a question in either language (folded); a pattern
// anchored by one alone names what it asks by its other words.
var questionWords = map[string]bool{"what": true, "what's": true, "whats": true, "when": true, "where": true, "who": true,
	"why": true, "how": true, "how's": true, "which": true, "que": true, "como": true, "cual": true, "cuales": true, "quien": true,
	"donde": true, "cuando": true, "cuanto": true, "cuanta": true, "cuantos": true, "cuantas": true}

// saysOfSubject reports whether the words after a query's first say a
// subject and something of it, as a yes-no question does ("is the tv on":
// "tv", "on"). "are the stopwatch", heard for "start the stopwatch", names
// a thing and nothing of it: no question, so the auxiliary is a misheard
// word of a command.
func saysOfSubject(toks []token) bool {
	n := 0
	for _, t := range toks[1:] {
		// "a" is no entry of articles, where it would also be Spanish "a" (to)
		if !articles[t.norm] && !possessives[t.norm] && t.norm != "a" {
			n++
		}
	}
	return n >= 2
}

// asksWhich reports whether a query asks which thing is so, with the
// auxiliary after the thing: "what channel is the news on", "which
// channel has the game" switch to no channel.
func asksWhich(toks []token) bool {
	return len(toks) > 2 && (toks[0].norm == "what" || toks[0].norm == "which") &&
		(yesNo[toks[2].norm] || auxiliaries[toks[2].norm] || toks[2].norm == "has")
}

// actionIntent reports whether an intent is one the device carries out (its
// name is the action's code, "POWER"), not an answer ("weather").
func actionIntent(intent string) bool { return intent != "" && strings.ToUpper(intent) == intent }

// yesNo are the auxiliaries that open a yes-no question. "can", "could",
// "would" and "will" are left out: "can you turn on the tv" asks for it;
// so are "do" and "have", which also open requests ("do me a favor and
// set an alarm", "have the lights off").
var yesNo = map[string]bool{"is": true, "are": true, "was": true, "were": true, "am": true, "did": true, "does": true,
	"has": true, "isn't": true, "aren't": true, "didn't": true, "doesn't": true}

// auxiliaries are the verbs, beside yesNo's, that follow a question word
// in a question ("when do they play", "who can I call").
var auxiliaries = map[string]bool{"do": true, "can": true, "will": true, "should": true, "would": true, "could": true, "have": true}

// manners are the question words that ask how, which also open requests.
var manners = map[string]bool{"how": true, "how's": true, "hows": true, "como": true}

var questionOpeners = map[string]bool{"what": true, "when": true, "where": true, "who": true, "why": true, "how": true,
	"which": true, "are": true, "is": true, "do": true, "does": true, "did": true, "can": true, "could": true, "will": true,
	"would": true, "should": true, "have": true, "has": true, "shall": true, "may": true, "wanna": true, "want": true}

func (q *queryCtx) typoCost(from, to int) float32 {
	var c float32
	for _, x := range q.typo[from:to] {
		c += x
	}
	return c
}

func phraseAt(ids []int32, phrase []int32) bool {
	if len(phrase) > len(ids) {
		return false
	}
	for i, w := range phrase {
		if ids[i] != w {
			return false
		}
	}
	return true
}

func containsID(ids []int32, id int32) bool {
	if id < 0 {
		return false
	}
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}

func containsWord(words []string, w string) bool {
	for _, x := range words {
		if x == w {
			return true
		}
	}
	return false
}

// findSlot looks for a value of one slot anywhere in a follow-up answer
// ("seven am" after "For what time?"). Open slots take the whole answer.
func (m *langModel) findSlot(name string, toks []token) (slotVal, bool) {
	i, ok := m.slotIndex[name]
	if !ok || len(toks) == 0 {
		return slotVal{}, false
	}
	def := m.slots[i]
	if def.kind == slotOpen {
		return slotVal{text: spanText(toks), end: len(toks)}, true
	}
	q := newQueryCtx(m, toks)
	var best cand
	bestStart := -1
	for j := range toks {
		for _, c := range q.slotCands(i, j) {
			if bestStart < 0 || c.end-j > best.end-bestStart {
				best, bestStart = c, j
			}
		}
	}
	v := best.val
	v.start, v.end = bestStart, best.end
	return v, bestStart >= 0
}

// articles belong to the name they precede ("the office", "la vecina").
var articles = map[string]bool{"the": true, "el": true, "la": true, "los": true, "las": true, "un": true, "una": true, "an": true}

// verbFirst gives the query with its last words moved to the front when
// they start with a word patterns start with and nothing but fillers
// follows them ("the maps app open" -> "open the maps app", "on the
// television now what is" -> "what is on the television now"), the order
// of speakers whose language puts the verb last. nil when there is
// nothing to move.
func (m *langModel) verbFirst(toks []token) []token {
	k := len(toks) - 1
	for k > 0 && m.fillers[toks[k].norm] {
		k--
	}
	if asksInOrder(toks) {
		return nil
	}
	// The moved part starts at the lead word; a filler before it that
	// belongs to it ("what is" after "what") is already behind it.
	if k <= 0 || !m.leads[toks[k].norm] || m.fillers[toks[k].norm] {
		return nil
	}
	out := make([]token, 0, len(toks))
	out = append(out, toks[k:]...)
	return append(out, toks[:k]...)
}

// asksInOrder reports whether the query opens as a question in the usual
// order, a question word and its auxiliary or the auxiliary of a yes-no
// question: "when does the timer end" is not "end ... the timer", "is my
// alarm set" not "set ...".
func asksInOrder(toks []token) bool {
	if len(toks) < 2 {
		return false
	}
	first, second := toks[0].norm, toks[1].norm
	return yesNo[first] || questionWords[first] && questionOpeners[second] && !questionWords[second]
}

// openCost is what an open slot pays for taking query word j. A word the
// patterns use, taken into a name ("a stopwatch for me" as an app), costs
// more than a word they do not, so a pattern that reads it as itself
// wins; message bodies take any word alike.
func (q *queryCtx) openCost(slot, j int) float32 {
	def := q.m.slots[slot]
	c := def.perWord + q.typo[j]
	if !def.verbatim && q.ids[j] >= 0 && !q.m.strictOnly[q.toks[j].norm] && q.skip[j] == costSkipWord {
		c += costOpenWord
	}
	return c
}

// listWords name lists an entry may be put on, placeWords the words
// that put it there ("to my shopping list", "en la lista de la compra").
var (
	listWords  = map[string]bool{"list": true, "lists": true, "playlist": true, "cart": true, "basket": true, "lista": true, "compra": true, "carrito": true, "cesta": true}
	placeWords = map[string]bool{"to": true, "on": true, "onto": true, "in": true, "into": true, "a": true, "en": true}
)

// messageSlots are the open slots that carry a message as it is to be
// sent, where any word may end it.
var messageSlots = map[string]bool{"message": true, "body": true}

// nameWords are open slots that hold a name of a few words though they
// are not "short" (which would make them prefer one word), with the most
// words each takes: an app's or a channel's name is short ("google maps",
// "amazon prime video", "bbc one"), a place's a little longer ("rio de
// janeiro", "the museum of modern art").
var nameWords = map[string]int{"app": 3, "channel": 3, "place": 4, "destination": 7}

// honorifics are the titles said before a person's name (folded).
var honorifics = map[string]bool{"doctor": true, "dr": true, "dr.": true, "mr": true, "mr.": true, "mrs": true, "mrs.": true,
	"ms": true, "ms.": true, "miss": true, "professor": true, "prof": true, "doctora": true, "dra": true, "dra.": true,
	"senor": true, "senora": true, "sr": true, "sr.": true, "sra": true, "sra.": true, "don": true, "dona": true}

// maxPersonWords is the most words the short slots (people, labels) take.
const maxPersonWords = 5

// maxTimeWords is the longest day or time said after a name that the
// name gives back ("on friday the 6th at half past ten").
const maxTimeWords = 8

// spansComma reports whether a comma was typed between two of toks.
func spansComma(toks []token) bool {
	for _, t := range toks[:max(0, len(toks)-1)] {
		if commaAfter(t) {
			return true
		}
	}
	return false
}

// tellsMessage reports whether step i of v is a message told right after
// its contact, without "that" ("tell {contact} {message}").
func tellsMessage(v *variant, i int) bool {
	return i >= 2 && i < len(v.elems) && v.elems[i].slot >= 0 && v.elems[i-1].slot >= 0 && containsWord(v.elems[i-2].words, "tell")
}

// selfWords name the speaker, never the one a message is told to.
var selfWords = map[string]bool{"me": true, "myself": true, "us": true}

// subjects open a clause: a message told without "that" starts with one.
var subjects = map[string]bool{"i": true, "i'm": true, "im": true, "i'll": true, "i've": true, "ive": true, "i'd": true,
	"we": true, "we're": true, "we'll": true, "we've": true, "he": true, "he's": true, "hes": true, "she": true,
	"she's": true, "shes": true, "they": true, "they're": true, "theyre": true, "it's": true, "you": true,
	"you're": true, "youre": true, "there's": true, "theres": true}

// streetWords follow a street's ordinal ("5th Avenue", "42nd St"), which
// the time parser would otherwise take for a day of the month.
var streetWords = map[string]bool{"avenue": true, "ave": true, "street": true, "st": true, "road": true, "rd": true,
	"boulevard": true, "blvd": true, "lane": true, "ln": true, "drive": true, "dr": true, "place": true, "pl": true,
	"way": true, "square": true, "sq": true, "court": true, "ct": true, "terrace": true, "parkway": true, "pkwy": true}
