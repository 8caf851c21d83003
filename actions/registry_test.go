package actions

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/harkhq/hark/client"
)

func TestCodesAreThoseOfDecisions(t *testing.T) {
	g := newRig(t, "")
	want := client.ActionCodes() // the contract's list, kept once in the SDK
	if got := g.Codes(); !reflect.DeepEqual(got, want) {
		t.Fatalf("Codes() = %v\nwant %v", got, want)
	}
}

func TestUnknownCodeIsIgnoredSafely(t *testing.T) {
	g := newRig(t, "tmp")
	before := g.Devices()
	for _, code := range []string{"TELEPORT", "", "\x1b[2JCLEAR", strings.Repeat("X", 500)} {
		o := g.do(t, code, `{"url":"https://example.com"}`)
		if o.Kind != Ignored || !errors.Is(o.Err, ErrUnknownCode) {
			t.Fatalf("%q: got %v %v, want ignored with ErrUnknownCode", code, o.Kind, o.Err)
		}
		if strings.ContainsAny(o.Summary, "\x1b\n") || len([]rune(o.Summary)) > 80 {
			t.Fatalf("%q: summary not safe to print: %q", code, o.Summary)
		}
		if o.Confirm != nil {
			t.Fatalf("%q: an unknown code asks for confirmation", code)
		}
	}
	if evs := g.drain(); len(evs) != 0 {
		t.Fatalf("unknown codes produced events: %+v", evs)
	}
	if len(g.Scheduled()) != 0 || !reflect.DeepEqual(g.Devices(), before) {
		t.Fatal("unknown codes changed the state")
	}
	if urls, apps := g.opener.calls(); len(urls)+len(apps) != 0 {
		t.Fatal("unknown codes opened something")
	}
}

func TestCodesAreMatchedWithoutCase(t *testing.T) {
	g := newRig(t, "")
	if o := g.do(t, " set_crono ", `{}`); o.Kind != Done {
		t.Fatalf("lower-case code: %v %v", o.Kind, o.Err)
	}
}

func TestOpenASRContinuesWithTheRef(t *testing.T) {
	g := newRig(t, "")
	for _, data := range []string{`""`, ``, `null`, `{}`} {
		o := g.do(t, "OPEN_ASR", data)
		if o.Kind != Continue || o.Ref != 42 {
			t.Fatalf("data %q: got %v ref %d, want continue with ref 42", data, o.Kind, o.Ref)
		}
	}
}

// in is the epoch-ms string of start+d.
func in(d time.Duration) string { return ms(start.Add(d)) }

func TestHandlersValidData(t *testing.T) {
	cases := []struct {
		code, data string
		kind       Kind
		summary    string
	}{
		{"SET_ALARM", `{"time":` + in(2*time.Hour) + `,"label":"wake up"}`, Done, "alarm set for 11:00 (in 2h): wake up"},
		{"SET_ALARM", `{"time":` + strings.Trim(in(26*time.Hour), `"`) + `}`, Done, "alarm set for Wed 11 Mar 11:00 (in 1d 2h)"},
		{"SET_TIMER", `{"duration":300000,"label":"pasta"}`, Done, "timer for 5m set (ends 09:05): pasta"},
		{"SET_TIMER", `{"duration":"90000"}`, Done, "timer for 1m 30s set (ends 09:01)"},
		{"SET_CRONO", `{}`, Done, "stopwatch started"},
		{"RESET_CRONO", `{}`, Done, "stopwatch reset"},
		{"SET_APPOINTMENT", `{"title":"Dentist","start":` + in(time.Hour) + `,"end":` + in(90*time.Minute) + `}`, Done, "Dentist, 10:00–10:30, added to the calendar"},
		{"SET_APPOINTMENT", `{"title":"Lunch","start":` + in(3*time.Hour) + `}`, Done, "Lunch, 12:00–13:00, added"},
		{"PLAY_MUSIC", `{"url":"https://music.example/t/1.mp3","title":"Song","artist":"Band"}`, Done, "playing Song — Band"},
		{"VOLUME_UPDATE", `{"level":30}`, Done, "volume 30%"},
		{"VOLUME_UPDATE", `{"delta":-50}`, Done, "volume 50%"},
		{"POWER", `{"device":"tv","state":"on"}`, Done, "TV on"},
		{"POWER", `{"device":"Air Conditioning","state":"OFF"}`, Done, "air conditioning off"},
		{"CHANNEL_SELECT", `{"channel":"bbc one"}`, Done, "TV on channel bbc one"},
		{"CHANNEL_SELECT", `{"channel":5}`, Done, "TV on channel 5"},
		{"BRIGHTNESS_UPDATE", `{"level":40}`, Done, "lights at 40%"},
		{"BRIGHTNESS_UPDATE", `{"delta":-100}`, Done, "lights off (brightness 0%)"},
		{"ACTIVATE", `{"feature":"wifi"}`, Done, "Wi-Fi on"},
		{"DEACTIVATE", `{"feature":"do_not_disturb"}`, Done, "do not disturb off"},
		{"OPEN_URL", `{"url":"https://example.com/a?b=c"}`, NeedsConfirm, "Open https://example.com/a?b=c in the browser?"},
		{"OPEN_BROWSER", `{}`, NeedsConfirm, "Open the web browser at https://www.wikipedia.org/?"},
		{"OPEN_APP", `{"app":"spotify"}`, NeedsConfirm, `Open the app "spotify"?`},
		{"OPEN_APP", `{"app":"Notepad++"}`, NeedsConfirm, `Open the app "Notepad++"?`},
		{"NAVIGATE", `{"destination":"Madrid","lat":40.4168,"lon":-3.7038}`, NeedsConfirm, "Show Madrid on the map?"},
		{"NAVIGATE", `{"destination":"Plaza Mayor"}`, NeedsConfirm, "Show Plaza Mayor on the map?"},
		{"MAKE_CALL", `{"contact":"Mum","number":"+34 600 11 22 33"}`, NeedsConfirm, "Call Mum (+34600112233)?"},
		{"MAKE_CALL", `{"contact":"","number":"555-0100"}`, NeedsConfirm, "Call 5550100?"},
		{"SEND_SMS", `{"contact":"Ann","text":"on my way"}`, NeedsConfirm, "Send this text message to Ann?"},
		{"SEND_EMAIL", `{"to":"bob@example.com","subject":"Hi","body":"See you"}`, NeedsConfirm, "Open this e-mail draft to bob@example.com in your mail client?"},
		{"OPEN_ASR", `""`, Continue, "waiting for your answer"},
	}
	for _, c := range cases {
		t.Run(c.code, func(t *testing.T) {
			g := newRig(t, "tmp")
			o := g.do(t, c.code, c.data)
			if o.Kind != c.kind {
				t.Fatalf("%s %s: kind %v (%v), want %v", c.code, c.data, o.Kind, o.Err, c.kind)
			}
			if o.Code != c.code || o.Err != nil {
				t.Fatalf("code %q err %v", o.Code, o.Err)
			}
			if !strings.Contains(o.Summary, c.summary) {
				t.Fatalf("summary %q does not contain %q", o.Summary, c.summary)
			}
			if (o.Kind == NeedsConfirm) != (o.Confirm != nil) {
				t.Fatalf("confirmation %v with kind %v", o.Confirm, o.Kind)
			}
			if urls, apps := g.opener.calls(); len(urls)+len(apps) != 0 {
				t.Fatalf("opened %v %v before any confirmation", urls, apps)
			}
		})
	}
}

func TestHandlersInvalidData(t *testing.T) {
	cases := []struct {
		code, data string
		field      string // the DataError's field; "-" when the error is not a DataError
	}{
		{"SET_ALARM", `{}`, "time"},
		{"SET_ALARM", `{"time":"tomorrow"}`, "time"},
		{"SET_ALARM", `{"time":"-5"}`, "time"},
		{"SET_ALARM", `{"time":1.5}`, "time"},
		{"SET_ALARM", `{"time":true}`, "time"},
		{"SET_ALARM", `{"time":` + in(-time.Hour) + `}`, "-"},          // passed
		{"SET_ALARM", `{"time":` + in(11*365*24*time.Hour) + `}`, "-"}, // too far
		{"SET_ALARM", `{"time":"99999999999999999999"}`, "time"},
		{"SET_ALARM", `[1,2]`, ""},
		{"SET_ALARM", `"x"`, ""},
		{"SET_ALARM", `{"time":`, ""},
		{"SET_ALARM", `{"label":5,"time":` + in(time.Hour) + `}`, "label"},
		{"DELETE_ALARM", `{}`, ""},
		{"DELETE_ALARM", `{"time":` + in(time.Hour) + `}`, "-"}, // no such alarm
		{"SET_TIMER", `{}`, "duration"},
		{"SET_TIMER", `{"duration":0}`, "duration"},
		{"SET_TIMER", `{"duration":-1000}`, "duration"},
		{"SET_TIMER", `{"duration":"soon"}`, "duration"},
		{"SET_TIMER", `{"duration":1e300}`, "duration"},
		{"SET_CRONO", `[]`, ""},
		{"RESET_CRONO", `3`, ""},
		{"SET_APPOINTMENT", `{"title":"x"}`, "start"},
		{"SET_APPOINTMENT", `{"title":"x","start":` + in(2*time.Hour) + `,"end":` + in(time.Hour) + `}`, "end"},
		{"SET_APPOINTMENT", `{"title":"x","start":` + in(-3*time.Hour) + `,"end":` + in(-2*time.Hour) + `}`, "-"},
		{"PLAY_MUSIC", `{}`, "url"},
		{"PLAY_MUSIC", `{"url":"file:///etc/passwd"}`, "url"},
		{"VOLUME_UPDATE", `{}`, ""},
		{"VOLUME_UPDATE", `{"level":101}`, "level"},
		{"VOLUME_UPDATE", `{"level":-1}`, "level"},
		{"VOLUME_UPDATE", `{"level":50.5}`, "level"},
		{"VOLUME_UPDATE", `{"delta":-101}`, "delta"},
		{"VOLUME_UPDATE", `{"level":10,"delta":5}`, ""},
		{"VOLUME_UPDATE", `{"level":"loud"}`, "level"},
		{"POWER", `{"state":"on"}`, "device"},
		{"POWER", `{"device":"tv","state":"maybe"}`, "state"},
		{"POWER", `{"device":"rm -rf /","state":"on"}`, "device"},
		{"CHANNEL_SELECT", `{}`, "channel"},
		{"CHANNEL_SELECT", `{"channel":{"n":1}}`, "channel"},
		{"BRIGHTNESS_UPDATE", `{"level":200}`, "level"},
		{"ACTIVATE", `{}`, "feature"},
		{"DEACTIVATE", `{"feature":"wi/fi"}`, "feature"},
		{"OPEN_URL", `{}`, "url"},
		{"OPEN_URL", `{"url":"javascript:alert(1)"}`, "url"},
		{"OPEN_URL", `{"url":"JavaScript:alert(1)"}`, "url"},
		{"OPEN_URL", `{"url":"file:///etc/passwd"}`, "url"},
		{"OPEN_URL", `{"url":"data:text/html,<b>x</b>"}`, "url"},
		{"OPEN_URL", `{"url":"ftp://example.com/x"}`, "url"},
		{"OPEN_URL", `{"url":"example.com"}`, "url"},
		{"OPEN_URL", `{"url":"https://"}`, "url"},
		{"OPEN_URL", `{"url":"https://user:pw@example.com/"}`, "url"},
		{"OPEN_URL", `{"url":"https://example.com/\u001b[2J"}`, "url"},
		{"OPEN_URL", `{"url":"https://exa mple.com/"}`, "url"},
		{"OPEN_APP", `{}`, "app"},
		{"OPEN_APP", `{"app":"/bin/sh"}`, "app"},
		{"OPEN_APP", `{"app":"--help"}`, "app"},
		{"OPEN_APP", `{"app":"calc&notepad"}`, "app"},
		{"OPEN_APP", `{"app":"x;reboot"}`, "app"},
		{"OPEN_APP", `{"app":".."}`, "app"},
		{"NAVIGATE", `{}`, ""},
		{"NAVIGATE", `{"destination":"x","lat":91,"lon":0}`, ""},
		{"NAVIGATE", `{"destination":"x","lat":0,"lon":-181}`, ""},
		{"NAVIGATE", `{"destination":"x","lat":10}`, ""},
		{"NAVIGATE", `{"lat":"north","lon":1}`, "lat"},
		{"MAKE_CALL", `{}`, ""},
		{"MAKE_CALL", `{"contact":"Mum"}`, "-"}, // no number and no address book
		{"MAKE_CALL", `{"number":"call me maybe"}`, "number"},
		{"MAKE_CALL", `{"number":"12"}`, "number"},
		{"SEND_SMS", `{"text":"hi"}`, "contact"},
		{"SEND_SMS", `{"contact":"Ann"}`, "text"},
		{"SEND_EMAIL", `{"subject":"x"}`, "to"},
		{"SEND_EMAIL", `{"to":["a@b.c"]}`, "to"},
	}
	for _, c := range cases {
		t.Run(c.code, func(t *testing.T) {
			g := newRig(t, "tmp")
			before := g.Devices()
			o := g.do(t, c.code, c.data)
			if o.Kind != Failed || o.Err == nil {
				t.Fatalf("%s %s: kind %v err %v summary %q, want failed", c.code, c.data, o.Kind, o.Err, o.Summary)
			}
			var de *DataError
			isData := errors.As(o.Err, &de)
			switch {
			case c.field == "-" && isData:
				t.Fatalf("%s %s: got data error %v, want a plain failure", c.code, c.data, o.Err)
			case c.field != "-" && !isData:
				t.Fatalf("%s %s: got %v, want a data error", c.code, c.data, o.Err)
			case isData && de.Field != c.field:
				t.Fatalf("%s %s: field %q (%v), want %q", c.code, c.data, de.Field, o.Err, c.field)
			}
			if o.Summary == "" || strings.ContainsAny(o.Summary, "\x1b\n") {
				t.Fatalf("summary %q", o.Summary)
			}
			if o.Confirm != nil || len(g.Scheduled()) != 0 || !reflect.DeepEqual(g.Devices(), before) {
				t.Fatal("a failed action changed something")
			}
			if _, _, plays := g.player.state(); plays != 0 {
				t.Fatal("a failed action played music")
			}
		})
	}
}

func TestDataErrorsAreClear(t *testing.T) {
	g := newRig(t, "")
	o := g.do(t, "VOLUME_UPDATE", `{"level":150}`)
	if got, want := o.Err.Error(), "VOLUME_UPDATE data: level: 150 is outside 0..100"; got != want {
		t.Fatalf("error %q, want %q", got, want)
	}
	o = g.do(t, "OPEN_URL", `{"url":"javascript:alert(1)"}`)
	if got, want := o.Err.Error(), `OPEN_URL data: url: scheme "javascript" is not allowed (http and https only)`; got != want {
		t.Fatalf("error %q, want %q", got, want)
	}
	o = g.do(t, "SET_TIMER", `{"duration":"soon"}`)
	if got, want := o.Err.Error(), "SET_TIMER data: duration: must be milliseconds"; got != want {
		t.Fatalf("error %q, want %q", got, want)
	}
}

func TestOversizedDataIsRefused(t *testing.T) {
	g := newRig(t, "")
	big := `{"url":"https://example.com/` + strings.Repeat("a", maxDataBytes) + `"}`
	if o := g.do(t, "OPEN_URL", big); o.Kind != Failed || !strings.Contains(o.Summary, "too large") {
		t.Fatalf("got %v %q", o.Kind, o.Summary)
	}
}

func TestLabelsCannotInjectTerminalControls(t *testing.T) {
	g := newRig(t, "")
	o := g.do(t, "SET_TIMER", `{"duration":1000,"label":"tea\u001b]52;c;aGk=\u0007\nnow"}`)
	if o.Kind != Done {
		t.Fatalf("got %v %v", o.Kind, o.Err)
	}
	for _, s := range []string{o.Summary, g.Scheduled()[0].Label} {
		if strings.ContainsAny(s, "\x1b\x07\n") {
			t.Fatalf("control characters kept: %q", s)
		}
	}
}

func TestDispatchAllKeepsOrder(t *testing.T) {
	g := newRig(t, "")
	out := g.DispatchAll(context.Background(), []Action{
		{Code: "SET_CRONO", Data: []byte(`{}`)},
		{Code: "NOPE"},
		{Code: "OPEN_ASR", Data: []byte(`""`)},
	}, 9)
	got := fmt.Sprint(out[0].Kind, out[1].Kind, out[2].Kind, out[2].Ref)
	if got != "done ignored continue 9" {
		t.Fatalf("got %s", got)
	}
}

func TestEventsNeverBlockWhenNobodyReads(t *testing.T) {
	r, err := New(Config{Clock: NewManualClock(start), Opener: &recordingOpener{}, Notifier: &recordingNotifier{},
		Logger: quietLogger(), EventBuffer: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for i := 0; i < 50; i++ {
		r.Dispatch(context.Background(), Action{Code: "POWER", Data: []byte(`{"device":"tv","state":"on"}`)}, 0)
	}
	if !r.Devices().Power["tv"] {
		t.Fatal("state lost")
	}
}

func TestCloseEndsEvents(t *testing.T) {
	g := newRig(t, "")
	g.do(t, "SET_TIMER", `{"duration":1000}`)
	g.Close()
	g.Close() // twice is harmless
	g.clock.Advance(time.Hour)
	for range g.Events() { // drains and ends: the channel is closed
	}
	if n := len(g.notifier.all()); n != 0 {
		t.Fatalf("%d notifications after Close", n)
	}
}
