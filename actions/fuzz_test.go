package actions

import (
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"
	"unicode"
)

// FuzzDispatch feeds arbitrary data to every handler: it must never panic, every outcome must
// be well formed and printable, and anything handed to the desktop must be what the handler
// promises (web URLs only for OPEN_URL, tel:/sms:/mailto: for the drafts).
func FuzzDispatch(f *testing.F) {
	g := &rig{clock: NewManualClock(start), opener: &recordingOpener{}, notifier: &recordingNotifier{},
		bell: &lockedBuffer{}, player: &fakePlayer{}}
	r, err := New(Config{Clock: g.clock, Player: g.player, Opener: g.opener, Notifier: g.notifier,
		Bell: g.bell, Location: time.UTC, Logger: quietLogger(), EventBuffer: 1})
	if err != nil {
		f.Fatal(err)
	}
	defer r.Close()
	codes := r.Codes()

	seeds := []string{
		`""`, `{}`, `null`, ``, `[]`, `{"time":"1773136800000","label":"x"}`, `{"time":1773136800000}`,
		`{"duration":300000}`, `{"duration":"1e3"}`, `{"title":"a","start":"1773136800000","end":"1773140400000"}`,
		`{"url":"https://example.com","title":"t","artist":"a"}`, `{"device":"tv","state":"on"}`,
		`{"channel":5}`, `{"contact":"Mum","number":"+34 600"}`, `{"level":50}`, `{"delta":-10}`,
		`{"feature":"wifi"}`, `{"app":"spotify"}`, `{"destination":"Madrid","lat":40.4,"lon":-3.7}`,
		`{"contact":"Ann","text":"hi\nthere"}`, `{"to":"a@b.c","subject":"s","body":"b"}`,
		`{"url":"javascript:alert(1)"}`, `{"time":"NaN"}`, `{"level":1e309}`, `{"lat":-0,"lon":180}`,
		"{\"label\":\"\x1b]52;c;x\x07\"}", `{"url":"https://a.b/\u0000"}`, `{"time":"-9223372036854775808"}`,
	}
	for i, s := range seeds {
		f.Add(uint8(i), []byte(s))
		f.Add(uint8(i+7), []byte(s))
	}
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		code := codes[int(which)%len(codes)]
		o := r.Dispatch(context.Background(), Action{Code: code, Data: json.RawMessage(data)}, 1)
		checkOutcome(t, code, o)
		if o.Kind == NeedsConfirm {
			target := o.Confirm.Target
			switch code {
			case "OPEN_URL", "OPEN_BROWSER", "NAVIGATE":
				u, err := url.Parse(target)
				if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
					t.Fatalf("%s target %q is not a web URL", code, target)
				}
			case "MAKE_CALL":
				if !strings.HasPrefix(target, "tel:") || strings.ContainsAny(target[4:], " ;,?&") {
					t.Fatalf("call target %q", target)
				}
			case "SEND_SMS":
				if !strings.HasPrefix(target, "sms:") {
					t.Fatalf("sms target %q", target)
				}
			case "SEND_EMAIL":
				if !strings.HasPrefix(target, "mailto:") {
					t.Fatalf("email target %q", target)
				}
			case "OPEN_APP":
				if !appName(target) {
					t.Fatalf("app target %q", target)
				}
			}
			if code != "OPEN_APP" && strings.IndexFunc(target, func(r rune) bool { return r <= ' ' || r == 0x7f }) >= 0 {
				t.Fatalf("%s target %q carries spaces or controls", code, target)
			}
		}
		// Keep the fuzzer's state bounded.
		for _, e := range r.Scheduled() {
			_ = r.Cancel(e.ID)
		}
		for len(r.Events()) > 0 {
			<-r.Events()
		}
	})
}

func checkOutcome(t *testing.T, code string, o Outcome) {
	t.Helper()
	if o.Code != code {
		t.Fatalf("outcome code %q for %q", o.Code, code)
	}
	printable := func(s string) bool {
		return strings.IndexFunc(s, func(r rune) bool { return unicode.IsControl(r) }) < 0
	}
	if !printable(o.Summary) || o.Summary == "" {
		t.Fatalf("%s: summary %q", code, o.Summary)
	}
	switch o.Kind {
	case Done, Continue:
		if o.Err != nil || o.Confirm != nil {
			t.Fatalf("%s: %v with err %v confirm %v", code, o.Kind, o.Err, o.Confirm)
		}
	case NeedsConfirm:
		if o.Confirm == nil || o.Confirm.Do == nil || o.Confirm.Target == "" || !printable(o.Confirm.Prompt) {
			t.Fatalf("%s: confirmation %+v", code, o.Confirm)
		}
		for _, d := range o.Confirm.Details {
			if !printable(d.Value) {
				t.Fatalf("%s: detail %q", code, d.Value)
			}
		}
	case Failed:
		if o.Err == nil || o.Confirm != nil {
			t.Fatalf("%s: failed with err %v confirm %v", code, o.Err, o.Confirm)
		}
	default:
		t.Fatalf("%s: kind %v", code, o.Kind)
	}
	var de *DataError
	if errors.As(o.Err, &de) && de.Code != code {
		t.Fatalf("data error names %q for %q", de.Code, code)
	}
}

// FuzzLoadState reads arbitrary state files: an error or a usable registry, never a panic,
// and whatever loads lists sane entries.
func FuzzLoadState(f *testing.F) {
	f.Add([]byte(`{"version":1,"nextID":3,"entries":[{"id":1,"kind":"alarm","label":"x","at":"2026-03-10T10:00:00Z"}],"devices":{"power":{"tv":true},"volume":40}}`))
	f.Add([]byte(`{"version":1,"entries":[{"id":2,"kind":"appointment","at":"2026-03-10T08:00:00Z","end":"2026-03-10T11:00:00Z"}]}`))
	f.Add([]byte(`{"version":1,"cronoStarted":"2026-03-10T08:00:00Z"}`))
	f.Add([]byte(`{}`))
	f.Add([]byte(`[`))
	f.Fuzz(func(t *testing.T, content []byte) {
		path := t.TempDir() + "/schedule.json"
		if err := os.WriteFile(path, content, 0o600); err != nil {
			t.Fatal(err)
		}
		r, err := New(Config{StatePath: path, Clock: NewManualClock(start), Opener: &recordingOpener{},
			Notifier: &recordingNotifier{}, Logger: quietLogger()})
		if err != nil {
			return
		}
		defer r.Close()
		for _, e := range r.Scheduled() {
			if e.At.IsZero() || e.Remaining < 0 || (e.Kind == EntryAppointment && e.End.Before(e.At)) {
				t.Fatalf("entry %+v", e)
			}
		}
		d := r.Devices()
		if d.Volume < 0 || d.Volume > 100 || d.Brightness < 0 || d.Brightness > 100 {
			t.Fatalf("devices %+v", d)
		}
	})
}
