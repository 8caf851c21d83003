package ui

import (
	"github.com/harkhq/hark/ui/common"
	"github.com/harkhq/hark/ui/console"
	"github.com/harkhq/hark/ui/internal/uitest"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
)

func TestConsoleTurnsRefHistoryAndNewConversation(t *testing.T) {
	f := uitest.NewFakePlatform(t)
	uitest.AnswerWith(f)
	a := newTestApp(t, testOptions(f.Client(t), true), 80, 24)
	if a.active != common.ScreenConsole {
		t.Fatalf("a remembered session should open the console, got %v", a.active)
	}
	typeText(t, a, "wake me at 7")
	press(t, a, "enter")
	typeText(t, a, "thanks?") // "?" is typed, not the help key
	if got := a.screens[common.ScreenConsole].(*console.Model).Draft(); got != "thanks?" {
		t.Fatalf("input = %q", got)
	}
	if a.fullHelp {
		t.Fatal("? toggled the help while typing")
	}
	press(t, a, "enter")
	v := a.View()
	for _, want := range []string{"you: wake me at 7", "You said wake me at 7 & I heard.", "• one", "not carried out", "conversation 77",
		"auto: answered in English"} {
		if !strings.Contains(v, want) {
			t.Errorf("view lacks %q:\n%s", want, v)
		}
	}
	// By default the transcript is human text: no action codes, no JSON.
	for _, not := range []string{"SET_ALARM", `"time"`, "ⓘ"} {
		if strings.Contains(v, not) {
			t.Errorf("the default transcript shows %q:\n%s", not, v)
		}
	}
	reqs := f.Seen("POST /v2/query/text")
	if len(reqs) != 2 {
		t.Fatalf("%d queries sent", len(reqs))
	}
	for _, r := range reqs {
		if r.Header.Get("Service-Explain") != "" || r.Header.Get("Accept-Language") != "" {
			t.Errorf("the default console sent Service-Explain %q, Accept-Language %q",
				r.Header.Get("Service-Explain"), r.Header.Get("Accept-Language"))
		}
	}
	if info := reqs[0].Header.Get("Service-Request-Info"); strings.Contains(info, `"ref"`) {
		t.Errorf("first query carried a ref: %s", info)
	}
	if info := reqs[1].Header.Get("Service-Request-Info"); !strings.Contains(info, `"ref":77`) {
		t.Errorf("follow-up lacks the ref: %s", info)
	}
	// History: up brings back the last query, again the one before, down returns.
	press(t, a, "up")
	c := a.screens[common.ScreenConsole].(*console.Model)
	if c.Draft() != "thanks?" {
		t.Fatalf("up gave %q", c.Draft())
	}
	press(t, a, "up")
	if c.Draft() != "wake me at 7" {
		t.Fatalf("up up gave %q", c.Draft())
	}
	press(t, a, "down")
	press(t, a, "down")
	if c.Draft() != "" {
		t.Fatalf("down past the newest gave %q", c.Draft())
	}
	press(t, a, "ctrl+n")
	if c.Ref() != 0 || !strings.Contains(a.View(), "new conversation") {
		t.Fatal("ctrl+n did not start a new conversation")
	}
	typeText(t, a, "again")
	press(t, a, "enter")
	if info := f.Seen("POST /v2/query/text")[2].Header.Get("Service-Request-Info"); strings.Contains(info, `"ref"`) {
		t.Errorf("query after a new conversation carried a ref: %s", info)
	}
}

func TestConsoleExpiredSessionKeepsTheDraft(t *testing.T) {
	f := uitest.NewFakePlatform(t)
	f.JSON("POST /v2/query/text", 401, map[string]string{"code": "TokenExpired", "description": "the access token is expired"})
	f.JSON("POST /v2/auth/login", 200, map[string]any{"token": "fresh", "type": "Basic", "expires": 1})
	a := newTestApp(t, testOptions(f.Client(t), true), 80, 24)
	typeText(t, a, "remind me to call mum")
	press(t, a, "enter")
	if a.active != common.ScreenSignIn || !strings.Contains(a.View(), "session has expired") {
		t.Fatalf("no re-login prompt:\n%s", a.View())
	}
	fillSignIn(t, a, "ann@example.com", "whatever1", "")
	if a.active != common.ScreenConsole {
		t.Fatalf("after re-login the screen is %v", a.active)
	}
	if got := a.screens[common.ScreenConsole].(*console.Model).Draft(); got != "remind me to call mum" {
		t.Fatalf("draft lost: %q", got)
	}
}

func TestConsoleServerErrorsAndPastedControls(t *testing.T) {
	f := uitest.NewFakePlatform(t)
	f.JSON("POST /v2/query/text", 500, "boom")
	a := newTestApp(t, testOptions(f.Client(t), true), 80, 24)
	_, cmd := a.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("hi\x1b[2J\x07 there\nnow"), Paste: true})
	drive(t, a, cmd)
	c := a.screens[common.ScreenConsole].(*console.Model)
	if got := c.Draft(); got != "hi[2J there now" && got != "hi there now" {
		t.Fatalf("pasted control characters kept: %q", got)
	}
	press(t, a, "enter")
	if v := a.View(); !strings.Contains(v, "the platform failed") || strings.Contains(v, "\x1b[2J") {
		t.Fatalf("500 not shown in the transcript:\n%s", v)
	}
	f.JSON("POST /v2/query/text", 200, "{{{{")
	typeText(t, a, "again")
	press(t, a, "enter")
	if v := a.View(); !strings.Contains(v, "does not understand") {
		t.Fatalf("garbage not shown:\n%s", v)
	}
}

func TestRoutingNeedsASession(t *testing.T) {
	f := uitest.NewFakePlatform(t)
	a := newTestApp(t, testOptions(f.Client(t), false), 80, 24)
	press(t, a, "alt+s")
	if a.active != common.ScreenSignIn {
		t.Fatal("alt+s left the sign-in screen without a session")
	}
	f.JSON("GET /v2/storage/folder/list", 200, []string{})
	f.JSON("GET /v2/storage/file/list", 200, []any{})
	f.JSON("GET /v2/storage/total-size", 200, 0)
	b := newTestApp(t, testOptions(f.Client(t), true), 80, 24)
	press(t, b, "alt+s")
	if b.active != common.ScreenStorage {
		t.Fatalf("alt+s went to %v", b.active)
	}
	press(t, b, "?")
	if !b.fullHelp || !strings.Contains(b.View(), "clear all") {
		t.Fatalf("? did not open the full help:\n%s", b.View())
	}
	press(t, b, "alt+c")
	if b.active != common.ScreenConsole {
		t.Fatal("alt+c did not come back")
	}
	f.JSON("POST /v2/auth/logout", 200, map[string]any{})
	press(t, b, "alt+l")
	if b.active != common.ScreenSignIn || b.ctx.Session.Token != "" || b.ctx.Sessions.(*uitest.MemSessions).Cleared != 1 {
		t.Fatal("logout did not end the session")
	}
}

func TestNarrowTerminalStaysInside(t *testing.T) {
	f := uitest.NewFakePlatform(t)
	uitest.AnswerWith(f)
	a := newTestApp(t, testOptions(f.Client(t), true), 30, 8)
	typeText(t, a, strings.Repeat("long words ", 20))
	press(t, a, "enter")
	for _, l := range strings.Split(a.View(), "\n") {
		if w := common.CellWidth(l); w > 30 {
			t.Fatalf("line of %d cells in a 30-cell terminal: %q", w, l)
		}
	}
	if n := len(strings.Split(a.View(), "\n")); n > 8 {
		t.Fatalf("%d lines in an 8-line terminal", n)
	}
}

// alt+e toggles the explain view: how the query was read and the action
// codes with their data under each answer; off again, human text only.
func TestConsoleExplainToggle(t *testing.T) {
	f := uitest.NewFakePlatform(t)
	uitest.AnswerWith(f)
	a := newTestApp(t, testOptions(f.Client(t), true), 100, 30)
	if v := a.View(); !strings.Contains(v, "alt+e explain") {
		t.Fatalf("the footer does not offer the explain key:\n%s", v)
	}
	press(t, a, "alt+e")
	c := a.screens[common.ScreenConsole].(*console.Model)
	if !c.Explaining() {
		t.Fatal("alt+e did not turn the explain view on")
	}
	typeText(t, a, "wak me at 7")
	press(t, a, "enter")
	if got := f.Seen("POST /v2/query/text")[0].Header.Get("Service-Explain"); got != "1" {
		t.Fatalf("explain on, Service-Explain %q", got)
	}
	v := a.View()
	for _, want := range []string{"ⓘ en (detected) · intent SET_ALARM", `pattern "wake me at {time}" · cost 0.50`,
		`slot time: "7" = 07:00`, `corrected "wak" → "wake"`, "SET_ALARM", `{"label":"wake","time":"07:00"}`,
		"explain on", "alt+e explain off"} {
		if !strings.Contains(v, want) {
			t.Errorf("explain view lacks %q:\n%s", want, v)
		}
	}
	press(t, a, "?")
	if v := a.View(); !strings.Contains(v, "alt+e") {
		t.Errorf("the full help lacks the explain key:\n%s", v)
	}
	press(t, a, "esc")
	press(t, a, "alt+e")
	v = a.View()
	for _, not := range []string{"ⓘ", "SET_ALARM", `"time"`, "explain on"} {
		if strings.Contains(v, not) {
			t.Errorf("explain off still shows %q:\n%s", not, v)
		}
	}
	typeText(t, a, "again")
	press(t, a, "enter")
	if got := f.Seen("POST /v2/query/text")[1].Header.Get("Service-Explain"); got != "" {
		t.Errorf("explain off, Service-Explain %q", got)
	}
}
