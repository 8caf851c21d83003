package dialogue

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Roles of time words. The language files map their words and phrases to
// these, so one parser reads "quarter past seven" and "las siete y cuarto".
const (
	roleAt         = "at"        // at, for, a las
	roleOn         = "on"        // on (a weekday), el
	roleIn         = "in"        // in, within, dentro de
	roleAnd        = "and"       // and, y
	roleHalf       = "half"      // half, media
	roleQuarter    = "quarter"   // quarter, cuarto
	rolePast       = "past"      // past, after
	roleTo         = "to"        // to: minutes first ("ten to eight")
	roleMinus      = "minus"     // menos: hour first ("ocho menos diez")
	roleOclock     = "oclock"    // o'clock, en punto
	roleOh         = "oh"        // the "oh" of "seven oh five"
	roleAM         = "am"        // am, de la madrugada
	rolePM         = "pm"        // pm
	roleMorning    = "morning"   // in the morning, de la mañana
	roleAfternoon  = "afternoon" // in the afternoon, de la tarde
	roleEvening    = "evening"   // in the evening
	roleNight      = "night"     // at night, de la noche
	roleNoon       = "noon"      // noon, mediodía
	roleMidnight   = "midnight"  // midnight, medianoche
	roleToday      = "today"     // today, hoy
	roleTonight    = "tonight"   // tonight, esta noche
	roleTomorrow   = "tomorrow"  // tomorrow, mañana
	roleDayAfter   = "dayafter"  // the day after tomorrow, pasado mañana
	roleNext       = "next"      // next, próximo, que viene
	roleSecond     = "second"    // units of durations
	roleMinute     = "minute"    //
	roleHour       = "hour"      //
	roleDayUnit    = "day"       //
	roleWeekUnit   = "week"      //
	roleOne        = "one"       // the article of "an hour"
	roleHalfHour   = "halfhour"  // half an hour, media hora
	roleQuarterHr  = "quarterhour"
	roleAndHalf    = "andhalf" // and a half
	roleWeekdayPfx = "wd_"     // wd_monday ... wd_sunday
	roleMonthPfx   = "mo_"     // mo_1 ... mo_12
)

var knownRoles = map[string]bool{
	roleAt: true, roleOn: true, roleIn: true, roleAnd: true, roleHalf: true, roleQuarter: true,
	rolePast: true, roleTo: true, roleMinus: true, roleOclock: true, roleOh: true, roleAM: true, rolePM: true,
	roleMorning: true, roleAfternoon: true, roleEvening: true, roleNight: true, roleNoon: true,
	roleMidnight: true, roleToday: true, roleTonight: true, roleTomorrow: true, roleDayAfter: true,
	roleNext: true, roleSecond: true, roleMinute: true, roleHour: true, roleDayUnit: true, roleWeekUnit: true,
	roleOne: true, roleHalfHour: true, roleQuarterHr: true, roleAndHalf: true,
	"wd_monday": true, "wd_tuesday": true, "wd_wednesday": true, "wd_thursday": true,
	"wd_friday": true, "wd_saturday": true, "wd_sunday": true,
	"mo_1": true, "mo_2": true, "mo_3": true, "mo_4": true, "mo_5": true, "mo_6": true, "mo_7": true,
	"mo_8": true, "mo_9": true, "mo_10": true, "mo_11": true, "mo_12": true,
}

var knownParsers = map[string]bool{"time": true, "duration": true, "number": true, "phone": true, "url": true, "email": true}

// phraseTable finds the longest time phrase starting at a token.
type phraseTable struct {
	byFirst map[string][]phrase // longest first
}

type phrase struct {
	words []string
	role  string
}

func newPhraseTable(roles map[string]string) phraseTable {
	t := phraseTable{byFirst: map[string][]phrase{}}
	for p, role := range roles {
		words := strings.Fields(p)
		if len(words) == 0 {
			continue
		}
		t.byFirst[words[0]] = append(t.byFirst[words[0]], phrase{words: words, role: role})
	}
	for k, ps := range t.byFirst {
		for i := 1; i < len(ps); i++ {
			for j := i; j > 0 && len(ps[j].words) > len(ps[j-1].words); j-- {
				ps[j], ps[j-1] = ps[j-1], ps[j]
			}
		}
		t.byFirst[k] = ps
	}
	return t
}

// match returns the role of the longest phrase at toks[0] and its length.
func (t phraseTable) match(toks []token) (string, int) {
	if len(toks) == 0 {
		return "", 0
	}
next:
	for _, p := range t.byFirst[toks[0].norm] {
		if len(p.words) > len(toks) {
			continue
		}
		for i, w := range p.words {
			if toks[i].norm != w {
				continue next
			}
		}
		return p.role, len(p.words)
	}
	return "", 0
}

func (t phraseTable) roleAt(toks []token) string {
	r, _ := t.match(toks)
	return r
}

type dayKind int

const (
	dayNone dayKind = iota
	dayToday
	dayTomorrow
	dayAfter
	dayWeekday
	dayDate // a date of the calendar: month (0 for the coming one) and mday
)

// whenExpr is a parsed time expression, still relative to "now".
type whenExpr struct {
	day      dayKind
	weekday  time.Weekday
	next     bool
	month    time.Month // dayDate: 0 when only the day of the month was said
	mday     int        // dayDate
	hasClock bool
	hour     int
	minute   int
	mer      string // roleAM, rolePM, roleMorning ... or ""
	hasRel   bool
	rel      time.Duration
}

func (w whenExpr) empty() bool { return w.day == dayNone && !w.hasClock && !w.hasRel && w.mer == "" }

// complete reports whether the expression names an instant (not just a day).
func (w whenExpr) complete() bool { return w.hasClock || w.hasRel }

// setDay takes the day of other.
func (w *whenExpr) setDay(other whenExpr) {
	w.day, w.weekday, w.next, w.month, w.mday = other.day, other.weekday, other.next, other.month, other.mday
}

// merge fills the parts w lacks from other: "tomorrow" then "at nine".
func (w whenExpr) merge(other whenExpr) whenExpr {
	if other.hasRel {
		return other
	}
	if other.day != dayNone {
		w.setDay(other)
	}
	if other.hasClock {
		w.hasClock, w.hour, w.minute = true, other.hour, other.minute
		w.mer = other.mer
	} else if other.mer != "" {
		w.mer = other.mer
	}
	return w
}

var (
	clock24     = regexp.MustCompile(`^([01][0-9]|2[0-3])([0-5][0-9])$`)
	clock3      = regexp.MustCompile(`^([1-9])([0-5][0-9])$`)
	clockDigits = regexp.MustCompile(`^([0-9]{1,2})(?:[:.h]([0-9]{2}))?(am|pm|a\.m\.|p\.m\.|h)?$`)
	durDigits   = regexp.MustCompile(`^([0-9]{1,4})(s|sec|secs|seg|m|min|mins|h|hr|hrs)$`)
)

// parseWhen reads a time expression at toks[0]: "tomorrow at 9",
// "quarter past seven", "el viernes a las ocho", "in 10 minutes". It
// returns the expression and the tokens it used (0 when none).
func (m *langModel) parseWhen(toks []token) (whenExpr, int) {
	w, n := m.readWhen(toks)
	if w.hasClock && w.hour > 12 && (w.mer == roleAM || w.mer == roleMorning) {
		// "fifteen am" (a recogniser's "eight fifteen am" without its
		// eight): no time of day, rather than 3 pm or a guess.
		return whenExpr{}, 0
	}
	return w, n
}

// readWhen is parseWhen before the check that the clock and its part of
// the day agree.
func (m *langModel) readWhen(toks []token) (whenExpr, int) {
	var w whenExpr
	i, end := 0, 0
	for i < len(toks) && i < 16 {
		role, n := m.timeWords.match(toks[i:])
		switch {
		case role == roleToday || role == roleTomorrow || role == roleDayAfter || role == roleTonight:
			if w.day != dayNone {
				return w, end
			}
			switch role {
			case roleToday:
				w.day = dayToday
			case roleTonight:
				w.day = dayToday
				if w.mer == "" {
					w.mer = roleNight
				}
			case roleTomorrow:
				w.day = dayTomorrow
			default:
				w.day = dayAfter
			}
			i += n
			end = i
		case strings.HasPrefix(role, roleWeekdayPfx):
			if w.day != dayNone {
				return w, end
			}
			w.day, w.weekday = dayWeekday, weekdayOf(role)
			i += n
			end = i
			if r, k := m.timeWords.match(toks[i:]); r == roleNext {
				w.next = true
				i += k
				end = i
			}
		case role == roleOn || role == roleNext:
			if role == roleNext {
				w.next = true
			}
			i += n
		case role == roleAt:
			if !w.hasClock {
				if c, k := m.parseClock(toks[i+n:]); k > 0 {
					w.setClock(c)
					i += n + k
					end = i
					continue
				}
			}
			if !w.hasClock {
				// "thursday for pm": the word taken for "at" is the hour
				// the recogniser spelt as its homophone.
				if c, k := m.soundedClock(toks[i:]); k > 0 {
					w.setClock(c)
					i += k
					end = i
					continue
				}
			}
			if w.empty() {
				if d, k := m.parseDuration(toks[i+n:]); k > 0 {
					if h, ok := m.atHours(toks[i+n:], k); ok {
						// "at six hours": no one sets a time "at" a span;
						// it is the 24-hour clock read aloud ("at 06:00 hours").
						w.setClock(clock24h(h, 0))
						i += n + k
						end = i
						continue
					}
					w.hasRel, w.rel = true, d
					return w, i + n + k
				}
			}
			return w, end
		case role == roleIn:
			if w.empty() {
				if d, k := m.parseDuration(toks[i+n:]); k > 0 {
					w.hasRel, w.rel = true, d
					return w, i + n + k
				}
			}
			return w, end
		case role == roleAM || role == rolePM || role == roleMorning || role == roleAfternoon || role == roleEvening || role == roleNight:
			if !w.hasClock {
				// "saturday night am": a recogniser's "night" for the
				// "nine" that am or pm follows
				if c, k := m.soundedClock(toks[i:]); k > 0 {
					w.setClock(c)
					i += k
					end = i
					continue
				}
			}
			if w.mer != "" && w.mer != roleNight || i == 0 && (role == roleAM || role == rolePM) {
				// a bare "am" follows its clock: "am one tomorrow" in "the
				// 6 am one tomorrow" is no time
				return w, end
			}
			w.mer = role
			i += n
			end = i
		case role == roleNoon || role == roleMidnight:
			if w.hasClock {
				return w, end
			}
			c, k := m.parseClock(toks[i:])
			w.setClock(c)
			i += k
			end = i
		default:
			// "an hour and a half from now": a span counted from now.
			if w.empty() {
				if d, k := m.parseDuration(toks[i:]); k > 0 {
					if f := fromNow(toks[i+k:]); f > 0 {
						w.hasRel, w.rel = true, d
						return w, i + k + f
					}
				}
			}
			// "wed 3/11", "friday the 6th": a date after a weekday is the
			// same day, said more exactly.
			if w.day == dayNone || w.day == dayWeekday && !w.hasClock {
				if mo, md, k := m.parseDate(toks[i:]); k > 0 {
					w.day, w.month, w.mday = dayDate, mo, md
					i += k
					end = i
					continue
				}
			}
			if w.hasClock {
				return w, end
			}
			c, k := m.parseClock(toks[i:])
			if k == 0 {
				return w, end
			}
			w.setClock(c)
			i += k
			end = i
		}
	}
	return w, end
}

type clock struct {
	hour, minute int
	mer          string
}

func (w *whenExpr) setClock(c clock) {
	w.hasClock, w.hour, w.minute = true, c.hour, c.minute
	if c.mer != "" {
		w.mer = c.mer
	}
}

// parseClock reads a time of day: "19:45", "7pm", "seven thirty",
// "half past seven", "ten to eight", "siete y media", "ocho menos cuarto",
// "noon".
func (m *langModel) parseClock(toks []token) (clock, int) {
	if len(toks) == 0 {
		return clock{}, 0
	}
	role, n := m.timeWords.match(toks)
	switch role {
	case roleNoon:
		return clock{hour: 12, mer: rolePM}, n
	case roleMidnight:
		return clock{hour: 0, mer: roleAM}, n
	case roleHalf, roleQuarter:
		mins := 30
		if role == roleQuarter {
			mins = 15
		}
		r2, k := m.timeWords.match(toks[n:])
		if r2 == rolePast || r2 == roleTo {
			if h, hn := m.parseHour(toks[n+k:]); hn > 0 {
				if r2 == roleTo {
					return clock{hour: (h + 23) % 24, minute: 60 - mins}, n + k + hn
				}
				return clock{hour: h, minute: mins}, n + k + hn
			}
		}
		return clock{}, 0
	}
	if sm := clock24.FindStringSubmatch(toks[0].norm); sm != nil && (!m.unitAfter(toks[1:]) || m.hoursAfter(toks[1:]) > 0) {
		// "0930", "1330", "2300": four digits are a 24-hour clock, the
		// way people dictate times to a calendar; "0600 hours" says so.
		h, _ := strconv.Atoi(sm[1])
		mins, _ := strconv.Atoi(sm[2])
		return clock24h(h, mins), 1 + m.hoursAfter(toks[1:])
	}
	if sm := clock3.FindStringSubmatch(toks[0].norm); sm != nil && !m.unitAfter(toks[1:]) {
		// "at 630": three digits are an hour and its minutes, read like
		// "6:30" (the next one to come unless a day or am/pm says).
		h, _ := strconv.Atoi(sm[1])
		mins, _ := strconv.Atoi(sm[2])
		return clock{hour: h, minute: mins}, 1
	}
	if sm := clockDigits.FindStringSubmatch(toks[0].norm); sm != nil {
		h, _ := strconv.Atoi(sm[1])
		mins := 0
		if sm[2] != "" {
			mins, _ = strconv.Atoi(sm[2])
		}
		if h > 24 || mins > 59 {
			return clock{}, 0
		}
		c := clock{hour: h % 24, minute: mins}
		switch sm[3] {
		case "am", "a.m.":
			c.mer = roleAM
		case "pm", "p.m.":
			c.mer = rolePM
		case "":
			if sm[2] == "" {
				// A bare number: maybe a count ("10 minutes") or minutes
				// ("ten past seven"), handled below like a word.
				return m.clockFromNumber(toks)
			}
		}
		if sm[2] != "" || sm[3] != "" {
			if n := m.hoursAfter(toks[1:]); n > 0 && sm[3] == "" && len(sm[1]) == 2 {
				// "06:00 hours", "18:30 hrs": the 24-hour clock of
				// someone used to rosters and timetables.
				return clock24h(c.hour, c.minute), 1 + n
			}
			if m.unitAfter(toks[1:]) {
				return clock{}, 0
			}
			return c, 1
		}
	}
	return m.clockFromNumber(toks)
}

// soundedHour reads a word that sounds like a digit ("to", "for") as that
// hour when the rest can only be a clock: am, pm or o'clock follow,
// perhaps after the minutes ("friday to pm", "at for thirty pm"). A
// recogniser writes the homophone its language model prefers; nothing
// else is meant by "to pm".
func (m *langModel) soundedHour(toks []token) (int, int) {
	d, ok := m.digitSounds[toks[0].norm]
	if !ok {
		return 0, 0
	}
	rest := toks[1:]
	if mins, mn := m.parseNumber(rest); mn > 0 && mins >= 10 && mins < 60 {
		rest = rest[mn:]
	}
	if len(rest) == 0 {
		return 0, 0
	}
	switch role, _ := m.timeWords.match(rest); role {
	case roleAM, rolePM, roleOclock:
		return d, 1
	}
	return 0, 0
}

// soundedClock reads the clock that a digit's homophone opens ("for
// thirty pm", "night am"), 0 words when none does.
func (m *langModel) soundedClock(toks []token) (clock, int) {
	if _, sounded := m.soundedHour(toks); sounded == 0 {
		return clock{}, 0
	}
	return m.parseClock(toks)
}

// zeroClock reads the 24-hour clock said with its leading zero: "zero six
// four five", "oh six hundred", "oh nine thirty", "zero seven oh five" —
// how "0645" is read aloud.
func (m *langModel) zeroClock(toks []token) (clock, int) {
	digit := func(i int) (int, bool) {
		if i >= len(toks) {
			return 0, false
		}
		return m.spokenDigit(toks[i:])
	}
	if z, ok := digit(0); !ok || z != 0 {
		return clock{}, 0
	}
	h, ok := digit(1)
	if !ok {
		return clock{}, 0
	}
	if d3, ok := digit(2); ok {
		if d4, ok := digit(3); ok && d3 <= 5 {
			return clock24h(h, d3*10+d4), 4
		}
		return clock{}, 0
	}
	if len(toks) > 2 && m.numbers[toks[2].norm] == 100 {
		return clock24h(h, 0), 3
	}
	if mins, n := m.clockMinutes(toks[2:]); n > 0 {
		return clock24h(h, mins), 2 + n
	}
	return clock{}, 0
}

// atHours tells whether the k tokens of a duration are a whole number of
// hours of a day said alone ("six hours", not "two hours and ten minutes"),
// and which.
func (m *langModel) atHours(toks []token, k int) (int, bool) {
	v, n := m.parseNumber(toks)
	if n == 0 || v > 23 || n+m.hoursAfter(toks[n:]) != k || m.hoursAfter(toks[n:]) == 0 {
		return 0, false
	}
	return v, true
}

// clock24h is a time of the 24-hour clock, whose hour says am or pm.
func clock24h(h, mins int) clock {
	c := clock{hour: h, minute: mins, mer: roleAM}
	if h >= 12 {
		c.mer = rolePM
	}
	return c
}

// clockFromNumber handles clocks that start with a number.
func (m *langModel) clockFromNumber(toks []token) (clock, int) {
	if c, n := m.zeroClock(toks); n > 0 {
		return c, n + m.hoursAfter(toks[n:])
	}
	if v, n := m.parseCardinal(toks); n > 0 && v >= 1000 && v < 2400 && v%100 < 60 && !m.unitAfter(toks[n:]) {
		// the 24-hour clock read as one figure, as text-to-speech reads
		// "1700": "one thousand seven hundred"
		return clock24h(v/100, v%100), n + m.hoursAfter(toks[n:])
	}
	v, n := m.parseNumber(toks)
	if n == 0 {
		v, n = m.soundedHour(toks)
	}
	rest := toks[n:]
	if n > 0 && v <= 24 && len(rest) > 1 && m.spoken[rest[0].norm] == "." {
		// "seven point three zero", as text-to-speech reads "7.30"
		if mins, mn := m.pointMinutes(rest[1:]); mn > 0 {
			return clock{hour: v % 24, minute: mins}, n + 1 + mn
		}
	}
	// The 24-hour clock said in hundreds: "seventeen hundred", "twenty
	// three hundred", "nine hundred hours".
	if n > 0 && v >= 10 && v <= 23 && len(rest) > 0 && m.numbers[rest[0].norm] == 100 {
		return clock24h(v, 0), n + 1 + m.hoursAfter(rest[1:])
	}
	if n > 1 && v >= 100 && v%100 == 0 && v < 1000 && m.hoursAfter(rest) > 0 {
		return clock24h(v/100, 0), n + m.hoursAfter(rest)
	}
	if n == 0 || v > 59 {
		return clock{}, 0
	}
	if m.unitAfter(rest) {
		return clock{}, 0
	}
	role, k := m.timeWords.match(rest)
	switch role {
	case roleOclock:
		if v <= 24 {
			return clock{hour: v % 24}, n + k
		}
	case rolePast:
		if h, hn := m.parseHour(rest[k:]); hn > 0 {
			return clock{hour: h, minute: v}, n + k + hn
		}
	case roleTo:
		// "ten to eight"
		if h, hn := m.parseHour(rest[k:]); hn > 0 && v <= 30 {
			return clock{hour: (h + 23) % 24, minute: 60 - v}, n + k + hn
		}
	case roleMinus:
		// "ocho menos cuarto", "siete menos diez"
		if v <= 24 {
			after := rest[k:]
			if r2, k2 := m.timeWords.match(after); r2 == roleQuarter {
				return clock{hour: (v + 23) % 24, minute: 45}, n + k + k2
			}
			if mins, mn := m.parseNumber(after); mn > 0 && mins > 0 && mins < 60 && !m.unitAfter(after[mn:]) {
				return clock{hour: (v + 23) % 24, minute: 60 - mins}, n + k + mn
			}
		}
	case roleAndHalf:
		// "siete y media" reads as one phrase.
		if v <= 24 {
			return clock{hour: v % 24, minute: 30}, n + k
		}
	case roleAnd:
		if v <= 24 {
			after := rest[k:]
			r2, k2 := m.timeWords.match(after)
			switch r2 {
			case roleHalf:
				return clock{hour: v % 24, minute: 30}, n + k + k2
			case roleQuarter:
				return clock{hour: v % 24, minute: 15}, n + k + k2
			}
			// "siete y diez" is 7:10; English says no clock so ("between
			// 2 and 3 pm" is two times, not 2:03)
			if mins, mn := m.parseNumber(after); m.lang == "es" && mn > 0 && mins < 60 && !m.unitAfter(after[mn:]) {
				return clock{hour: v % 24, minute: mins}, n + k + mn
			}
		}
	case roleOh:
		if mins, mn := m.parseNumber(rest[k:]); mn > 0 && mins < 10 && v <= 24 {
			return clock{hour: v % 24, minute: mins}, n + k + mn
		}
	}
	if v > 24 {
		return clock{}, 0
	}
	// "seven thirty", "7 45".
	if mins, mn := m.clockMinutes(rest); mn > 0 {
		return clock{hour: v % 24, minute: mins}, n + mn
	}
	return clock{hour: v % 24}, n
}

// pointMinutes reads the minutes after the point of "seven point three
// zero" or "seven point thirty".
func (m *langModel) pointMinutes(toks []token) (int, int) {
	if d1, ok := m.spokenDigit(toks); ok && d1 <= 5 && len(toks) > 1 {
		if d2, ok := m.spokenDigit(toks[1:]); ok && !m.unitAfter(toks[2:]) {
			return d1*10 + d2, 2
		}
	}
	return m.clockMinutes(toks)
}

// clockMinutes reads the minutes of a clock said as a number from 10 to 59
// ("seven thirty"), not the count of a unit ("seven thirty minutes").
func (m *langModel) clockMinutes(toks []token) (int, int) {
	if mins, n := m.parseNumber(toks); n > 0 && mins >= 10 && mins < 60 && !m.unitAfter(toks[n:]) {
		return mins, n
	}
	return 0, 0
}

// parseHour reads the hour after "past" or "to".
func (m *langModel) parseHour(toks []token) (int, int) {
	if role, n := m.timeWords.match(toks); role == roleNoon {
		return 12, n
	} else if role == roleMidnight {
		return 0, n
	}
	if len(toks) > 0 {
		if h, ok := digits(toks[0].norm); ok && h <= 24 {
			return h % 24, 1
		}
	}
	v, n := m.parseNumber(toks)
	if n == 0 || v > 24 {
		return 0, 0
	}
	return v % 24, n
}

// hoursAfter gives the length of "hours" ("hrs", "horas") said right
// after a 24-hour clock, 0 when none is.
func (m *langModel) hoursAfter(toks []token) int {
	if role, n := m.timeWords.match(toks); role == roleHour {
		return n
	}
	return 0
}

func (m *langModel) unitAfter(toks []token) bool {
	switch m.timeWords.roleAt(toks) {
	case roleSecond, roleMinute, roleHour, roleDayUnit, roleWeekUnit:
		return true
	}
	return false
}

// parseDuration reads "10 minutes", "an hour and a half", "media hora",
// "2 hours 30 minutes", "90s".
func (m *langModel) parseDuration(toks []token) (time.Duration, int) {
	var total time.Duration
	i := 0
	for parts := 0; i < len(toks) && parts < 4; parts++ {
		role, n := m.timeWords.match(toks[i:])
		if role == roleHalfHour {
			total += 30 * time.Minute
			i += n
			continue
		}
		if role == roleQuarterHr {
			total += 15 * time.Minute
			i += n
			continue
		}
		if sm := durDigits.FindStringSubmatch(toks[i].norm); sm != nil {
			v, _ := strconv.Atoi(sm[1])
			total += time.Duration(v) * unitOfSuffix(sm[2])
			i++
			continue
		}
		count, cn := 0, 0
		if role == roleOne {
			count, cn = 1, n
		} else if v, k := m.parseCardinal(toks[i:]); k > 0 && v < 1e9 {
			count, cn = v, k // "one thousand seconds", as "1000 seconds" is read
		} else if v, k := m.parseNumber(toks[i:]); k > 0 {
			count, cn = v, k
		}
		// "two and a half minutes": the half comes before the unit.
		if cn > 0 {
			if r, k := m.timeWords.match(toks[i+cn:]); r == roleAndHalf {
				if ur, uk := m.timeWords.match(toks[i+cn+k:]); unitOfRole(ur) != 0 {
					unit := unitOfRole(ur)
					total += time.Duration(count)*unit + unit/2
					i += cn + k + uk
					continue
				}
			}
		}
		// "hora y media" omits the count.
		unitRole, un := m.timeWords.match(toks[i+cn:])
		unit := unitOfRole(unitRole)
		if unit == 0 {
			break
		}
		if cn == 0 {
			after, _ := m.timeWords.match(toks[i+un:])
			if after != roleAndHalf && after != roleAnd {
				break
			}
			count = 1
		}
		total += time.Duration(count) * unit
		i += cn + un
		// "and a half", "y media".
		if r, k := m.timeWords.match(toks[i:]); r == roleAndHalf {
			total += unit / 2
			i += k
		} else if r == roleAnd {
			if r2, k2 := m.timeWords.match(toks[i+k:]); r2 == roleHalf {
				total += unit / 2
				i += k + k2
			} else if r2 == roleQuarter {
				total += unit / 4
				i += k + k2
			}
		}
		// "two hours and ten minutes": skip the joining "and".
		if r, k := m.timeWords.match(toks[i:]); r == roleAnd {
			if _, k2 := m.parseDuration(toks[i+k:]); k2 > 0 {
				i += k
			}
		}
	}
	if total <= 0 {
		return 0, 0
	}
	return total, i
}

func unitOfRole(role string) time.Duration {
	switch role {
	case roleSecond:
		return time.Second
	case roleMinute:
		return time.Minute
	case roleHour:
		return time.Hour
	case roleDayUnit:
		return 24 * time.Hour
	case roleWeekUnit:
		return 7 * 24 * time.Hour
	}
	return 0
}

func unitOfSuffix(s string) time.Duration {
	switch s {
	case "s", "sec", "secs", "seg":
		return time.Second
	case "m", "min", "mins":
		return time.Minute
	}
	return time.Hour
}

func weekdayOf(role string) time.Weekday {
	switch role {
	case "wd_monday":
		return time.Monday
	case "wd_tuesday":
		return time.Tuesday
	case "wd_wednesday":
		return time.Wednesday
	case "wd_thursday":
		return time.Thursday
	case "wd_friday":
		return time.Friday
	case "wd_saturday":
		return time.Saturday
	}
	return time.Sunday
}

// resolve turns the expression into an instant in loc. Days are counted on
// the calendar (AddDate on the local date), never as 24-hour steps, so a
// daylight-saving change between now and then keeps the wall-clock time.
//
// An hour without am/pm means the next such hour to come today or
// tomorrow ("at 7" at 10:00 is 19:00). With an explicit day the bias
// decides: alarms keep the morning ("wake me tomorrow at 5"), appointments
// read 1 to 7 as the afternoon ("a meeting tomorrow at 3"), anything else
// reads 1 to 5 as the afternoon.
func (w whenExpr) resolve(now time.Time, loc *time.Location, bias hourBias) time.Time {
	if w.hasRel {
		return now.Add(w.rel)
	}
	local := now.In(loc)
	y, mo, d := local.Date()
	offset := 0
	switch w.day {
	case dayTomorrow:
		offset = 1
	case dayAfter:
		offset = 2
	case dayWeekday:
		offset = (int(w.weekday) - int(local.Weekday()) + 7) % 7
		if offset == 0 && w.next {
			offset = 7
		}
	case dayDate:
		offset = w.dateOffset(local)
	}
	hour, minute := w.hour, w.minute
	if !w.hasClock {
		hour = defaultHour(w.mer)
	}
	at := func(off, h int) time.Time { return time.Date(y, mo, d+off, h, minute, 0, 0, loc) }
	explicitDay := w.day != dayNone && w.day != dayToday
	switch {
	case hour > 12 || hour == 0 && w.mer == "":
		// 24-hour clock: exact.
	case w.mer == roleAM || w.mer == roleMorning:
		if hour == 12 {
			hour = 0
		}
	case w.mer == rolePM || w.mer == roleAfternoon || w.mer == roleEvening:
		if hour < 12 {
			hour += 12
		}
	case w.mer == roleNight:
		if hour >= 6 && hour < 12 {
			hour += 12
		} else if hour == 12 {
			hour = 0
		}
	case explicitDay:
		afternoonUpTo := 5
		switch bias {
		case biasMorning:
			afternoonUpTo = 0
		case biasDaytime:
			afternoonUpTo = 7
		}
		if hour >= 1 && hour <= afternoonUpTo {
			hour += 12
		}
	default:
		// Ambiguous hour, no day: the next one to come.
		for off := 0; off <= 1; off++ {
			for _, h := range []int{hour % 12, hour%12 + 12} {
				if t := at(off, h); t.After(now) {
					return t
				}
			}
		}
	}
	t := at(offset, hour)
	if !t.After(now) {
		switch {
		case w.day == dayNone:
			t = at(offset+1, hour)
		case w.day == dayWeekday && offset == 0:
			t = at(7, hour)
		}
	}
	return t
}

// hourBias is how an hour without am/pm on a named day is read.
type hourBias int

const (
	biasNone hourBias = iota
	biasMorning
	biasDaytime
)

// date resolves the day an expression names (for forecasts and events).
// dateOffset is how many days from local's day the date of a dayDate
// expression is: the coming such date, this month's (or this year's) when
// it is still ahead, else the next one.
func (w whenExpr) dateOffset(local time.Time) int {
	y, m, d := local.Date()
	loc := local.Location()
	mo := w.month
	if mo == 0 {
		mo = m
	}
	today := time.Date(y, m, d, 0, 0, 0, 0, loc)
	date := time.Date(y, mo, w.mday, 0, 0, 0, 0, loc)
	if date.Before(today) {
		if w.month == 0 {
			date = time.Date(y, mo+1, w.mday, 0, 0, 0, 0, loc)
		} else {
			date = time.Date(y+1, mo, w.mday, 0, 0, 0, 0, loc)
		}
	}
	return int(math.Round(date.Sub(today).Hours() / 24))
}

func (w whenExpr) date(now time.Time, loc *time.Location) time.Time {
	if w.hasRel {
		return now.Add(w.rel).In(loc)
	}
	local := now.In(loc)
	y, mo, d := local.Date()
	switch w.day {
	case dayTomorrow:
		d++
	case dayAfter:
		d += 2
	case dayWeekday:
		off := (int(w.weekday) - int(local.Weekday()) + 7) % 7
		if off == 0 && w.next {
			off = 7
		}
		d += off
	case dayDate:
		d += w.dateOffset(local)
	}
	return time.Date(y, mo, d, 12, 0, 0, 0, loc)
}

func defaultHour(mer string) int {
	switch mer {
	case roleMorning, roleAM:
		return 9
	case roleAfternoon, rolePM:
		return 15
	case roleEvening:
		return 19
	case roleNight:
		return 21
	}
	return 9
}

// ordinalDay is a day of the month written as an ordinal: "11th", "1st".
var ordinalDay = regexp.MustCompile(`^([1-9]|[12][0-9]|3[01])(st|nd|rd|th)$`)

// slashDate is a date typed with a slash: "3/11" (month/day in English,
// day/month in Spanish).
var slashDate = regexp.MustCompile(`^([0-9]{1,2})/([0-9]{1,2})\b`)

// parseDate reads a date of the calendar at toks[0]: "march 11", "11th of
// march", "the 11th" (as "11th"), "3/11", "11 de marzo", "día 11". A bare
// number is not a date (it is a clock or a count). It returns the month
// (0 when not said), the day and the tokens used.
func (m *langModel) parseDate(toks []token) (time.Month, int, int) {
	if len(toks) == 0 {
		return 0, 0, 0
	}
	dayAt := func(i int) (int, bool) {
		if i >= len(toks) {
			return 0, false
		}
		if sm := ordinalDay.FindStringSubmatch(toks[i].norm); sm != nil {
			v, _ := strconv.Atoi(sm[1])
			return v, true
		}
		if v, ok := digits(toks[i].norm); ok && v >= 1 && v <= 31 {
			return v, true
		}
		return 0, false
	}
	monthAt := func(i int) (time.Month, bool) {
		if i >= len(toks) {
			return 0, false
		}
		r, _ := m.timeWords.match(toks[i:])
		if mo, ok := strings.CutPrefix(r, roleMonthPfx); ok {
			v, _ := strconv.Atoi(mo)
			return time.Month(v), true
		}
		return 0, false
	}
	// "3/11": the slash joins two numbers the tokenizer split.
	if sm := slashDate.FindStringSubmatch(toks[0].src); sm != nil && len(toks) > 1 {
		a, _ := strconv.Atoi(sm[1])
		b, _ := strconv.Atoi(sm[2])
		mo, md := a, b
		if m.lang == "es" {
			mo, md = b, a
		}
		if mo >= 1 && mo <= 12 && md >= 1 && md <= 31 {
			return time.Month(mo), md, 2
		}
	}
	// "march 11", "march 11th"
	if mo, ok := monthAt(0); ok {
		if md, ok := dayAt(1); ok {
			return mo, md, 2
		}
		return 0, 0, 0
	}
	// "día 11", "day 11"
	if toks[0].norm == "dia" || toks[0].norm == "day" {
		if md, ok := dayAt(1); ok {
			n := 2
			if mo, k := m.monthAfter(toks[n:]); k > 0 {
				return mo, md, n + k
			}
			return 0, md, n
		}
		return 0, 0, 0
	}
	md, ok := dayAt(0)
	if !ok {
		return 0, 0, 0
	}
	// "11 march", "11th of march", "11 de marzo"
	if mo, k := m.monthAfter(toks[1:]); k > 0 {
		return mo, md, 1 + k
	}
	// "the 11th": an ordinal alone is a day of the month.
	if ordinalDay.MatchString(toks[0].norm) {
		return 0, md, 1
	}
	return 0, 0, 0
}

// monthAfter reads "[of|de] <month>" at toks[0].
func (m *langModel) monthAfter(toks []token) (time.Month, int) {
	i := 0
	if i < len(toks) && (toks[i].norm == "of" || toks[i].norm == "de") {
		i++
	}
	if i >= len(toks) {
		return 0, 0
	}
	r, n := m.timeWords.match(toks[i:])
	if mo, ok := strings.CutPrefix(r, roleMonthPfx); ok {
		v, _ := strconv.Atoi(mo)
		return time.Month(v), i + n
	}
	return 0, 0
}

// fromNow is how many words of toks say "from now" ("a partir de ahora",
// "desde ahora"), or 0.
func fromNow(toks []token) int {
	for _, say := range [][]string{{"from", "now"}, {"a", "partir", "de", "ahora"}, {"desde", "ahora"}} {
		if len(toks) >= len(say) {
			ok := true
			for i, w := range say {
				ok = ok && toks[i].norm == w
			}
			if ok {
				return len(say)
			}
		}
	}
	return 0
}
