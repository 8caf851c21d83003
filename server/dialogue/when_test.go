package dialogue

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestTimeExpressions resolves spoken and typed times in several zones,
// across daylight-saving changes, in both languages. want is a local wall
// time in the zone, or "+<duration>" for an offset from now.
func TestTimeExpressions(t *testing.T) {
	ms, err := loadModels()
	if err != nil {
		t.Fatal(err)
	}
	type tc struct{ lang, q, want string }
	zones := []struct {
		zone  string
		now   string // local wall time
		cases []tc
	}{
		{"America/New_York", "2026-03-04 10:15", []tc{
			{"en", "at 7", "2026-03-04 19:00"},
			{"en", "at 11", "2026-03-04 11:00"},
			{"en", "seven thirty pm", "2026-03-04 19:30"},
			{"en", "19:45", "2026-03-04 19:45"},
			{"en", "0600 hours", "2026-03-05 06:00"}, // the 24-hour clock said with "hours"
			{"en", "06:00 hours tomorrow", "2026-03-05 06:00"},
			{"en", "18:30 hrs", "2026-03-04 18:30"},
			{"en", "quarter past seven", "2026-03-04 19:15"},
			{"en", "a quarter to eight in the morning", "2026-03-05 07:45"},
			{"en", "ten to nine", "2026-03-04 20:50"},
			{"en", "twenty five past six", "2026-03-04 18:25"},
			{"en", "seven oh five am", "2026-03-05 07:05"},
			{"en", "7pm", "2026-03-04 19:00"},
			{"en", "7:30am", "2026-03-05 07:30"},
			{"en", "noon", "2026-03-04 12:00"},
			{"en", "midnight", "2026-03-05 00:00"},
			{"en", "in 10 minutes", "+10m"},
			{"en", "in half an hour", "+30m"},
			{"en", "in an hour and a half", "+1h30m"},
			{"en", "in two hours and fifteen minutes", "+2h15m"},
			{"en", "tomorrow at 9", "2026-03-05 09:00"},
			{"en", "tomorrow at 3", "2026-03-05 15:00"},
			{"en", "tomorrow morning at six", "2026-03-05 06:00"},
			{"en", "on friday at 8", "2026-03-06 08:00"},
			{"en", "friday at 8 pm", "2026-03-06 20:00"},
			{"en", "next wednesday at nine", "2026-03-11 09:00"},
			{"en", "wednesday at 9 am", "2026-03-11 09:00"},
			{"en", "wednesday at 6 pm", "2026-03-04 18:00"},
			{"en", "tonight at 9", "2026-03-04 21:00"},
			{"en", "the day after tomorrow at 10 am", "2026-03-06 10:00"},
			// Across the change to daylight time on Sunday 8 March.
			{"en", "sunday at 9 am", "2026-03-08 09:00"},
			{"en", "monday at 7:30 am", "2026-03-09 07:30"},
			{"en", "in 5 days", "+120h"},
			// Homophones a recogniser writes for an hour, read as it
			// only before am, pm or o'clock.
			{"en", "friday to pm", "2026-03-06 14:00"},
			{"en", "at for thirty pm", "2026-03-04 16:30"},
			{"en", "thursday for pm", "2026-03-05 16:00"},
			{"en", "friday for thirty pm", "2026-03-06 16:30"},
			{"en", "tomorrow at ate o'clock", "2026-03-05 08:00"},
			{"en", "saturday night am", "2026-03-07 09:00"},
			{"en", "friday night thirty pm", "2026-03-06 21:30"},
			{"en", "saturday night at ten", "2026-03-07 22:00"},
			// The 24-hour clock read aloud.
			{"en", "zero six four five tomorrow", "2026-03-05 06:45"},
			{"en", "oh nine thirty", "2026-03-05 09:30"},
			{"en", "zero six hundred hours tomorrow", "2026-03-05 06:00"},
			{"en", "at seventeen hundred", "2026-03-04 17:00"},
			{"en", "twenty three hundred hours", "2026-03-04 23:00"},
			{"en", "at six hours tomorrow", "2026-03-05 06:00"},
			{"en", "at two hours and thirty minutes", "+2h30m"},
			// The 24-hour clock and a dotted time as text-to-speech reads
			// "1700", "1345" and "7.30" (spoken dev5).
			{"en", "at one thousand seven hundred", "2026-03-04 17:00"},
			{"en", "one thousand three hundred forty five tomorrow", "2026-03-05 13:45"},
			{"en", "at two thousand", "2026-03-04 20:00"},
			{"en", "seven point three zero am", "2026-03-05 07:30"},
			{"en", "at seven point thirty pm", "2026-03-04 19:30"},
			{"en", "in one thousand seconds", "+16m40s"},
		}},
		{"Europe/Madrid", "2026-10-24 10:00", []tc{
			{"es", "a las siete y media", "2026-10-24 19:30"},
			{"es", "a las once", "2026-10-24 11:00"},
			{"es", "a las ocho menos cuarto", "2026-10-24 19:45"},
			{"es", "a las siete menos diez de la tarde", "2026-10-24 18:50"},
			{"es", "a la una y cuarto", "2026-10-24 13:15"},
			{"es", "a las 21:30", "2026-10-24 21:30"},
			{"es", "a las nueve en punto de la noche", "2026-10-24 21:00"},
			{"es", "al mediodía", "2026-10-24 12:00"},
			{"es", "dentro de diez minutos", "+10m"},
			{"es", "en media hora", "+30m"},
			{"es", "dentro de una hora y media", "+1h30m"},
			{"es", "en un cuarto de hora", "+15m"},
			// Across the change to winter time on Sunday 25 October.
			{"es", "mañana a las nueve", "2026-10-25 09:00"},
			{"es", "mañana por la mañana a las siete", "2026-10-25 07:00"},
			{"es", "pasado mañana a las diez", "2026-10-26 10:00"},
			{"es", "el viernes a las ocho", "2026-10-30 08:00"},
			{"es", "el lunes a las ocho y cuarto", "2026-10-26 08:15"},
			{"es", "el sábado que viene a las diez de la mañana", "2026-10-31 10:00"},
			{"es", "esta noche a las diez", "2026-10-24 22:00"},
		}},
		{"Asia/Singapore", "2026-03-04 22:30", []tc{
			{"en", "at 7", "2026-03-05 07:00"},
			{"en", "at 11", "2026-03-04 23:00"},
			{"en", "half past eleven", "2026-03-04 23:30"},
			{"en", "noon", "2026-03-05 12:00"},
			{"en", "in 90 minutes", "+90m"},
		}},
		{"Australia/Sydney", "2026-04-04 12:00", []tc{
			// Daylight time ends on Sunday 5 April at 3:00.
			{"en", "tomorrow at 8 pm", "2026-04-05 20:00"},
			{"en", "in 24 hours", "+24h"},
			{"es", "mañana a las ocho de la tarde", "2026-04-05 20:00"},
		}},
	}
	for _, z := range zones {
		loc := mustZone(t, z.zone)
		now, err := time.ParseInLocation("2006-01-02 15:04", z.now, loc)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range z.cases {
			m := ms[c.lang]
			toks := tokenize(c.q)
			w, n := m.parseWhen(toks)
			if n != len(toks) {
				t.Errorf("%s %q: parsed %d of %d words", z.zone, c.q, n, len(toks))
				continue
			}
			got := w.resolve(now, loc, biasNone)
			var want time.Time
			if strings.HasPrefix(c.want, "+") {
				d, _ := time.ParseDuration(c.want[1:])
				want = now.Add(d)
			} else if want, err = time.ParseInLocation("2006-01-02 15:04", c.want, loc); err != nil {
				t.Fatal(err)
			}
			if !got.Equal(want) {
				t.Errorf("%s %q: got %s, want %s", z.zone, c.q, got.In(loc).Format(time.RFC3339), want.Format(time.RFC3339))
			}
		}
	}
}

// TestDSTWallClock: "tomorrow at 9" the day before the change is 9:00 on
// the wall, which is 23 hours away, not 24.
func TestDSTWallClock(t *testing.T) {
	loc := mustZone(t, "America/New_York")
	now := time.Date(2026, 3, 7, 9, 0, 0, 0, loc)
	e := New(Config{})
	r, err := e.Answer(context.Background(), Request{Query: "set an alarm for tomorrow at 9 am", TimeZone: loc, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	data, ok := r.NextActions[0].Data.(AlarmData)
	if !ok {
		t.Fatalf("data %T", r.NextActions[0].Data)
	}
	want := now.Add(23 * time.Hour)
	if data.Time != ms(want) {
		t.Errorf("alarm at %s, want %s", data.Time, ms(want))
	}
	if !strings.Contains(r.Responses.Text, "9:00 AM") {
		t.Errorf("answer %q", r.Responses.Text)
	}
}

// A clock past twelve said with am or "in the morning" is no time of day:
// "fifteen am" is what a recogniser left of "eight fifteen am".
func TestClockAgainstItsPartOfTheDay(t *testing.T) {
	ms, _ := loadModels()
	for _, c := range []struct {
		lang, q string
		ok      bool
	}{
		{"en", "fifteen am", false},
		{"en", "at 15 am", false},
		{"en", "15am", false},
		{"es", "a las quince de la mañana", false},
		{"en", "13 pm", true},
		{"en", "twelve am", true},
		{"en", "seven am", true},
		{"es", "a las siete de la mañana", true},
	} {
		if _, n := ms[c.lang].parseWhen(tokenize(c.q)); (n > 0) != c.ok {
			t.Errorf("%s %q: read over %d words, want a time %v", c.lang, c.q, n, c.ok)
		}
	}
}

func TestDayOnlyAndDurations(t *testing.T) {
	ms, _ := loadModels()
	for _, c := range []struct {
		lang, q string
		day     dayKind
		wd      time.Weekday
	}{
		{"en", "tomorrow", dayTomorrow, 0},
		{"en", "on friday", dayWeekday, time.Friday},
		{"es", "el viernes", dayWeekday, time.Friday},
		{"es", "mañana", dayTomorrow, 0},
		{"es", "pasado mañana", dayAfter, 0},
	} {
		w, n := ms[c.lang].parseWhen(tokenize(c.q))
		if n == 0 || w.day != c.day || w.weekday != c.wd || w.complete() {
			t.Errorf("%q: %+v", c.q, w)
		}
	}
	for _, c := range []struct {
		lang, q string
		want    time.Duration
	}{
		{"en", "10 minutes", 10 * time.Minute},
		{"en", "half an hour", 30 * time.Minute},
		{"en", "an hour and a half", 90 * time.Minute},
		{"en", "1 hour 30 minutes", 90 * time.Minute},
		{"en", "90s", 90 * time.Second},
		{"en", "forty five seconds", 45 * time.Second},
		{"en", "a quarter of an hour", 15 * time.Minute},
		{"es", "diez minutos", 10 * time.Minute},
		{"es", "media hora", 30 * time.Minute},
		{"es", "una hora y media", 90 * time.Minute},
		{"es", "hora y media", 90 * time.Minute},
		{"es", "dos horas y diez minutos", 130 * time.Minute},
		{"es", "veinticinco segundos", 25 * time.Second},
	} {
		toks := tokenize(c.q)
		d, n := ms[c.lang].parseDuration(toks)
		if d != c.want || n != len(toks) {
			t.Errorf("%q: %s over %d words, want %s", c.q, d, n, c.want)
		}
	}
	for _, c := range []struct {
		lang, q string
		want    int
	}{
		{"en", "forty two", 42}, {"en", "one hundred", 100}, {"en", "one hundred and five", 105},
		{"en", "thirty-five", 35}, {"en", "75%", 75}, {"es", "cuarenta y dos", 42}, {"es", "cien", 100},
		{"es", "veintitrés", 23}, {"es", "ciento veinte", 120},
	} {
		toks := tokenize(c.q)
		v, n := ms[c.lang].parseNumber(toks)
		if v != c.want || n != len(toks) {
			t.Errorf("%q: %d over %d words, want %d", c.q, v, n, c.want)
		}
	}
	for _, c := range []struct {
		lang string
		n    int
		want string
	}{
		{"en", 0, "zero"}, {"en", 21, "twenty one"}, {"en", 105, "one hundred and five"}, {"en", -3, "minus three"},
		{"es", 21, "veintiuno"}, {"es", 35, "treinta y cinco"}, {"es", 100, "cien"}, {"es", 120, "ciento veinte"},
		{"es", 500, "quinientos"},
	} {
		if got := sayNumber(c.lang, c.n); got != c.want {
			t.Errorf("sayNumber(%s, %d) = %q, want %q", c.lang, c.n, got, c.want)
		}
	}
}

// FuzzParseWhen: any text parses without panicking, within the tokens it
// was given, and resolves to a time.
func FuzzParseWhen(f *testing.F) {
	for _, s := range []string{"tomorrow at 9", "quarter to eight", "a las siete y media", "in 10 minutes",
		"99:99", "at at at", "el el viernes", "media hora y media", "12:60pm", "0:00", "24", "-5 minutes",
		"one hundred hundred", "y y y", "9999999999 seconds", "zero six four five", "oh", "zero zero zero zero hours",
		"friday to pm", "for", "saturday night am", "fifteen am", "night", "at six hours and", "twenty three hundred hundred", "one thousand seven hundred",
		"mil millones mil", "nine point five nine", "thousand thousand billion"} {
		f.Add(s)
	}
	ms, err := loadModels()
	if err != nil {
		f.Fatal(err)
	}
	now := time.Date(2026, 3, 4, 10, 15, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, s string) {
		toks := tokenize(s)
		for _, m := range ms {
			w, n := m.parseWhen(toks)
			if n < 0 || n > len(toks) {
				t.Fatalf("%q: used %d of %d tokens", s, n, len(toks))
			}
			_ = w.resolve(now, time.UTC, biasNone)
			if d, k := m.parseDuration(toks); k > len(toks) || d < 0 {
				t.Fatalf("%q: duration %s over %d tokens", s, d, k)
			}
		}
	})
}

// FuzzAnswer: any query gets an answer or a 400, never a panic.
func FuzzAnswer(f *testing.F) {
	for _, s := range []string{"set an alarm for 7", "pon una alarma", "text mom hi", "", "\xff", "{slot} [x] (a|b)",
		"open http://", "call +", "weather in", "¿qué tiempo hace?", strings.Repeat("play ", 300),
		"remind me", "remind me yet five pm", "ten minutes no twelve no", "never mind", "call two hundred twelve five",
		"j f k", "a b c d", "text b, j i", "l  a\tx", "set another timer for", "book a second appointment a second",
		"timer for a second for a second", "what's tomorrow's's date", "channel the", "call back back", "snooze snooze",
		"how long is left on the", "what time does", "what day of the week", "a que hora", "¿cuándo", "don't", "do not",
		"no me", "how long until", "how many days until the", "what's the date in", "call her instead instead",
		"set an alarm every", "los lunes", "de lunes a viernes a", "alarm for 7 and and 8 and", "timer for 1441", "timer for",
		"another one", "how far is", "call the nearest", "a qué distancia está", "entre semana",
		"turn on the and and tv", "call mom and then and then", "a b and c d and e f and g h and i", "set another and another one",
		"apaga la luz y y el", "remind me later and", "find a gas station de", "when's the next",
		"don't not don't call", "never mind never mind never", "forget it, wait actually", "i'm is are was",
		"delete it the kids are", "play while i while i", "todays today's tomorrows"} {
		f.Add(s)
	}
	e := New(Config{Knowledge: newFakeKnowledge(), Music: testTracks, MusicURL: testMusicURL})
	f.Fuzz(func(t *testing.T, q string) {
		for _, lang := range languages {
			r, err := e.Answer(context.Background(), Request{Query: q, Lang: lang, UserID: 1})
			if err != nil {
				continue
			}
			if r.NextActions == nil || r.Responses.Text == "" || r.Context.Ref <= 0 {
				t.Fatalf("%q: incomplete answer %+v", q, r)
			}
		}
	})
}
