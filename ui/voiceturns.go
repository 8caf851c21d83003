package ui

import (
	"strings"

	"github.com/harkhq/hark/client"
)

// The console's transcript as the voice part changes it: a spoken turn is a turn whose
// query is filled in once recognised.

func (c *console) addTurn(t turn) {
	c.turns = append(c.turns, t)
	c.scroll = 0
}

func (c *console) turnOf(vt *voiceTurn) *turn {
	for i := len(c.turns) - 1; i >= 0; i-- {
		if c.turns[i].voice == vt {
			return &c.turns[i]
		}
	}
	return nil
}

// dropTurn removes a spoken turn that never got anywhere (cancelled, no microphone).
func (c *console) dropTurn(vt *voiceTurn) {
	for i := len(c.turns) - 1; i >= 0; i-- {
		if c.turns[i].voice == vt {
			c.turns = append(c.turns[:i], c.turns[i+1:]...)
			return
		}
	}
}

func (c *console) setQuery(vt *voiceTurn, q string) {
	if t := c.turnOf(vt); t != nil {
		t.query = q
	}
}

func (c *console) failTurn(vt *voiceTurn, msg string) {
	if t := c.turnOf(vt); t != nil {
		t.pending = false
		t.err = msg
		if strings.HasPrefix(t.query, "(") {
			t.query = "(spoken, not sent)"
		}
	}
}

func (c *console) retryTurn(vt *voiceTurn) {
	if t := c.turnOf(vt); t != nil {
		t.pending, t.err = true, ""
		t.query = "(recognising…)"
	}
}

// answerTurn fills a spoken turn with what was heard and the answer.
func (c *console) answerTurn(vt *voiceTurn, heard string, r *client.DialogueResponse) {
	t := c.turnOf(vt)
	if t == nil {
		return
	}
	t.pending, t.err = false, ""
	t.query = heard
	t.answer = strings.TrimSpace(clean(r.Responses.Text))
	if r.Responses.HTML != "" {
		t.answer = htmlText(r.Responses.HTML)
	}
	t.actions = r.NextActions
	c.ref = r.Context.Ref
	if heard != "(nothing recognised)" {
		if n := len(c.history); n == 0 || c.history[n-1] != heard {
			c.history = append(c.history, heard)
		}
		c.histPos = len(c.history)
	}
}
