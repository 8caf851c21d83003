package dialogue

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Data of the next actions (DECISIONS §5). Epoch values are milliseconds,
// as strings where the vendor samples use strings.
type (
	// AlarmData: DELETE_ALARM may set All (every alarm; Time is then "")
	// or Hour12 (the time was said without AM/PM or day, so the client
	// may match the alarm it has at the same 12-hour reading).
	AlarmData struct {
		Time   string `json:"time"`
		Label  string `json:"label"`
		All    bool   `json:"all,omitempty"`
		Hour12 bool   `json:"hour12,omitempty"`
	}
	TimerData struct {
		Duration int64  `json:"duration"`
		Label    string `json:"label"`
	}
	// CancelTimerData is the data of DELETE_TIMER: the timers with Label,
	// or every running timer when Label is "".
	CancelTimerData struct {
		Label string `json:"label"`
	}
	// CronoData is the data of RESET_CRONO: Restart sets the stopwatch
	// back to zero and keeps it running ("restart the stopwatch").
	CronoData struct {
		Restart bool `json:"restart,omitempty"`
	}
	AppointmentData struct {
		Title string `json:"title"`
		Start string `json:"start"`
		End   string `json:"end"`
	}
	MusicData struct {
		URL    string `json:"url"`
		Title  string `json:"title"`
		Artist string `json:"artist"`
	}
	PowerData struct {
		Device string `json:"device"`
		State  string `json:"state"`
	}
	ChannelData struct {
		Channel string `json:"channel"`
	}
	CallData struct {
		Contact string `json:"contact"`
		Number  string `json:"number"`
	}
	// LevelData carries exactly one of Level (0..100) and Delta
	// (-100..100).
	LevelData struct {
		Level *int `json:"level,omitempty"`
		Delta *int `json:"delta,omitempty"`
	}
	FeatureData struct {
		Feature string `json:"feature"`
	}
	AppData struct {
		App string `json:"app"`
	}
	URLData struct {
		URL string `json:"url"`
	}
	NavigateData struct {
		Destination string  `json:"destination"`
		Lat         float64 `json:"lat"`
		Lon         float64 `json:"lon"`
	}
	SMSData struct {
		Contact string `json:"contact"`
		Text    string `json:"text"`
	}
	EmailData struct {
		To      string `json:"to"`
		Subject string `json:"subject"`
		Body    string `json:"body"`
	}
	// EmptyData marshals to {} for SET_CRONO, RESET_CRONO and OPEN_BROWSER.
	EmptyData struct{}
)

// defaultAppointment is the length of an appointment given no end.
const defaultAppointment = time.Hour

// volumeStep is how much "louder" or "dimmer" moves a level.
const volumeStep = 10

func ms(t time.Time) string { return strconv.FormatInt(t.UnixMilli(), 10) }

func act(code string, data any) []NextAction { return []NextAction{{Action: code, Data: data}} }

// handle runs the handler of an intent with the slots gathered so far.
func (t *turn) handle(intent string, slots map[string]slotVal) reply {
	if slots == nil {
		slots = map[string]slotVal{}
	}
	var r reply
	switch intent {
	case "SET_ALARM", "DELETE_ALARM":
		r = t.alarm(intent, slots)
	case "SET_TIMER":
		r = t.timer(slots)
	case "SET_CRONO":
		r = t.reply("crono_started", nil)
		r.actions = act(intent, EmptyData{})
	case "RESET_CRONO":
		_, again := slots["again"]
		if _, restart := slots["restart"]; restart || again {
			r = t.reply("crono_restarted", nil)
			r.actions = act(intent, CronoData{Restart: true})
		} else {
			r = t.reply("crono_reset", nil)
			r.actions = act(intent, EmptyData{})
		}
	case "DELETE_TIMER":
		label := strings.TrimSpace(slots["label"].text)
		if label == "" {
			r = t.reply("timers_cancelled", nil)
		} else {
			r = t.reply("timer_cancelled", map[string]phr{"label": same(label)})
		}
		r.actions = act(intent, CancelTimerData{Label: label})
	case "SET_APPOINTMENT":
		r = t.appointment(slots)
		if r.intent != "" {
			intent = r.intent // an alarm after all ("a reminder alarm")
		}
	case "PLAY_MUSIC":
		r = t.playMusic(slots)
	case "POWER":
		if t.saysLater() {
			intent, r = "power_later", t.reply("power_later", nil)
			break
		}
		r = t.power(slots)
	case "CHANNEL_SELECT":
		r = t.channel(slots)
	case "MAKE_CALL":
		r = t.call(slots)
	case "VOLUME_UPDATE":
		r = t.level(intent, slots["voldir"], slots)
	case "BRIGHTNESS_UPDATE":
		r = t.level(intent, slots["brightdir"], slots)
	case "ACTIVATE", "DEACTIVATE":
		r = t.feature(intent, slots)
	case "OPEN_APP":
		r = t.openApp(slots)
		if len(r.actions) > 0 {
			intent = r.actions[0].Action // a web site after all ("open up wikipedia.org")
		}
	case "OPEN_BROWSER":
		r = t.reply("browser_opened", nil)
		r.actions = act(intent, EmptyData{})
	case "OPEN_URL":
		r = t.openURL(slots)
	case "NAVIGATE":
		r = t.navigate(slots)
	case "SEND_SMS":
		r = t.sms(slots)
	case "SEND_EMAIL":
		r = t.email(slots)
	case "weather", "news", "movies", "restaurants", "sports", "events", "tv":
		r = t.info(intent, slots)
	case "recommend_movies":
		if t.e.cfg.Recommendations == nil {
			// without a recommendation service, the films on near the user are the honest answer
			intent = "movies"
			r = t.info(intent, slots)
			break
		}
		r = t.recommendMovies()
	case "time":
		r = t.timeNow(slots)
		r.followUp, r.slots = true, slots // "and in london?"
	case "time_until":
		var ok bool
		if r, ok = t.timeUntil(slots); !ok {
			intent, r = "fallback", t.reply("fallback", nil) // "how long until christmas": no day hark knows
		}
	case "date":
		r = t.dateOn(slots)
	case "joke":
		r = t.joke(1)
	case "calendar_asked":
		// the calendar's loosest questions ("qué tengo mañana", "am i
		// free"), read only when said whole ("tengo frío" is none)
		intent, r = "calendar", t.reply("calendar", nil)
	case "cancel", "help", "greeting", "thanks", "how_are_you", "who_are_you", "goodbye", "calendar",
		"change_alarm", "alarm_status", "music_control", "thermostat", "read_messages", "event_time", "negated",
		"device_control", "volume_status", "song_name", "traffic", "call_place", "words_help", "phone_status",
		"call_history", "unmute":
		r = t.reply(intent, nil)
	case "where_am_i":
		r = t.whereAmI()
	default:
		intent = "fallback"
		r = t.reply("fallback", nil)
	}
	if r.intent == "" { // a handler may answer as another intent ("call_place")
		r.intent = intent
	}
	if r.ask != "" && r.slots == nil {
		r.slots = slots
	}
	return r
}

// ask keeps the conversation open for one slot.
func (t *turn) ask(slot, key string, vals map[string]phr, slots map[string]slotVal) reply {
	r := t.reply(key, vals)
	r.ask, r.slots = slot, slots
	return r
}

// dateOn tells the date of the day a question names ("what day is it
// tomorrow", "what's the date on friday", "tomorrow's date", "what day
// was it yesterday"), else today's.
func (t *turn) dateOn(slots map[string]slotVal) reply {
	today := t.now.In(t.loc)
	if slots == nil {
		slots = map[string]slotVal{}
	}
	for _, tok := range t.toks {
		w := strings.TrimSuffix(tok.norm, "'s")
		if back := daysBack[w]; back > 0 {
			return t.reply("date_past", map[string]phr{"date": t.datePhr(today.AddDate(0, 0, -back))})
		}
		if _, ok := slots["day"]; !ok && w != tok.norm {
			if when, n := t.m.parseWhen([]token{{norm: w, orig: w, src: w}}); n == 1 && when.day != dayNone {
				slots["day"] = slotVal{when: when}
			}
		}
	}
	if v, ok := slots["day"]; ok && (v.when.day != dayNone || v.when.hasRel) {
		d := v.when.date(t.now, t.loc) // "in 3 days" too
		if v.when.day == dayWeekday && t.saysPast(v) {
			// "what date was last friday": the parser of times reads the
			// weekday to come
			for !d.Before(today) {
				d = d.AddDate(0, 0, -7)
			}
			return t.reply("date_past", map[string]phr{"date": t.datePhr(d)})
		}
		if !sameDay(d, today) {
			key := "date_on"
			if sameDay(d, today.AddDate(0, 0, 1)) {
				key = "date_tomorrow"
			}
			return t.reply(key, map[string]phr{"date": t.datePhr(d)})
		}
	}
	return t.reply("date_now", map[string]phr{"date": t.datePhr(today)})
}

// timeUntil tells how long it is until a time or a day: "how long until
// 5 pm", "how many days until friday", "cuánto falta para las ocho".
func (t *turn) timeUntil(slots map[string]slotVal) (reply, bool) {
	w := slots["time"].when
	if !w.hasClock && w.day == dayNone || w.hasRel {
		return reply{}, false
	}
	if !w.hasClock {
		// a day: whole days from today's date to its date
		today, d := t.now.In(t.loc), w.date(t.now, t.loc)
		days := int(time.Date(d.Year(), d.Month(), d.Day(), 12, 0, 0, 0, time.UTC).Sub(
			time.Date(today.Year(), today.Month(), today.Day(), 12, 0, 0, 0, time.UTC)) / (24 * time.Hour))
		if days <= 0 {
			return t.reply("date_now", map[string]phr{"date": t.datePhr(today)}), true
		}
		return t.reply("time_until", map[string]phr{"when": t.datePhr(d), "span": t.durationPhr(time.Duration(days) * 24 * time.Hour)}), true
	}
	at := w.resolve(t.now, t.loc, biasNone)
	return t.reply("time_until", map[string]phr{"when": t.whenPhr(at), "span": t.durationPhr(at.Sub(t.now).Round(time.Minute))}), true
}

// reminderSlot marks, among the slots a conversation keeps, an entry
// asked for as a reminder.
const reminderSlot = "reminder"

// saysPast reports whether the word before a day ("last friday"), after
// it ("el viernes pasado") or the verb ("what date was friday") puts it in
// the past.
func (t *turn) saysPast(v slotVal) bool {
	if v.start > 0 && pastMarks[t.toks[v.start-1].norm] || v.end < len(t.toks) && pastMarks[t.toks[v.end].norm] {
		return true
	}
	return slices.ContainsFunc(t.toks, func(tok token) bool { return pastVerbs[tok.norm] })
}

var (
	pastMarks = map[string]bool{"last": true, "past": true, "previous": true, "pasado": true, "anterior": true}
	pastVerbs = map[string]bool{"was": true, "fue": true, "era": true}
)

// daysBack are the days before today a date question can name; the
// parser of times reads days to come only.
var daysBack = map[string]int{"yesterday": 1, "ayer": 1, "anteayer": 2}

func (t *turn) datePhr(d time.Time) phr {
	if t.lang == "es" {
		return phr{
			esWeekdays[d.Weekday()] + ", " + strconv.Itoa(d.Day()) + " de " + esMonths[d.Month()] + " de " + strconv.Itoa(d.Year()),
			esWeekdays[d.Weekday()] + " " + sayNumber("es", d.Day()) + " de " + esMonths[d.Month()],
		}
	}
	return phr{
		enWeekdays[d.Weekday()] + ", " + enMonths[d.Month()] + " " + strconv.Itoa(d.Day()) + ", " + strconv.Itoa(d.Year()),
		enWeekdays[d.Weekday()] + ", " + enMonths[d.Month()] + " " + strconv.Itoa(d.Day()),
	}
}

func (t *turn) alarm(intent string, slots map[string]slotVal) reply {
	// "remove one of my alarms", "borra una de las alarmas": one of them
	// is no every one; which is asked.
	// "delete my alarms for tomorrow" names a day: not every alarm, and
	// which is asked.
	if _, all := slots["every"]; (all || t.saysAny("alarms", "alarmas") && !t.saysOneOf()) && intent == "DELETE_ALARM" &&
		!slots["time"].when.complete() && !t.saysDay() {
		r := t.reply("alarms_deleted", nil)
		r.actions = act(intent, AlarmData{All: true})
		return r
	}
	w, ok := slots["time"]
	if (!ok || !w.when.complete()) && intent == "SET_ALARM" && t.filled == "" {
		w, ok = t.findClock()
	}
	if intent == "SET_ALARM" {
		w, ok = t.hourlyWithoutTime(w, ok)
	}
	_, waking := slots["waking"]
	waking = waking || t.saysWaking()
	if !ok || !w.when.complete() {
		if intent == "DELETE_ALARM" {
			return t.ask("time", "ask_alarm_delete_time", nil, slots)
		}
		if waking {
			// "wake me up tomorrow" - "at 6": the answer is still a time
			// to wake at
			slots["waking"] = slotVal{text: "yes"}
		}
		return t.ask("time", "ask_alarm_time", nil, slots)
	}
	if intent == "SET_ALARM" {
		if times := t.alarmTimes(); times != nil {
			return t.alarms(times, waking)
		}
		w.when = wakingHours(w.when, waking)
		slots["time"] = w
	}
	at := w.when.resolve(t.now, t.loc, biasMorning)
	key := map[bool]string{true: "alarm_set", false: "alarm_deleted"}[intent == "SET_ALARM"]
	if rep, word := t.repeats(); rep != repeatNone && intent == "SET_ALARM" {
		at, key = t.firstOccurrence(rep, word, w.when, biasMorning), "alarm_set_once"
	}
	t.usedAt("time", at)
	label := strings.TrimSpace(slots["label"].text)
	r := t.reply(key, map[string]phr{"when": t.whenPhr(at)})
	data := AlarmData{Time: ms(at), Label: label}
	if intent == "DELETE_ALARM" {
		// "delete the 7 o'clock alarm": the person means the alarm they
		// have, whichever half of the day it is in; the answer names only
		// what was said, and the client reports which alarm it deleted.
		data.Hour12 = w.when.hasClock && w.when.mer == "" && w.when.day == dayNone && w.when.hour <= 12
		if data.Hour12 {
			h := w.when.hour % 12
			if h == 0 {
				h = 12
			}
			r = t.reply("alarm_deleted_clock", map[string]phr{"clock": {fmt.Sprintf("%d:%02d", h, w.when.minute),
				sayNumber(t.lang, h) + map[bool]string{true: "", false: " " + sayNumber(t.lang, w.when.minute)}[w.when.minute == 0]}})
		}
	}
	r.actions = act(intent, data)
	return r
}

// saysDay reports whether the query names a day ("tomorrow", "on friday").
func (t *turn) saysDay() bool {
	for j := range t.toks {
		if w, n := t.m.parseWhen(t.toks[j:]); n > 0 && w.day != dayNone {
			return true
		}
	}
	return false
}

// saysWaking reports whether the query asks to be woken or to get up.
func (t *turn) saysWaking() bool {
	for i, tok := range t.toks {
		if t.m.wakeWords[tok.norm] || (tok.norm == "get" || tok.norm == "getting") && i+1 < len(t.toks) && t.toks[i+1].norm == "up" {
			return true
		}
	}
	return false
}

func (t *turn) timer(slots map[string]slotVal) reply {
	d, ok := slots["duration"]
	if !ok || d.dur <= 0 {
		// "set a timer for 7 pm" names an end, not a length.
		if w, ok := slots["time"]; ok && w.when.complete() {
			d.dur = w.when.resolve(t.now, t.loc, biasNone).Sub(t.now)
		}
		if d.dur <= 0 && t.filled == "" {
			// "the patient in room 4 needs checking in 15 minutes, timer
			// please": the length was said elsewhere in the query.
			d.dur = t.findDuration()
		}
		for j := 1; j < len(t.toks) && d.dur <= 0 && t.filled == ""; j++ {
			if minutesLead[t.toks[j-1].norm] {
				d.dur = t.m.bareMinutes(t.toks[j:]) // "set a timer for 45"
			}
			if d.dur <= 0 && untilLead[t.toks[j-1].norm] {
				// "set a timer for 7 pm", "until 5": counts down to that
				// time (it asked for how long)
				if w, n := t.m.parseWhen(t.toks[j:]); j+n == len(t.toks) && w.hasClock && !w.hasRel {
					d.dur = w.resolve(t.now, t.loc, biasNone).Sub(t.now).Round(time.Minute)
				}
			}
		}
		if d.dur <= 0 {
			return t.ask("duration", "ask_timer_duration", nil, slots)
		}
	}
	label := strings.TrimSpace(slots["label"].text)
	if toks := tokenize(label); len(toks) > 0 {
		if _, n := t.m.parseWhen(toks); n == len(toks) {
			label = "" // "set a timer for 10:30": the time it ends, no name
		}
	}
	r := t.reply("timer_set", map[string]phr{"duration": t.durationPhr(d.dur)})
	r.actions = act("SET_TIMER", TimerData{Duration: d.dur.Milliseconds(), Label: label})
	return r
}

// minutesLead are the words before a timer's length ("for 45", "de 45");
// untilLead those before the time it ends at ("for 7 pm", "until 5",
// "hasta las 7").
var (
	minutesLead = map[string]bool{"for": true, "of": true, "de": true, "para": true}
	untilLead   = map[string]bool{"for": true, "until": true, "till": true, "til": true, "hasta": true, "para": true}
)

// bareMinutes reads a timer's length said as a number alone, to the end
// of toks: minutes, the unit a kitchen timer is set in ("set a timer for
// 45", "For how long?" - "ten"). The answer names the unit, so the
// reading shows.
func (m *langModel) bareMinutes(toks []token) time.Duration {
	if v, n := m.parseNumber(toks); n > 0 && n == len(toks) && v > 0 && v <= 24*60 {
		return time.Duration(v) * time.Minute
	}
	return 0
}

// indefinite articles open a title without being part of it ("a call
// with Marco").
var indefinite = map[string]bool{"a": true, "an": true, "un": true, "una": true}

// titleKinds are kinds of entry that belong to the title before them
// ("team meeting", "board meeting"); "appointment" and "event" only say
// that it is a calendar entry.
var titleKinds = map[string]bool{"meeting": true}

// alarmKinds end a title that names an alarm ("a reminder alarm").
var alarmKinds = map[string]bool{"alarm": true, "alarma": true, "despertador": true}

// kindOnly are words that name the kind of a calendar entry and nothing
// else: a title of only that word is no title.
var kindOnly = map[string]bool{"event": true, "appointment": true, "entry": true, "calendar event": true,
	"evento": true, "cita": true, "entrada": true}

// undescribed drops the words that describe an entry before its kind:
// "another meeting with the team" is a "meeting with the team", "another
// event" an "event". Before other words they are the title's own ("new
// year's party", "quick sync").
func (t *turn) undescribed(title string) string {
	words := strings.Fields(title)
	k := 0
	for k < len(words)-1 && (t.m.describers[fold(words[k])] || indefinite[fold(words[k])]) {
		k++
	}
	if k > 0 && (kindOnly[fold(words[k])] || titleKinds[fold(words[k])]) {
		return strings.Join(words[k:], " ")
	}
	return title
}

// placeholders stand for a thing not named yet (folded).
var placeholders = map[string]bool{"something": true, "anything": true, "a thing": true, "algo": true, "una cosa": true}

// timeInTitle takes a time said inside a title out of it when the
// appointment has no complete time: "apúntame que el jueves a las diez
// viene el médico" is "viene el médico" on Thursday at ten. The words
// that led to the time ("que", "that") go with it.
func (t *turn) timeInTitle(slots map[string]slotVal) {
	v, ok := slots["title"]
	if w, has := slots["time"]; has && w.when.complete() || !ok || v.end <= v.start || v.end > len(t.toks) ||
		spanText(t.toks[v.start:v.end]) != strings.TrimSpace(v.text) {
		return
	}
	for j := v.start; j < v.end; j++ {
		w, n := t.m.parseWhen(t.toks[j:v.end])
		if n == 0 || !w.complete() || w.hasRel || w.day == dayNone && w.mer == "" && n < 2 {
			continue
		}
		var rest []token
		rest = append(rest, t.toks[v.start:j]...)
		rest = append(rest, t.toks[j+n:v.end]...)
		for len(rest) > 0 && (t.m.fillers[rest[0].norm] || rest[0].norm == "that") {
			rest = rest[1:]
		}
		if len(rest) == 0 {
			return
		}
		if prev, had := slots["time"]; had {
			w = prev.when.merge(w)
		}
		slots["time"] = slotVal{when: w, start: j, end: j + n}
		slots["title"] = slotVal{text: spanText(rest)}
		return
	}
}

func (t *turn) appointment(slots map[string]slotVal) reply {
	t.timeInTitle(slots)
	title := strings.TrimSpace(slots["title"].text)
	// "book me a flight to paris": the entry is the speaker's, and named
	// without its article
	for {
		first, rest, ok := strings.Cut(title, " ")
		if !ok || !indefinite[fold(first)] && !selfWords[fold(first)] {
			break
		}
		title = strings.TrimSpace(rest)
	}
	title = t.undescribed(title)
	if _, marked := slots[reminderSlot]; marked && t.filled == "title" {
		// "What should I remind you about?" - "to call the bank"
		if first, rest, ok := strings.Cut(title, " "); ok && reminderOf[fold(first)] {
			title = strings.TrimSpace(rest)
			slots["title"] = slotVal{text: title}
		}
	}
	if tv, ok := slots["title"]; ok && t.filled == "" && title != "" && tv.end > tv.start && tv.end < len(t.toks) &&
		titleKinds[t.toks[tv.end].norm] && strings.HasSuffix(spanText(t.toks[tv.start:tv.end]), title) {
		// "put team meeting on my calendar", "a staff meeting on monday":
		// a meeting is named with its kind, which the pattern read as its
		// own word.
		title += " " + t.toks[tv.end].orig
		slots["title"] = slotVal{text: title}
	}
	if words := strings.Fields(fold(title)); t.filled == "" && len(words) > 0 && alarmKinds[words[len(words)-1]] {
		// "put a reminder alarm for thursday at 6:10 pm": what is put in
		// is an alarm, not a calendar entry called so.
		alarm := map[string]slotVal{}
		if w, ok := slots["time"]; ok {
			alarm["time"] = w
		}
		return t.handle("SET_ALARM", alarm)
	}
	if t.filled == "" && (kindOnly[fold(title)] || placeholders[fold(title)]) {
		// "add an event to my calendar", "apunta una cita": the kind of
		// entry is no title; the title is asked for (or, with a time, the
		// kind stands for it below). Nor is a word that stands for a
		// thing not yet said ("put something in my calendar").
		title = ""
		delete(slots, "title")
	}
	if named := calledTitle(title); named != title {
		// "a meeting called budget review": the title is the name
		title = named
		slots["title"] = slotVal{text: title}
	}
	kind := "meeting"
	switch k, ok := slots["apptkind"]; {
	case ok:
		kind = k.text
	case t.saysAny("event", "evento"):
		kind = "event"
	case t.saysAny("appointment", "cita"):
		kind = "appointment"
	}
	kindName := t.m.displayName("apptkind", kind)
	if first, _, ok := strings.Cut(title, " "); ok && (fold(first) == "with" || fold(first) == "con") {
		// "add a meeting with the bank manager": the kind leads its title
		title = kindName + " " + title
		slots["title"] = slotVal{text: title}
	}
	if first, _, _ := strings.Cut(title, " "); t.filled == "" && referringTitle[fold(first)] {
		title = "" // "put it in my calendar" names nothing itself
	}
	if title == "" && t.filled == "" {
		// "I need to see the bank manager on Tuesday at 11 am, can you add
		// that": the entry is what the other clause said.
		if ttl, w, ok := t.referredEntry(); ok {
			title = ttl
			slots["title"] = slotVal{text: title}
			if v, has := slots["time"]; !has || !v.when.complete() {
				slots["time"] = w
			}
		}
	}
	if person := strings.TrimSpace(slots["person"].text); title == "" && person != "" {
		title, _ = t.say("meeting_with", map[string]phr{"person": same(person), "kind": same(kindName)})
		slots["title"] = slotVal{text: title}
	}
	// "appointment tomorrow at 5", "from 1pm to 2pm": a time that names
	// no title still makes an appointment.
	_, ranged := slots["until"]
	_, named := slots["apptkind"]
	if (named || ranged || t.saysAny("appointment", "event", "cita", "evento")) && title == "" {
		if w, ok := slots["time"]; ok && w.when.complete() {
			// "schedule a call tomorrow at 5": the kind is the title.
			title = kindName
			slots["title"] = slotVal{text: title}
		}
	}
	if title == "" {
		key := "ask_appointment_title"
		if t.saysReminder() {
			// "remind me later": of what? (and, once told, when)
			key, slots[reminderSlot] = "ask_reminder_title", slotVal{}
		}
		return t.ask("title", key, nil, slots)
	}
	w, ok := slots["time"]
	if (!ok || !w.when.complete()) && t.filled == "" {
		// "Tuesday at a quarter past two, could you add a meeting …"
		if w, ok = t.findClock(); ok {
			slots["time"] = w
		}
	}
	w, ok = t.hourlyWithoutTime(w, ok)
	if !ok || !w.when.complete() {
		key := "ask_appointment_time"
		if t.saysReminder() {
			// "remind me to buy milk" was asked "When is buy milk?"
			slots[reminderSlot] = slotVal{}
		}
		if _, ok := slots[reminderSlot]; ok {
			key = "ask_reminder_time" // (asked again too: "when i get home" is no time)
		}
		return t.ask("time", key, map[string]phr{"title": same(title)}, slots)
	}
	if u, ok := slots["until"]; ok && w.when.hasClock {
		// "from 6 to 7 pm tomorrow": the start is on the end's day and,
		// when it can be, in the end's half of the day.
		if w.when.day == dayNone && u.when.day != dayNone {
			w.when.setDay(u.when)
		}
		if w.when.mer == "" && u.when.mer != "" && w.when.hour <= 12 && w.when.hour%12 <= u.when.hour%12 {
			w.when.mer = u.when.mer
		}
	}
	start, key := w.when.resolve(t.now, t.loc, biasDaytime), "appointment_set"
	if f := strings.Fields(title); len(f) > 1 && repeatOpeners[fold(f[len(f)-1])] {
		// "add a meeting every friday at 9": the title ran into the
		// repetition ("meeting every")
		title = strings.Join(f[:len(f)-1], " ")
	}
	if rep, word := t.repeats(); rep != repeatNone && (repeatsLast(&title, word) || !slices.Contains(strings.Fields(title), word)) {
		// "remind me every monday at 9 to take out the trash" ("the daily
		// standup" is a title, not a repetition)
		start, key = t.firstOccurrence(rep, word, w.when, biasDaytime), "appointment_set_once"
	}
	length := defaultAppointment
	if d, ok := slots["duration"]; ok && d.dur > 0 {
		length = d.dur
	}
	end := start.Add(length)
	if u, ok := slots["until"]; ok && u.when.hasClock {
		// "from 1pm to 2pm": the end is that clock on the start's day,
		// in the same half of the day unless it says otherwise.
		local := start.In(t.loc)
		h := u.when.hour
		switch {
		case (u.when.mer == rolePM || u.when.mer == roleAfternoon || u.when.mer == roleEvening) && h < 12:
			h += 12
		case u.when.mer == roleNight && h >= 6 && h < 12:
			// "until 10 at night", as a start at night reads (resolve)
			h += 12
		case u.when.mer == "" && h < 12 && local.Hour() >= 12:
			h += 12
		}
		until := time.Date(local.Year(), local.Month(), local.Day(), h, u.when.minute, 0, 0, t.loc)
		if until.After(start) {
			end = until
			t.usedAt("until", end)
		}
	}
	t.usedAt("time", start)
	r := t.reply(key, map[string]phr{"title": same(title), "when": t.whenPhr(start)})
	r.actions = act("SET_APPOINTMENT", AppointmentData{Title: title, Start: ms(start), End: ms(end)})
	return r
}

// saysLater reports whether a request names a time to carry it out:
// "turn off the tv at 11", "turn the lights off in 10 minutes", "apaga la
// tele a las once". (A bare number is no time: "the tv on channel 5"; nor
// is a plain "today".)
func (t *turn) saysLater() bool {
	for j := range t.toks {
		w, n := t.m.parseWhen(t.toks[j:])
		if n > 0 && (w.hasRel || w.day != dayNone && (w.day != dayToday || w.mer != "") || w.hasClock && n > 1) {
			return true
		}
	}
	return false
}

func (t *turn) power(slots map[string]slotVal) reply {
	dev, ok := slots["device"]
	if !ok {
		return t.ask("device", "ask_device", nil, slots)
	}
	state := slots["onoff"].text
	if state != "off" {
		state = "on"
	}
	name := t.m.displayName("device", dev.text)
	key := "power_on"
	if state == "off" {
		key = "power_off"
	}
	r := t.reply(key, map[string]phr{"device": same(name)})
	r.actions = act("POWER", PowerData{Device: dev.text, State: state})
	return r
}

func (t *turn) channel(slots map[string]slotVal) reply {
	ch := strings.TrimSpace(slots["channel"].text)
	if ch == "" {
		return t.ask("channel", "ask_channel", nil, slots)
	}
	toks := tokenize(ch)
	if v, n := t.m.parseNumber(toks); n == len(toks) && n > 0 {
		ch = strconv.Itoa(v)
	}
	if !slices.ContainsFunc(toks, func(tok token) bool { return !articles[tok.norm] && !channelSteps[tok.norm] && tok.norm != "one" }) {
		// "channel up", "canal siguiente", "the next one": a step, which
		// the contract's CHANNEL_SELECT (a channel by name or number)
		// cannot take
		if slices.ContainsFunc(t.toks, func(tok token) bool { return channelSteps[tok.norm] }) {
			return t.reply("channel_step", nil)
		}
		return t.ask("channel", "ask_channel", nil, slots)
	}
	r := t.reply("channel_set", map[string]phr{"channel": same(ch)})
	r.actions = act("CHANNEL_SELECT", ChannelData{Channel: ch})
	return r
}

// channelSteps move through the channels rather than name one.
var channelSteps = map[string]bool{"up": true, "down": true, "next": true, "previous": true, "back": true, "last": true,
	"siguiente": true, "anterior": true, "arriba": true, "abajo": true, "proximo": true}

// callTails end a request to call without naming whom.
var callTails = map[string]bool{"back": true, "instead": true}

// callLater end a call's contact with when to call, which hark cannot
// wait for ("call mom later", "llama a mamá más tarde").
var callLater = map[string]bool{"later": true, "tonight": true, "tomorrow": true, "luego": true, "despues": true,
	"mas tarde": true, "esta noche": true, "manana": true}

// whenToCall parts a call's contact from the words around it that are no
// name: "back" before it ("call back mom"), and when to call after it
// ("call mom later", "llama a mamá más tarde", "call mom in 10 minutes"),
// which hark cannot wait for; later reports the latter.
func (t *turn) whenToCall(contact string) (name string, later bool) {
	f := strings.Fields(contact)
	if len(f) > 1 && fold(f[0]) == "back" {
		f = f[1:]
	}
	for _, n := range []int{2, 1} {
		if len(f) >= n && callLater[fold(strings.Join(f[len(f)-n:], " "))] {
			return strings.Join(f[:len(f)-n], " "), true
		}
	}
	for k := 1; k < len(f); k++ {
		if rest := tokenize(strings.Join(f[k:], " ")); len(rest) > 1 {
			if _, n := t.m.parseWhen(rest); n == len(rest) {
				return strings.Join(f[:k], " "), true
			}
		}
	}
	return strings.Join(f, " "), false
}

func (t *turn) call(slots map[string]slotVal) reply {
	later := false
	if v, ok := slots["contact"]; ok {
		// "call mom back", "call back", "call her instead": calling back
		// is calling
		if f := strings.Fields(v.text); len(f) > 0 && callTails[fold(f[len(f)-1])] {
			v.text = strings.Join(f[:len(f)-1], " ")
			if v.end > v.start && v.end <= len(t.toks) && callTails[t.toks[v.end-1].norm] {
				v.end--
			}
			slots["contact"] = v
		}
		var text string
		if text, later = t.whenToCall(v.text); text != v.text {
			v.text = text
			slots["contact"] = v
		}
	}
	t.withPossessive(slots, "contact", "")
	t.resolvePronoun(slots, "contact")
	number := slots["phone"].text
	contact := phoneOwner(strings.TrimSpace(slots["contact"].text))
	if cv := slots["contact"]; t.filled == "" && cv.end > cv.start && cv.end < len(t.toks) && phoneWords[t.toks[cv.end].norm] {
		// "call my sister's mobile": the phone word ended the name
		contact = strings.TrimSuffix(contact, "'s")
	}
	if number == "" && contact == "" {
		return t.ask("contact", "ask_call_contact", nil, slots)
	}
	// "call mom tomorrow", "at 5": hark calls now or not at all
	later = later || number == "" && t.saysLater()
	if number == "" && callsPlace(contact) {
		// "call the nearest pizza place" called a contact of that name
		r := t.reply("call_place", nil)
		r.intent = "call_place"
		return r
	}
	who := phr{contact, contact}
	if contact == "" {
		who = t.digitsPhr(number)
	}
	key := "calling"
	if later {
		key = "calling_now"
	}
	r := t.reply(key, map[string]phr{"contact": who})
	r.actions = act("MAKE_CALL", CallData{Contact: contact, Number: number})
	return r
}

// phoneOwner gives the person whose phone a contact names: "el celular de
// Mariana" and "mom's cell" call Mariana and mom, as the address book
// knows them ("del vecino" keeps its article: "el vecino").
func phoneOwner(contact string) string {
	toks := tokenize(contact)
	i := 0
	if len(toks) > 0 && articles[toks[0].norm] {
		i++
	}
	if i+2 < len(toks) && phoneWords[toks[i].norm] {
		switch toks[i+1].norm {
		case "de", "of":
			return spanText(toks[i+2:])
		case "del":
			return "el " + spanText(toks[i+2:])
		}
	}
	if n := len(toks); n >= 2 && phoneWords[toks[n-1].norm] {
		if owner, ok := strings.CutSuffix(toks[n-2].orig, "'s"); ok && owner != "" {
			return strings.TrimSuffix(spanText(toks[:n-1]), "'s")
		}
	}
	return contact
}

// placeNear are the words that make a name the nearest of a kind of
// place; said after "my" they stay a person ("my nearest neighbor").
var placeNear = map[string]bool{"nearest": true, "closest": true, "nearby": true, "local": true,
	"cercano": true, "cercana": true, "cercanos": true, "cercanas": true}

// callsPlace reports whether a contact names the nearest of a kind of
// place rather than a person: hark has no numbers of places.
func callsPlace(contact string) bool {
	toks := tokenize(contact)
	if len(toks) == 0 || toks[0].norm == "my" || toks[0].norm == "mi" {
		return false
	}
	return slices.ContainsFunc(toks, func(tok token) bool { return placeNear[tok.norm] })
}

// phoneWords name a person's phone.
var phoneWords = map[string]bool{"phone": true, "cell": true, "cellphone": true, "mobile": true, "number": true,
	"landline": true, "celular": true, "cel": true, "movil": true, "telefono": true, "fijo": true, "numero": true}

// levelAfter finds, after the direction words, where the level ends: a
// number after "to"/"al"/"hasta", or a word of the direction slot for the
// top or the bottom ("max", "al máximo").
func (t *turn) levelAfter(dir slotVal, intent string) (int, bool) {
	slot := "voldir"
	if intent == "BRIGHTNESS_UPDATE" {
		slot = "brightdir"
	}
	from := dir.end
	if from <= dir.start || from > len(t.toks) {
		return 0, false
	}
	rest := t.toks[from:]
	for j := range rest {
		if !levelTo[rest[j].norm] || j+1 >= len(rest) {
			continue
		}
		if v, n := t.m.parseNumber(rest[j+1:]); n > 0 {
			return v, true
		}
		if d, ok := t.m.findSlot(slot, rest[j+1:]); ok && d.start == 0 {
			switch d.text {
			case "max":
				return 100, true
			case "half":
				return 50, true
			case "min", "mute":
				return 0, true
			}
		}
	}
	return 0, false
}

// levelTo leads from a direction to the level it ends at.
var levelTo = map[string]bool{"to": true, "at": true, "al": true, "a": true, "hasta": true}

func (t *turn) level(intent string, dir slotVal, slots map[string]slotVal) reply {
	what := "volume"
	if intent == "BRIGHTNESS_UPDATE" {
		what = "brightness"
	}
	var data LevelData
	setLevel := func(v int) { v = max(0, min(100, v)); data.Level = &v }
	setDelta := func(v int) { v = max(-100, min(100, v)); data.Delta = &v }
	lvl, hasLevel := slots["level"]
	amt, hasAmount := slots["amount"]
	if hasAmount && amt.start > 0 && amt.start <= len(t.toks) && levelTo[t.toks[amt.start-1].norm] {
		// "sube el volumen al 60": an amount after "al" or "to" is where
		// the level ends, not a step ("en 10", "by 10").
		lvl, hasLevel, hasAmount = amt, true, false
	}
	if !hasLevel && !hasAmount && (dir.text == "up" || dir.text == "down") {
		// "sube el volumen al 60", "turn it down to 20", "sube el brillo
		// al máximo": a direction that ends at a level is that level.
		if v, ok := t.levelAfter(dir, intent); ok {
			lvl, hasLevel = slotVal{num: v}, true
		}
	}
	switch {
	case hasLevel:
		setLevel(lvl.num)
	case dir.text == "mute" || dir.text == "min":
		setLevel(0)
	case dir.text == "max":
		setLevel(100)
	case dir.text == "half":
		// "a la mitad", "halfway": the middle of the scale.
		setLevel(50)
	case dir.text == "up" || dir.text == "down":
		step := volumeStep
		if hasAmount && amt.num > 0 {
			step = amt.num
		}
		if dir.text == "down" {
			step = -step
		}
		setDelta(step)
	default:
		return t.ask("level", "ask_"+what+"_level", nil, slots)
	}
	var r reply
	if data.Level != nil {
		r = t.reply(what+"_level", map[string]phr{"level": {strconv.Itoa(*data.Level) + "%", sayNumber(t.lang, *data.Level) + t.percentWord()}})
	} else if *data.Delta > 0 {
		r = t.reply(what+"_up", nil)
	} else {
		r = t.reply(what+"_down", nil)
	}
	r.actions = act(intent, data)
	return r
}

func (t *turn) percentWord() string {
	if t.lang == "es" {
		return " por ciento"
	}
	return " percent"
}

func (t *turn) feature(intent string, slots map[string]slotVal) reply {
	f, ok := slots["feature"]
	if !ok {
		return t.ask("feature", "ask_feature", nil, slots)
	}
	name := t.m.displayName("feature", f.text)
	if t.saysLater() {
		// "turn off do not disturb at 8" turned it off at once
		r := t.reply("feature_later", map[string]phr{"feature": same(name)})
		r.intent = "feature_later"
		return r
	}
	key := "feature_on"
	if intent == "DEACTIVATE" {
		key = "feature_off"
	}
	r := t.reply(key, map[string]phr{"feature": same(name)})
	r.actions = act(intent, FeatureData{Feature: f.text})
	return r
}

func (t *turn) openApp(slots map[string]slotVal) reply {
	app := strings.TrimSpace(slots["app"].text)
	if first, rest, ok := strings.Cut(app, " "); ok && (articles[fold(first)] || fold(first) == "up") {
		// "la aplicación de la cámara": an app's name has no article,
		// unlike a person's or a place's ("the office"); nor the particle
		// of "open up", "pull up".
		app = strings.TrimSpace(rest)
	}
	if app == "" {
		return t.ask("app", "ask_app", nil, slots)
	}
	if u, n := t.m.parseURL(tokenize(app)); n > 0 {
		return t.openURL(map[string]slotVal{"url": {text: u}})
	}
	if v, ok := t.m.findSlot("device", tokenize(app)); ok && v.start == 0 && v.end == len(tokenize(app)) &&
		!t.saysAny("open", "abre", "abrir", "abreme") {
		// "start the coffee machine": a device is switched on, not an
		// app opened ("open the tv" may be an app's name)
		return t.power(map[string]slotVal{"device": v})
	}
	app = knownApp(app)
	r := t.reply("app_opened", map[string]phr{"app": same(app)})
	r.actions = act("OPEN_APP", AppData{App: app})
	return r
}

// knownApp gives the name of the app a request names (apps.json): by a
// short name ("insta" -> instagram) or with a typing slip in a name of
// five letters or more ("spotfy" -> spotify, the speller's rule for a
// word it does not know); any other name as said.
func knownApp(app string) string {
	key := joinNorm(tokenize(app))
	if name, ok := appNames[key]; ok {
		if key == name {
			return app // the name itself, as the person wrote it
		}
		return name
	}
	if len(key) < 5 || !lettersOnly(key) {
		return app
	}
	best, ties := "", 0
	for k, name := range appNames {
		if len(k) >= 5 && k[0] == key[0] && osaDistance(key, k, 1) == 1 && likelySlip(key, k) {
			if name != best {
				ties++
			}
			best = name
		}
	}
	if ties != 1 {
		// near nothing, or near two apps: the name as said
		return app
	}
	return best
}

func (t *turn) openURL(slots map[string]slotVal) reply {
	u := strings.TrimSpace(slots["url"].text)
	if u == "" {
		return t.ask("url", "ask_url", nil, slots)
	}
	if !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") {
		u = "https://" + u
	}
	host := strings.TrimPrefix(strings.TrimPrefix(u, "https://"), "http://")
	host, _, _ = strings.Cut(host, "/")
	spoken := strings.ReplaceAll(host, ".", t.dotWord())
	r := t.reply("url_opened", map[string]phr{"site": {host, spoken}})
	r.actions = act("OPEN_URL", URLData{URL: u})
	r.intent = "OPEN_URL"
	return r
}

func (t *turn) dotWord() string {
	if t.lang == "es" {
		return " punto "
	}
	return " dot "
}

// vaguePlaces name no place, alone or opening the destination ("somewhere
// fun").
var vaguePlaces = map[string]bool{"somewhere": true, "a place": true, "someplace": true, "there": true, "anywhere": true,
	"un sitio": true, "algun sitio": true, "un lugar": true, "algun lugar": true, "alli": true, "ahi": true}

// vagueOpening reports whether a destination is or opens with a vague
// place ("somewhere fun", "algún sitio bonito").
func vagueOpening(toks []token) bool {
	for n := 1; n <= min(2, len(toks)); n++ {
		if vaguePlaces[joinNorm(toks[:n])] {
			return true
		}
	}
	return false
}

func (t *turn) navigate(slots map[string]slotVal) reply {
	if p, ok := slots["personal"]; ok {
		return t.personalPlace(p.text)
	}
	if c, ok := slots["placecat"]; ok && strings.TrimSpace(slots["destination"].text) == "" {
		// The words said, not the canonical value: "farmacia" is what
		// the Spanish reading of a destination knows.
		text := c.text
		if c.end > c.start && c.end <= len(t.toks) {
			// "find a gas station", "la estación de servicio": the kind
			// is the category with the words that make it another
			from, to := t.kindSpan(t.toks, c)
			text = spanText(t.toks[from:to])
		}
		slots["destination"] = slotVal{text: text}
	}
	dest := strings.TrimSpace(slots["destination"].text)
	if dest == "" || vagueOpening(tokenize(dest)) {
		// "quiero ir a un sitio": somewhere is no destination yet.
		delete(slots, "destination")
		return t.ask("destination", "ask_destination", nil, slots)
	}
	// "take me to amazon.es" is a web site, not a place.
	if u, n := t.m.parseURL(tokenize(dest)); n > 0 && n == len(tokenize(dest)) {
		return t.openURL(map[string]slotVal{"url": {text: u}})
	}
	toks := tokenize(dest)
	// The destination keeps the words as typed, but a category or a
	// personal place is a word the language knows: "the airprot" is the
	// airport.
	t.m.correctTokens(toks)
	// "home", "my office": the user's own places, learnt by tracking.
	if v, ok := t.m.findSlot("personal", toks); ok && v.end-v.start >= len(toks)-1 {
		return t.personalPlace(v.text)
	}
	// A place of the gazetteer by name ("the Prado", "Heathrow").
	lat, lon, hasPos := t.position(toks)
	if s, ok := t.e.spotNamed(dest, lat, lon); ok {
		return t.navigateTo(Location{Name: s.Name, Lat: s.Lat, Lon: s.Lon}, "")
	}
	// "the nearest pharmacy", "the airport": the nearest of a category.
	if v, ok := t.m.findSlot("placecat", toks); ok && !t.otherKind(toks, v) {
		nearest := t.m.displayName("nearest", v.text)
		if !hasPos {
			return t.reply("nearest_needs_position", map[string]phr{"nearest": same(nearest)})
		}
		if s, _, ok := t.e.nearestSpot(v.text, lat, lon); ok {
			return t.navigateTo(Location{Name: s.Name, Lat: s.Lat, Lon: s.Lon}, nearest)
		}
	}
	loc, ok := t.locate(dest)
	if !ok {
		return t.reply("place_not_found", map[string]phr{"place": same(dest)})
	}
	return t.navigateTo(loc, "")
}

// otherKind reports whether the word before a place category, or in
// Spanish the "de" phrase after it, makes it another kind of place: "the
// nearest gas station" is no train station, "the police station" or "la
// estación de servicio" none either. Articles, fillers, describers, the
// words of nearness and a city ("the london airport", "el aeropuerto de
// madrid") leave it the category.
func (t *turn) otherKind(toks []token, v slotVal) bool {
	from, to := t.kindSpan(toks, v)
	return from < v.start || to > v.end
}

// kindSpan gives where the words of the kind of place a category names
// start and end: the category's own, with a word before it or a "de"
// phrase after it that makes it another kind (otherKind).
func (t *turn) kindSpan(toks []token, v slotVal) (from, to int) {
	from, to = v.start, v.end
	plain := func(w string) bool {
		return t.m.fillers[w] || articles[w] || indefinite[w] || t.m.describers[w] || t.m.nearWords[w]
	}
	if v.start > 0 && !plain(toks[v.start-1].norm) {
		if c, city := t.m.findSlot("city", toks[:v.start]); !city || c.end != v.start {
			from = v.start - 1
		}
	}
	if t.lang == "es" && v.end+1 < len(toks) && (toks[v.end].norm == "de" || toks[v.end].norm == "del") && !plain(toks[v.end+1].norm) {
		if _, city := t.m.findSlot("city", toks[v.end+1:]); !city {
			to = v.end + 2
		}
	}
	return from, to
}

func (t *turn) navigateTo(loc Location, nearest string) reply {
	name := t.m.displayName("city", loc.Name)
	var r reply
	if nearest != "" {
		r = t.reply("navigating_nearest", map[string]phr{"place": same(name), "nearest": same(nearest)})
	} else {
		r = t.reply("navigating", map[string]phr{"place": same(name)})
	}
	if t.asksHowFar() {
		// "how far is boston": the directions tell what hark cannot
		text, speech := t.say("how_far", nil)
		r.text, r.speech = text+" "+r.text, speech+" "+r.speech
	}
	r.actions = act("NAVIGATE", NavigateData{Destination: loc.Name, Lat: loc.Lat, Lon: loc.Lon})
	return r
}

// asksHowFar reports whether the query asks how far a place is or how
// long it takes to get there ("how far is boston", "cuánto se tarda en
// llegar al trabajo", "a qué distancia está el museo").
func (t *turn) asksHowFar() bool {
	w := make([]string, 3)
	for i := range min(3, len(t.toks)) {
		w[i] = t.toks[i].norm
	}
	switch {
	case w[0] == "how":
		return w[1] == "far" || w[1] == "long" || w[1] == "much" && w[2] == "time"
	case w[0] == "cuanto":
		return w[1] == "se" || w[1] == "tardo" || w[1] == "tardare" || w[1] == "tardamos" || w[1] == "hay" || w[1] == "queda"
	}
	return w[0] == "a" && w[1] == "que" && w[2] == "distancia" || w[0] == "que" && w[1] == "tan" && w[2] == "lejos"
}

// position is where "nearest" counts from: a dataset city named in the
// destination ("the airport in London"), else the user's position.
func (t *turn) position(toks []token) (lat, lon float64, ok bool) {
	if v, found := t.m.findSlot("city", toks); found {
		if c, known := t.e.cityNamed(v.text); known {
			return c.Lat, c.Lon, true
		}
	}
	if t.req.Lat != nil && t.req.Lon != nil {
		return *t.req.Lat, *t.req.Lon, true
	}
	return 0, 0, false
}

// personalPlace navigates to the user's home or work as tracking found
// them; without them, the answer says how to get them.
func (t *turn) personalPlace(label string) reply {
	unknown := func() reply {
		return t.reply("personal_unknown", map[string]phr{"place": same(t.m.displayName("personal", label))})
	}
	if t.e.cfg.Knowledge == nil {
		return unknown()
	}
	loc, err := t.e.cfg.Knowledge.Locate(t.ctx, LocateQuery{Personal: label, Near: t.userWhere(), Asker: t.asker()})
	if err != nil {
		if !isNoData(err) {
			t.logf("locate %s: %v", label, err)
		}
		return unknown()
	}
	r := t.reply("navigating", map[string]phr{"place": same(t.m.displayName("personal", label))})
	r.actions = act("NAVIGATE", NavigateData{Destination: loc.Name, Lat: loc.Lat, Lon: loc.Lon})
	return r
}

// locate finds a destination: a dataset city by name, else the Knowledge.
func (t *turn) locate(dest string) (Location, bool) {
	if v, ok := t.m.findSlot("city", tokenize(dest)); ok {
		if c, ok := t.e.cityNamed(v.text); ok && len(tokenize(dest)) <= len(tokenize(c.Name))+1 {
			return Location{Name: c.Name, Lat: c.Lat, Lon: c.Lon}, true
		}
	}
	if t.e.cfg.Knowledge == nil {
		return Location{}, false
	}
	loc, err := t.e.cfg.Knowledge.Locate(t.ctx, LocateQuery{Name: dest, Near: t.userWhere(), Asker: t.asker()})
	if err != nil {
		if !isNoData(err) {
			t.logf("locate %q: %v", dest, err)
		}
		return Location{}, false
	}
	if loc.Name == "" {
		loc.Name = dest
	}
	return loc, true
}

// saysAny reports whether the query holds one of words.
// saysOneOf reports whether the query picks one of several ("one of my
// alarms", "una de las alarmas").
func (t *turn) saysOneOf() bool {
	for k := 0; k+1 < len(t.toks); k++ {
		if oneWords[t.toks[k].norm] && (t.toks[k+1].norm == "of" || t.toks[k+1].norm == "de") {
			return true
		}
	}
	return false
}

var oneWords = map[string]bool{"one": true, "una": true, "uno": true}

func (t *turn) saysAny(words ...string) bool {
	for _, tok := range t.toks {
		for _, w := range words {
			if tok.norm == w {
				return true
			}
		}
	}
	return false
}

// messageIntros introduce what a message says without being part of it
// ("that I'm late", "que ya he llegado").
var messageIntros = map[string]bool{"that": true, "saying": true, "que": true, "diciendo": true}

func (t *turn) withoutIntro(s string) string {
	s = strings.TrimSpace(s)
	s = t.withoutMessageNoun(s)
	if rest, ok := afterIntro(strings.Fields(s), tellIntros); ok {
		return strings.Join(rest, " ")
	}
	return s
}

// afterIntro is what follows one of the phrases, or a single messageIntros
// word, at the start of words, when something follows it.
func afterIntro(words []string, phrases []string) ([]string, bool) {
	for _, phrase := range phrases {
		if n := len(strings.Fields(phrase)); len(words) > n && fold(strings.Join(words[:n], " ")) == phrase {
			return words[n:], true
		}
	}
	if len(words) > 1 && messageIntros[fold(words[0])] {
		return words[1:], true
	}
	return words, false
}

// tellIntros hand the message on to the person it is for ("text john to
// tell him i'm late"), or say it in two words ("diciendo que llego
// tarde", which a pattern reads whole after one person, not after two).
var tellIntros = []string{"to tell him", "to tell her", "to tell them", "and tell him", "and tell her", "and tell them",
	"to say", "and say", "para decirle", "y dile", "y decile", "saying that", "diciendo que"}

// messageNouns name the message itself: "text anna a message saying hi"
// sends "hi", "text dad a quick note: home by six" "home by six".
var messageNouns = map[string]bool{"message": true, "text": true, "note": true, "line": true, "email": true,
	"e-mail": true, "mail": true, "mensaje": true, "mensajito": true, "nota": true, "correo": true, "texto": true}

// nounIntros are the phrases after a message noun that introduce what
// the message says, beside messageIntros ("a message that says hi").
var nounIntros = []string{"that says", "which says", "to say", "that reads", "que dice", "que diga", "que ponga", "que pone"}

// withoutMessageNoun drops a message noun that opens a message, with its
// article and describers, when an intro or a colon or comma follows it.
// Without one the words are the message's own ("a note to self").
func (t *turn) withoutMessageNoun(s string) string {
	words := strings.Fields(s)
	k := 0
	for k < len(words) && (indefinite[fold(words[k])] || t.m.describers[fold(words[k])]) {
		k++
	}
	if k >= len(words)-1 {
		return s
	}
	noun := strings.TrimRight(words[k], ",:")
	if !messageNouns[fold(noun)] {
		return s
	}
	rest := words[k+1:]
	if noun != words[k] {
		return strings.Join(rest, " ")
	}
	if said, ok := afterIntro(rest, nounIntros); ok {
		return strings.Join(said, " ")
	}
	return s
}

// possessives are words that belong to a relation ("my sister", "mi
// hermana"): the matcher skips them as fillers, but a contact keeps them.
var possessives = map[string]bool{"my": true, "our": true, "mi": true, "mis": true, "nuestra": true, "nuestro": true}

// withPossessive gives a person slot the possessive before it ("my" in
// "text my sister"), and when the slot took only the possessive ("text
// my | wife love you") the next word too, taken from the rest slot.
func (t *turn) withPossessive(slots map[string]slotVal, name, rest string) {
	v, ok := slots[name]
	if !ok || v.end <= v.start || v.end > len(t.toks) || spanText(t.toks[v.start:v.end]) != strings.TrimSpace(v.text) {
		return
	}
	if v.start > 0 && possessives[t.toks[v.start-1].norm] {
		v.start--
	}
	if v.end-v.start == 1 && possessives[t.toks[v.start].norm] {
		if r, ok := slots[rest]; ok && r.start == v.end && r.end > r.start && r.end <= len(t.toks) {
			v.end++
			r.start++
			r.text = ""
			if r.end > r.start {
				r.text = spanText(t.toks[r.start:r.end])
			}
			slots[rest] = r
		}
	}
	v.text = spanText(t.toks[v.start:v.end])
	slots[name] = v
}

// nameBeforeColon moves into a contact the words of the message before a
// colon that opens it: "text my son Leo: dinner is ready" writes to "my
// son Leo", since a colon ends who a message is for.
func (t *turn) nameBeforeColon(slots map[string]slotVal, name, rest string) {
	c, ok := slots[name]
	m, ok2 := slots[rest]
	if !ok || !ok2 || strings.TrimSpace(c.text) == "" {
		return
	}
	head, body, found := strings.Cut(m.text, ":")
	if !found || t.withoutMessageNoun(m.text) != m.text || strings.TrimSpace(body) == "" || len(strings.Fields(head)) == 0 || len(strings.Fields(head)) > 2 ||
		strings.ContainsAny(head, ",.;!?") {
		return
	}
	c.text = strings.TrimSpace(c.text) + " " + strings.TrimSpace(head)
	m.text = strings.TrimSpace(body)
	slots[name], slots[rest] = c, m
}

// resolvePronoun reads a contact said as "her", "him" or "them" as the
// person the query named before it with a possessive ("I want to talk to
// my mother, call her"). Without one, the pronoun stays.
func (t *turn) resolvePronoun(slots map[string]slotVal, name string) {
	v, ok := slots[name]
	if !ok || !pronouns[fold(strings.TrimSpace(v.text))] {
		return
	}
	for j := 0; j+1 < len(t.said); j++ {
		if possessives[t.said[j].norm] && !t.m.fillers[t.said[j+1].norm] && !pronouns[t.said[j+1].norm] {
			v.text = spanText(t.said[j : j+2])
			slots[name] = v
			return
		}
	}
	if who := strings.TrimSpace(t.before["contact"].text); who != "" && !pronouns[fold(who)] {
		v.text = who
		slots[name] = v
	}
}

// pronouns stand for a person named elsewhere.
var pronouns = map[string]bool{"her": true, "him": true, "them": true}

func (t *turn) sms(slots map[string]slotVal) reply {
	t.withPossessive(slots, "contact", "message")
	t.resolvePronoun(slots, "contact")
	t.nameBeforeColon(slots, "contact", "message")
	contact := strings.TrimSpace(slots["contact"].text)
	if contact == "" {
		contact = slots["phone"].text
	}
	if contact == "" && t.alone {
		// "llama a mamá y dile que llego tarde": the one the request
		// before named
		contact = strings.TrimSpace(t.before["contact"].text)
	}
	if contact == "" {
		return t.ask("contact", "ask_sms_contact", nil, slots)
	}
	contact = alsoTo(contact, slots, "message")
	slots["contact"] = slotVal{text: contact}
	msg := t.withoutIntro(slots["message"].text)
	if msg == "" {
		return t.ask("message", "ask_sms_message", map[string]phr{"contact": same(contact)}, slots)
	}
	r := t.reply("sms_sent", map[string]phr{"contact": same(contact), "message": same(msg)})
	r.actions = act("SEND_SMS", SMSData{Contact: contact, Text: msg})
	return r
}

func (t *turn) email(slots map[string]slotVal) reply {
	t.withPossessive(slots, "recipient", "body")
	to := slots["email"].text
	if to == "" {
		to = strings.TrimSpace(slots["recipient"].text)
	}
	if to == "" {
		return t.ask("recipient", "ask_email_to", nil, slots)
	}
	to = alsoTo(to, slots, "body")
	slots["recipient"] = slotVal{text: to}
	// The subject is optional: a message without one is still a message.
	subject := strings.TrimSpace(slots["subject"].text)
	body := t.withoutIntro(slots["body"].text)
	if body == "" {
		return t.ask("body", "ask_email_body", nil, slots)
	}
	spokenTo := strings.NewReplacer("@", t.atWord(), ".", t.dotWord()).Replace(to)
	key := "email_sent"
	if subject == "" {
		key = "email_sent_nosubject"
	}
	r := t.reply(key, map[string]phr{"to": {to, spokenTo}, "subject": same(subject)})
	r.actions = act("SEND_EMAIL", EmailData{To: to, Subject: subject, Body: body})
	return r
}

// alsoTo gives who a message is for when its text starts with more people
// ("to mom and dad saying we're here", "an email to bob and alice saying
// the meeting moved"): the text starts at its intro, and the people
// before it join who.
func alsoTo(who string, slots map[string]slotVal, text string) string {
	words := strings.Fields(slots[text].text)
	if len(words) <= 2 || fold(words[0]) != "and" && fold(words[0]) != "y" {
		return who
	}
	for k := 2; k < min(len(words)-1, 4); k++ {
		if messageIntros[fold(words[k])] {
			slots[text] = slotVal{text: strings.Join(words[k:], " ")}
			return who + " " + strings.Join(words[:k], " ")
		}
	}
	return who
}

// reminderOf lead what a reminder is of, said in answer to what it is.
var reminderOf = map[string]bool{"to": true, "about": true, "of": true, "que": true, "de": true}

// saysReminder reports whether the query asks to be reminded ("remind
// me", "recuérdame").
func (t *turn) saysReminder() bool {
	for j := range t.toks {
		if t.m.reminderAt(t.toks[j:]) > 0 {
			return true
		}
	}
	return false
}

func (t *turn) atWord() string {
	if t.lang == "es" {
		return " arroba "
	}
	return " at "
}

// displayName is the phrase a canonical slot value is said with: the
// value itself when it is a phrase of the slot, else the longest phrase
// that maps to it ("do_not_disturb" -> "do not disturb", "modo no molestar").
func (m *langModel) displayName(slot, canon string) string {
	if d, ok := m.display[slot][canon]; ok {
		return d
	}
	if i, ok := m.slotIndex[slot]; ok {
		spaced := strings.ReplaceAll(canon, "_", " ")
		if m.slots[i].values[spaced] == canon {
			return spaced
		}
		best := ""
		for phrase, v := range m.slots[i].values {
			if v == canon && (len(phrase) > len(best) || len(phrase) == len(best) && phrase < best) {
				best = phrase
			}
		}
		if best != "" {
			return best
		}
	}
	return strings.ReplaceAll(canon, "_", " ")
}

// referredEntry reads a request that takes up with a pronoun ("can you
// add that", "ponlo en el calendario") an entry another clause said: its
// words before their time are the title. ok is false unless one clause
// has the pronoun and another a title and a complete time.
func (t *turn) referredEntry() (string, slotVal, bool) {
	toks := t.toks
	if t.said != nil {
		toks = t.said
	}
	cs := t.m.clausesOf(toks)
	refers := -1
	for i, c := range cs {
		for _, tok := range c {
			if referringWords[tok.norm] {
				refers = i
			}
		}
	}
	if refers < 0 {
		return "", slotVal{}, false
	}
	for i, c := range cs {
		if i == refers {
			continue
		}
		for j := 1; j < len(c); j++ {
			w, n := t.m.parseWhen(c[j:])
			if n == 0 || !w.complete() || w.hasRel {
				continue
			}
			words := c[:j]
			for len(words) > 0 && t.m.fillers[words[0].norm] {
				words = words[1:]
			}
			for len(words) > 0 && t.m.fillers[words[len(words)-1].norm] {
				words = words[:len(words)-1]
			}
			if len(words) == 0 || len(words) > maxJotTitle+3 {
				break
			}
			return spanText(words), slotVal{when: w}, true
		}
	}
	return "", slotVal{}, false
}

// referringTitle are pronouns that open no title of their own.
var referringTitle = map[string]bool{"it": true, "that": true, "eso": true, "esto": true}

// referringWords take up what another clause said.
var referringWords = map[string]bool{"that": true, "it": true, "this": true, "eso": true, "esto": true}

// calledTitle gives the name after "called", "named" ("llamada", "que se
// llame") in a title that says what it is first ("meeting called budget
// review"), or the title as it is.
func calledTitle(title string) string {
	words := strings.Fields(title)
	for i := 0; i+1 < len(words); i++ {
		switch fold(words[i]) {
		case "called", "named", "titled", "llamada", "llamado", "titulada", "titulado":
			return strings.Join(words[i+1:], " ")
		}
		// Up to four words may come first ("a meeting called…"); more
		// only when they say where and what the entry is ("a mi
		// calendario una cita llamada médico"): a longer title that says
		// "called" later is its own.
		if i >= 3 && !entryWords[fold(words[i])] && !kindOnly[fold(words[i])] && !titleKinds[fold(words[i])] {
			break
		}
	}
	return title
}

// entryWords say where an entry goes, around its kind (folded).
var entryWords = map[string]bool{"a": true, "al": true, "an": true, "to": true, "in": true, "on": true, "my": true,
	"the": true, "en": true, "mi": true, "el": true, "la": true, "un": true, "una": true, "new": true, "nueva": true,
	"nuevo": true, "calendar": true, "calendario": true, "agenda": true, "diary": true}

// joke tells the n-th joke of the language (say keys joke, joke_2, …) and
// keeps the conversation, so that "another one" gets the next; past the
// last, hark says it knows no more.
func (t *turn) joke(n int) reply {
	key := "joke"
	if n > 1 {
		key = "joke_" + strconv.Itoa(n)
	}
	if _, ok := t.m.say[key]; !ok {
		return t.reply("jokes_done", nil)
	}
	r := t.reply(key, nil)
	r.followUp, r.slots = true, map[string]slotVal{"joke": {num: n}}
	return r
}

// anotherWords are what may be said around a request for another of the
// same ("tell me another one, please", "cuéntame otro"); anotherOnes are
// the requests themselves, folded.
var (
	anotherWords = map[string]bool{"and": true, "ok": true, "okay": true, "haha": true, "lol": true, "tell": true,
		"me": true, "give": true, "please": true, "y": true, "jaja": true, "cuentame": true, "dime": true,
		"cuenta": true, "por": true, "favor": true, "venga": true}
	anotherOnes = map[string]bool{"another": true, "another one": true, "one more": true, "another joke": true,
		"one more joke": true, "more": true, "otro": true, "otra": true, "otro mas": true, "uno mas": true,
		"otro chiste": true, "mas": true}
)

// asksAnother reports whether the query asks only for another of what
// was just given.
func (t *turn) asksAnother() bool {
	var rest []string
	for _, tok := range t.toks {
		if !anotherWords[tok.norm] {
			rest = append(rest, tok.norm)
		}
	}
	return anotherOnes[strings.Join(rest, " ")]
}
