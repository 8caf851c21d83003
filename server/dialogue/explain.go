package dialogue

import (
	"sort"
	"strconv"
	"time"
)

// Explanation tells a developer how a query was read: it is what
// `hark say --explain` and the console's explain view show. It is sent
// only when a request asks for it (the Service-Explain header).
type Explanation struct {
	Lang     string `json:"lang"`
	LangFrom string `json:"langFrom"` // "request", "detected", or detected over the request's language
	Intent   string `json:"intent"`
	// Requests are the words of each request when the query said several
	// ("set an alarm for 7", "call mom"), all answered; the pattern and
	// slots are the first's.
	Requests []string `json:"requests,omitempty"`
	// Pattern is the phrase of the language file that matched and Cost
	// its edit distance to the query (lower is closer); both are empty
	// when the query answered a question or nothing matched.
	Pattern string  `json:"pattern,omitempty"`
	Cost    float32 `json:"cost"`
	// Answers names the slot a follow-up answer filled in a conversation.
	Answers     string        `json:"answers,omitempty"`
	Slots       []SlotReading `json:"slots"`
	Corrections []Correction  `json:"corrections"`
	// Hypotheses are, for a spoken query, the readings of its audio the
	// server weighed; the HTTP layer sets them.
	Hypotheses []HeardHypothesis `json:"hypotheses,omitempty"`
	// SpeechWaitMs is, for a spoken query, how long it waited for the
	// speech engines to start (a platform loads them once, after it
	// starts; on a new machine their language models are built first,
	// about 20 s), so that a slow first answer says why; 0 when they were
	// ready.
	SpeechWaitMs int64 `json:"speechWaitMs,omitempty"`
	// Speaker is, for a spoken query, how the recogniser heard its speaker
	// (what it had learnt of them from their earlier utterances, and the
	// channel); the HTTP layer sets it.
	Speaker *SpeakerReading `json:"speaker,omitempty"`
}

// SpeakerReading is how a spoken query's speaker was heard: the warp of
// the front end's filters (1: the model's own; speaker normalisation) and
// the transform the acoustic model was under: "speaker" (the speaker's
// own, speaker adaptation), "narrowband" (8 kHz audio), or none.
type SpeakerReading struct {
	Warp    float64 `json:"warp"`
	Adapted string  `json:"adapted,omitempty"`
}

// HeardHypothesis is one reading of a spoken query's audio: its words,
// the decoder that gave it ("grammar" or "full"), its per-frame score
// (speech.Hypothesis), whether it was chosen and why. Gate is set when
// the acoustic gate turned it down before it could compete (it was more
// than Gate per frame below its decoder's best path; Reason says so in
// words): a reader that shows readings briefly (the console) folds those
// by this field rather than by Reason's wording.
type HeardHypothesis struct {
	Text   string   `json:"text"`
	Source string   `json:"source"`
	Score  float64  `json:"score"`
	Chosen bool     `json:"chosen"`
	Reason string   `json:"reason"`
	Gate   *float64 `json:"gate,omitempty"`
}

// SlotReading is one slot: the words of the query it took and the value
// the engine gave them.
type SlotReading struct {
	Name  string `json:"name"`
	Words string `json:"words,omitempty"`
	Value string `json:"value"`
}

// Correction is a typed word read as another.
type Correction struct {
	Typed string `json:"typed"`
	Read  string `json:"read"`
}

func (t *turn) explain(r reply, conv *conversation) *Explanation {
	x := &Explanation{Lang: t.lang, LangFrom: t.langFrom, Intent: r.intent, Answers: t.filled,
		Slots: []SlotReading{}, Corrections: []Correction{}}
	for _, p := range t.requests {
		x.Requests = append(x.Requests, spanText(p))
	}
	for _, tok := range t.toks {
		if tok.typo != "" {
			x.Corrections = append(x.Corrections, Correction{Typed: tok.typo, Read: tok.norm})
		}
	}
	slots := r.slots
	if t.read != nil {
		if t.read.rule != "" {
			x.Pattern = "(" + t.read.rule + ")"
		} else {
			v := t.m.variants[t.read.variant]
			x.Pattern, x.Cost = t.m.patterns[v.pattern].Text, t.read.cost
		}
		if slots == nil {
			slots = t.read.slots
		}
	}
	if conv != nil && slots == nil {
		slots = conv.slots
	}
	for name, v := range slots {
		if name == reminderSlot {
			continue // a mark the conversation keeps, no slot of a pattern
		}
		s := SlotReading{Name: name, Value: t.slotValue(name, v)}
		if v.end > v.start && v.end <= len(t.toks) {
			s.Words = spanText(t.toks[v.start:v.end])
		}
		x.Slots = append(x.Slots, s)
	}
	sort.Slice(x.Slots, func(i, j int) bool { return x.Slots[i].Name < x.Slots[j].Name })
	return x
}

// slotValue writes the value a slot took: a resolved instant for a time,
// a duration, a number, or the canonical text.
func (t *turn) slotValue(name string, v slotVal) string {
	i, ok := t.m.slotIndex[name]
	if !ok || t.m.slots[i].kind != slotTyped {
		return v.text
	}
	switch t.m.slots[i].typ {
	case "time":
		if at, ok := t.used[name]; ok {
			return at.Format(time.RFC3339)
		}
		if v.when.complete() {
			return v.when.resolve(t.now, t.loc, biasNone).Format(time.RFC3339)
		}
		if !v.when.empty() {
			return v.when.date(t.now, t.loc).Format("2006-01-02")
		}
	case "duration":
		return v.dur.String()
	case "number":
		return strconv.Itoa(v.num)
	}
	return v.text
}
