package console

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/harkhq/hark/actions"
	"github.com/harkhq/hark/client"
	"github.com/harkhq/hark/ui/internal/uitest"
	"github.com/harkhq/hark/ui/voice"
)

// Two typed queries in flight: each answer goes to its own turn, whatever
// order the answers arrive in.
func TestConsoleAnswersFindTheirOwnTurn(t *testing.T) {
	f := uitest.NewFakePlatform(t)
	c := New(uitest.Context(f.Client(t), true), nil)
	c.SetSize(80, 24)
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

// Without voice, the talk and replay keys say why nothing happens.
func TestConsoleVoiceKeysWithoutVoiceSayWhy(t *testing.T) {
	f := uitest.NewFakePlatform(t)
	h := uitest.NewHost(t, New(uitest.Context(f.Client(t), true), nil), 80, 24)
	for _, k := range []string{"ctrl+t", "ctrl+r"} {
		h.Toasts = nil
		_, cmd := h.Update(tea.KeyMsg{Type: map[string]tea.KeyType{"ctrl+t": tea.KeyCtrlT, "ctrl+r": tea.KeyCtrlR}[k]})
		uitest.Drive(t, h, cmd)
		if !h.HasToast("voice is off in this run") {
			t.Errorf("%s without voice: toasts %v", k, h.Toasts)
		}
	}
}

// In auto (the default) a Spanish question typed in the console is
// answered in Spanish by the real platform, and the status line follows
// the answer's language; an English one brings it back.
func TestConsoleAutoLanguageFollowsTheQuestion(t *testing.T) {
	cl := uitest.SignedInClient(t)
	if cl.Config().Language != "" {
		t.Fatalf("a new client forces %q", cl.Config().Language)
	}
	pc := uitest.Context(cl, true)
	pc.Session.Token = cl.Token()
	h := &uitest.Host{Screen: New(pc, nil)}
	h.Screen.SetSize(80, 24)
	c := h.Screen.(*Model)
	h.Type(t, "hola, qué tal")
	h.Press(t, "enter")
	if got := c.turns[0].answer; got != "¡Hola! ¿En qué te puedo ayudar?" {
		t.Fatalf("a Spanish question in auto got %q (err %q)", got, c.turns[0].err)
	}
	if v := h.View(); !strings.Contains(v, "auto: answered in Spanish") {
		t.Errorf("the status line does not say Spanish:\n%s", v)
	}
	h.Type(t, "hello")
	h.Press(t, "enter")
	if got := c.turns[1].answer; got != "Hello! How can I help you?" {
		t.Fatalf("an English question in auto got %q", got)
	}
	if v := h.View(); !strings.Contains(v, "auto: answered in English") {
		t.Errorf("the status line does not follow back to English:\n%s", v)
	}
	// A chosen language is said as chosen.
	cl.SetLanguage("es")
	if v := h.View(); !strings.Contains(v, "answers in Spanish") {
		t.Errorf("a chosen language is not shown:\n%s", v)
	}
}

type opener struct{ opened []string }

func (o *opener) OpenURL(_ context.Context, url string) error {
	o.opened = append(o.opened, url)
	return nil
}
func (o *opener) OpenApp(_ context.Context, name string) error {
	o.opened = append(o.opened, name)
	return nil
}
func (o *opener) Notify(context.Context, string, string) error { return nil }

// An action waiting for y/n is shown as the answer's question; the answer
// to it is recorded under the turn, in words, and a declined confirmation's
// notice goes with the next turn.
func TestConsoleConfirmationOutcomeInTheTranscript(t *testing.T) {
	f := uitest.NewFakePlatform(t)
	f.Handle("POST /v2/query/text", func(w http.ResponseWriter, r *http.Request) {
		var in struct{ Q string }
		json.NewDecoder(r.Body).Decode(&in)
		body := map[string]any{"context": map[string]any{"ref": 5}, "responses": map[string]any{"text": "Open github.com?"},
			"nextActions": []map[string]any{{"action": "OPEN_URL", "data": map[string]any{"url": "https://github.com"}}}}
		if in.Q == "thanks" {
			body = map[string]any{"context": map[string]any{"ref": 5}, "responses": map[string]any{"text": "You're welcome!"}, "nextActions": []any{}}
		}
		json.NewEncoder(w).Encode(body)
	})
	desk := &opener{}
	reg, err := actions.New(actions.Config{StatePath: filepath.Join(t.TempDir(), "schedule.json"),
		Clock: actions.NewManualClock(uitest.FixedNow), Opener: desk, Notifier: desk, Bell: io.Discard, Location: time.UTC})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(reg.Close)
	// Init is not run: the probe and the event listener are not needed here.
	h := &uitest.Host{Screen: New(uitest.Context(f.Client(t), true), &voice.Config{Actions: reg})}
	h.Screen.SetSize(80, 24)
	c := h.Screen.(*Model)

	h.Type(t, "open github")
	h.Press(t, "enter")
	v := h.View()
	if !strings.Contains(v, "? Open https://github.com in the browser?") || strings.Contains(v, "OPEN_URL") {
		t.Fatalf("the waiting action is not shown as a question, in words:\n%s", v)
	}
	// The dialog is modal: no input line invites typing, and its keys lead the footer.
	if strings.Contains(v, "Ask something") {
		t.Errorf("the input line is shown under the modal dialog:\n%s", v)
	}
	if help := c.ShortHelp(); len(help) == 0 || help[0].Help().Key != "y/n" {
		t.Errorf("the footer does not lead with the dialog's keys: %v", help)
	}
	h.Type(t, "po")
	if c.input.Value() != "" || len(desk.opened) != 0 {
		t.Fatalf("keys under the dialog reached the input (%q) or answered it (%v)", c.input.Value(), desk.opened)
	}
	h.Press(t, "n")
	if len(desk.opened) != 0 {
		t.Fatalf("declined, yet opened %v", desk.opened)
	}
	if v := h.View(); !strings.Contains(v, "· Not opened") || !h.HasToast("not done") || !strings.Contains(v, "Ask something") {
		t.Fatalf("the declined outcome is not under the turn, or the input line is not back:\n%s", v)
	}
	h.Type(t, "thanks")
	h.Press(t, "enter")
	if h.Toast() != "" {
		t.Errorf("the declined confirmation's notice outlived the next turn: %q", h.Toast())
	}
	h.Type(t, "open github")
	h.Press(t, "enter")
	h.Press(t, "y")
	if len(desk.opened) != 1 || desk.opened[0] != "https://github.com" {
		t.Fatalf("yes opened %v", desk.opened)
	}
	v = h.View()
	if !strings.Contains(v, "✓ Opened https://github.com") || strings.Contains(v, "OPEN_URL") {
		t.Fatalf("the confirmed outcome is not under the turn:\n%s", v)
	}
	if got := len(c.turns); got != 3 {
		t.Fatalf("%d turns", got)
	}
	// The explain view names the codes of the same outcomes.
	h.Press(t, "alt+e")
	if v := h.View(); !strings.Contains(v, "OPEN_URL: Opened https://github.com") || !strings.Contains(v, "OPEN_URL: Not opened") {
		t.Errorf("explain view lacks the codes:\n%s", v)
	}
}
