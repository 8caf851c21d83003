package dialogue

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// actionsOf lists an answer's actions as "CODE data", in order.
func actionsOf(t *testing.T, r Response) []string {
	t.Helper()
	var out []string
	for _, a := range r.NextActions {
		b, err := json.Marshal(a.Data)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, a.Action+" "+string(b))
	}
	return out
}

// Two requests said in one go were answered as one: the other dropped
// ("set an alarm for 7 and call mom" set the alarm only), or both read
// as one ("turn off the lights and set an alarm for 6" deleted the 6:00
// alarm, "navigate to boston and play some music" went to a place called
// so, "turn on the lights and the tv" switched on the TV only). Each is
// now answered as said alone, the actions in the order asked; the text
// leads with what is done and ends with what waits for a yes.
func TestSeveralRequestsInOneQuery(t *testing.T) {
	h := newHarness(t)
	at7pm, at6pm := msAt(h.loc, 2026, 3, 4, 19, 0), msAt(h.loc, 2026, 3, 4, 18, 0)
	for _, c := range []struct {
		lang, q string
		want    []string // each action's code and the start of its data
		text    []string // in the answer's text, in this order
	}{
		{"en", "turn off the lights and set an alarm for 6",
			[]string{`POWER {"device":"lights","state":"off"}`, `SET_ALARM {"time":"` + at6pm + `"`}, []string{"lights", "Alarm set"}},
		{"en", "set an alarm for 7 and call mom",
			[]string{`SET_ALARM {"time":"` + at7pm + `"`, `MAKE_CALL {"contact":"mom"`}, []string{"Alarm set", "Call mom?"}},
		{"en", "call mom and set an alarm for 7",
			[]string{`MAKE_CALL {"contact":"mom"`, `SET_ALARM {"time":"` + at7pm + `"`}, []string{"Alarm set", "Call mom?"}},
		{"en", "set an alarm for 7, and then call mom",
			[]string{`SET_ALARM {"time":"` + at7pm + `"`, `MAKE_CALL {"contact":"mom"`}, []string{"Alarm set", "Call mom?"}},
		{"en", "turn on the lights and the tv",
			[]string{`POWER {"device":"lights","state":"on"}`, `POWER {"device":"tv","state":"on"}`}, []string{"lights", "TV"}},
		{"en", "turn off the lights and tv",
			[]string{`POWER {"device":"lights","state":"off"}`, `POWER {"device":"tv","state":"off"}`}, []string{"off the lights", "off the TV"}},
		{"en", "turn off the wifi and turn on bluetooth",
			[]string{`DEACTIVATE {"feature":"wifi"}`, `ACTIVATE {"feature":"bluetooth"}`}, nil},
		{"en", "turn off the lights and wifi", // "wifi" alone switched it on
			[]string{`POWER {"device":"lights","state":"off"}`, `DEACTIVATE {"feature":"wifi"}`}, nil},
		{"en", "turn on the lights and turn off the tv",
			[]string{`POWER {"device":"lights","state":"on"}`, `POWER {"device":"tv","state":"off"}`}, nil},
		{"en", "turn off the lights and the tv and set an alarm for 6",
			[]string{`POWER {"device":"lights","state":"off"}`, `POWER {"device":"tv","state":"off"}`, `SET_ALARM {"time":"` + at6pm + `"`}, nil},
		{"es", "apaga la luz y el wifi y pon una alarma a las 7",
			[]string{`POWER {"device":"lights","state":"off"}`, `DEACTIVATE {"feature":"wifi"}`, `SET_ALARM {"time":"` + at7pm + `"`}, nil},
		// the "y" of "y media" is the clock's; the next one joins
		{"es", "pon la alarma a las 7 y media y apaga las luces",
			[]string{`SET_ALARM {"time":"` + msAt(h.loc, 2026, 3, 4, 19, 30) + `"`, `POWER {"device":"lights","state":"off"}`}, nil},
		{"en", "navigate to boston and play some music",
			[]string{`NAVIGATE {"destination":"Boston"`, `PLAY_MUSIC `}, []string{"Playing", "Start directions to Boston?"}},
		{"en", "call john and tell him i'm late",
			[]string{`MAKE_CALL {"contact":"john"`, `SEND_SMS {"contact":"john","text":"i'm late"}`}, nil},
		{"en", "what's the weather and what time is it", nil, []string{"3°C", "It's 10:15 AM."}},
		// the whole read every word, the news with three more inserted:
		// the parts read closer
		{"es", "dime el tiempo y las noticias", nil, []string{"3 °C", "titulares"}},
		{"es", "apaga las luces y pon música",
			[]string{`POWER {"device":"lights","state":"off"}`, `PLAY_MUSIC `}, []string{"Apagando", "Reproduciendo"}},
		{"es", "pon una alarma a las 7 y llama a mamá",
			[]string{`SET_ALARM {"time":"` + at7pm + `"`, `MAKE_CALL {"contact":"mamá"`}, []string{"Alarma puesta", "¿Llamo a mamá?"}},
		{"es", "activa el wifi y el bluetooth",
			[]string{`ACTIVATE {"feature":"wifi"}`, `ACTIVATE {"feature":"bluetooth"}`}, nil},
		// a clock with no day is on the day said before; a title after
		// the joiner is the later request's own (the alarm was dropped)
		{"en", "wake me up at 6 tomorrow and remind me to call the bank at 9",
			[]string{`SET_ALARM {"time":"` + msAt(h.loc, 2026, 3, 5, 6, 0) + `"`, `SET_APPOINTMENT {"title":"call the bank","start":"` + msAt(h.loc, 2026, 3, 5, 9, 0) + `"`}, nil},
		{"es", "despiértame mañana a las 6 y recuérdame llamar al banco a las 9",
			[]string{`SET_ALARM {"time":"` + msAt(h.loc, 2026, 3, 5, 6, 0) + `"`, `SET_APPOINTMENT {"title":"llamar al banco","start":"` + msAt(h.loc, 2026, 3, 5, 9, 0) + `"`}, nil},
		{"en", "set an alarm for 7 and remind me to call mom at 9",
			[]string{`SET_ALARM {"time":"` + at7pm + `"`, `SET_APPOINTMENT {"title":"call mom","start":"` + msAt(h.loc, 2026, 3, 4, 21, 0) + `"`}, nil},
		// "another", "a new one", "otra": the thing of the one before
		{"en", "set a timer for 10 minutes and set another for 20 minutes",
			[]string{`SET_TIMER {"duration":600000`, `SET_TIMER {"duration":1200000`}, nil},
		{"en", "cancel the timer and start a new one for 5 minutes",
			[]string{`DELETE_TIMER `, `SET_TIMER {"duration":300000`}, nil},
		{"es", "llama a mamá y dile que llego tarde",
			[]string{`MAKE_CALL {"contact":"mamá"`, `SEND_SMS {"contact":"mamá","text":"llego tarde"}`}, nil},

		// one request with a joiner inside: a length, a title, a message,
		// a name, a clock; and several alarms, which one answer sets
		{"en", "set a timer for an hour and a half", []string{`SET_TIMER {"duration":5400000`}, nil},
		{"en", "remind me to pick up the kids and take them to practice at 5",
			[]string{`SET_APPOINTMENT {"title":"pick up the kids and take them to practice"`}, nil},
		{"en", "text mom that i'll be late and call her later",
			[]string{`SEND_SMS {"contact":"mom","text":"i'll be late and call her later"}`}, nil},
		{"en", "send a message to mom and dad saying hi", []string{`SEND_SMS {"contact":"mom and dad","text":"hi"}`}, nil},
		{"en", "play simon and garfunkel", []string{`PLAY_MUSIC `}, nil},
		{"en", "navigate to barnes and noble", []string{`NAVIGATE {"destination":"Barnes And Noble"`}, nil},
		{"en", "set an alarm for 7 and another for 8", []string{`SET_ALARM `, `SET_ALARM `}, nil},
		{"es", "pon una alarma a las siete y media", []string{`SET_ALARM {"time":"` + msAt(h.loc, 2026, 3, 4, 19, 30) + `"`}, nil},
	} {
		r := h.ask(c.lang, c.q, 0)
		got := actionsOf(t, r)
		ok := prefixes(got, c.want)
		text, from := r.Responses.Text, 0
		for _, w := range c.text {
			i := strings.Index(text[from:], w)
			ok = ok && i >= 0
			from += max(i, 0)
		}
		if !ok {
			t.Errorf("%q: %q, actions %q, want %q with %q", c.q, text, got, c.want, c.text)
		}
	}
}

// One of several requests may lack something: the others are done, and
// the answer ends asking for it, as the conversation goes on with it.
func TestSeveralRequestsOneAsks(t *testing.T) {
	h := newHarness(t)
	for _, c := range []struct {
		q, asked, answer string
		first, then      []string
	}{
		{"call mom and then text dad", "What should the message to dad say?", "i'm on my way",
			[]string{`MAKE_CALL {"contact":"mom"`, `OPEN_ASR ""`}, []string{`SEND_SMS {"contact":"dad","text":"i'm on my way"}`}},
		{"set an alarm and play music", "For what time?", "6 am",
			[]string{`PLAY_MUSIC `, `OPEN_ASR ""`}, []string{`SET_ALARM {"time":"` + msAt(h.loc, 2026, 3, 5, 6, 0) + `"`}},
		// the new alarm is set, the old one asked for
		{"cancel my alarm and set a new one for 8", "Which alarm? Tell me its time.", "7 am",
			[]string{`SET_ALARM {"time":"` + msAt(h.loc, 2026, 3, 4, 20, 0) + `"`, `OPEN_ASR ""`}, []string{`DELETE_ALARM {"time":"` + msAt(h.loc, 2026, 3, 5, 7, 0) + `"`}},
	} {
		r := h.ask("en", c.q, 0)
		if got := actionsOf(t, r); !prefixes(got, c.first) || !strings.HasSuffix(r.Responses.Text, c.asked) {
			t.Errorf("%q: %q, actions %q, want %q asking %q", c.q, r.Responses.Text, got, c.first, c.asked)
			continue
		}
		r = h.ask("en", c.answer, r.Context.Ref)
		if got := actionsOf(t, r); !prefixes(got, c.then) {
			t.Errorf("%q, then %q: %q, actions %q, want %q", c.q, c.answer, r.Responses.Text, got, c.then)
		}
	}
}

// A message or an e-mail to two people and what to say: the second
// person is no part of the text ("send an email to bob and alice saying
// the meeting moved" wrote "and alice saying the meeting moved" to bob).
func TestMessagesToTwoPeople(t *testing.T) {
	h := newHarness(t)
	for _, c := range []struct{ lang, q, want string }{
		{"en", "send an email to bob and alice saying the meeting moved", `SEND_EMAIL {"to":"bob and alice","subject":"","body":"the meeting moved"}`},
		{"en", "send a message to mom and dad saying hi", `SEND_SMS {"contact":"mom and dad","text":"hi"}`},
		{"es", "manda un mensaje a juan y a ana diciendo que llego tarde", `SEND_SMS {"contact":"juan y a ana","text":"llego tarde"}`},
		{"es", "manda un correo a juan y a ana diciendo que la reunión se mueve", `SEND_EMAIL {"to":"juan y a ana","subject":"","body":"la reunión se mueve"}`},
	} {
		if got := actionsOf(t, h.ask(c.lang, c.q, 0)); !slices.Equal(got, []string{c.want}) {
			t.Errorf("%q: %q, want %q", c.q, got, c.want)
		}
	}
}

// prefixes reports whether each of got starts with the want at its place.
func prefixes(got, want []string) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if !strings.HasPrefix(got[i], want[i]) {
			return false
		}
	}
	return true
}

// The explanation names every request of a query that said several; the
// pattern and slots are the first's.
func TestSeveralRequestsExplained(t *testing.T) {
	h := newHarness(t)
	for q, want := range map[string][]string{
		"turn off the lights and set an alarm for 6": {"turn off the lights", "set an alarm for 6"},
		"set a timer for an hour and a half":         nil,
	} {
		r, err := h.e.Answer(t.Context(), Request{Query: q, Lang: "en", TimeZone: h.loc, Now: h.now, UserID: 1, Explain: true})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(r.Explain.Requests, want) {
			t.Errorf("%q: requests %q, want %q", q, r.Explain.Requests, want)
		}
	}
	r, err := h.e.Answer(t.Context(), Request{Query: "turn off the lights and set an alarm for 6", Lang: "en", TimeZone: h.loc, Now: h.now, UserID: 1, Explain: true})
	if err != nil {
		t.Fatal(err)
	}
	if r.Explain.Intent != "POWER" || !strings.Contains(r.Explain.Pattern, "{device}") {
		t.Errorf("explained as %s %q, want the first request's reading", r.Explain.Intent, r.Explain.Pattern)
	}
}

// "quita la alarma y pon otra a las 8": the other is an alarm, not a song
// called "otra a las 8".
func TestAnotherIsTheThingBefore(t *testing.T) {
	h := newHarness(t)
	r := h.ask("es", "quita la alarma y pon otra a las 8", 0)
	if got := actionsOf(t, r); !prefixes(got, []string{`SET_ALARM {"time":"` + msAt(h.loc, 2026, 3, 4, 20, 0) + `"`, `OPEN_ASR ""`}) {
		t.Errorf("%q, actions %q, want the alarm at 8 set and the one to remove asked for", r.Responses.Text, got)
	}
}

// Read for a spoken query's choice among its readings, several requests
// cost what all their readings cost, not the first's alone.
func TestSeveralRequestsCostAll(t *testing.T) {
	h := newHarness(t)
	read := func(q string) Reading {
		rd, err := h.e.Understand(t.Context(), Request{Query: q, Lang: "en", TimeZone: h.loc, Now: h.now, UserID: 1})
		if err != nil {
			t.Fatal(err)
		}
		return rd
	}
	both, first, second := read("set an alarm for 7 and turn on the lights"), read("set an alarm for 7"), read("turn on the lights")
	if both.Intent != "SET_ALARM" || both.Cost != first.Cost+second.Cost {
		t.Errorf("read as %s costing %.2f, want SET_ALARM costing %.2f + %.2f", both.Intent, both.Cost, first.Cost, second.Cost)
	}
}

// The requests named in the explanation are as they were read, the words
// shared or referred back to included.
func TestSeveralRequestsExplainedAsRead(t *testing.T) {
	h := newHarness(t)
	for q, want := range map[string][]string{
		"turn off the lights and tv":                                {"turn off the lights", "turn off the tv"},
		"set a timer for 10 minutes and set another for 20 minutes": {"set a timer for 10 minutes", "set a timer for 20 minutes"},
	} {
		r, err := h.e.Answer(t.Context(), Request{Query: q, Lang: "en", TimeZone: h.loc, Now: h.now, UserID: 1, Explain: true})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(r.Explain.Requests, want) {
			t.Errorf("%q: requests %q, want %q", q, r.Explain.Requests, want)
		}
	}
}
