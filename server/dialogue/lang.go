package dialogue

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/harkhq/hark/assets"
)

// Languages the engine speaks; the first is the default.
var languages = []string{"en", "es"}

// langFile is the JSON layout of assets/data/dialogue/<lang>.json.
type langFile struct {
	// Fillers are words a query may carry around a phrase at a low cost
	// ("please", "can you").
	Fillers []string `json:"fillers"`
	// Courtesy phrases a speaker may put before or after any request
	// ("please", "could you"); the speech grammar allows them around every
	// pattern (the matcher already skips them as fillers).
	Courtesy []string `json:"courtesy"`
	// Openers are what a speaker may say before a spoken request ("hey",
	// "ok so", "uh"): the speech language model puts them before its
	// sentences. The matcher reads them as it reads any leading word; the
	// grammar does not allow them.
	Openers []string `json:"openers"`
	// Asides are words that open a clause a speaker adds after a complete
	// request ("set a timer for 3 minutes because my ramen…", "call jake i
	// locked myself out"): the words from one of them to the end, when no
	// pattern reads them, do not count against the reading before them.
	Asides []string `json:"asides"`
	// NotPlaces are words no place name holds (pronouns, possessives,
	// question words, auxiliaries): an open place that has one ("is it
	// cold outside, would I need my coat", "the temperature going to be")
	// is not a place, and the question is about where the user is.
	NotPlaces []string `json:"notPlaces"`
	// Describers say which one or what kind of a thing without naming it
	// ("another", "a quick", "a second"): "set another timer for 5
	// minutes" labels no timer "another", "create another appointment"
	// titles none.
	Describers []string `json:"describers"`
	// NearWords say how near a place is wanted ("nearest", "closest"):
	// before a category they leave it that category, where another word
	// makes it another kind of place ("the nearest gas station" is no
	// train station).
	NearWords []string `json:"nearWords"`
	// WakeWords ask to be woken ("wake", "despiértame"): the hour of such
	// an alarm said alone is in the morning.
	WakeWords []string `json:"wakeWords"`
	// Periods name spans of time longer than a day ("next week", "el mes
	// que viene"): words that hold one are no place, and the weather is
	// told a day at a time.
	Periods []string `json:"periods"`
	// Hesitations are sounds a speaker makes while thinking ("um", "uh",
	// "eh"); Exclamations open a query with a reaction ("oh", "oops",
	// "ay"), carried on by the Exclaimed words after them ("oh shoot",
	// "ay no"); Discourse phrases are fillers when commas set them off
	// (", like,", ", you know,"). None is part of a request (fluent.go).
	Hesitations  []string `json:"hesitations"`
	Exclamations []string `json:"exclamations"`
	Exclaimed    []string `json:"exclaimed"`
	Discourse    []string `json:"discourse"`
	// Manner phrases say how soon the speaker wants something ("real
	// quick", "al toque"): never the end of a name.
	Manner []string `json:"manner"`
	// Reminders ask to be reminded ("remind me", "recuérdame"): said with
	// a time and at most one other word, they ask for an alarm.
	Reminders []string `json:"reminders"`
	// Addressee words point at the assistant itself ("you", "this", its
	// name). A pattern that asks about the assistant through one ("what
	// are you", "how does this work") does not read a query that says
	// none of them and, in their place, a word no pattern knows: "what is
	// inflation", "how do submarines work" ask about something else.
	Addressee []string `json:"addressee"`
	// Speaker are the words by which the speaker points at themself ("i",
	// "my", "yo", "mi"). Said where a pattern about the assistant has its
	// word for it, they make the query about the speaker: "what's my
	// name", "how am i doing" are not "what's your name", "how are you
	// doing".
	Speaker []string `json:"speaker"`
	// Shorthand maps words people shorten when they type ("vol", "nav",
	// "rst") to the word the patterns use; read like a typing slip.
	Shorthand map[string]string `json:"shorthand"`
	// Numbers maps number words to their values. The slots num_unit (1-9),
	// num_teen (other atomic numbers under 100) and num_tens (20, 30 ... 90)
	// and num_hundred are derived from it for the grammar.
	Numbers map[string]int `json:"numbers"`
	// Scales are the words that multiply a group in a long figure read
	// aloud ("thousand", "million"); apart from Numbers so that the
	// grammar's number classes stay as they are.
	Scales map[string]int `json:"scales"`
	// TimeWords maps words and phrases of time expressions to their role
	// (see the role constants in when.go).
	TimeWords map[string]string `json:"timewords"`
	// Typed slots are read by a parser (time, duration, number, phone,
	// url, email); their alternatives describe the spoken forms for the
	// speech grammar.
	Typed map[string]string `json:"typed"`
	// Open slots capture any words (names, message bodies); their
	// alternatives are examples for the speech grammar.
	Open []string `json:"open"`
	// Short open slots hold a few words (a name); the matcher gives them
	// as few words as the pattern allows when two open slots meet
	// ("text mom I'm late").
	Short []string `json:"short"`
	// Verbatim open slots keep every word, even polite ones at the end
	// (message bodies).
	Verbatim []string `json:"verbatim"`
	// Slots maps a slot name to its alternatives (pattern syntax).
	Slots map[string][]string `json:"slots"`
	// Values maps, per closed slot, a phrase to its canonical value;
	// phrases not listed stand for themselves.
	Values map[string]map[string]string `json:"values"`
	// Intents maps an intent (an action code or an information intent) to
	// its patterns.
	Intents map[string][]string `json:"intents"`
	// TypedIntents are patterns for typed queries only: the matcher reads
	// them, the speech grammar leaves them out, because every path a
	// grammar gains makes the recogniser's other paths less likely.
	TypedIntents map[string][]string `json:"typedIntents"`
	// Display gives, per slot, the words an answer uses for a canonical
	// value ("tv" -> "la tele"); values not listed are said as their
	// longest phrase.
	Display map[string]map[string]string `json:"display"`
	// Spoken maps words that stand for symbols in spoken addresses
	// ("dot" -> ".", "at" -> "@").
	Spoken map[string]string `json:"spoken"`
	// LetterWords are the letters that are words of the language ("a",
	// "i"; "y", "o"): a run of letters said one by one ("j f k") is one
	// word, and a letter word joins such a run only inside it ("l a x"),
	// since at its edge it is more likely the word.
	LetterWords []string `json:"letterWords"`
	// DigitSounds are words that sound like a digit ("for", "to"): read as
	// that digit between digits said one by one, where a recogniser writes
	// "six for six" for "six four six".
	DigitSounds map[string]int `json:"digitSounds"`
	// Say holds the answer templates; {name} is replaced by a value.
	Say map[string]string `json:"say"`
}

type slotKind int

const (
	slotClosed slotKind = iota
	slotTyped
	slotOpen
)

type slotDef struct {
	name     string
	kind     slotKind
	typ      string            // parser of a typed slot
	values   map[string]string // closed: folded phrase -> canonical value
	maxLen   int               // closed: longest phrase in words
	firsts   []string          // closed: first words of the phrases, for the index
	perWord  float32           // open: cost of each word taken
	verbatim bool              // open: keeps trailing fillers
	message  bool              // open: carries a message (messageSlots)
	// parsed is the first slot with the same parser (itself when none
	// comes before): typed slots of one type read the same values, so a
	// query's candidates are parsed once per type ("day", "time" and
	// "until" are all times).
	parsed int
}

type variant struct {
	intent  string
	elems   []elem
	pattern int // index in langModel.patterns
	// required lists the steps of required, non-filler words; anchors
	// counts them plus the closed slots. Both bound the best cost before
	// the alignment runs.
	required []int
	anchors  int
}

// langModel is everything compiled from one language file.
type langModel struct {
	lang      string
	fillers   map[string]bool
	addressee map[string]bool
	speaker   map[string]bool
	asides    map[string]bool
	// courtesyEnds are the last words of the courtesy phrases ("please",
	// "favor"): said after a request, they close it.
	courtesyEnds map[string]bool
	notPlaces    map[string]bool
	describers   map[string]bool
	nearWords    map[string]bool
	wakeWords    map[string]bool
	periods      map[string]bool
	// spoken disfluencies (fluent.go)
	hesitations, exclamations, exclaimed map[string]bool
	discourse, manner, reminders         [][]string
	numbers, scales                      map[string]int
	timeWords                            phraseTable
	spoken                               map[string]string
	letterWords                          map[string]bool
	digitSounds                          map[string]int
	display                              map[string]map[string]string
	slots                                []*slotDef
	slotIndex                            map[string]int
	patterns                             []Pattern
	variants                             []variant
	index                                map[string][]int32 // indexed word -> variants containing it
	leads                                map[string]bool    // words a pattern starts with ("set", "pon")
	// strictOnly are the words only the patterns of strict intents hold
	// ("snooze", "long"): no other reading knows them.
	strictOnly map[string]bool
	undoWords  map[string]bool // words of the intents that call something off ("stop", "silence")
	// intentWords holds the words of each intent's patterns, which end
	// no name of that intent ("channel 3 on the tv", "photos application")
	intentWords map[string]map[string]bool
	// intentSlots holds the slots each intent's patterns use
	intentSlots map[string]map[string]bool
	vocab       map[string]int32 // every pattern word -> id
	say         map[string]string
	grammar     map[string][]string
	spell       *speller
	// the parsed texts, for GrammarSpec; typedOnly marks the patterns the
	// speech grammar leaves out
	parsedPatterns [][]node
	typedOnly      []bool
	parsedSlots    map[string][][]node
	parsedCourtesy [][]node
	parsedOpeners  [][]node
}

var (
	// worldPlaces maps the folded names of well-known places outside
	// the sandbox (places.json) to their written names.
	worldPlaces map[string]string
	// appNames maps the folded names and short names of apps.json to the
	// app's name.
	appNames  map[string]string
	loadOnce  sync.Once
	models    map[string]*langModel
	cityTable []city
	loadErr   error
)

// loadModels compiles the embedded language files once per process; the
// data is immutable afterwards and shared by every Engine.
func loadModels() (map[string]*langModel, error) {
	loadOnce.Do(func() {
		models = map[string]*langModel{}
		if cityTable, loadErr = loadCities(); loadErr != nil {
			return
		}
		fsys := assets.Sub("dialogue")
		if worldPlaces, loadErr = loadPlaces(fsys); loadErr != nil {
			return
		}
		if appNames, loadErr = loadApps(fsys); loadErr != nil {
			return
		}
		for _, lang := range languages {
			m, err := loadModel(fsys, lang, cityTable)
			if err != nil {
				loadErr = err
				return
			}
			models[lang] = m
		}
	})
	return models, loadErr
}

// loadPlaces reads the names of places.json.
func loadPlaces(fsys fs.FS) (map[string]string, error) {
	raw, err := fs.ReadFile(fsys, "places.json")
	if err != nil {
		return nil, fmt.Errorf("dialogue data places: %w", err)
	}
	var f struct {
		Names []string `json:"names"`
	}
	if err := json.Unmarshal(raw, &f); err != nil {
		return nil, fmt.Errorf("dialogue data places: %w", err)
	}
	out := make(map[string]string, len(f.Names))
	for _, n := range f.Names {
		// The first spelling listed is the one answers use ("Paris"
		// before "París").
		if k := joinNorm(tokenize(n)); out[k] == "" {
			out[k] = n
		}
	}
	return out, nil
}

// loadApps reads apps.json: every app's name and short names, folded, to
// the name.
func loadApps(fsys fs.FS) (map[string]string, error) {
	raw, err := fs.ReadFile(fsys, "apps.json")
	if err != nil {
		return nil, fmt.Errorf("dialogue data apps: %w", err)
	}
	var f struct {
		Apps map[string][]string `json:"apps"`
	}
	if err := json.Unmarshal(raw, &f); err != nil {
		return nil, fmt.Errorf("dialogue data apps: %w", err)
	}
	out := map[string]string{}
	for name, shorts := range f.Apps {
		for _, w := range append([]string{name}, shorts...) {
			k := joinNorm(tokenize(w))
			if other, dup := out[k]; dup && other != name {
				return nil, fmt.Errorf("dialogue data apps: %q names both %s and %s", w, other, name)
			}
			out[k] = name
		}
	}
	return out, nil
}

func loadModel(fsys fs.FS, lang string, cities []city) (*langModel, error) {
	raw, err := fs.ReadFile(fsys, lang+".json")
	if err != nil {
		return nil, fmt.Errorf("dialogue data %s: %w", lang, err)
	}
	var f langFile
	if err := json.Unmarshal(raw, &f); err != nil {
		return nil, fmt.Errorf("dialogue data %s: %w", lang, err)
	}
	// The city slot takes every name the city files give a city; the
	// language file adds only its own nicknames.
	if f.Slots == nil {
		f.Slots = map[string][]string{}
	}
	if f.Values == nil {
		f.Values = map[string]map[string]string{}
	}
	if f.Values["city"] == nil {
		f.Values["city"] = map[string]string{}
	}
	have := map[string]bool{}
	nicknames := append([]string(nil), f.Slots["city"]...)
	for _, a := range f.Slots["city"] {
		have[fold(a)] = true
	}
	vals := citySlotValues(cities)
	phrases := make([]string, 0, len(vals))
	for p := range vals {
		phrases = append(phrases, p)
	}
	sort.Strings(phrases)
	for _, p := range phrases {
		if !have[p] {
			f.Slots["city"] = append(f.Slots["city"], p)
		}
		f.Values["city"][p] = vals[p]
	}
	typed := map[string]bool{}
	for intent, texts := range f.TypedIntents {
		for _, text := range texts {
			if !slices.Contains(f.Intents[intent], text) {
				f.Intents[intent] = append(f.Intents[intent], text)
				typed[intent+"\x00"+text] = true
			}
		}
	}
	m, err := compileModel(lang, f)
	if err != nil {
		return nil, err
	}
	// The speech grammar says each city by its name and the language's
	// nicknames only: every other way of writing it ("London UK",
	// "Madrid España") is a path that makes the grammar's other paths less
	// likely, and typed queries find them anyway.
	spoken := append([]string(nil), nicknames...)
	for _, c := range cities {
		spoken = append(spoken, strings.ToLower(c.Name))
	}
	m.grammar["city"] = spoken
	m.parsedSlots["city"] = nil
	for _, text := range spoken {
		seq, err := parsePattern(text)
		if err != nil {
			return nil, fmt.Errorf("dialogue data %s: city %q: %w", lang, text, err)
		}
		m.parsedSlots["city"] = append(m.parsedSlots["city"], seq)
	}
	m.typedOnly = make([]bool, len(m.patterns))
	for i, p := range m.patterns {
		m.typedOnly[i] = typed[p.Intent+"\x00"+p.Text]
	}
	return m, nil
}

func compileModel(lang string, f langFile) (*langModel, error) {
	m := &langModel{
		lang:         lang,
		fillers:      map[string]bool{},
		addressee:    map[string]bool{},
		speaker:      map[string]bool{},
		asides:       map[string]bool{},
		courtesyEnds: map[string]bool{},
		notPlaces:    map[string]bool{},
		describers:   map[string]bool{},
		nearWords:    map[string]bool{},
		wakeWords:    map[string]bool{},
		periods:      map[string]bool{},
		hesitations:  map[string]bool{}, exclamations: map[string]bool{}, exclaimed: map[string]bool{},
		numbers:     map[string]int{},
		scales:      map[string]int{},
		slotIndex:   map[string]int{},
		index:       map[string][]int32{},
		vocab:       map[string]int32{},
		leads:       map[string]bool{},
		intentWords: map[string]map[string]bool{},
		intentSlots: map[string]map[string]bool{},
		say:         f.Say,
		grammar:     map[string][]string{},
		spoken:      map[string]string{},
		letterWords: map[string]bool{},
		digitSounds: map[string]int{},
		display:     f.Display,
	}
	for w, d := range f.DigitSounds {
		m.digitSounds[fold(w)] = d
	}
	for w, sym := range f.Spoken {
		m.spoken[fold(w)] = sym
	}
	for _, w := range f.LetterWords {
		if utf8.RuneCountInString(w) != 1 {
			return nil, fmt.Errorf("dialogue data %s: letter word %q is not one letter", lang, w)
		}
		m.letterWords[fold(w)] = true
	}
	for _, w := range f.Fillers {
		m.fillers[fold(w)] = true
	}
	for _, w := range f.Asides {
		m.asides[fold(w)] = true
	}
	for set, words := range map[*map[string]bool][]string{&m.hesitations: f.Hesitations,
		&m.exclamations: f.Exclamations, &m.exclaimed: f.Exclaimed, &m.notPlaces: f.NotPlaces,
		&m.describers: f.Describers, &m.nearWords: f.NearWords, &m.wakeWords: f.WakeWords,
		&m.periods: f.Periods} {
		for _, w := range words {
			(*set)[fold(w)] = true
		}
	}
	for _, p := range f.Discourse {
		m.discourse = append(m.discourse, strings.Fields(fold(p)))
	}
	for _, p := range f.Manner {
		m.manner = append(m.manner, strings.Fields(fold(p)))
	}
	for _, w := range f.Addressee {
		m.addressee[fold(w)] = true
	}
	for _, w := range f.Speaker {
		m.speaker[fold(w)] = true
	}
	for _, p := range f.Reminders {
		m.reminders = append(m.reminders, strings.Fields(fold(p)))
	}
	for _, c := range f.Courtesy {
		seq, err := parsePattern(c)
		if err != nil {
			return nil, fmt.Errorf("dialogue data %s: courtesy: %w", lang, err)
		}
		m.parsedCourtesy = append(m.parsedCourtesy, seq)
		if w := strings.Fields(fold(c)); lettersOnly(w[len(w)-1]) {
			m.courtesyEnds[w[len(w)-1]] = true
		}
	}
	for _, o := range f.Openers {
		seq, err := parsePattern(o)
		if err != nil {
			return nil, fmt.Errorf("dialogue data %s: openers: %w", lang, err)
		}
		m.parsedOpeners = append(m.parsedOpeners, seq)
	}
	for w, v := range f.Numbers {
		m.numbers[fold(w)] = v
	}
	for w, v := range f.Scales {
		if v < 1000 || v > 1e9 {
			return nil, fmt.Errorf("dialogue data %s: scale %q: %d is not from a thousand to a billion", lang, w, v)
		}
		m.scales[fold(w)] = v
	}
	roles := map[string]string{}
	for phrase, role := range f.TimeWords {
		if !knownRoles[role] {
			return nil, fmt.Errorf("dialogue data %s: time word %q has unknown role %q", lang, phrase, role)
		}
		roles[fold(phrase)] = role
	}
	m.timeWords = newPhraseTable(roles)

	// Grammar slots: the file's own plus the number classes derived from
	// the number words, so the grammar and the parser share one list.
	slots := map[string][]string{}
	for name, alts := range f.Slots {
		slots[name] = alts
	}
	for name, words := range numberClasses(f.Numbers) {
		slots[name] = words
	}
	parsedSlots := map[string][][]node{}
	for name, alts := range slots {
		for _, a := range alts {
			seq, err := parsePattern(a)
			if err != nil {
				return nil, fmt.Errorf("dialogue data %s: slot %s: %w", lang, name, err)
			}
			parsedSlots[name] = append(parsedSlots[name], seq)
		}
		m.grammar[name] = append([]string(nil), alts...)
	}
	m.parsedSlots = parsedSlots
	slotAlts := func(name string) ([][]node, error) {
		alts, ok := parsedSlots[name]
		if !ok {
			return nil, fmt.Errorf("unknown slot {%s}", name)
		}
		return alts, nil
	}
	open := map[string]bool{}
	for _, name := range f.Open {
		open[name] = true
	}
	short := map[string]bool{}
	for _, name := range f.Short {
		if !open[name] {
			return nil, fmt.Errorf("dialogue data %s: short slot %s is not open", lang, name)
		}
		short[name] = true
	}
	// Every slot reference must resolve, even in slots only the speech
	// grammar uses.
	for name, alts := range parsedSlots {
		for _, seq := range alts {
			if err := checkRefs(seq, parsedSlots); err != nil {
				return nil, fmt.Errorf("dialogue data %s: slot %s: %w", lang, name, err)
			}
		}
	}
	// Only the slots the patterns use are compiled for matching; the
	// others compose typed slots for the speech grammar.
	// city, personal and placecat are read inside destinations and
	// places, not only by patterns.
	used := map[string]bool{"city": true, "personal": true, "placecat": true}
	for intent, texts := range f.Intents {
		for _, text := range texts {
			seq, err := parsePattern(text)
			if err != nil {
				return nil, fmt.Errorf("dialogue data %s: intent %s: %w", lang, intent, err)
			}
			if err := checkRefs(seq, parsedSlots); err != nil {
				return nil, fmt.Errorf("dialogue data %s: intent %s: pattern %q: %w", lang, intent, text, err)
			}
			collectRefs(seq, used)
		}
	}
	names := make([]string, 0, len(used))
	for name := range used {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		def := &slotDef{name: name, message: messageSlots[name]}
		switch {
		case f.Typed[name] != "":
			def.kind, def.typ = slotTyped, f.Typed[name]
			if !knownParsers[def.typ] {
				return nil, fmt.Errorf("dialogue data %s: slot %s has unknown type %q", lang, name, def.typ)
			}
		case open[name]:
			def.kind = slotOpen
			def.perWord = costOpenWord
			if short[name] {
				def.perWord = costShortWord
			}
			for _, v := range f.Verbatim {
				def.verbatim = def.verbatim || v == name
			}
		default:
			def.kind = slotClosed
			def.values = map[string]string{}
			for _, seq := range parsedSlots[name] {
				phrases, err := expandWords(seq, slotAlts, 5000, 0)
				if err != nil {
					return nil, fmt.Errorf("dialogue data %s: slot %s: %w", lang, name, err)
				}
				for _, p := range phrases {
					if p == "" {
						continue
					}
					def.values[p] = p
					if n := strings.Count(p, " ") + 1; n > def.maxLen {
						def.maxLen = n
					}
				}
			}
			firsts := map[string]bool{}
			for p := range def.values {
				words := strings.Fields(p)
				// The index leaves fillers out, so a phrase that opens with
				// one ("do not disturb") is found by its first other word
				// too: "do not disturb on" was no candidate of "{feature} on".
				lead := []string{words[0]}
				for _, w := range words {
					if !m.fillers[w] {
						lead = append(lead, w)
						break
					}
				}
				for _, w := range lead {
					if !firsts[w] {
						firsts[w] = true
						def.firsts = append(def.firsts, w)
					}
				}
			}
			sort.Strings(def.firsts)
			for phrase, canon := range f.Values[name] {
				if _, ok := def.values[fold(phrase)]; !ok {
					return nil, fmt.Errorf("dialogue data %s: value for %q is not an alternative of slot %s", lang, phrase, name)
				}
				def.values[fold(phrase)] = canon
			}
		}
		m.slotIndex[name] = len(m.slots)
		def.parsed = len(m.slots)
		for i, other := range m.slots {
			if def.kind == slotTyped && other.kind == slotTyped && other.typ == def.typ {
				def.parsed = i
				break
			}
		}
		m.slots = append(m.slots, def)
	}
	for name := range f.Typed {
		if _, ok := m.slotIndex[name]; !ok {
			return nil, fmt.Errorf("dialogue data %s: typed slot %s has no alternatives", lang, name)
		}
	}
	slotIdx := func(name string) (int, error) {
		i, ok := m.slotIndex[name]
		if !ok {
			return 0, fmt.Errorf("unknown slot {%s}", name)
		}
		return i, nil
	}

	intents := make([]string, 0, len(f.Intents))
	for intent := range f.Intents {
		intents = append(intents, intent)
	}
	sort.Strings(intents)
	strictWords, other := map[string]bool{}, map[string]bool{} // words of strict patterns, of the others
	for _, intent := range intents {
		said := other
		if strict(intent) {
			said = strictWords
		}
		for _, text := range f.Intents[intent] {
			seq, err := parsePattern(text)
			if err != nil {
				return nil, fmt.Errorf("dialogue data %s: intent %s: %w", lang, intent, err)
			}
			vars, err := flatten(seq, slotIdx)
			if err != nil {
				return nil, fmt.Errorf("dialogue data %s: intent %s: pattern %q: %w", lang, intent, text, err)
			}
			pi := len(m.patterns)
			m.patterns = append(m.patterns, Pattern{Lang: lang, Intent: intent, Text: text})
			m.parsedPatterns = append(m.parsedPatterns, seq)
			for _, v := range vars {
				if len(v) == 0 {
					continue
				}
				id := int32(len(m.variants))
				m.variants = append(m.variants, variant{intent: intent, elems: v, pattern: pi})
				// A pattern is a candidate for a query holding one of its
				// words or the first word of one of its closed slots.
				seen := map[string]bool{}
				add := func(w string) {
					if !m.fillers[w] && !seen[w] {
						seen[w] = true
						m.index[w] = append(m.index[w], id)
					}
				}
				iw := m.intentWords[intent]
				if iw == nil {
					iw = map[string]bool{}
					m.intentWords[intent] = iw
				}
				is := m.intentSlots[intent]
				if is == nil {
					is = map[string]bool{}
					m.intentSlots[intent] = is
				}
				for _, e := range v {
					if e.slot >= 0 {
						is[m.slots[e.slot].name] = true
					}
					if e.slot < 0 {
						for _, w := range e.words {
							iw[w] = true
						}
					}
				}
				// A strict intent is read in the words' order only: its
				// first words lead no word-order reading.
				if e := v[0]; e.slot < 0 && !e.optional && !e.filler && !strict(intent) {
					for _, w := range e.words {
						m.leads[w] = true
					}
				}
				vr := &m.variants[id]
				for k := range v {
					e := &v[k]
					for _, w := range e.words {
						e.ids = append(e.ids, m.wordID(w))
						said[w] = true
					}
					for _, ph := range e.phrases {
						var ids []int32
						for _, w := range ph {
							ids = append(ids, m.wordID(w))
							said[w] = true
						}
						e.phraseID = append(e.phraseID, ids)
					}
					if e.slot < 0 {
						e.filler = true
						for _, w := range e.words {
							e.filler = e.filler && m.fillers[w]
							e.addressee = e.addressee || m.addressee[w]
						}
						for _, ph := range e.phrases {
							for _, w := range ph {
								e.filler = e.filler && m.fillers[w]
								e.addressee = e.addressee || m.addressee[w]
							}
						}
					}
					for _, w := range e.words {
						add(w)
					}
					for _, ph := range e.phrases {
						for _, w := range ph {
							add(w)
						}
					}
					switch {
					case e.slot < 0 && !e.optional && !e.filler && len(e.phrases) == 0:
						vr.required = append(vr.required, k)
						vr.anchors++
					case e.slot >= 0 && m.slots[e.slot].kind == slotClosed:
						vr.anchors++
					}
					if e.slot >= 0 && m.slots[e.slot].kind == slotClosed {
						for _, w := range m.slots[e.slot].firsts {
							add(w)
						}
					}
				}
				if len(seen) == 0 {
					return nil, fmt.Errorf("dialogue data %s: intent %s: pattern %q has neither a word that is not a filler nor a closed slot", lang, intent, text)
				}
			}
		}
	}
	m.strictOnly = map[string]bool{}
	for w := range strictWords {
		if !other[w] {
			m.strictOnly[w] = true
		}
	}
	m.spell = newSpeller(spellingData(f))
	m.spell.verbs = m.leads
	m.undoWords = map[string]bool{}
	for intent, words := range m.intentWords {
		if intent == "cancel" || strings.HasPrefix(intent, "DELETE_") || intent == "DEACTIVATE" {
			for w := range words {
				if !m.fillers[w] {
					m.undoWords[w] = true
				}
			}
		}
	}
	m.spell.shorthand = map[string]string{}
	m.spell.silentH = lang == "es"
	for k, v := range f.Shorthand {
		// The speller reads shorthand only in words it does not know, so
		// an abbreviation a pattern also holds ("how r u") would never be
		// expanded anywhere else ("what r u" stayed "r", not "are").
		if _, inPattern := m.vocab[fold(k)]; inPattern {
			return nil, fmt.Errorf("dialogue data %s: shorthand %q is a word the language file holds; write the full word in the pattern", lang, k)
		}
		m.spell.shorthand[fold(k)] = fold(v)
	}
	return m, nil
}

func checkRefs(seq []node, slots map[string][][]node) error {
	refs := map[string]bool{}
	collectRefs(seq, refs)
	for name := range refs {
		if _, ok := slots[name]; !ok {
			return fmt.Errorf("unknown slot {%s}", name)
		}
	}
	return nil
}

func collectRefs(seq []node, into map[string]bool) {
	for _, n := range seq {
		switch n.kind {
		case nodeSlot:
			into[n.slot] = true
		case nodeOpt:
			collectRefs(n.items, into)
		case nodeAlt:
			for _, a := range n.alts {
				collectRefs(a, into)
			}
		}
	}
}

func (m *langModel) wordID(w string) int32 {
	id, ok := m.vocab[w]
	if !ok {
		id = int32(len(m.vocab))
		m.vocab[w] = id
	}
	return id
}

// libraryPhrase is a title or artist of the music library as words a
// speech grammar can hold.
type libraryPhrase struct {
	slot  string
	words []string
}

// libraryPhrases lists the library's titles (slot song) and artists (slot
// artist), and the apps' names (slot app), for the speech grammar; titles
// with characters a grammar cannot hold (digits, symbols) are left out.
func (e *Engine) libraryPhrases() []libraryPhrase {
	var out []libraryPhrase
	seen := map[string]bool{}
	add := func(slot, text string) {
		phrase := strings.Join(strings.Fields(strings.ToLower(text)), " ")
		if phrase == "" || seen[slot+phrase] || !grammarWords.MatchString(phrase) {
			return
		}
		seen[slot+phrase] = true
		out = append(out, libraryPhrase{slot, strings.Fields(phrase)})
	}
	for _, tr := range e.music {
		add("song", strings.NewReplacer(",", " ", "!", " ", "?", " ", ".", " ", "\"", " ").Replace(tr.Title))
		add("artist", strings.NewReplacer(",", " ", ".", " ").Replace(tr.Artist))
	}
	// The teams of the cities' leagues, by their names and, for a
	// basketball team named after its players ("New York Knicks"), as fans
	// say it: "the knicks" (a football club's last word is often its town:
	// "FC Dallas", "Real Betis"). The team slot's own alternatives are a
	// few examples.
	punct := strings.NewReplacer(".", " ", "&", " ", "(", " ", ")", " ")
	for _, c := range e.cities {
		for _, name := range c.Soccer.teams() {
			add("team", punct.Replace(name))
		}
		for _, name := range c.Basketball.teams() {
			add("team", punct.Replace(name))
			if words := strings.Fields(name); len(words) > 1 && strings.HasSuffix(words[len(words)-1], "s") {
				add("team", "the "+words[len(words)-1])
			}
		}
	}
	// The apps people open by name (apps.json), by the name OPEN_APP
	// carries: the app slot's own alternatives are a few examples.
	apps := slices.Sorted(maps.Values(appNames))
	for _, name := range slices.Compact(apps) {
		add("app", name)
	}
	return out
}

// grammarWords is what a speech grammar phrase may hold.
var grammarWords = regexp.MustCompile(`^[a-záéíóúüñ' -]+$`)

// numberClasses sorts the number words into the classes the speech grammar
// composes numbers from.
func numberClasses(numbers map[string]int) map[string][]string {
	out := map[string][]string{"num_unit": nil, "num_teen": nil, "num_tens": nil, "num_hundred": nil}
	for w, v := range numbers {
		switch {
		case v >= 1 && v <= 9:
			out["num_unit"] = append(out["num_unit"], w)
		case v >= 20 && v < 100 && v%10 == 0:
			out["num_tens"] = append(out["num_tens"], w)
		case v >= 10 && v < 100:
			out["num_teen"] = append(out["num_teen"], w)
		case v >= 100 && v%100 == 0:
			out["num_hundred"] = append(out["num_hundred"], w)
		}
	}
	for _, ws := range out {
		sort.Strings(ws)
	}
	return out
}

// detectLang tells English from Spanish: Spanish marks (¿ ¡ ñ and
// accents) count double, then each word known to one language's phrases
// and not the other's counts for it. A tie is English, the default.
func (e *Engine) detectLang(q string) string {
	en, es := e.models["en"], e.models["es"]
	score := 0
	for _, r := range q {
		switch r {
		case '¿', '¡', 'ñ', 'Ñ', 'á', 'é', 'í', 'ó', 'ú':
			score += 2
		}
	}
	for _, t := range tokenize(q) {
		inEN, inES := en.spell.known[t.norm], es.spell.known[t.norm]
		switch {
		case inES && !inEN:
			score++
		case inEN && !inES:
			score--
		}
	}
	if score > 0 {
		return "es"
	}
	return "en"
}

// Grammar returns the recognisable phrasings of one language ("en" or
// "es") and the alternatives of every slot they reference, for building a
// speech recognition grammar. Alternatives use the same syntax as patterns
// and may reference other slots. Open slots (names, message bodies) list
// examples only; unknown languages yield nothing.
func Grammar(lang string) (patterns []Pattern, slots map[string][]string) {
	ms, err := loadModels()
	if err != nil {
		return nil, nil
	}
	m, ok := ms[lang]
	if !ok {
		return nil, nil
	}
	for i, p := range m.patterns {
		if i >= len(m.typedOnly) || !m.typedOnly[i] {
			patterns = append(patterns, p)
		}
	}
	slots = make(map[string][]string, len(m.grammar))
	for k, v := range m.grammar {
		slots[k] = append([]string(nil), v...)
	}
	return patterns, slots
}
