package dialogue

import (
	"strings"
	"testing"
	"time"
)

// An alarm or a reminder asked to repeat is set for its first occurrence,
// and the answer says it will not repeat (the contract's actions carry one
// instant); a day said once, or a title that names a repetition, adds no
// such word. Now is Wednesday 4 March 2026, 10:15 in New York.
func TestRepeatingAlarmsSayTheyAreSetOnce(t *testing.T) {
	h := newHarness(t)
	at := func(d, hour, minute int) string { return msAt(h.loc, 2026, time.March, d, hour, minute) }
	for _, c := range []struct {
		lang, q, action, at string
		once                bool
	}{
		{"en", "set an alarm for 7 on weekends", "SET_ALARM", at(7, 7, 0), true}, // Saturday morning
		{"en", "set an alarm for weekdays at 7 am", "SET_ALARM", at(5, 7, 0), true},
		{"en", "set an alarm for mondays at 8", "SET_ALARM", at(9, 8, 0), true},
		{"en", "set an alarm for every monday at 7", "SET_ALARM", at(9, 7, 0), true},
		{"en", "wake me up every day at 6", "SET_ALARM", at(5, 6, 0), true},
		{"en", "set a daily alarm for 7 am", "SET_ALARM", at(5, 7, 0), true},
		{"en", "set a recurring alarm for 8", "SET_ALARM", at(4, 20, 0), true},
		{"es", "ponme una alarma de lunes a viernes a las 7", "SET_ALARM", at(4, 19, 0), true}, // not Monday
		{"es", "ponme una alarma entre semana a las 7 de la mañana", "SET_ALARM", at(5, 7, 0), true},
		{"es", "ponme una alarma los fines de semana a las 9", "SET_ALARM", at(7, 9, 0), true},
		{"es", "despiértame todos los días a las 6", "SET_ALARM", at(5, 6, 0), true},
		{"es", "ponme una alarma los lunes a las 8", "SET_ALARM", at(9, 8, 0), true},
		{"en", "remind me every monday at 9 to take out the trash", "SET_APPOINTMENT", at(9, 9, 0), true},
		{"en", "remind me daily at 8 pm to take my pills", "SET_APPOINTMENT", at(4, 20, 0), true},
		// every hour, said with no time: from an hour from now (it asked
		// when, and a reminder's title took "every hour")
		{"en", "remind me to drink water every hour", "SET_APPOINTMENT", `"title":"drink water","start":"` + at(4, 11, 15), true},
		{"es", "recuérdame beber agua cada hora", "SET_APPOINTMENT", `"title":"beber agua","start":"` + at(4, 11, 15), true},
		{"en", "set an alarm every hour", "SET_ALARM", at(4, 11, 15), true},
		{"en", "set an hourly alarm", "SET_ALARM", at(4, 11, 15), true},
		{"en", "remind me to take my pills daily at 8 pm", "SET_APPOINTMENT", `"title":"take my pills","start":"` + at(4, 20, 0), true},
		// said once
		{"en", "set an alarm for monday at 7", "SET_ALARM", at(9, 7, 0), false},
		{"es", "ponme una alarma el lunes a las 8", "SET_ALARM", at(9, 8, 0), false},
		{"en", "add the daily standup to my calendar tomorrow at 9", "SET_APPOINTMENT", at(5, 9, 0), false},
		{"en", "schedule a meeting called weekly sync on friday at 3", "SET_APPOINTMENT", at(6, 15, 0), false},
	} {
		r := h.ask(c.lang, c.q, 0)
		action, data := actionJSON(t, r)
		if action != c.action || !strings.Contains(data, c.at) {
			t.Errorf("%q: %s %s, want %s at %s", c.q, action, data, c.action, c.at)
		}
		once := strings.Contains(r.Responses.Text, "won't repeat") || strings.Contains(r.Responses.Text, "No se repetirá")
		if once != c.once {
			t.Errorf("%q: %q, says it won't repeat: %v, want %v", c.q, r.Responses.Text, once, c.once)
		}
	}
}
