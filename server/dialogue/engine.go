// Package dialogue is the assistant of harkd: it reads a query (typed or
// recognised from speech) in English or Spanish, recognises the intent and
// its slots, keeps multi-turn conversations for slot filling, and answers
// with text, speech, HTML and the next actions of DECISIONS §5.
//
// The phrases it recognises are data (assets/data/dialogue/<lang>.json)
// shared with the speech grammar through Grammar. Matching is an edit
// distance between the query and each pattern, so typed free text with
// extra words still finds its pattern. Information answers come from a
// Knowledge the caller provides. The package has no HTTP inside.
package dialogue

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/harkhq/hark/server/apierr"
)

// MaxQueryBytes is the longest query Answer accepts.
const MaxQueryBytes = 1000

// ConversationTTL is how long an idle conversation keeps its state.
const ConversationTTL = 10 * time.Minute

// Track is one song of the music library PLAY_MUSIC picks from.
type Track struct {
	ID, Title, Artist, Album, Genre string
	Mood                            string // energetic, upbeat, relaxed, calm, melancholic, focused
}

// Config wires an Engine to its sources. Every field is optional.
type Config struct {
	// Knowledge answers the information intents (weather, news ...).
	// Without it those intents say they have no data.
	Knowledge Knowledge
	// Recommendations answers "recommend me a movie" from the
	// recommendation service; without it the engine says it cannot.
	Recommendations Recommendations
	// Music is the library for PLAY_MUSIC; MusicURL turns a track id into
	// the URL the client plays.
	Music    []Track
	MusicURL func(id string) string
	// OnTopic is told, synchronously, when a user asks about a topic, so
	// survey weights can follow use (DECISIONS §8). topic is
	// "<kind>:<value>" with kind one of news, cuisine, sport, music, movie,
	// events; keep it quick.
	OnTopic func(ctx context.Context, userID int64, topic string)
	// Clock gives the time when a Request has no Now; default time.Now.
	Clock func() time.Time
	// MaxConversations bounds the open conversations kept in memory;
	// default 10000. The least recently used one goes first.
	MaxConversations int
	// Logger receives Knowledge failures; default slog.Default().
	Logger *slog.Logger
}

// Request is one query.
type Request struct {
	Query string
	// Lang is "en" or "es" (a region suffix such as "es-ES" is ignored);
	// "" lets the engine tell from the query. A query plainly in the
	// other language that the named one cannot read is answered in its
	// own language.
	Lang     string
	TimeZone *time.Location // for spoken times; default UTC
	Lat, Lon *float64       // the user's position, when known
	Ref      int64          // conversation to continue; 0 for none
	UserID   int64
	// Workspace is the user's workspace (for per-workspace services such
	// as recommendations); 0 when unknown.
	Workspace int64
	Now       time.Time // default Config.Clock()
	// Explain asks for Response.Explain: how the query was read.
	Explain bool
}

// Response marshals to the dialogue JSON of DECISIONS §5.
type Response struct {
	Context     Context      `json:"context"`
	Responses   Responses    `json:"responses"`
	NextActions []NextAction `json:"nextActions"`
	// Intent names what the query was understood as (an action code, an
	// information intent such as "weather", or "fallback"); for logs.
	Intent string `json:"-"`
	// Lang is the language the answer is in ("en" or "es"), for the
	// Content-Language header and the speech voice.
	Lang string `json:"-"`
	// Explain is set only when the request asked for it.
	Explain *Explanation `json:"explain,omitempty"`
}

// Context identifies the answer and its conversation.
type Context struct {
	ID  string `json:"id"`
	Ref int64  `json:"ref"`
}

// Responses holds the answer in each form. Audio is left empty here: the
// HTTP layer fills it with the URL of the synthesised speech.
type Responses struct {
	HTML   string `json:"html"`
	Text   string `json:"text"`
	Speech string `json:"speech"`
	Audio  string `json:"audio"`
	Query  string `json:"query"`
}

// NextAction is one action for the client; Data holds the shape of §5.
type NextAction struct {
	Action string `json:"action"`
	Data   any    `json:"data"`
}

// Engine answers queries. It is safe for concurrent use.
type Engine struct {
	cfg    Config
	models map[string]*langModel
	convs  *conversations
	music  []musicTrack
	cities []city
	log    *slog.Logger
}

// New builds an Engine, compiling the embedded phrase data. The data ships
// inside the binary and is checked by the package tests, so a failure here
// is a build defect and panics.
func New(cfg Config) *Engine {
	models, err := loadModels()
	if err != nil {
		panic(err)
	}
	cities := cityTable
	if cfg.Clock == nil {
		cfg.Clock = time.Now
	}
	if cfg.MaxConversations <= 0 {
		cfg.MaxConversations = 10000
	}
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	e := &Engine{cfg: cfg, models: models, convs: newConversations(cfg.MaxConversations), cities: cities, log: log}
	for _, t := range cfg.Music {
		e.music = append(e.music, musicTrack{Track: t, title: joinNorm(tokenize(t.Title)), artist: joinNorm(tokenize(t.Artist)),
			album: joinNorm(tokenize(t.Album)), genre: fold(strings.TrimSpace(t.Genre)), mood: fold(strings.TrimSpace(t.Mood))})
	}
	return e
}

// Answer understands one query and answers it. A query that is not
// UTF-8 is a 400 apierr. An empty one, or one longer than MaxQueryBytes,
// gets a polite answer without action; control characters are dropped.
// An unknown or expired Ref, or one of another user, starts a new
// conversation.
func (e *Engine) Answer(ctx context.Context, req Request) (Response, error) {
	t, q, unread, err := e.begin(ctx, req)
	if err != nil {
		return Response{}, err
	}
	if unread != "" {
		return e.politely(req, unread, q), nil
	}
	lang, now := t.lang, t.now
	var conv *conversation
	if req.Ref > 0 {
		conv = e.convs.take(req.Ref, req.UserID, now)
	}
	r := t.respond(conv)
	if err := ctx.Err(); err != nil {
		return Response{}, err
	}

	resp := Response{
		Context:     Context{ID: uuid.NewString()},
		Responses:   Responses{Query: q},
		NextActions: r.actions,
		Intent:      r.intent,
		Lang:        lang,
	}
	if resp.NextActions == nil {
		resp.NextActions = []NextAction{}
	}
	if r.ask != "" || r.followUp {
		// Kept: a question waiting for its answer, or an information answer
		// that a follow-up ("and tomorrow?") may refine.
		c := &conversation{userID: req.UserID, lang: lang, intent: r.intent, slots: r.slots, awaiting: r.ask, asks: r.asks, seen: now}
		if conv != nil {
			c.ref = conv.ref
		} else {
			c.ref = newRef()
		}
		e.convs.put(c)
		resp.Context.Ref = c.ref
		if r.ask != "" {
			resp.NextActions = append(resp.NextActions, NextAction{Action: "OPEN_ASR", Data: ""})
		}
	} else if conv != nil {
		resp.Context.Ref = conv.ref
	} else {
		resp.Context.Ref = newRef()
	}
	resp.Responses.Text, resp.Responses.Speech, resp.Responses.HTML = r.render(lang)
	if req.Explain {
		resp.Explain = t.explain(r, conv)
	}
	return resp, nil
}

// begin checks and reads a query as Answer and Understand both do: its
// language, its words with typing errors corrected. unread names the
// polite answer for a query not worth reading (too long, empty).
func (e *Engine) begin(ctx context.Context, req Request) (t *turn, q, unread string, err error) {
	if !utf8.ValidString(req.Query) {
		return nil, "", "", apierr.BadRequestf("the query q is not valid UTF-8")
	}
	if err := ctx.Err(); err != nil {
		return nil, "", "", err
	}
	if len(req.Query) > MaxQueryBytes {
		return nil, "", "too_long", nil
	}
	q = strings.TrimSpace(withoutControls(req.Query))
	if q == "" {
		return nil, q, "empty_query", nil
	}
	lang, langFrom := normLang(req.Lang), "request"
	if strings.TrimSpace(req.Lang) == "" {
		lang, langFrom = e.detectLang(q), "detected"
	}
	m := e.models[lang]
	now := req.Now
	if now.IsZero() {
		now = e.cfg.Clock()
	}
	loc := req.TimeZone
	if loc == nil {
		loc = time.UTC
	}
	toks := m.words(q)
	m.correctTokens(toks)
	toks = m.fluent(toks)
	t = &turn{e: e, ctx: ctx, m: m, req: req, lang: lang, now: now, loc: loc, toks: toks, langFrom: langFrom}
	if req.Ref == 0 && strings.TrimSpace(req.Lang) != "" {
		if other := e.detectLang(q); other != lang {
			// "¿qué tiempo hace?" typed in a console set to English: when
			// the named language reads nothing, the query's own does.
			if _, ok := m.understand(toks); !ok {
				otoks := e.models[other].words(q)
				e.models[other].correctTokens(otoks)
				otoks = e.models[other].fluent(otoks)
				if _, ok := e.models[other].understand(otoks); ok {
					lang, m = other, e.models[other]
					t.lang, t.m, t.toks, t.langFrom = lang, m, otoks, "detected over the request's "+t.lang
				}
			}
		}
	}
	return t, q, "", nil
}

// politely answers a query the engine will not read, in the language
// asked for, with no action.
func (e *Engine) politely(req Request, key, q string) Response {
	lang := normLang(req.Lang)
	t := &turn{e: e, m: e.models[lang], lang: lang}
	resp := Response{Context: Context{ID: uuid.NewString(), Ref: newRef()}, Responses: Responses{Query: q},
		NextActions: []NextAction{}, Intent: "fallback", Lang: lang}
	resp.Responses.Text, resp.Responses.Speech, resp.Responses.HTML = t.reply(key, nil).render(lang)
	if req.Explain {
		resp.Explain = &Explanation{Lang: lang, LangFrom: "request", Intent: "fallback", Slots: []SlotReading{}, Corrections: []Correction{}}
	}
	return resp
}

// withoutControls drops control characters (a pasted escape sequence, a
// NUL); tabs and line breaks become spaces.
func withoutControls(s string) string {
	clean := true
	for _, r := range s {
		if unicode.IsControl(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\t' || r == '\n' || r == '\r':
			b.WriteByte(' ')
		case !unicode.IsControl(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// NotHeard answers audio in which nothing was recognised: it says so and
// opens the microphone again, keeping the conversation's ref.
func (e *Engine) NotHeard(lang string, ref int64) Response {
	lang = normLang(lang)
	t := &turn{e: e, m: e.models[lang], lang: lang}
	resp := Response{
		Context:     Context{ID: uuid.NewString(), Ref: ref},
		NextActions: []NextAction{{Action: "OPEN_ASR", Data: ""}},
	}
	resp.Responses.Text, resp.Responses.Speech, resp.Responses.HTML = t.reply("not_heard", nil).render(lang)
	return resp
}

// newRef returns a random positive int64.
func newRef() int64 { return rand.Int64N(math.MaxInt64) + 1 }

func normLang(lang string) string {
	lang = strings.ToLower(strings.TrimSpace(lang))
	if len(lang) > 2 {
		lang = lang[:2]
	}
	for _, l := range languages {
		if l == lang {
			return l
		}
	}
	return languages[0]
}

// turn is the work of one Answer.
type turn struct {
	e    *Engine
	ctx  context.Context
	m    *langModel
	req  Request
	lang string
	now  time.Time
	loc  *time.Location
	toks []token
	// what the explanation reports: the reading used and the slot an
	// answer filled
	read     *match
	filled   string
	langFrom string
	// said is the whole query when a second reading kept only part of it
	// (a clause), for a pronoun naming someone said before.
	said []token
	// before holds the slots of the conversation a change of mind left
	// ("text sarah" - "actually call her instead"), for a pronoun naming
	// someone said there.
	before map[string]slotVal
	// dry is set by Understand: read the query, change nothing, ask no
	// information source. unread records that a reply to a question was
	// not read as anything (the question is asked again, or given up).
	dry    bool
	unread bool
	// alone is set on a turn that answers one of several requests said
	// in one query, whose words requests holds and whose readings cost
	// requestsCost in all (several).
	alone        bool
	requests     [][]token
	requestsCost float32
	// used holds the instants the handler made of its time slots (an
	// alarm in the morning, a range's start in its end's half of the
	// day), which the explanation shows rather than the words alone.
	used map[string]time.Time
}

// handleMatch answers a reading of the query and keeps it for Explain.
func (t *turn) handleMatch(mt match) reply {
	t.read, t.used = &mt, nil
	return t.handle(mt.intent, mt.slots)
}

// usedAt records the instant the handler made of the time slot name.
func (t *turn) usedAt(name string, at time.Time) {
	if t.used == nil {
		t.used = map[string]time.Time{}
	}
	t.used[name] = at
}

// respond decides between continuing a conversation and a new intent.
func (t *turn) respond(conv *conversation) reply {
	if conv != nil && conv.awaiting == "" {
		return t.followUp(conv)
	}
	if conv != nil {
		mt, understood := t.m.understand(t.toks)
		// "never mind" cancels; "practice is cancelled" answering "what
		// should it say?" is the message.
		if understood && mt.intent == "cancel" && (!t.awaitsFreeText(conv) || mt.skipped == 0 || t.onlyCancels()) {
			return t.handle("cancel", nil)
		}
		// "never mind, play some jazz instead", "forget the email, what's
		// the weather like": a change of mind, then a new request.
		if rest := t.m.changeOfMind(t.toks); rest != nil {
			if alt, ok := t.m.understand(rest); ok && alt.intent != conv.intent && alt.intent != "cancel" && alt.literals >= 1 {
				t.toks, t.before = rest, conv.slots
				t.completeTime(&alt)
				return t.handleMatch(alt)
			}
		}
		// A clear new request wins over reading the answer as the awaited
		// value ("set a timer for 5 minutes" while an alarm asks its time),
		// unless the question wants free text, where anything goes.
		if understood && mt.intent != conv.intent && mt.literals >= 2 && !t.awaitsFreeText(conv) && !t.answersWithTime(conv) {
			if alt, found := t.afterNegation(mt, t.toks); found {
				mt = alt
			}
			if alt, other := asked(mt, t.toks); other {
				return t.handleMatch(alt)
			}
			t.completeTime(&mt)
			return t.handleMatch(mt)
		}
		if conv.intent == "SET_TIMER" && conv.awaiting == "duration" {
			if d := t.m.bareMinutes(t.toks); d > 0 {
				// "For how long?" - "ten", where it set an alarm for ten
				// o'clock
				slots := map[string]slotVal{"duration": {dur: d, end: len(t.toks)}}
				if l, ok := conv.slots["label"]; ok {
					slots["label"] = l
				}
				t.filled = "duration"
				return t.handle("SET_TIMER", slots)
			}
			// "remind me" -> "For how long?" -> "tomorrow at 9": a clock
			// or a day is no duration; it is when to ring, an alarm.
			if w, n := t.m.parseWhen(t.toks); n == len(t.toks) && !w.hasRel && (w.hasClock || w.day != dayNone) {
				t.filled = "time"
				return t.handle("SET_ALARM", map[string]slotVal{"time": {when: w, end: n}})
			}
		}
		if i, open := t.m.slotIndex[conv.awaiting]; understood && mt.intent == conv.intent && open && !t.m.slots[i].verbatim {
			_, has := mt.slots[conv.awaiting]
			if typed, ok := preferTyped[conv.awaiting]; ok && !has {
				// "Who do you want to call?" - "call the number five five
				// five, ...": a number stands for the contact asked for.
				_, has = mt.slots[typed]
			}
			if has && mt.literals >= 1 {
				// "Who do you want to call?" - "call to my friend Carlos":
				// the answer says the request again, with what was missing.
				for name, v := range conv.slots {
					if _, set := mt.slots[name]; !set {
						mt.slots[name] = v
					}
				}
				t.filled = conv.awaiting
				t.completeTime(&mt)
				return t.handleMatch(mt)
			}
		}
		if i, ok := t.m.slotIndex[conv.awaiting]; !t.awaitsFreeText(conv) || ok && t.m.slots[i].perWord == costShortWord {
			// "8 pm, no sorry, make it 8:30 pm", "ten minutes, no wait,
			// fifteen", "my sister, no wait, my mom" (a name, never a
			// message, which keeps every word it is given): an answer the
			// speaker corrects while giving it is the corrected value,
			// either the words after the mark or the first value with its
			// number replaced.
			if tail := t.m.correctionTail(t.toks); tail != nil {
				said := t.toks
				t.toks = tail
				if _, _, ok := t.fillSlot(conv); !ok {
					t.toks = said
					if fixed := t.m.selfCorrected(said); fixed != nil {
						t.toks = fixed
					}
				}
			}
		}
		if v, name, ok := t.fillSlot(conv); ok {
			slots := conv.slots
			if slots == nil {
				slots = map[string]slotVal{}
			}
			slots[name] = v
			t.filled = name
			r := t.handle(conv.intent, slots)
			return r
		}
		// Not an answer to the question: a new request, or ask again.
		if understood && mt.intent != conv.intent {
			t.completeTime(&mt)
			return t.handleMatch(mt)
		}
		t.unread = true
		if conv.asks >= 2 {
			r := t.reply("not_understood_giveup", nil)
			r.intent = conv.intent
			return r
		}
		r := t.handle(conv.intent, conv.slots)
		r.asks = conv.asks + 1
		return r
	}
	if len(t.toks) <= maxRereadTokens {
		if fixed := t.m.selfCorrected(t.toks); fixed != nil {
			if _, fixedOK := t.m.understand(fixed); fixedOK {
				t.toks = fixed
			}
		}
	}
	return t.fresh()
}

// fresh reads the query as a new request: as it is, then with its verb
// moved first, without a word that only calls for attention, with the
// clause that reads best, without a closing condition.
func (t *turn) fresh() reply {
	if rest := t.m.mindChangedFirst(t.toks); rest != nil {
		// "never mind, set a timer for 5 minutes" with nothing under
		// way: what follows the change of mind is the request (it was
		// the timer's label, "never mind what's the weather" a city).
		t.toks = rest
	}
	t.said = t.toks
	mt, ok := t.m.understand(t.toks)
	// Second readings are for sentences, not pages: they would double
	// the work on the longest queries, which no person says in one go.
	short := len(t.toks) <= maxRereadTokens
	if short && !t.alone {
		if r, all := t.several(mt, ok); all {
			return r
		}
	}
	if moved := t.m.verbFirst(t.toks); short && moved != nil {
		// "the bluetooth disconnect please", "the hour now, what is": the
		// same words with the verb first, as the patterns have it. The
		// words are the same, so the costs compare; the usual order wins
		// ties. The verb alone is not enough ("recommend a good book" is
		// no booking): the moved reading must anchor on two words.
		if alt, altOK := t.m.understand(moved); altOK && alt.literals+alt.optional >= 2 && (!ok || alt.cost < mt.cost) {
			t.toks, mt, ok = moved, alt, true
		}
	}
	at := 0 // "okay hey ...", "um hey ...": the interjection after an opener
	for at < len(t.toks)-1 && messageOpeners[t.toks[at].norm] {
		at++
	}
	if short && len(t.toks) > at+1 && interjections[t.toks[at].norm] {
		// "hey whats the weather", "hey call dad": a word that only calls
		// for attention is no part of the request (nor a place called
		// "hey"); a greeting ("hola, qué tal") keeps it, unless it is the
		// interjection alone with the request skipped ("hey what's the
		// day": the greeting "hey" over three skipped words).
		greets := ok && mt.intent == "greeting"
		if alt, altOK := t.m.understand(t.toks[at+1:]); altOK && alt.literals+alt.optional >= 2 &&
			(!greets || mt.skipped > 0 && !social[alt.intent]) {
			t.toks, mt, ok = t.toks[at+1:], alt, true
		}
	}
	if short && len(t.toks) > 2 && !t.m.leads[t.toks[0].norm] {
		// "to Pedro a message send that I arrive soon", "an email to the
		// landlord send saying ...": the verb after its object, with the
		// rest of the request behind it. Read again with the verb first;
		// as above, the moved reading must be cheaper and anchored twice.
		for _, moved := range t.m.verbInside(t.toks) {
			if alt, altOK := t.m.understand(moved); altOK && alt.literals >= 2 && (!ok || alt.cost < mt.cost) {
				t.toks, mt, ok = moved, alt, true
			}
		}
	}
	if moved := objectFirst(t.toks); short && moved != nil {
		// "the stopwatch, restart it from zero", "the kitchen timer, set
		// it for 12 minutes": the object said first and taken up by a
		// pronoun is read in its place, as the patterns have it.
		if alt, altOK := t.m.understand(moved); altOK && alt.literals+alt.optional >= 2 && (!ok || alt.cost < mt.cost) {
			t.toks, mt, ok = moved, alt, true
		}
	}
	if !ok && short {
		// "well hello, good morning to you, lovely to hear your voice":
		// people wrap a request in clauses of their own. When the whole
		// reads as nothing, the clause that reads best is the request.
		// A request wins over the small talk around it ("oh hello dear,
		// would you tell me what the weather will be like").
		for _, c := range t.m.clausesOf(t.toks) {
			alt, altOK := t.m.understand(c)
			if !altOK {
				continue
			}
			if !ok || social[mt.intent] && !social[alt.intent] && t.m.anchors(alt) >= 2 || social[mt.intent] == social[alt.intent] &&
				(alt.literals > mt.literals || alt.literals == mt.literals && alt.cost < mt.cost) {
				t.toks, mt, ok = c, alt, true
			}
		}
	}
	if ok && short {
		// A request said in one clause of several: the whole reads as it
		// with words left over ("okay so I have a flight at 6 am, wake me
		// at 4 am please" took the flight's time) or would have to ask for
		// something ("would you call my daughter for me, please, my
		// daughter", "put on some jazz for the line, it's a slow night"
		// read as an entry with no time). A clause that reads with nothing
		// left over and asks for nothing is the request: of the same
		// intent with every value the whole had, or of any intent with two
		// anchors (or read closer) when the whole would ask.
		asks := -1 // unknown until needed
		// (the clauses of the words as said: a second reading above may
		// have moved them)
		for _, c := range t.m.clausesOf(t.said) {
			if mt.skipped == 0 && asks == 0 {
				break
			}
			alt, altOK := t.m.understand(c)
			if !altOK || alt.skipped > 0 {
				continue
			}
			same := alt.intent == mt.intent && mt.skipped > 0 && hasSlotsOf(alt, mt) && overrides(alt, mt, c)
			if !same {
				if asks < 0 {
					asks = 0
					if t.wouldAsk(mt, t.toks) {
						asks = 1
					}
				}
				if asks == 0 || t.m.anchors(alt) < 2 && alt.cost >= mt.cost {
					continue
				}
			}
			if !t.wouldAsk(alt, c) {
				t.toks, mt = c, alt
				break
			}
		}
	}
	if ok && short {
		// "delete all the alarms the kids are off school tomorrow": a
		// statement of the speaker's that a recogniser runs on from the
		// request, where a typed query has a comma. When the whole skips
		// words or would ask, the request before it, read whole and asking
		// for nothing, is the request.
		if cut, alt, found := t.beforeStatement(mt); found {
			t.toks, mt = cut, alt
		}
	}
	if short {
		// "wake me at 6 if that's not too much trouble", "start a
		// stopwatch for me so I can time my walk": a closing condition or
		// purpose is the speaker's own, not part of the request, unless
		// the reading carries it in a message or a title.
		// A title or message that carries the clause keeps it, unless
		// without it the words read more closely as another request
		// ("put do not disturb mode on until I wake" is no entry titled
		// so).
		if cut := t.m.sideClause(t.toks); cut != nil {
			carried := ok && t.carriesFrom(mt, len(cut))
			if alt, altOK := t.m.understand(cut); altOK && (!ok || alt.literals+alt.optional >= 2) &&
				(!carried || alt.intent != mt.intent && alt.cost < mt.cost) {
				t.toks, mt, ok = cut, alt, true
			}
		}
	}
	if !ok && short {
		// "por favor, llame al número…": a polite imperative that the
		// patterns hold in another role ("que se llame") is known, so the
		// speller leaves it; when nothing reads the query, its first word
		// of its own is read as the verb it stems from ("llama").
		if verb := t.m.stemmedFirst(t.toks); verb != nil {
			if alt, altOK := t.m.understand(verb); altOK && alt.literals >= 1 {
				t.toks, mt, ok = verb, alt, true
			}
		}
	}
	if !ok {
		mt, ok = t.bareMusic()
	}
	if !ok && short {
		mt, ok = t.titledTime()
	} else if _, titled := mt.slots["title"]; ok && short && mt.intent == "SET_APPOINTMENT" && !titled {
		// "remind me of three pm", as a recogniser may write "remind me
		// at three pm": an appointment with nothing to remind of is the
		// reminder of a time the words also read as.
		if alt, altOK := t.titledTime(); altOK && alt.rule == reminderRule {
			mt = alt
		}
	}
	if !ok && short && t.m.endsCalledOff(t.toks) {
		// "ok so how many minutes never mind forget it": a speaker who
		// gives up half way; typed, a comma would set the last clause off.
		return t.handle("cancel", nil)
	}
	if !ok && short && t.m.clausesOf(t.toks) == nil {
		// Spoken small talk runs its sentences together, with none of the
		// commas that set the clauses apart above: when nothing reads the
		// whole, the longest opening words that greet ("well hello good
		// morning to you lovely to hear your voice") or closing words that
		// thank or take leave ("that's very kind of you thank you dear"),
		// two words or more, every word read, are it. A lone "hello"
		// before a question is no opening ("hello what do you think about
		// the play we saw"). Only small talk: a request is not guessed
		// from part of a question.
		for n := len(t.toks) - 1; n >= 2 && !ok; n-- {
			open, closing := t.toks[:n], t.toks[len(t.toks)-n:]
			if alt, altOK := t.m.understand(open); altOK && alt.intent == "greeting" && alt.skipped == 0 {
				t.toks, mt, ok = open, alt, true
			} else if alt, altOK := t.m.understand(closing); altOK && closings[alt.intent] && alt.skipped == 0 {
				t.toks, mt, ok = closing, alt, true
			}
		}
	}
	if ok && strict(mt.intent) && !runOf(t.toks, t.said) {
		// A strict intent is read in the words' own order only: "why did
		// the music stop" asks, it is no "stop ... the music".
		ok = false
	}
	if ok && mt.intent == "where_am_i" && mt.cost > maxWhereCost {
		// "where am i going", "where am i supposed to go": the question of
		// where the speaker is takes no word but a filler or a please
		ok = false
	}
	said := t.said
	if ok {
		if alt, found := t.afterNegation(mt, said); found {
			mt, said = alt, t.toks
		}
	}
	if alt, other := asked(mt, said); ok && other {
		return t.handleMatch(alt)
	}
	if !ok {
		return t.handle("fallback", nil)
	}
	mt = t.secondReading(mt)
	t.completeTime(&mt)
	return t.handleMatch(mt)
}

// maxWhereCost is the most a reading of where the speaker is may cost:
// "where am i please" 0.15, "where am i going" 0.3.
const maxWhereCost = 0.2

// asked gives what the whole query asks when it is not the request read
// in it: a question of when something happens ("what time does the movie
// start", "a qué hora abre la farmacia") is answered by neither the clock,
// the calendar of now nor opening an app called "farmacia"; a request said
// not to be carried out ("don't turn off the lights", "no me despiertes
// mañana") is not carried out.
func asked(mt match, said []token) (match, bool) {
	if _, day := mt.slots["day"]; asksWhenElse(said) && (mt.intent == "time" || mt.intent == "date" && !day || actionIntent(mt.intent)) {
		return match{intent: "event_time", rule: whenElseRule}, true
	}
	if actionIntent(mt.intent) && negated(said) {
		return match{intent: "negated", rule: negatedRule}, true
	}
	return mt, false
}

// whenElseRule names, in explain, the reading of a question of when
// something happens.
const whenElseRule = "a question of when something happens"

// asksWhenElse reports whether a query asks when something happens that
// is not now: "what time does the sun set", "what day is my appointment",
// "what time the store closes", "a qué hora empieza la película", "qué
// día cae la navidad". The clock's own questions say "it", "you" or a
// day ("what time is it in tokyo", "what time do you have", "what day is
// today", "qué hora es", "qué día es hoy").
func asksWhenElse(toks []token) bool {
	word := func(i int) string {
		if i < len(toks) {
			return toks[i].norm
		}
		return ""
	}
	if len(toks) > 1 && word(0) == "cuando" && strings.ContainsAny(toks[0].orig, "á¿Á") {
		return true // "¿cuándo abre el banco?" (unmarked, "cuando llegue a casa…" opens a request)
	}
	for i := 0; i+2 < len(toks); i++ {
		w, next := word(i+1), word(i+2)
		switch {
		case (word(i) == "what" || word(i) == "which") && (w == "time" || w == "day" || w == "date"):
			at := i + 2
			if next == "of" && word(at+1) == "the" && word(at+2) == "week" {
				at += 3 // "what day of the week is christmas"
			}
			switch next, after := word(at), word(at+1); {
			case yesNo[next] && next != "does" && next != "did":
				return !clockWords[after] // "what day is christmas", not "what day is today"
			case yesNo[next] || auxiliaries[next]:
				// "what day does school start", "what time does it get
				// dark"; not "what time do you have", "what time will it be"
				return after != "" && after != "you" && (after != "it" || word(at+2) != "" && word(at+2) != "be")
			default:
				return articles[next] || possessives[next] || whenSubjects[next] // "what time the store closes"
			}
		case word(i) == "a" && (w == "que" || w == "cual") && next == "hora":
			return i+3 < len(toks)
		case word(i) == "que" && w == "dia":
			return !clockDays[next]
		}
	}
	return false
}

// whenSubjects are the pronouns that open the clause of a question of
// when ("what time we leave"); "it" asks the clock itself.
var whenSubjects = map[string]bool{"i": true, "we": true, "they": true, "he": true, "she": true, "your": true,
	"his": true, "her": true, "their": true}

// clockWords follow "what time is" and "what day is" in a question about
// now.
var clockWords = map[string]bool{"": true, "it": true, "it's": true, "today": true, "tomorrow": true, "yesterday": true,
	"now": true, "this": true, "that": true}

// clockDays follow "qué día" in a question about the calendar of now.
var clockDays = map[string]bool{"es": true, "estamos": true, "era": true, "fue": true, "sera": true, "hoy": true, "manana": true,
	"ayer": true, "de": true, "": true}

// negatedRule names, in explain, the reading of a request said not to be
// carried out.
const negatedRule = "a request not to"

// negated reports whether a query opens by asking not to do what follows:
// "don't play music", "please don't text her", "i didn't ask you to play
// music", "no me despiertes mañana". The negation must come before
// anything but a few opening words, so "set an alarm so i don't
// oversleep" is asked; "do not disturb" is a feature's name, "don't
// forget to…" asks for it, and "no, play jazz" answers no before asking.
// A request in a clause of its own after it ("i don't want to be
// disturbed, turn on do not disturb") or a thing no longer wanted ("i
// don't need the alarm tomorrow anymore") is asked.
func negated(toks []token) bool {
	for _, tok := range toks {
		if noLonger[tok.norm] || commaAfter(tok) && tok.norm != "no" {
			return false
		}
	}
	for i, tok := range toks {
		if i > 2 {
			return false
		}
		next := ""
		if i+1 < len(toks) {
			next = toks[i+1].norm
		}
		switch {
		case tok.norm == "do" && next == "not":
			next = ""
			if i+2 < len(toks) {
				next = toks[i+2].norm
			}
			return next != "disturb" && next != "forget"
		case negations[tok.norm]:
			return next != "forget" && next != "mind"
		case tok.norm == "no" && !commaAfter(tok) && clitics[next]:
			return true // "no me despiertes", not "no, pon jazz"
		case !negationOpeners[tok.norm]:
			return false
		}
	}
	return false
}

// afterNegation is the request asked after a negation that opens said,
// in a clause of its own that a typed query would set off with a comma
// and speech does not ("i don't want to be disturbed turn on do not
// disturb", "don't call mom call dad"): that request's reading, with
// t.toks its words; false when there is none.
func (t *turn) afterNegation(mt match, said []token) (match, bool) {
	if !actionIntent(mt.intent) || !negated(said) {
		return mt, false
	}
	rest, alt, ok := t.m.requestAfter(said)
	if !ok {
		return mt, false
	}
	t.toks = rest
	t.completeTime(&alt)
	return alt, true
}

// requestAfter gives the request of its own that follows the negation
// opening toks, and its reading: it starts with a word patterns start
// with, reads whole with no word skipped, and is neither the infinitive of
// what is not wanted ("i didn't ask you to play music") nor the negated
// verb itself after a word that only strengthens the negation ("don't
// you dare call him", "don't ever play that").
func (m *langModel) requestAfter(toks []token) ([]token, match, bool) {
	neg := slices.IndexFunc(toks, func(t token) bool { return negations[t.norm] || t.norm == "not" })
	if neg < 0 {
		return nil, match{}, false
	}
	for k := neg + 2; k+1 < len(toks); k++ {
		lead := toks[k].norm
		if !m.leads[lead] || m.fillers[lead] || toks[k-1].norm == "to" {
			continue
		}
		if !slices.ContainsFunc(toks[neg+1:k], func(t token) bool { return !strengtheners[t.norm] }) ||
			slices.ContainsFunc(toks[k:], func(t token) bool { return t.norm == "it" }) {
			// ("don't set an alarm for 7 set it for 8": what "it" is
			// comes from the negated clause)
			continue
		}
		if mt, ok := m.understand(toks[k:]); ok && mt.skipped == 0 && mt.literals > 0 && actionIntent(mt.intent) {
			return toks[k:], mt, true
		}
	}
	return nil, match{}, false
}

// strengtheners may stand between a negation and the verb it negates.
var strengtheners = map[string]bool{"ever": true, "even": true, "you": true, "dare": true, "please": true, "just": true,
	"go": true, "bother": true}

// negations are the words that ask not to; negationOpeners may come
// before them ("no don't call him", "please don't", "i didn't ask").
var (
	negations       = map[string]bool{"don't": true, "dont": true, "didn't": true, "didnt": true, "never": true, "nunca": true}
	negationOpeners = map[string]bool{"no": true, "please": true, "i": true, "you": true, "we": true, "and": true, "but": true,
		"oh": true, "just": true, "por": true, "favor": true}
	noLonger = map[string]bool{"anymore": true, "longer": true}
	clitics  = map[string]bool{"me": true, "te": true, "lo": true, "la": true, "los": true, "las": true, "le": true, "les": true,
		"nos": true, "se": true}
)

// runOf reports whether part is a run of whole's words, in their order.
func runOf(part, whole []token) bool {
	for i := 0; i+len(part) <= len(whole); i++ {
		if slices.EqualFunc(part, whole[i:i+len(part)], func(a, b token) bool { return a.norm == b.norm }) {
			return true
		}
	}
	return false
}

// secondReading reconsiders "play X" when X is no music the library has:
// "pon La 1" names a TV channel, "pon en marcha el cronómetro" another
// request; a title nobody has ("play Despacito") stays music.
func (t *turn) secondReading(mt match) match {
	song, ok := mt.slots["song"]
	if mt.intent != "PLAY_MUSIC" || !ok || len(findTracks(t.e.music, joinNorm(tokenize(song.text)), "")) > 0 {
		return mt
	}
	if t.e.isChannel(song.text) || t.m.isChannelName(song.text) {
		return match{intent: "CHANNEL_SELECT", rule: "a channel after \"play\"", slots: map[string]slotVal{"channel": {text: strings.TrimSpace(song.text)}}}
	}
	words := tokenize(song.text)
	if len(words) > 2 && articles[words[0].norm] {
		words = words[1:]
	}
	if len(words) > 1 && channelWords[words[0].norm] {
		// "put on channel 7 for the game": the channel's number, whatever
		// is said after it.
		if _, n := t.m.parseNumber(words[1:]); n > 0 {
			return match{intent: "CHANNEL_SELECT", rule: "a channel after \"play\"", slots: map[string]slotVal{"channel": {text: joinOrig(words[1 : 1+n])}}}
		}
	}
	if alt, ok := t.m.understandExcept(t.toks, "PLAY_MUSIC"); ok && alt.literals >= 2 && alt.cost <= mt.cost+1.5 {
		return alt
	}
	return mt
}

// channelWords name a TV channel before its number.
var channelWords = map[string]bool{"channel": true, "canal": true}

// titledTime reads a query that is nothing but a few words and a time
// with a day or a part of the day ("dentist tmrw 3pm", "tomorrow 9am team
// standup", "dentista mañana a las 4 de la tarde"): the way people jot a
// note in a calendar. Only queries no pattern reads come here, so the
// words are no other request.
func (t *turn) titledTime() (match, bool) {
	n := len(t.toks)
	for n > 0 && t.m.fillers[t.toks[n-1].norm] {
		n--
	}
	appt := func(from, to int, w whenExpr, ws, we int) (match, bool) {
		for from < to && t.m.fillers[t.toks[from].norm] {
			from++
		}
		if to-from < 1 || to-from > maxJotTitle || !w.hasClock || w.hasRel || w.day == dayNone && w.mer == "" {
			return match{}, false
		}
		if to-from == 1 && t.m.leads[t.toks[from].norm] {
			// "schedule tomorrow at 5" asks for something, it names
			// nothing.
			return match{}, false
		}
		if _, n := t.m.parseWhen(t.toks[from:to]); n > 0 {
			// "thursday 6pm" is a time alone, not an appointment called
			// "thursday".
			return match{}, false
		}
		if k := t.m.reminderAt(t.toks[from:to]); k > 0 {
			// A reminder names what it is about after "remind me", never
			// in it. With nothing but a small word ("remind me yet five
			// pm", as a recogniser may write "remind me at five pm") it
			// is an alarm.
			from += k
			if from == to || to-from == 1 && (t.m.fillers[t.toks[from].norm] || len([]rune(t.toks[from].norm)) <= 3) {
				return match{intent: "SET_ALARM", rule: reminderRule, slots: map[string]slotVal{
					"time": {when: w, start: ws, end: we},
				}}, true
			}
		}
		return match{intent: "SET_APPOINTMENT", rule: "a title and a time", slots: map[string]slotVal{
			"title": {text: spanText(t.toks[from:to]), start: from, end: to},
			"time":  {when: w, start: ws, end: we},
		}}, true
	}
	// The title first, then the time to the end.
	for j := 1; j < n && j <= maxJotTitle+2; j++ {
		if w, k := t.m.parseWhen(t.toks[j:n]); k == n-j {
			return appt(0, j, w, j, n)
		}
	}
	// The time first, then the title.
	if w, k := t.m.parseWhen(t.toks[:n]); k > 0 && k < n {
		return appt(k, n, w, 0, k)
	}
	return match{}, false
}

// reminderAt is the length of the reminder phrase toks start with ("remind
// me"), or 0.
func (m *langModel) reminderAt(toks []token) int {
	for _, p := range m.reminders {
		if len(p) <= len(toks) && slices.EqualFunc(p, toks[:len(p)], func(w string, t token) bool { return w == t.norm }) {
			return len(p)
		}
	}
	return 0
}

// reminderRule names the reading of a reminder of a time alone.
const reminderRule = "a reminder of a time"

// maxJotTitle is the most words a title jotted before a time may have.
const maxJotTitle = 5

// unknownPlace finds a well-known place the sandbox has no data for,
// named without "in" in a weather or time question ("forecast chicago
// tmrw", "tiempo barcelona el sábado"), from the names of places.json.
// The answer then says which places it knows, rather than giving the
// weather of where the user is.
func (t *turn) unknownPlace(mt *match) (slotVal, bool) {
	if mt.intent != "weather" && mt.intent != "time" {
		return slotVal{}, false
	}
	free := func(j int) bool {
		for _, o := range mt.slots {
			if j >= o.start && j < o.end {
				return false
			}
		}
		return true
	}
	for j := range t.toks {
		for end := min(len(t.toks), j+maxPlaceWords); end > j; end-- {
			if !free(end - 1) {
				continue
			}
			words := make([]string, 0, end-j)
			for _, tok := range t.toks[j:end] {
				words = append(words, fold(tok.orig))
			}
			if name, ok := worldPlaces[strings.Join(words, " ")]; ok && free(j) {
				return slotVal{text: name, start: j, end: end}, true
			}
		}
	}
	return slotVal{}, false
}

// maxPlaceWords is the longest place name of places.json in words.
const maxPlaceWords = 4

// selfCorrected gives the request a speaker corrected while saying it,
// nil when there is no correction: after "no wait", "I mean", "digo" ...
// either a whole new request ("how long does... no wait just set a timer
// for forty minutes") or a new value for the last number said ("a timer
// for 20 minutes no wait 25", "a las 7, digo, a las 8").
func (m *langModel) selfCorrected(toks []token) []token {
	head, tail := m.correctionSplit(toks)
	if tail == nil {
		return nil
	}
	return m.replaceCorrected(head, tail)
}

// correctionTail gives what follows the last correction mark (fillers
// dropped), nil when there is none or nothing follows it.
func (m *langModel) correctionTail(toks []token) []token {
	_, tail := m.correctionSplit(toks)
	return tail
}

// correctionSplit gives what comes before the last correction mark and
// what follows it.
func (m *langModel) correctionSplit(toks []token) (head, tail []token) {
	k, size := -1, 0
	for i := len(toks) - 1; i >= 1 && k < 0; i-- {
		for _, mk := range correctionMarks {
			if i+len(mk) <= len(toks) && wordsAt(toks[i:], mk) {
				k, size = i, len(mk)
				break
			}
		}
		// "10 minutes, no, 12 minutes": a "no" set off by commas, or
		// spoken (no commas) between two values ("ten minutes no twelve
		// minutes", "at three pm no three thirty")
		if k < 0 && toks[i].norm == "no" && (commaAfter(toks[i-1]) || m.valueEnds(toks[i-1]) && m.valueStarts(toks[i+1:])) {
			k, size = i, 1
		}
	}
	if k < 0 || k+size >= len(toks) {
		return nil, nil
	}
	tail = toks[k+size:]
	for len(tail) > 1 && m.fillers[tail[0].norm] && !possessives[tail[0].norm] && !articles[tail[0].norm] {
		tail = tail[1:]
	}
	return toks[:k], tail
}

// valueEnds reports whether tok ends a number, a duration or a clock
// ("twelve", "minutes", "pm").
func (m *langModel) valueEnds(tok token) bool {
	if numberWordAt(m, tok) {
		return true
	}
	switch m.timeWords.roleAt([]token{tok}) {
	case roleSecond, roleMinute, roleHour, roleAM, rolePM, roleOclock:
		return true
	}
	return false
}

// valueStarts reports whether toks start with a number or a clock, perhaps
// after the words that lead to it ("at ten", "let's say ten").
func (m *langModel) valueStarts(toks []token) bool {
	for c := 0; c <= 2 && c < len(toks); c++ {
		if numberWordAt(m, toks[c]) {
			return true
		}
		if _, n := m.parseClock(toks[c:]); n > 0 {
			return true
		}
	}
	return false
}

// replaceCorrected applies a correction tail to what came before it.
func (m *langModel) replaceCorrected(head, tail []token) []token {
	if alt, ok := m.understand(tail); ok && alt.literals >= 2 {
		return tail
	} else if ok && alt.literals == 1 {
		// "call jenny, no, call mike": the same request said again
		if h, ok := m.understand(head); ok && h.intent == alt.intent {
			return tail
		}
	}
	// "by 15, no, by 25", "no, let's say 25": up to two words lead to the new number
	lead := 0
	for lead < 2 && lead+1 < len(tail) && !numberWordAt(m, tail[lead]) {
		lead++
	}
	if lead > 0 && numberWordAt(m, tail[lead]) {
		tail = tail[lead:]
	}
	// The new value: a number, or a time ("a las 8"), replacing the
	// last one of its kind in what came before.
	// (a clock longer than its number, "6 y cuarto", is replaced below)
	if _, n := m.parseNumber(tail); n > 0 && func() bool { _, nc := m.parseClock(tail); return nc <= n }() {
		for p := len(head) - 1; p >= 0; p-- {
			if _, n2 := m.parseNumber(head[p:]); n2 > 0 && (p == 0 || !numberWordAt(m, head[p-1])) {
				out := make([]token, 0, len(head)+len(tail))
				out = append(out, head[:p]...)
				out = append(out, tail[:n]...)
				return append(out, head[p+n2:]...)
			}
		}
	}
	// "alarm for 6:15 tomorrow morning, no, 6:20", "a las 6 de la
	// mañana, no, a las 6 y cuarto": a clock (after the words that lead
	// to it) replaces the last clock said before it, and what was said
	// around that clock (its day, its part of the day) still holds.
	for c := 0; c <= 2 && c < len(tail); c++ {
		if _, n := m.parseClock(tail[c:]); n > 0 && c+n == len(tail) {
			for p := len(head) - 1; p >= 0; p-- {
				if _, n2 := m.parseClock(head[p:]); n2 > 0 && (p == 0 || !numberWordAt(m, head[p-1])) {
					out := make([]token, 0, len(head)+n)
					out = append(out, head[:p]...)
					out = append(out, tail[c:]...)
					return append(out, head[p+n2:]...)
				}
			}
			break
		}
	}
	return nil
}

// mindChangers open what a speaker says on changing their mind.
var mindChangers = map[string]bool{"never": true, "nevermind": true, "forget": true, "wait": true, "actually": true, "nah": true,
	"scratch": true, "cancel": true, "olvídalo": true, "olvidalo": true, "olvida": true, "espera": true,
	"mejor": true, "déjalo": true, "dejalo": true}

// endsCalledOff reports whether the last words of a query (at most four),
// from a marker of a change of mind on, read as calling the request off
// and nothing else ("... never mind", "... never mind forget it").
func (m *langModel) endsCalledOff(toks []token) bool {
	for k := max(1, len(toks)-4); k < len(toks); k++ {
		if !mindChangers[toks[k].norm] {
			continue
		}
		if mt, ok := m.understand(toks[k:]); ok && mt.intent == "cancel" && mt.skipped == 0 {
			return true
		}
	}
	return false
}

// changeOfMind gives what follows "never mind," "forget the email,"
// "wait, first," at the start of a query, or nil: a marker of a change
// of mind in the first words, up to the last comma among them.
func (m *langModel) changeOfMind(toks []token) []token {
	if len(toks) < 3 || !mindChangers[toks[0].norm] {
		return nil
	}
	end := -1
	for k := 0; k < min(4, len(toks)-1); k++ {
		if commaAfter(toks[k]) {
			end = k + 1
		}
	}
	if end >= 0 {
		return m.afterChange(toks[end:])
	}
	// Spoken, without the comma: the first of the next words from which a
	// whole request reads, with no word skipped ("never mind play some
	// jazz instead", "forget the email what's the weather like today").
	for k := 1; k < min(4, len(toks)-1); k++ {
		rest := m.afterChange(toks[k:])
		if mt, ok := m.understand(rest); ok && mt.literals >= 1 && mt.skipped == 0 && mt.intent != "cancel" {
			return rest
		}
	}
	return nil
}

// mindChangedFirst gives what follows the words that open a query when
// they only change the speaker's mind ("never mind", "forget it",
// "actually"), not when they are a request of their own ("cancel my
// alarm", "never play this again", "forget about the meeting"); nil then,
// or when what follows asks to cancel.
func (m *langModel) mindChangedFirst(toks []token) []token {
	if len(toks) < 3 {
		return nil
	}
	first, second := toks[0].norm, toks[1].norm
	n := 0 // the marker's words
	switch {
	case first == "never" && second == "mind", first == "forget" && (second == "it" || second == "that"),
		first == "scratch" && second == "that", first == "olvida" && second == "eso":
		n = 2
	case first == "nevermind", first == "wait", first == "actually", first == "nah", first == "olvídalo",
		first == "olvidalo", first == "espera":
		n = 1
	default:
		return nil
	}
	rest := m.afterChange(toks[n:])
	// Without a comma after the marker, what follows must read whole.
	if mt, ok := m.understand(rest); !ok || mt.intent == "cancel" || mt.skipped > 0 && !commaAfter(toks[n-1]) {
		return nil
	}
	return rest
}

// afterChange drops the fillers that open what follows a change of mind
// ("first" of "wait, first, what time is it").
func (m *langModel) afterChange(rest []token) []token {
	for len(rest) > 1 && (m.fillers[rest[0].norm] || rest[0].norm == "first" || rest[0].norm == "primero") {
		rest = rest[1:]
	}
	return rest
}

// commaAfter reports whether a comma was typed right after tok.
func commaAfter(tok token) bool {
	return strings.HasPrefix(strings.TrimPrefix(tok.src, tok.orig), ",")
}

// numberWordAt reports whether tok is a number (digits or a number word).
func numberWordAt(m *langModel, tok token) bool {
	_, n := m.parseNumber([]token{tok})
	return n > 0
}

// wordsAt reports whether toks starts with words.
func wordsAt(toks []token, words []string) bool {
	for i, w := range words {
		if toks[i].norm != w {
			return false
		}
	}
	return true
}

// correctionMarks say that what follows corrects what was said.
var correctionMarks = [][]string{{"no", "wait"}, {"wait", "no"}, {"i", "mean"}, {"no", "sorry"}, {"sorry", "i", "mean"},
	{"scratch", "that"}, {"make", "it"}, {"make", "that"}, {"no", "espera"}, {"digo"}, {"quiero", "decir"}, {"mejor", "dicho"}, {"no", "perdon"}}

// anchors counts what ties a reading to its pattern: the pattern's words
// (required or optional) and the slots that are not free text.
func (m *langModel) anchors(mt match) int {
	n := mt.literals + mt.optional
	for name := range mt.slots {
		if i, ok := m.slotIndex[name]; ok && m.slots[i].kind != slotOpen {
			n++
		}
	}
	return n
}

// social intents are small talk, which a request said with them wins over.
var social = map[string]bool{"greeting": true, "thanks": true, "goodbye": true, "how_are_you": true}

// closings are the small talk that closes what is said.
var closings = map[string]bool{"thanks": true, "goodbye": true}

// interjections call for attention before a request.
var interjections = map[string]bool{"hey": true, "hi": true, "hello": true, "yo": true, "oi": true,
	"oye": true, "hola": true, "eh": true}

// verbInside gives the query with a word patterns start with moved from
// inside it to the front, for the first few such words that follow a word
// of substance (a verb after its object: "to Pedro a message send that
// ..."). Words after a filler ("a message") are left where they are.
func (m *langModel) verbInside(toks []token) [][]token {
	var out [][]token
	for k := 2; k < len(toks)-1 && len(out) < maxVerbMoves; k++ {
		// A lead that is also a filler is no verb here ("para" in "un
		// temporizador de 40 minutos para el horno").
		if !m.leads[toks[k].norm] || m.fillers[toks[k].norm] || m.fillers[toks[k-1].norm] {
			continue
		}
		moved := make([]token, 0, len(toks))
		moved = append(moved, toks[k])
		moved = append(moved, toks[:k]...)
		out = append(out, append(moved, toks[k+1:]...))
	}
	// "to the train station the way show me": the verb last (with its
	// pronoun), after two phrases in the reverse of the patterns' order;
	// read as the verb, the second phrase, then the first, for each
	// article that may open the second.
	verb := func(k int) bool { return k >= 3 && m.leads[toks[k].norm] && !m.fillers[toks[k].norm] }
	k := len(toks) - 2
	if !verb(k) {
		k++
	}
	if verb(k) {
		for p := 1; p < k-1 && len(out) < 2*maxVerbMoves; p++ {
			if !articles[toks[p].norm] && !possessives[toks[p].norm] {
				continue
			}
			moved := make([]token, 0, len(toks))
			moved = append(moved, toks[k:]...)
			moved = append(moved, toks[p:k]...)
			out = append(out, append(moved, toks[:p]...))
		}
	}
	return out
}

// objectFirst gives "the stopwatch, restart it from zero" as "restart the
// stopwatch from zero": a few words set off by a comma, then a verb whose
// object pronoun ("it", "them") stands for them, within two words of it.
// Spoken, without the comma, the pronoun right after the verb marks where
// the object ends ("the stopwatch restart it from zero"). nil when the
// query is not so.
func objectFirst(toks []token) []token {
	moved := func(k, p int) []token {
		out := make([]token, 0, len(toks))
		out = append(out, toks[k:p]...)
		out = append(out, toks[:k]...)
		return append(out, toks[p+1:]...)
	}
	for k := 1; k <= maxObjectWords && k < len(toks)-1; k++ {
		if !commaAfter(toks[k-1]) {
			continue
		}
		for p := k + 1; p <= k+2 && p < len(toks); p++ {
			if objectPronouns[toks[p].norm] {
				return moved(k, p)
			}
		}
		return nil
	}
	for k := 1; k <= maxObjectWords && k+1 < len(toks); k++ {
		if objectPronouns[toks[k+1].norm] && !objectPronouns[toks[k].norm] {
			return moved(k, k+1)
		}
	}
	return nil
}

// objectPronouns take up an object said before the verb (Spanish joins
// its pronoun to the verb, which the speller takes off).
var objectPronouns = map[string]bool{"it": true, "them": true}

// maxObjectWords is the longest object said first ("the timer for the
// pasta").
const maxObjectWords = 5

// maxVerbMoves bounds the second readings verbInside offers.
const maxVerbMoves = 2

// beforeStatement gives, when the whole's reading skips words or would
// ask, the most words said before a statement of the speaker's
// (statementAt) that read as an action asking for nothing,
// with no word skipped or fewer than the whole's reading skips, and that
// reading. Unless the statement opens with its subject and verb in one
// word ("put on some jazz for the line it's a slow night", which asked
// when an entry was), the action is the whole's: the statement takes
// words away from the request, it does not make it another ("flashlight
// on the light in the walk-in is out" is no "lights on").
func (t *turn) beforeStatement(whole match) ([]token, match, bool) {
	if t.m.lang != "en" || slices.ContainsFunc(t.said, commaAfter) {
		return nil, match{}, false // (typed with commas, its clauses are read above)
	}
	// asks: whether the whole skips or would ask, found once a statement
	// is seen (most queries hold none, and asking costs a dry answer)
	asks := -1
	for k := len(t.said) - 3; k >= 2; k-- { // the longest request first
		if !statementAt(t.said[k:]) {
			continue
		}
		if asks < 0 {
			asks = 0
			if whole.skipped > 0 || t.wouldAsk(whole, t.toks) {
				asks = 1
			}
		}
		if asks == 0 {
			return nil, match{}, false
		}
		// Where a statement opening "it's", "i'm" starts is sure; one
		// read from its verb may start earlier ("the light in the walk-in
		// is out"), so the words before it must be the same request.
		sure := beingSubjects[t.said[k].norm]
		cut := t.said[:k]
		if alt, ok := t.m.understand(cut); ok && (sure || alt.intent == whole.intent) && (alt.skipped == 0 || alt.skipped < whole.skipped) &&
			alt.literals >= 1 && actionIntent(alt.intent) && !t.wouldAsk(alt, cut) {
			return cut, alt, true
		}
	}
	return nil, match{}, false
}

// sideClause gives the query without a closing condition or purpose
// ("... if that's not too much trouble", "... so I can time my walk",
// "... si no es molestia", "... para que no llegue tarde"), nil when it has
// none. The clause starts at the last opener and is a few words long.
func (m *langModel) sideClause(toks []token) []token {
	for k := len(toks) - 1; k > 1 && len(toks)-k <= maxSideClause; k-- {
		w := toks[k].norm
		next := ""
		if k+1 < len(toks) {
			next = toks[k+1].norm
		}
		if clauseOpeners[w] || clauseOpeners[w+" "+next] {
			return toks[:k]
		}
	}
	return nil
}

// clauseOpeners start a condition or a purpose (one word, or two).
// "Until" with a person ("until I wake", "hasta que llegue") says how long
// the speaker wants something, which no action carries; "until 3 pm" is a
// time and stays.
var clauseOpeners = map[string]bool{"if": true, "so that": true, "so i": true, "so we": true, "because": true,
	"while i": true, "while i'm": true, "while we": true, "while we're": true, "mientras": true,
	"until i": true, "until we": true, "till i": true, "till we": true,
	"si": true, "para que": true, "porque": true, "hasta que": true}

// maxSideClause is the most words a closing side clause has.
const maxSideClause = 10

// carriesFrom reports whether the reading holds words from position at on
// in a message or a title ("text mom I'm late because of the traffic").
func (t *turn) carriesFrom(mt match, at int) bool {
	for name, v := range mt.slots {
		if i, ok := t.m.slotIndex[name]; ok && t.m.slots[i].verbatim && v.end > at {
			return true
		}
	}
	return false
}

// findClock gives, for an alarm asked for without a time, a clock said
// elsewhere in the query with its mark (a day, am/pm, a colon: "I leave
// at 12:30 pm, set an alarm for then", "el viernes a mediodía, una
// alarma"); a bare number is left alone (it may be a count).
func (t *turn) findClock() (slotVal, bool) {
	toks := t.toks
	if t.said != nil {
		toks = t.said // the clause read, and what came before it
	}
	for j := 0; j < len(toks); j++ {
		w, n := t.m.parseWhen(toks[j:])
		if n == 0 || w.hasRel || !w.hasClock {
			continue
		}
		if w.day != dayNone || w.mer != "" || n > 1 || strings.ContainsAny(toks[j].norm, ":") {
			return slotVal{when: w}, true
		}
	}
	return slotVal{}, false
}

// onlyCancels reports whether every clause of the query, each read whole,
// calls the request off ("never mind, forget it"): no message says only
// that.
func (t *turn) onlyCancels() bool {
	cs := t.m.clausesOf(t.toks)
	for _, c := range cs {
		if mt, ok := t.m.understand(c); !ok || mt.intent != "cancel" || mt.skipped > 0 {
			return false
		}
	}
	return len(cs) > 1
}

// wouldAsk reports whether answering the reading mt of toks would ask for
// something still missing. It changes nothing (a dry run, as Understand
// reads) and asks no information source.
func (t *turn) wouldAsk(mt match, toks []token) bool {
	probe := *t
	probe.dry, probe.toks, probe.read = true, toks, nil
	probe.completeTime(&mt)
	return probe.handle(mt.intent, maps.Clone(mt.slots)).ask != ""
}

// overrides reports whether the clause's reading alt says again, in its
// own words, a value the whole's reading mt took from words outside the
// clause ("6 am" of "I have a flight at 6 am, wake me at 4 am"). A value
// the clause only completes is no such thing: "the friday alarm, set it
// for 5:45 am" keeps its Friday, the whole's reading merging both.
func overrides(alt, mt match, clause []token) bool {
	words := " " + joinNorm(clause) + " "
	for name, v := range mt.slots {
		w := joinNorm(tokenize(v.text))
		if w == "" || strings.Contains(words, " "+w+" ") {
			continue
		}
		a := alt.slots[name]
		if name == "time" {
			if a.when.hasClock && v.when.hasClock || a.when.day != dayNone && v.when.day != dayNone {
				return true
			}
			continue
		}
		if !strings.EqualFold(a.text, v.text) {
			return true
		}
	}
	return false
}

// hasSlotsOf reports whether a holds a value for every slot b holds.
func hasSlotsOf(a, b match) bool {
	for name := range b.slots {
		if _, ok := a.slots[name]; !ok {
			return false
		}
	}
	return true
}

// findDuration gives a length said anywhere in the query ("…needs
// checking in 15 minutes, timer please"), 0 when there is none: a
// timer asked for without one takes it, as an alarm takes a clock.
func (t *turn) findDuration() time.Duration {
	toks := t.toks
	if t.said != nil {
		toks = t.said
	}
	for j := range toks {
		if d, n := t.m.parseDuration(toks[j:]); n > 0 && d > 0 {
			return d
		}
	}
	return 0
}

// findDay takes a day named outside the pattern's slots ("what's the
// weather going to be like tomorrow in nyc").
func (t *turn) findDay(mt *match) {
	inSlot := func(j int) bool {
		for _, v := range mt.slots {
			if j >= v.start && j < v.end {
				return true
			}
		}
		return false
	}
	for j := 0; j < len(t.toks); j++ {
		if inSlot(j) {
			continue
		}
		if w, n := t.m.parseWhen(t.toks[j:]); n > 0 && w.day != dayNone {
			mt.slots["day"] = slotVal{when: w, start: j, end: j + n}
			return
		}
	}
}

// maxRereadTokens bounds the queries read a second time (verb last,
// one clause of several).
const maxRereadTokens = 40

// findCity takes a city named outside the pattern's slots when the
// intent's patterns ask for one ("forecast madrid tmrw", "tiempo
// barcelona el sábado": no "in" before it).
func (t *turn) findCity(mt *match) {
	if _, ok := mt.slots["city"]; ok {
		return
	}
	if _, ok := mt.slots["place"]; ok {
		return
	}
	// The open "place" slot of information intents takes a city too.
	name := "city"
	if !t.m.intentSlots[mt.intent]["city"] {
		if !t.m.intentSlots[mt.intent]["place"] || mt.intent == "NAVIGATE" {
			return
		}
		name = "place"
	}
	v, ok := t.m.findSlot("city", t.toks)
	if !ok {
		if v, ok = t.unknownPlace(mt); !ok {
			return
		}
		name = "place"
	}
	for _, o := range mt.slots {
		if v.start < o.end && o.start < v.end {
			return
		}
	}
	if mt.slots == nil {
		mt.slots = map[string]slotVal{}
	}
	mt.slots[name] = v
}

// completeTime merges time words the pattern left outside its time slot:
// in "cancel the 6:30 alarm tomorrow" the slot holds 6:30 and "tomorrow"
// trails the pattern. Only parts the slot lacks are taken, and a lone
// number is not taken for a clock (it may be a count in a title).
func (t *turn) completeTime(mt *match) {
	if _, ok := mt.slots["day"]; !ok && (mt.intent == "weather" || mt.intent == "events" || mt.intent == "date") {
		t.findDay(mt)
	}
	t.findCity(mt)
	v, ok := mt.slots["time"]
	if !ok || v.when.hasRel {
		return
	}
	w := v.when
	for j := 0; j < len(t.toks); {
		if j >= v.start && j < v.end {
			j = v.end
			continue
		}
		other, n := t.m.parseWhen(t.toks[j:])
		if j < v.start && j+n > v.start {
			// "remind me tomorrow at 8": the day before the slot, read
			// up to where the slot starts.
			other, n = t.m.parseWhen(t.toks[j:v.start])
		}
		if n == 0 || other.hasRel {
			j++
			continue
		}
		marked := other.day != dayNone || other.mer != "" || n > 1 || strings.ContainsAny(t.toks[j].norm, ":")
		if marked {
			if w.day == dayNone && other.day != dayNone {
				w.setDay(other)
			}
			if !w.hasClock && other.hasClock {
				w.hasClock, w.hour, w.minute = true, other.hour, other.minute
				if w.mer == "" {
					w.mer = other.mer
				}
			}
		}
		j += n
	}
	v.when = w
	mt.slots["time"] = v
}

func (t *turn) awaitsFreeText(conv *conversation) bool {
	i, ok := t.m.slotIndex[conv.awaiting]
	return ok && t.m.slots[i].kind == slotOpen
}

// followUp continues an information answer: a query that names only a
// day or a city ("and tomorrow?", "what about London?") asks the same
// question again with that change, and "another one" after a joke tells
// the next. Anything else is a new request.
func (t *turn) followUp(conv *conversation) reply {
	if conv.intent == "joke" {
		// "tell me another one" after a joke was a song of that name
		if !t.asksAnother() {
			return t.fresh()
		}
		r := t.joke(conv.slots["joke"].num + 1)
		r.intent = "joke"
		return r
	}
	mt, understood := t.m.understand(t.toks)
	if understood && mt.literals >= 2 {
		t.completeTime(&mt)
		return t.handleMatch(mt)
	}
	slots := map[string]slotVal{}
	for k, v := range conv.slots {
		slots[k] = v
	}
	changed := false
	if v, ok := t.m.findSlot("city", t.toks); ok {
		delete(slots, "place")
		slots["city"] = v
		changed = true
	}
	for j := range t.toks {
		if w, n := t.m.parseWhen(t.toks[j:]); n > 0 && w.day != dayNone && conv.intent != "time" {
			slots["day"] = slotVal{when: w}
			changed = true
			break
		}
	}
	if v, ok := t.m.findSlot("newscat", t.toks); ok && conv.intent == "news" {
		slots["newscat"] = v // "what's the news" - "what about sports"
		changed = true
	}
	if changed {
		return t.handle(conv.intent, slots)
	}
	// not a refinement: a new request, read as any other, with its second
	// readings ("my train leaves at 7:40, set an alarm for then", "oh and
	// before I forget, call my sister" after a weather answer)
	return t.fresh()
}

// fillSlot reads the awaited slot from a follow-up answer. A time that
// only names a day ("tomorrow") merges with a later clock ("at nine").
func (t *turn) fillSlot(conv *conversation) (slotVal, string, bool) {
	// "What is it about?" answered with only a time ("el viernes a las
	// 5"): the time is taken and the appointment keeps a plain title.
	if conv.intent == "SET_APPOINTMENT" && conv.awaiting == "title" {
		// "monday" alone is a time too: the appointment then asks for
		// the hour, and "at 2pm" completes Monday.
		if w, n := t.m.parseWhen(t.toks); n == len(t.toks) && !w.empty() {
			if conv.slots == nil {
				conv.slots = map[string]slotVal{}
			}
			conv.slots["title"] = slotVal{text: t.m.displayName("apptkind", "appointment")}
			// "an appointment for thursday" - "3:30 pm": Thursday's.
			return slotVal{when: w.merge(conv.slots["time"].when), end: n}, "time", true
		}
		// "dentist on thursday", "cena con Ana el viernes": a title
		// with its day or time after it; the time is kept apart and the
		// question for the hour, if any, follows.
		for k := 1; k < len(t.toks); k++ {
			if w, n := t.m.parseWhen(t.toks[k:]); n == len(t.toks)-k && !w.empty() {
				if conv.slots == nil {
					conv.slots = map[string]slotVal{}
				}
				conv.slots["time"] = slotVal{when: w.merge(conv.slots["time"].when), end: n}
				t.toks = t.toks[:k]
				break
			}
		}
	}
	// A contact may be answered with a number, a recipient with an
	// address: the typed reading wins when it covers the whole answer.
	toks := t.toks
	if i, ok := t.m.slotIndex[conv.awaiting]; ok && t.m.slots[i].perWord == costShortWord {
		// "to mom", "a Lucía": a name without the words around it, but
		// with its possessive or article ("my sister", "la abuela").
		for len(toks) > 1 && t.m.fillers[toks[0].norm] && !possessives[toks[0].norm] && !articles[toks[0].norm] {
			toks = toks[1:]
		}
	}
	if n, label := namesItsField(toks); n > 0 && (fieldSlots[label] == nil || fieldSlots[label][conv.awaiting]) {
		// "the title should be physical therapy", "the message is see you
		// at 8": the answer names its field before giving it (a field
		// other than the one asked for is not taken for it).
		toks = toks[n:]
	}
	if i, ok := t.m.slotIndex[conv.awaiting]; ok && t.m.slots[i].verbatim && len(toks) > 1 && fieldLabels[toks[0].norm] {
		// "body: agenda moved to 1500": the answer names the field it
		// fills, as in a form.
		toks = toks[1:]
	}
	if i, ok := t.m.slotIndex[conv.awaiting]; ok && t.m.slots[i].verbatim {
		// "uh, tell her I'm running late", "say I'll be in at noon",
		// "dile que llego tarde": the words that hand the message over are
		// no part of it.
		toks = t.m.messageLeadOff(toks)
	}
	if i, ok := t.m.slotIndex[conv.awaiting]; ok && t.m.slots[i].perWord == costShortWord {
		// "my son, please, my son": a name said twice is said once.
		toks = saidTwice(t.m, toks)
		// "to my son, please", "a Marta, por favor": the words after the
		// name's last comma, when all of them could be said of any
		// request, are no part of it.
		for k := len(toks) - 2; k >= 0; k-- {
			if commaAfter(toks[k]) {
				if t.m.allFillers(toks[k+1:]) {
					toks = toks[:k+1]
				}
				break
			}
		}
	}
	if i, ok := t.m.slotIndex[conv.awaiting]; ok && !t.m.slots[i].verbatim {
		// "the number is 646 555 0192", "her name is Lucy", "el número
		// es el 600...": the answer says what it gives before giving it.
		for k := 1; k <= 3 && k < len(toks)-1; k++ {
			if copulas[toks[k].norm] {
				toks = toks[k+1:]
				break
			}
		}
	}
	if typed, ok := preferTyped[conv.awaiting]; ok {
		if v, n := t.m.parseTyped(typed, toks); n > 0 && n == len(toks) {
			return v, typed, true
		}
		// "al número seis uno dos…", "number 555 0192": the word that
		// says what the answer gives, before it.
		if len(toks) > 1 && typedLabels[toks[0].norm] == typed {
			if v, n := t.m.parseTyped(typed, toks[1:]); n > 0 && n == len(toks)-1 {
				return v, typed, true
			}
		}
	}
	v, ok := t.m.findSlot(conv.awaiting, toks)
	if !ok {
		return slotVal{}, "", false
	}
	if prev, had := conv.slots[conv.awaiting]; had {
		if i, ok := t.m.slotIndex[conv.awaiting]; ok && t.m.slots[i].typ == "time" {
			v.when = prev.when.merge(v.when)
		}
	}
	return v, conv.awaiting, true
}

// answersWithTime reports whether the query, asked for a time, ends in
// one that starts within its first two words ("pónmela a las siete y
// media"): a verb and a pronoun before a time are no new request.
func (t *turn) answersWithTime(conv *conversation) bool {
	i, ok := t.m.slotIndex[conv.awaiting]
	if !ok || t.m.slots[i].typ != "time" {
		return false
	}
	for k := 0; k <= 2 && k < len(t.toks); k++ {
		if w, n := t.m.parseWhen(t.toks[k:]); n > 0 && k+n == len(t.toks) && w.complete() {
			return true
		}
	}
	return false
}

// messageOpeners are what a speaker says before getting to a message.
var messageOpeners = map[string]bool{"uh": true, "um": true, "er": true, "erm": true, "eh": true, "ok": true, "okay": true,
	"so": true, "well": true, "please": true, "porfa": true, "bueno": true, "vale": true, "pues": true, "este": true}

// messageLeads are the words that hand a message over when it is given as
// the answer to "what should it say?".
var messageLeads = [][]string{{"the", "message", "should", "say"}, {"the", "email", "should", "say"},
	{"the", "text", "should", "say"}, {"it", "should", "say"}, {"the", "body", "should", "say"}, {"tell", "her"}, {"tell", "him"}, {"tell", "them"}, {"just", "say"}, {"say"},
	{"write"}, {"dile"}, {"decile"}, {"ponle"}, {"que", "diga"}, {"pon"}, {"escribe"},
	// the forms of usted, as a polite speaker says them ("dígale que…";
	// words are compared folded, without accents)
	{"digale"}, {"digales"}, {"escribale"}, {"pongale"}}

// messageLeadOff drops interjections and the words that hand a message
// over ("uh, tell her that …") from the front of an answer, keeping at
// least one word.
func (m *langModel) messageLeadOff(toks []token) []token {
	for len(toks) > 1 && (interjections[toks[0].norm] || messageOpeners[toks[0].norm]) {
		if politeWords[toks[0].norm] && !commaAfter(toks[0]) && !m.leadsMessage(toks[1:]) {
			// "please send me the March receipts" asks the reader: the
			// "please" is the message's own, unless it hands the message
			// over ("please, …", "please tell her …").
			break
		}
		toks = toks[1:]
	}
	for _, lead := range messageLeads {
		if len(toks) > len(lead) && phraseNorms(toks, lead) {
			toks = toks[len(lead):]
			if len(toks) > 1 && (toks[0].norm == "that" || toks[0].norm == "que") {
				toks = toks[1:]
			}
			break
		}
	}
	return toks
}

// politeWords ask politely; before a message they may be its own.
var politeWords = map[string]bool{"please": true, "porfa": true}

// leadsMessage reports whether toks start with words that hand a message
// over ("tell her", "say").
func (m *langModel) leadsMessage(toks []token) bool {
	for _, lead := range messageLeads {
		if len(toks) > len(lead) && phraseNorms(toks, lead) {
			return true
		}
	}
	return false
}

func phraseNorms(toks []token, words []string) bool {
	for i, w := range words {
		// a word the speller read as another ("digale" as "diga") is
		// still the word typed
		if toks[i].norm != w && toks[i].typo != w {
			return false
		}
	}
	return true
}

// saidTwice reads "my son, please, my son" as "my son": the words before
// and after fillers being the same.
func saidTwice(m *langModel, toks []token) []token {
	for n := 1; 2*n <= len(toks); n++ {
		rest := toks[n:]
		for len(rest) > n && m.fillers[rest[0].norm] && !possessives[rest[0].norm] {
			rest = rest[1:]
		}
		if len(rest) != n {
			continue
		}
		same := true
		for i := range n {
			same = same && rest[i].norm == toks[i].norm
		}
		if same {
			return toks[:n]
		}
	}
	return toks
}

// fieldLabels name the field an answer fills ("body: ...", "asunto: ...").
var fieldLabels = map[string]bool{"body": true, "subject": true, "message": true, "text": true, "title": true,
	"cuerpo": true, "asunto": true, "mensaje": true, "texto": true, "titulo": true}

// namesItsField returns how many words open an answer that names the field
// it fills: an article or possessive, a field label, an optional modal and
// a copula ("the title should be", "its subject is", "el asunto es"); 0
// when the answer does not start so or nothing follows.
func namesItsField(toks []token) (int, string) {
	k := 0
	if k < len(toks) && (articles[toks[k].norm] || possessives[toks[k].norm]) {
		k++
	}
	if k >= len(toks) || !fieldLabels[toks[k].norm] {
		return 0, ""
	}
	label := toks[k].norm
	k++
	if k < len(toks) && modals[toks[k].norm] {
		k++
	}
	if k >= len(toks)-1 || !copulas[toks[k].norm] {
		return 0, ""
	}
	return k + 1, label
}

// fieldSlots are the slots each field label names.
var fieldSlots = map[string]map[string]bool{
	"subject": {"subject": true}, "asunto": {"subject": true},
	"title": {"title": true}, "titulo": {"title": true},
	"body": {"body": true}, "cuerpo": {"body": true},
	"message": {"message": true, "body": true}, "text": {"message": true, "body": true},
	"mensaje": {"message": true, "body": true}, "texto": {"message": true, "body": true},
}

// modals may come between a field and its copula ("should be", "debe ser").
var modals = map[string]bool{"should": true, "will": true, "would": true, "can": true, "must": true,
	"debe": true, "deberia": true, "va": true, "puede": true}

// copulas end the words an answer names itself with ("the number is").
var copulas = map[string]bool{"is": true, "es": true, "be": true, "sea": true, "ser": true}

// preferTyped names, for an awaited open slot, the typed slot an answer
// may fill instead.
var preferTyped = map[string]string{"contact": "phone", "recipient": "email"}

// typedLabels name the kind of value an answer gives before giving it
// (folded).
var typedLabels = map[string]string{"number": "phone", "numero": "phone", "phone": "phone", "telefono": "phone",
	"email": "email", "correo": "email", "address": "email"}

// reply is what a handler decides, before rendering.
type reply struct {
	intent      string
	text        string
	speech      string
	items       []string // listed under the text
	itemsSpeech []string
	actions     []NextAction
	ask         string             // slot awaited; a non-empty ask keeps the conversation
	slots       map[string]slotVal // slots gathered so far, kept with ask
	asks        int
	followUp    bool // an information answer a follow-up may refine
}

// render produces the text, speech and HTML forms. Every piece of text is
// escaped for HTML; speech loses symbols a speech engine would spell out.
func (r reply) render(lang string) (text, speech, htm string) {
	var tb, hb strings.Builder
	tb.WriteString(r.text)
	hb.WriteString("<p>")
	hb.WriteString(escapeHTML(capitalize(r.text)))
	hb.WriteString("</p>")
	if len(r.items) > 0 {
		hb.WriteString("<ul>")
		for _, it := range r.items {
			tb.WriteString("\n- ")
			tb.WriteString(it)
			hb.WriteString("<li>")
			hb.WriteString(escapeHTML(it))
			hb.WriteString("</li>")
		}
		hb.WriteString("</ul>")
	}
	sp := r.speech
	if len(r.itemsSpeech) > 0 {
		// The written header ends with a colon; spoken, it ends a sentence.
		sp = strings.TrimSuffix(strings.TrimSpace(sp), ":") + ". " + strings.Join(r.itemsSpeech, ". ") + "."
	}
	return capitalize(tb.String()), capitalize(speakable(sp)), hb.String()
}

// capitalize starts an answer with a capital in each of its forms
// ("tomorrow in Madrid: ..." comes from a template that starts with a day).
func capitalize(s string) string {
	r, size := utf8.DecodeRuneInString(s)
	if r == utf8.RuneError || unicode.IsUpper(r) {
		return s
	}
	return string(unicode.ToUpper(r)) + s[size:]
}

func (t *turn) logf(format string, args ...any) {
	t.e.log.Warn(fmt.Sprintf(format, args...), "component", "dialogue")
}

// stemmedFirst gives the query with its first word that is no filler read
// as the word it stems from, or nil when it stems from none.
func (m *langModel) stemmedFirst(toks []token) []token {
	for k, tok := range toks {
		if m.fillers[tok.norm] {
			continue
		}
		w := m.spell.stem(tok.norm)
		if w == "" || w == tok.norm || tok.typo != "" {
			return nil
		}
		out := append([]token(nil), toks...)
		out[k].norm, out[k].typo = w, tok.norm
		return out
	}
	return nil
}
