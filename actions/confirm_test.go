package actions

import (
	"context"
	"errors"
	"net/url"
	"reflect"
	"testing"
)

func TestConfirmationsOpenOnlyAfterDo(t *testing.T) {
	cases := []struct {
		code, data string
		target     string
		app        bool
		details    []Detail
	}{
		{"OPEN_URL", `{"url":"HTTPS://Example.com/a b?x=1"}`, "", false, nil}, // refused: space
		{"OPEN_URL", `{"url":"https://example.com/path?q=1#top"}`, "https://example.com/path?q=1#top", false, nil},
		{"OPEN_BROWSER", `{}`, DefaultHomePage, false, nil},
		{"OPEN_APP", `{"app":"Spotify"}`, "Spotify", true, nil},
		{"NAVIGATE", `{"destination":"Madrid","lat":40.4168,"lon":-3.7038}`,
			"https://www.openstreetmap.org/?mlat=40.416800&mlon=-3.703800#map=15/40.416800/-3.703800", false,
			[]Detail{{"Destination", "Madrid"}, {"Coordinates", "40.41680, -3.70380"}}},
		{"NAVIGATE", `{"destination":"Puerta del Sol & Co"}`,
			"https://www.openstreetmap.org/search?query=Puerta%20del%20Sol%20%26%20Co", false,
			[]Detail{{"Destination", "Puerta del Sol & Co"}}},
		{"MAKE_CALL", `{"contact":"Mum","number":"+34 (600) 11-22-33"}`, "tel:+34600112233", false,
			[]Detail{{"Contact", "Mum"}, {"Number", "+34600112233"}}},
		{"MAKE_CALL", `{"contact":"555 0100"}`, "tel:5550100", false, []Detail{{"Number", "5550100"}}},
		{"SEND_SMS", `{"contact":"+1 555 0100","text":"on my way & late?"}`, "sms:+15550100?body=on%20my%20way%20%26%20late%3F", false,
			[]Detail{{"To", "+1 555 0100"}, {"Message", "on my way & late?"}}},
		{"SEND_SMS", `{"contact":"Ann","text":"hi"}`, "sms:?body=hi", false,
			[]Detail{{"To", "Ann (no number: your messaging app asks for it)"}, {"Message", "hi"}}},
		{"SEND_EMAIL", `{"to":"bob+x@example.com","subject":"Lunch & a ?","body":"Line 1\nLine 2 100%"}`,
			"mailto:bob%2Bx@example.com?subject=Lunch%20%26%20a%20%3F&body=Line%201%0D%0ALine%202%20100%25", false,
			[]Detail{{"To", "bob+x@example.com"}, {"Subject", "Lunch & a ?"}, {"Body", "Line 1 Line 2 100%"}}},
		{"SEND_EMAIL", `{"to":"Ann Smith <ann@example.org>","subject":"","body":""}`, "mailto:ann@example.org", false,
			[]Detail{{"To", "Ann Smith <ann@example.org>"}, {"Subject", ""}, {"Body", ""}}},
		{"SEND_EMAIL", `{"to":"mum","subject":"Hi","body":"x"}`, "mailto:?subject=Hi&body=x", false,
			[]Detail{{"To", "mum (no address: your mail client asks for it)"}, {"Subject", "Hi"}, {"Body", "x"}}},
	}
	for _, c := range cases {
		t.Run(c.code, func(t *testing.T) {
			g := newRig(t, "")
			o := g.do(t, c.code, c.data)
			if c.target == "" {
				if o.Kind != Failed {
					t.Fatalf("got %v, want failed", o.Kind)
				}
				return
			}
			if o.Kind != NeedsConfirm || o.Confirm == nil {
				t.Fatalf("got %v %v, want a confirmation", o.Kind, o.Err)
			}
			if o.Confirm.Target != c.target {
				t.Fatalf("target %q\nwant   %q", o.Confirm.Target, c.target)
			}
			if c.details != nil && !reflect.DeepEqual(o.Confirm.Details, c.details) {
				t.Fatalf("details %q\nwant    %q", o.Confirm.Details, c.details)
			}
			if o.Confirm.Prompt == "" || o.Summary != o.Confirm.Prompt {
				t.Fatalf("prompt %q summary %q", o.Confirm.Prompt, o.Summary)
			}
			if urls, apps := g.opener.calls(); len(urls)+len(apps) != 0 {
				t.Fatal("opened before confirmation")
			}
			if err := o.Confirm.Do(context.Background()); err != nil {
				t.Fatal(err)
			}
			urls, apps := g.opener.calls()
			if c.app {
				if len(urls) != 0 || !reflect.DeepEqual(apps, []string{c.target}) {
					t.Fatalf("opened urls %v apps %v", urls, apps)
				}
				return
			}
			if len(apps) != 0 || !reflect.DeepEqual(urls, []string{c.target}) {
				t.Fatalf("opened urls %v apps %v", urls, apps)
			}
			if c.code != "SEND_SMS" { // sms: with no recipient is not a parseable URL everywhere
				if _, err := url.Parse(c.target); err != nil {
					t.Fatalf("target does not parse: %v", err)
				}
			}
		})
	}
}

func TestMailtoRoundTrips(t *testing.T) {
	subject := "Ünïcode ✓ & = ? # + %20"
	body := "first line\nsecond: a&b=c\n"
	u, err := url.Parse(mailtoURL("a.b@example.com", subject, body))
	if err != nil {
		t.Fatal(err)
	}
	q, err := url.ParseQuery(u.RawQuery)
	if err != nil {
		t.Fatal(err)
	}
	if u.Opaque != "a.b@example.com" || q.Get("subject") != subject || q.Get("body") != "first line\r\nsecond: a&b=c\r\n" {
		t.Fatalf("round trip: %q %q %q", u.Opaque, q.Get("subject"), q.Get("body"))
	}
}

func TestConfirmationReportsOpenerErrors(t *testing.T) {
	g := newRig(t, "")
	g.opener.err = errors.New("no browser")
	o := g.do(t, "OPEN_URL", `{"url":"https://example.com"}`)
	if err := o.Confirm.Do(context.Background()); err == nil || err.Error() != "no browser" {
		t.Fatalf("Do: %v", err)
	}
}

func TestBadHomePageFailsOpenBrowser(t *testing.T) {
	r, err := New(Config{HomePage: "file:///etc", Opener: &recordingOpener{}, Notifier: &recordingNotifier{}, Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if o := r.Dispatch(context.Background(), Action{Code: "OPEN_BROWSER"}, 0); o.Kind != Failed {
		t.Fatalf("got %v", o.Kind)
	}
}

func TestPhoneNumbers(t *testing.T) {
	good := map[string]string{"+34 600 11 22 33": "+34600112233", "(555) 010-0100": "5550100100", "112": "112", "555.0100": "5550100"}
	for in, want := range good {
		if got, ok := phoneNumber(in); !ok || got != want {
			t.Errorf("%q: got %q %v, want %q", in, got, ok, want)
		}
	}
	for _, in := range []string{"", "12", "Mum", "555 0100 ext", "1+1", "123456789012345678901", "+", "5;rm"} {
		if got, ok := phoneNumber(in); ok {
			t.Errorf("%q accepted as %q", in, got)
		}
	}
}

func TestWebURL(t *testing.T) {
	if got, err := webURL("HTTP://Example.com/x"); err != nil || got != "http://Example.com/x" {
		t.Fatalf("got %q %v", got, err)
	}
	for _, in := range []string{"javascript:alert(1)", "file:///etc/passwd", "data:,x", "vbscript:x", "//example.com",
		"/relative", "mailto:a@b.c", "https://", "http://:80", "https://a@b.c/", "https://example.com/\x00"} {
		if got, err := webURL(in); err == nil {
			t.Errorf("%q accepted as %q", in, got)
		}
	}
}
