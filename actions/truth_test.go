package actions

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/harkhq/hark/client"
	"github.com/harkhq/hark/server"
	"github.com/harkhq/hark/server/servertest"
)

// The tests here ask a real harkd and carry out its next actions with the
// registry, checking that what the answer says is what the client does.

// TestTruth shares one harkd among its cases; each has its own user.
func TestTruth(t *testing.T) {
	p := servertest.Start(t, server.Config{})
	for name, run := range map[string]func(*testing.T, *servertest.Platform){
		"CancelTimer":               truthCancelTimer,
		"RestartStopwatch":          truthRestartStopwatch,
		"DeleteAlarmBySpokenTime":   truthDeleteAlarmBySpokenTime,
		"ConfirmationsAreQuestions": truthConfirmationsAreQuestions,
		"RestaurantsMatchItems":     truthRestaurantsMatchTheItemsScreen,
	} {
		t.Run(name, func(t *testing.T) { run(t, p) })
	}
}

type truthRig struct {
	*rig
	c   *client.Client
	ctx context.Context
}

func newTruthRig(t *testing.T, p *servertest.Platform, lang string) *truthRig {
	t.Helper()
	c, err := client.New(client.Config{BaseURL: p.BaseURL, PublicKey: p.PublicKey, PrivateKey: p.PrivateKey,
		Language: lang, TimeZone: "UTC"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	if _, _, err := c.Auth.Anonymous(ctx, strings.ReplaceAll(t.Name(), "/", "_"), "truth-device", "Tess"); err != nil {
		t.Fatal(err)
	}
	lat, lon := 40.4168, -3.7038
	c.SetRequestInfo(client.RequestInfo{Lat: &lat, Lon: &lon})
	// The registry's clock stands where the server's does: the server
	// resolves spoken times against the real clock.
	return &truthRig{rig: openRig(t, "", NewManualClock(time.Now())), c: c, ctx: ctx}
}

// say asks harkd and carries out every action of the answer.
func (g *truthRig) say(t *testing.T, q string) (*client.DialogueResponse, []Outcome) {
	t.Helper()
	a, err := g.c.Dialogue.Text(g.ctx, q, 0)
	if err != nil {
		t.Fatalf("%q: %v", q, err)
	}
	var out []Outcome
	for _, na := range a.NextActions {
		out = append(out, g.Dispatch(g.ctx, Action{Code: na.Action, Data: na.Data}, a.Context.Ref))
	}
	return a, out
}

func only(t *testing.T, q, code string, out []Outcome) Outcome {
	t.Helper()
	if len(out) != 1 || out[0].Code != code {
		t.Fatalf("%q: outcomes %+v, want one %s", q, out, code)
	}
	return out[0]
}

func countKind(entries []Entry, kind EntryKind) int {
	n := 0
	for _, e := range entries {
		if e.Kind == kind {
			n++
		}
	}
	return n
}

func truthCancelTimer(t *testing.T, p *servertest.Platform) {
	g := newTruthRig(t, p, "en")
	_, out := g.say(t, "set a timer for 5 minutes")
	only(t, "set", "SET_TIMER", out)
	if countKind(g.Scheduled(), EntryTimer) != 1 {
		t.Fatalf("no timer running: %+v", g.Scheduled())
	}
	a, out := g.say(t, "cancel the timer")
	o := only(t, "cancel the timer", "DELETE_TIMER", out)
	if o.Kind != Done || countKind(g.Scheduled(), EntryTimer) != 0 {
		t.Fatalf("%q answered %q; outcome %+v; still scheduled %+v", "cancel the timer", a.Responses.Text, o, g.Scheduled())
	}
	// With nothing to cancel the client says so instead of pretending.
	_, out = g.say(t, "stop the timer")
	if o := only(t, "stop the timer", "DELETE_TIMER", out); o.Kind != Failed || !strings.Contains(o.Summary+o.Err.Error(), "no timer") {
		t.Fatalf("cancelling no timer: %+v", o)
	}
}

func truthRestartStopwatch(t *testing.T, p *servertest.Platform) {
	g := newTruthRig(t, p, "en")
	_, out := g.say(t, "start the stopwatch")
	only(t, "start", "SET_CRONO", out)
	g.clock.Advance(90 * time.Second)
	a, out := g.say(t, "restart the stopwatch")
	o := only(t, "restart", "RESET_CRONO", out)
	sw := g.Crono()
	if o.Kind != Done || !sw.Running || sw.Elapsed != 0 || !strings.Contains(strings.ToLower(a.Responses.Text), "restart") {
		t.Fatalf("restart: answer %q, outcome %+v, stopwatch %+v", a.Responses.Text, o, sw)
	}
	// A plain reset stops it.
	_, out = g.say(t, "reset the stopwatch")
	only(t, "reset", "RESET_CRONO", out)
	if g.Crono().Running {
		t.Fatalf("reset left the stopwatch running")
	}
}

func truthDeleteAlarmBySpokenTime(t *testing.T, p *servertest.Platform) {
	g := newTruthRig(t, p, "en")
	// An alarm the day after tomorrow at 7 PM; "the 7 o'clock alarm" is
	// read by the server as the next 7:00, which is not that instant.
	day := time.Now().UTC().AddDate(0, 0, 2).Weekday().String()
	_, out := g.say(t, "set an alarm for "+day+" at 7 pm")
	only(t, "set", "SET_ALARM", out)
	_, out = g.say(t, "set an alarm for 9:30 pm tomorrow")
	only(t, "set", "SET_ALARM", out)
	a, out := g.say(t, "delete the 7 o'clock alarm")
	o := only(t, "delete", "DELETE_ALARM", out)
	left := g.Scheduled()
	if o.Kind != Done || countKind(left, EntryAlarm) != 1 || left[0].At.In(time.UTC).Hour() != 21 {
		t.Fatalf("answer %q, outcome %+v, left %+v", a.Responses.Text, o, left)
	}
	if !strings.Contains(o.Summary, "19:00") || strings.Contains(a.Responses.Text, "today") {
		t.Errorf("the transcript must say which alarm went: answer %q, outcome %q", a.Responses.Text, o.Summary)
	}
	_, out = g.say(t, "delete all my alarms")
	if o := only(t, "delete all", "DELETE_ALARM", out); o.Kind != Done || countKind(g.Scheduled(), EntryAlarm) != 0 {
		t.Fatalf("delete all: %+v, left %+v", o, g.Scheduled())
	}
}

// TestTruthConfirmationsAreQuestions: every action the client carries out
// only after a yes is announced as a question, in both languages.
func truthConfirmationsAreQuestions(t *testing.T, p *servertest.Platform) {
	for lang, queries := range map[string][]string{
		"en": {"open github.com", "open the browser", "open the calculator app", "call 555 0100", "text Ana see you soon",
			"send an email to ana@example.com saying see you at eight", "take me to the nearest pharmacy"},
		"es": {"abre github.com", "abre el navegador", "abre la calculadora", "llama al 600 123 456", "manda un mensaje a Ana diciendo hasta luego",
			"envía un correo a ana@example.com diciendo nos vemos", "llévame a la farmacia más cercana"},
	} {
		g := newTruthRig(t, p, lang)
		for _, q := range queries {
			a, out := g.say(t, q)
			if len(out) != 1 || out[0].Kind != NeedsConfirm {
				t.Errorf("%s %q: outcomes %+v, want one that waits for a yes", lang, q, out)
				continue
			}
			if text := strings.TrimSpace(a.Responses.Text); !strings.HasSuffix(text, "?") {
				t.Errorf("%s %q: %q is not a question, but the client will ask before doing it", lang, q, text)
			}
		}
	}
}

// TestTruthRestaurantsMatchTheItemsScreen: "restaurants near me" names the
// places the Items screen lists first for the same position.
func truthRestaurantsMatchTheItemsScreen(t *testing.T, p *servertest.Platform) {
	g := newTruthRig(t, p, "en")
	list, err := g.c.Items.List(g.ctx, "restaurants", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := g.say(t, "restaurants near me")
	lines := strings.Split(a.Responses.Text, "\n- ")[1:]
	if len(lines) == 0 || len(list.List) < len(lines) {
		t.Fatalf("answer %q, %d items", a.Responses.Text, len(list.List))
	}
	for i, line := range lines {
		var r client.RestaurantItem
		if err := list.Decode(i, &r); err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(line, r.Name) {
			t.Errorf("answer line %d is %q, the Items screen shows %q", i+1, line, r.Name)
		}
	}
}
