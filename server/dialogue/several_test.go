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
		{"en", "navigate to boston and play some music",
			[]string{`NAVIGATE {"destination":"Boston"`, `PLAY_MUSIC `}, []string{"Playing", "Start directions to Boston?"}},
		{"en", "call john and tell him i'm late",
			[]string{`MAKE_CALL {"contact":"john"`, `SEND_SMS {"contact":"john","text":"i'm late"}`}, nil},
		{"en", "what's the weather and what time is it", nil, []string{"3°C", "It's 10:15 AM."}},
		{"es", "apaga las luces y pon música",
			[]string{`POWER {"device":"lights","state":"off"}`, `PLAY_MUSIC `}, []string{"Apagando", "Reproduciendo"}},
		{"es", "pon una alarma a las 7 y llama a mamá",
			[]string{`SET_ALARM {"time":"` + at7pm + `"`, `MAKE_CALL {"contact":"mamá"`}, []string{"Alarma puesta", "¿Llamo a mamá?"}},
		{"es", "activa el wifi y el bluetooth",
			[]string{`ACTIVATE {"feature":"wifi"}`, `ACTIVATE {"feature":"bluetooth"}`}, nil},

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
		ok := len(got) == len(c.want)
		for i := 0; ok && i < len(got); i++ {
			ok = strings.HasPrefix(got[i], c.want[i])
		}
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
