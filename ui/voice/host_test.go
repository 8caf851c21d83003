package voice

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/harkhq/hark/client"
	"github.com/harkhq/hark/ui/common"
	"github.com/harkhq/hark/ui/components"
	"github.com/harkhq/hark/ui/internal/uitest"
)

// The voice part is tested through its contract with the console: these tests host it in a
// small transcript that applies its events the way ui/console does, and types queries the
// way the console sends them.

func TestMain(m *testing.M) { uitest.Main(m) }

var fixedNow = uitest.FixedNow

type fakePlatform = uitest.FakePlatform

func newFakePlatform(t testing.TB) *fakePlatform { return uitest.NewFakePlatform(t) }
func keyMsg(name string) tea.KeyMsg              { return uitest.KeyMsg(name) }
func keys(s string) tea.KeyMsg                   { return uitest.Keys(s) }
func asCmdSlice(m tea.Msg) ([]tea.Cmd, bool)     { return uitest.AsCmdSlice(m) }

// Options is what a test hands the host.
type Options struct {
	Client  *client.Client
	Session *common.Session
	Now     func() time.Time
	Voice   *Config
}

func testOptions(c *client.Client, _ bool) Options {
	return Options{Client: c, Session: &common.Session{Token: "tok", Name: "Ann"}, Now: func() time.Time { return fixedNow }}
}

type turn struct {
	seq     int
	query   string
	at      time.Time
	pending bool
	answer  string
	err     string
	ref     int64
	voice   *Turn
}

// console is the test host: a transcript, an input and a voice part.
type console struct {
	ctx         *common.Context
	voice       *Model
	turns       []turn
	input       textinput.Model
	ref         int64
	seq         int
	placeholder string
}

type answerMsg struct {
	seq  int
	resp *client.DialogueResponse
	err  error
}

func newConsole(opt Options) *console {
	pc := common.NewContext(common.Options{Client: opt.Client, Now: opt.Now, NoColor: true, StaticCursor: true, Context: context.Background()})
	if opt.Session != nil {
		pc.Session = *opt.Session
		if opt.Client.Token() == "" {
			opt.Client.SetToken(opt.Session.Token)
		}
	}
	in := common.NewInput(pc)
	in.Placeholder = "Ask something, e.g. what's the weather tomorrow"
	in.Focus()
	return &console{ctx: pc, voice: New(pc, opt.Voice), input: in}
}

func (c *console) Init() tea.Cmd { return c.voice.Init() }

func (c *console) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	cmd, events, handled := c.voice.Update(msg, c.ref)
	for _, ev := range events {
		c.apply(ev)
	}
	if handled {
		return c, cmd
	}
	switch msg := msg.(type) {
	case answerMsg:
		i := slices.IndexFunc(c.turns, func(t turn) bool { return t.pending && t.seq == msg.seq })
		if i < 0 {
			return c, nil
		}
		t := &c.turns[i]
		t.pending = false
		if msg.err != nil {
			t.err = common.Describe(msg.err)
			return c, nil
		}
		t.answer = msg.resp.Responses.Text
		c.ref = msg.resp.Context.Ref
		var cmd tea.Cmd
		t.voice, cmd = c.voice.AfterText(msg.resp)
		return c, cmd
	case tea.KeyMsg:
		if msg.String() == "enter" {
			q := strings.TrimSpace(c.input.Value())
			c.input.SetValue("")
			c.seq++
			c.turns = append(c.turns, turn{seq: c.seq, query: q, pending: true, ref: c.ref, at: c.ctx.Now()})
			cl, seq, ref := c.ctx.Client, c.seq, c.ref
			return c, c.ctx.Task("asking", func(ctx context.Context) tea.Msg {
				resp, err := cl.Dialogue.Text(ctx, q, ref)
				return answerMsg{seq: seq, resp: resp, err: err}
			})
		}
		var cmd tea.Cmd
		c.input, cmd = c.input.Update(msg)
		return c, cmd
	}
	return c, nil
}

func (c *console) apply(ev tea.Msg) {
	switch ev := ev.(type) {
	case TurnStarted:
		c.addTurn(turn{query: ev.Query, pending: true, ref: c.ref, voice: ev.Turn, at: c.ctx.Now()})
	case TurnDropped:
		for i := len(c.turns) - 1; i >= 0; i-- {
			if c.turns[i].voice == ev.Turn {
				c.turns = append(c.turns[:i], c.turns[i+1:]...)
				return
			}
		}
	case TurnQuery:
		if t := c.turnOf(ev.Turn); t != nil {
			t.query = ev.Query
		}
	case TurnFailed:
		if t := c.turnOf(ev.Turn); t != nil {
			t.pending, t.err = false, ev.Err
		}
	case TurnRetried:
		if t := c.turnOf(ev.Turn); t != nil {
			t.pending, t.err = true, ""
		}
	case TurnAnswered:
		if t := c.turnOf(ev.Turn); t != nil {
			t.pending, t.err, t.query = false, "", ev.Heard
			t.answer = strings.TrimSpace(ev.Answer.Responses.Text)
			if ev.Answer.Responses.HTML != "" {
				t.answer = components.HTMLText(ev.Answer.Responses.HTML)
			}
			c.ref = ev.Answer.Context.Ref
		}
	case RefChanged:
		c.ref = ev.Ref
	case Asking:
		if !ev.On {
			if c.placeholder != "" {
				c.input.Placeholder, c.placeholder = c.placeholder, ""
			}
			return
		}
		if c.placeholder == "" {
			c.placeholder = c.input.Placeholder
		}
		c.input.Placeholder = "The assistant is waiting for your answer"
	case Rang:
		c.turns = append(c.turns, turn{answer: ev.Text, at: c.ctx.Now()})
	}
}

func (c *console) addTurn(t turn) { c.turns = append(c.turns, t) }

func (c *console) turnOf(vt *Turn) *turn {
	for i := len(c.turns) - 1; i >= 0; i-- {
		if c.turns[i].voice == vt {
			return &c.turns[i]
		}
	}
	return nil
}

func (c *console) View() string {
	t := c.ctx.Theme
	var lines []string
	for _, tr := range c.turns {
		lines = append(lines, "you: "+tr.query)
		if tr.err != "" {
			lines = append(lines, "  "+tr.err)
		}
		if tr.answer != "" {
			lines = append(lines, "  "+tr.answer)
		}
		lines = append(lines, c.voice.TurnLines(tr.voice, t, 120)...)
	}
	lines = append(lines, c.voice.PanelLines(t, 120)...)
	lines = append(lines, c.voice.Dialog(t, 120)...)
	lines = append(lines, c.voice.Status(), c.input.View())
	return strings.Join(lines, "\n")
}

// app plays the root: it unwraps tasks and keeps the last toast.
type app struct {
	c        *console
	toast    common.ToastMsg
	hasToast bool
}

func (a *app) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case common.TaskBeginMsg:
		return a, nil
	case common.TaskEndMsg:
		if msg.Inner == nil {
			return a, nil
		}
		if b, ok := msg.Inner.(tea.BatchMsg); ok {
			return a, tea.Batch(b...)
		}
		return a.Update(msg.Inner)
	case common.ToastMsg:
		a.toast, a.hasToast = msg, true
		return a, nil
	}
	_, cmd := a.c.Update(msg)
	return a, cmd
}

func (a *app) Init() tea.Cmd { return nil }

func (a *app) View() string {
	v := a.c.View()
	if a.hasToast {
		v += "\n" + a.toast.Text
	}
	return v
}
