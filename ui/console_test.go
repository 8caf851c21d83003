package ui

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/harkhq/hark/client"
)

// answerWith makes the fake dialogue answer every query with ref 77, an
// HTML answer and one action, echoing the query.
func answerWith(f *fakePlatform) {
	f.handle("POST /v2/query/text", func(w http.ResponseWriter, r *http.Request) {
		var in struct{ Q string }
		json.NewDecoder(r.Body).Decode(&in)
		json.NewEncoder(w).Encode(map[string]any{
			"context":     map[string]any{"id": "c1", "ref": 77},
			"responses":   map[string]any{"html": "<p>You said <b>" + in.Q + "</b> &amp; I heard.</p><ul><li>one</li><li>two</li></ul>", "text": "plain"},
			"nextActions": []map[string]any{{"action": "SET_ALARM", "data": map[string]any{"time": "07:00", "label": "wake"}}},
		})
	})
}

func TestConsoleTurnsRefHistoryAndNewConversation(t *testing.T) {
	f := newFakePlatform(t)
	answerWith(f)
	a := newTestApp(t, testOptions(f.client(t), true), 80, 24)
	if a.active != screenConsole {
		t.Fatalf("a remembered session should open the console, got %v", a.active)
	}
	typeText(t, a, "wake me at 7")
	press(t, a, "enter")
	typeText(t, a, "thanks?") // "?" is typed, not the help key
	if got := a.screens[screenConsole].(*console).input.Value(); got != "thanks?" {
		t.Fatalf("input = %q", got)
	}
	if a.fullHelp {
		t.Fatal("? toggled the help while typing")
	}
	press(t, a, "enter")
	v := a.View()
	for _, want := range []string{"you: wake me at 7", "You said wake me at 7 & I heard.", "• one", "SET_ALARM", `{"label":"wake","time":"07:00"}`, "conversation 77"} {
		if !strings.Contains(v, want) {
			t.Errorf("view lacks %q:\n%s", want, v)
		}
	}
	reqs := f.seen("POST /v2/query/text")
	if len(reqs) != 2 {
		t.Fatalf("%d queries sent", len(reqs))
	}
	if info := reqs[0].Header.Get("Service-Request-Info"); strings.Contains(info, `"ref"`) {
		t.Errorf("first query carried a ref: %s", info)
	}
	if info := reqs[1].Header.Get("Service-Request-Info"); !strings.Contains(info, `"ref":77`) {
		t.Errorf("follow-up lacks the ref: %s", info)
	}
	// History: up brings back the last query, again the one before, down returns.
	press(t, a, "up")
	c := a.screens[screenConsole].(*console)
	if c.input.Value() != "thanks?" {
		t.Fatalf("up gave %q", c.input.Value())
	}
	press(t, a, "up")
	if c.input.Value() != "wake me at 7" {
		t.Fatalf("up up gave %q", c.input.Value())
	}
	press(t, a, "down")
	press(t, a, "down")
	if c.input.Value() != "" {
		t.Fatalf("down past the newest gave %q", c.input.Value())
	}
	press(t, a, "ctrl+n")
	if c.ref != 0 || !strings.Contains(a.View(), "new conversation") {
		t.Fatal("ctrl+n did not start a new conversation")
	}
	typeText(t, a, "again")
	press(t, a, "enter")
	if info := f.seen("POST /v2/query/text")[2].Header.Get("Service-Request-Info"); strings.Contains(info, `"ref"`) {
		t.Errorf("query after a new conversation carried a ref: %s", info)
	}
}

func TestConsoleExpiredSessionKeepsTheDraft(t *testing.T) {
	f := newFakePlatform(t)
	f.json("POST /v2/query/text", 401, map[string]string{"code": "TokenExpired", "description": "the access token is expired"})
	f.json("POST /v2/auth/login", 200, map[string]any{"token": "fresh", "type": "Basic", "expires": 1})
	a := newTestApp(t, testOptions(f.client(t), true), 80, 24)
	typeText(t, a, "remind me to call mum")
	press(t, a, "enter")
	if a.active != screenSignIn || !strings.Contains(a.View(), "session has expired") {
		t.Fatalf("no re-login prompt:\n%s", a.View())
	}
	fillSignIn(t, a, "ann@example.com", "whatever1", "")
	if a.active != screenConsole {
		t.Fatalf("after re-login the screen is %v", a.active)
	}
	if got := a.screens[screenConsole].(*console).input.Value(); got != "remind me to call mum" {
		t.Fatalf("draft lost: %q", got)
	}
}

func TestConsoleServerErrorsAndPastedControls(t *testing.T) {
	f := newFakePlatform(t)
	f.json("POST /v2/query/text", 500, "boom")
	a := newTestApp(t, testOptions(f.client(t), true), 80, 24)
	_, cmd := a.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("hi\x1b[2J\x07 there\nnow"), Paste: true})
	drive(t, a, cmd)
	c := a.screens[screenConsole].(*console)
	if got := c.input.Value(); got != "hi[2J there now" && got != "hi there now" {
		t.Fatalf("pasted control characters kept: %q", got)
	}
	press(t, a, "enter")
	if v := a.View(); !strings.Contains(v, "Internal Server Error") || strings.Contains(v, "\x1b[2J") {
		t.Fatalf("500 not shown in the transcript:\n%s", v)
	}
	f.json("POST /v2/query/text", 200, "{{{{")
	typeText(t, a, "again")
	press(t, a, "enter")
	if v := a.View(); !strings.Contains(v, "malformed JSON") {
		t.Fatalf("garbage not shown:\n%s", v)
	}
}

func TestRoutingNeedsASession(t *testing.T) {
	f := newFakePlatform(t)
	a := newTestApp(t, testOptions(f.client(t), false), 80, 24)
	press(t, a, "alt+s")
	if a.active != screenSignIn {
		t.Fatal("alt+s left the sign-in screen without a session")
	}
	f.json("GET /v2/storage/folder/list", 200, []string{})
	f.json("GET /v2/storage/file/list", 200, []any{})
	f.json("GET /v2/storage/total-size", 200, 0)
	b := newTestApp(t, testOptions(f.client(t), true), 80, 24)
	press(t, b, "alt+s")
	if b.active != screenStorage {
		t.Fatalf("alt+s went to %v", b.active)
	}
	press(t, b, "?")
	if !b.fullHelp || !strings.Contains(b.View(), "clear all") {
		t.Fatalf("? did not open the full help:\n%s", b.View())
	}
	press(t, b, "alt+c")
	if b.active != screenConsole {
		t.Fatal("alt+c did not come back")
	}
	f.json("POST /v2/auth/logout", 200, map[string]any{})
	press(t, b, "alt+l")
	if b.active != screenSignIn || b.ctx.Session.Token != "" || b.ctx.Sessions.(*memSessions).clear != 1 {
		t.Fatal("logout did not end the session")
	}
}

func TestNarrowTerminalStaysInside(t *testing.T) {
	f := newFakePlatform(t)
	answerWith(f)
	a := newTestApp(t, testOptions(f.client(t), true), 30, 8)
	typeText(t, a, strings.Repeat("long words ", 20))
	press(t, a, "enter")
	for _, l := range strings.Split(a.View(), "\n") {
		if w := cellWidth(l); w > 30 {
			t.Fatalf("line of %d cells in a 30-cell terminal: %q", w, l)
		}
	}
	if n := len(strings.Split(a.View(), "\n")); n > 8 {
		t.Fatalf("%d lines in an 8-line terminal", n)
	}
}

func FuzzHTMLText(f *testing.F) {
	for _, s := range []string{"<p>a</p>", "<ul><li>x<li>y</ul>", "a < b", "<b", "&amp;&lt;", "<br/>\x1b[31m", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := htmlText(s)
		if strings.ContainsAny(out, "\x1b\x07\r") {
			t.Fatalf("control characters in %q", out)
		}
	})
}

// Two typed queries in flight: each answer goes to its own turn, whatever
// order the answers arrive in.
func TestConsoleAnswersFindTheirOwnTurn(t *testing.T) {
	f := newFakePlatform(t)
	a := newTestApp(t, testOptions(f.client(t), true), 80, 24)
	c := a.screens[screenConsole].(*console)
	for _, q := range []string{"first question", "second question"} {
		c.input.SetValue(q)
		c.send() // the requests are not run: the answers come below
	}
	answer := func(seq int, text string) answerMsg {
		r := &client.DialogueResponse{}
		r.Responses.Text = text
		return answerMsg{seq: seq, resp: r}
	}
	c.Update(answer(1, "answer to the first")) // while the second is still pending
	c.Update(answer(2, "answer to the second"))
	if len(c.turns) != 2 || c.turns[0].answer != "answer to the first" || c.turns[1].answer != "answer to the second" {
		t.Fatalf("turns %+v", c.turns)
	}
	// An answer whose turn is gone changes nothing.
	c.Update(answer(9, "stray"))
	if c.turns[0].answer != "answer to the first" || c.turns[1].answer != "answer to the second" {
		t.Fatalf("a stray answer landed: %+v", c.turns)
	}
}
