package console

import (
	tea "github.com/charmbracelet/bubbletea"
	"github.com/harkhq/hark/ui/common"
	"github.com/harkhq/hark/ui/components"
	"github.com/harkhq/hark/ui/voice"
	"strings"

	"github.com/harkhq/hark/client"
)

// The console's transcript as the voice part changes it, by its events: a spoken turn is a
// turn whose query is filled in once recognised.

// apply makes an event of the voice part true in the transcript.
func (c *Model) apply(ev tea.Msg) {
	switch ev := ev.(type) {
	case voice.TurnStarted:
		c.addTurn(turn{query: ev.Query, at: c.ctx.Now(), pending: true, ref: c.ref, voice: ev.Turn})
	case voice.TurnDropped:
		c.dropTurn(ev.Turn)
	case voice.TurnQuery:
		c.setQuery(ev.Turn, ev.Query)
	case voice.TurnFailed:
		c.failTurn(ev.Turn, ev.Err)
	case voice.TurnRetried:
		c.retryTurn(ev.Turn)
	case voice.TurnAnswered:
		c.answerTurn(ev.Turn, ev.Heard, ev.Answer)
	case voice.RefChanged:
		c.ref = ev.Ref
	case voice.Asking:
		c.asking(ev.On)
	case voice.Rang:
		c.turns = append(c.turns, turn{answer: ev.Text, at: c.ctx.Now()})
	}
}

// asking shows in the input that the assistant waits for a typed answer.
func (c *Model) asking(on bool) {
	if !on {
		if c.placeholder != "" {
			c.input.Placeholder, c.placeholder = c.placeholder, ""
		}
		return
	}
	c.input.Focus()
	if c.placeholder == "" {
		c.placeholder = c.input.Placeholder
	}
	c.input.Placeholder = "The assistant is waiting for your answer"
}

func (c *Model) addTurn(t turn) {
	c.turns = append(c.turns, t)
	c.scroll = 0
}

func (c *Model) turnOf(vt *voice.Turn) *turn {
	for i := len(c.turns) - 1; i >= 0; i-- {
		if c.turns[i].voice == vt {
			return &c.turns[i]
		}
	}
	return nil
}

// dropTurn removes a spoken turn that never got anywhere (cancelled, no microphone).
func (c *Model) dropTurn(vt *voice.Turn) {
	for i := len(c.turns) - 1; i >= 0; i-- {
		if c.turns[i].voice == vt {
			c.turns = append(c.turns[:i], c.turns[i+1:]...)
			return
		}
	}
}

func (c *Model) setQuery(vt *voice.Turn, q string) {
	if t := c.turnOf(vt); t != nil {
		t.query = q
	}
}

func (c *Model) failTurn(vt *voice.Turn, msg string) {
	if t := c.turnOf(vt); t != nil {
		t.pending = false
		t.err = msg
		if strings.HasPrefix(t.query, "(") {
			t.query = "(spoken, not sent)"
		}
	}
}

func (c *Model) retryTurn(vt *voice.Turn) {
	if t := c.turnOf(vt); t != nil {
		t.pending, t.err = true, ""
		t.query = "(recognising…)"
	}
}

// answerTurn fills a spoken turn with what was heard and the answer.
func (c *Model) answerTurn(vt *voice.Turn, heard string, r *client.DialogueResponse) {
	t := c.turnOf(vt)
	if t == nil {
		return
	}
	t.pending, t.err = false, ""
	t.query = heard
	t.answer = strings.TrimSpace(common.Clean(r.Responses.Text))
	if r.Responses.HTML != "" {
		t.answer = components.HTMLText(r.Responses.HTML)
	}
	t.actions = r.NextActions
	t.explain = r.Explain
	c.ref = r.Context.Ref
	if r.Lang != "" {
		c.lang = r.Lang
	}
	if heard != "(nothing recognised)" {
		if n := len(c.history); n == 0 || c.history[n-1] != heard {
			c.history = append(c.history, heard)
		}
		c.histPos = len(c.history)
	}
}
