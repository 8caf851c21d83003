package console

import (
	tea "github.com/charmbracelet/bubbletea"
	"testing"

	"github.com/harkhq/hark/client"
	"github.com/harkhq/hark/ui/internal/uitest"
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
