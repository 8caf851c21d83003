package console

import (
	"bytes"
	"context"
	"encoding/json"
	"github.com/harkhq/hark/ui/common"
	"github.com/harkhq/hark/ui/components"
	"github.com/harkhq/hark/ui/voice"
	"slices"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/harkhq/hark/client"
)

// turn is one exchange of the transcript.
type turn struct {
	seq     int // which typed query this is (0 for spoken turns)
	query   string
	at      time.Time
	pending bool
	answer  string // plain text (from html where present)
	actions []client.Action
	explain *client.Explanation // how the query was read, when the explain view asked
	err     string
	ref     int64
	voice   *voice.Turn // spoken audio, timings and action outcomes (ui/voice)
}

type consoleKeys struct {
	Send, HistoryUp, HistoryDown, NewConversation, ScrollUp, ScrollDown, Explain key.Binding
}

// console is the home screen: a transcript of turns and an input line.
// The conversation ref of the last answer goes with the next query until
// a new conversation is started.
type Model struct {
	ctx     *common.Context
	keys    consoleKeys
	input   textinput.Model
	turns   []turn
	ref     int64
	history []string
	histPos int    // len(history) when not browsing
	draft   string // what was typed before browsing the history
	scroll  int    // lines scrolled up from the bottom
	width   int
	height  int
	seq     int
	voice   *voice.Model
	// placeholder is the input's own hint while it shows that the assistant is asking.
	placeholder string
	// explain is the developers' view: how each query was read, and the
	// action codes with their data. Off, the transcript is human text.
	explain bool
	// lang is the language of the last answer (Content-Language).
	lang string
	// recorder, when set, keeps each answered turn (hark flow record);
	// recPending are spoken turns waiting for the end of their recording.
	recorder   TurnRecorder
	recPending []pendingRec
}

// New is the console on pc; voiceCfg nil keeps it typed-only.
func New(pc *common.Context, voiceCfg *voice.Config) *Model {
	in := common.NewInput(pc)
	in.Placeholder = "Ask something, e.g. what's the weather tomorrow"
	in.Prompt = "› "
	in.CharLimit = 500
	in.Focus()
	return &Model{ctx: pc, input: in, voice: voice.New(pc, voiceCfg), keys: consoleKeys{
		Send:            key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "send")),
		HistoryUp:       key.NewBinding(key.WithKeys("up"), key.WithHelp("↑/↓", "history")),
		HistoryDown:     key.NewBinding(key.WithKeys("down")),
		NewConversation: key.NewBinding(key.WithKeys("ctrl+n"), key.WithHelp("ctrl+n", "new conversation")),
		ScrollUp:        key.NewBinding(key.WithKeys("pgup"), key.WithHelp("pgup/pgdn", "scroll")),
		ScrollDown:      key.NewBinding(key.WithKeys("pgdown")),
		Explain:         key.NewBinding(key.WithKeys("alt+e"), key.WithHelp("alt+e", "explain")),
	}}
}

func (c *Model) Init() tea.Cmd    { return tea.Batch(textinput.Blink, c.voice.Init()) }
func (c *Model) SetSize(w, h int) { c.width, c.height = w, h; c.input.Width = max(w-4, 10) }
func (c *Model) Typing() bool     { return true }
func (c *Model) InputEmpty() bool { return c.input.Value() == "" }
func (c *Model) ShortHelp() []key.Binding {
	if c.voice.Confirming() {
		// the dialog takes every key: its answer is all the footer offers
		return c.voice.Help()
	}
	// The explain key before ctrl+n: at 80 columns the footer has room
	// for one of them, and ctrl+n is in the full help.
	return append([]key.Binding{c.keys.Send, c.keys.HistoryUp, c.explainKey(), c.keys.NewConversation}, c.voice.Help()...)
}
func (c *Model) FullHelp() [][]key.Binding {
	return append([][]key.Binding{{c.keys.Send, c.keys.HistoryUp, c.keys.NewConversation, c.keys.ScrollUp, c.explainKey()}}, c.voice.FullHelp()...)
}

// explainKey is the toggle described by what pressing it does now.
func (c *Model) explainKey() key.Binding {
	if c.explain {
		return common.WithHelp(c.keys.Explain, "alt+e", "explain off")
	}
	return common.WithHelp(c.keys.Explain, "alt+e", "explain")
}

// Explaining tells whether the explain view is on.
func (c *Model) Explaining() bool { return c.explain }

type answerMsg struct {
	seq  int
	resp *client.DialogueResponse
	err  error
}

func (m answerMsg) Failed() error { return m.err }

func (c *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	cmd, events, handled := c.voice.Update(msg, c.ref)
	for _, ev := range events {
		c.apply(ev)
		if _, ok := ev.(voice.TurnStarted); ok {
			cmd = tea.Batch(common.ClearToast, cmd) // the last turn's notices are stale now
		}
		if a, ok := ev.(voice.TurnAnswered); ok && c.recorder != nil && a.Answer != nil {
			c.recPending = append(c.recPending, pendingRec{vt: a.Turn, resp: a.Answer})
		}
	}
	if len(c.recPending) > 0 {
		cmd = tea.Batch(cmd, c.flushRecording())
	}
	if handled {
		return c, cmd
	}
	switch msg := msg.(type) {
	case recordedMsg:
		if msg.err != nil {
			return c, common.Toast("not recorded: " + msg.err.Error())
		}
		return c, nil
	case answerMsg:
		t := c.answered(msg)
		var rec tea.Cmd
		if t != nil && msg.err == nil && c.recorder != nil {
			rec = c.record(t.query, nil, 0, msg.resp)
		}
		if t != nil && msg.err == nil && t.voice == nil {
			var cmd tea.Cmd
			t.voice, cmd = c.voice.AfterText(msg.resp)
			return c, tea.Batch(rec, cmd)
		}
		return c, rec
	case tea.KeyMsg:
		switch {
		case key.Matches(msg, c.keys.Send):
			return c, c.send()
		case key.Matches(msg, c.keys.HistoryUp):
			c.browse(-1)
			return c, nil
		case key.Matches(msg, c.keys.HistoryDown):
			c.browse(+1)
			return c, nil
		case !c.voice.Enabled() && (msg.String() == "ctrl+t" || msg.String() == "f2" || msg.String() == "ctrl+r"):
			// Without voice the keys still answer, with the reason.
			return c, common.Toast("voice is off in this run (the log says why): type instead")
		case key.Matches(msg, c.keys.Explain):
			c.explain = !c.explain
			c.voice.SetExplain(c.explain)
			if c.explain {
				return c, common.Toast("explain on: queries from now on show how they were read, and actions their codes (alt+e hides)")
			}
			return c, common.Toast("explain off: the transcript shows what was done")
		case key.Matches(msg, c.keys.NewConversation):
			c.ref = 0
			c.turns = append(c.turns, turn{query: "", answer: "— new conversation —", at: c.ctx.Now()})
			c.scroll = 0
			return c, nil
		case key.Matches(msg, c.keys.ScrollUp):
			c.scroll += max(c.height/2, 1)
			return c, nil
		case key.Matches(msg, c.keys.ScrollDown):
			c.scroll = max(c.scroll-max(c.height/2, 1), 0)
			return c, nil
		}
		if msg.Paste {
			msg.Runes = []rune(common.OneLine(string(msg.Runes)))
		}
		var cmd tea.Cmd
		c.input, cmd = c.input.Update(msg)
		return c, cmd
	}
	return c, nil
}

// browse walks the input history; the draft comes back past the newest.
func (c *Model) browse(dir int) {
	if len(c.history) == 0 {
		return
	}
	if c.histPos == len(c.history) {
		c.draft = c.input.Value()
	}
	c.histPos = min(max(c.histPos+dir, 0), len(c.history))
	if c.histPos == len(c.history) {
		c.input.SetValue(c.draft)
	} else {
		c.input.SetValue(c.history[c.histPos])
	}
	c.input.CursorEnd()
}

func (c *Model) send() tea.Cmd {
	q := strings.TrimSpace(common.OneLine(c.input.Value()))
	if q == "" {
		return nil
	}
	if n := len(c.history); n == 0 || c.history[n-1] != q {
		c.history = append(c.history, q)
	}
	c.histPos, c.draft = len(c.history), ""
	c.input.SetValue("")
	c.seq++
	c.turns = append(c.turns, turn{seq: c.seq, query: q, at: c.ctx.Now(), pending: true, ref: c.ref})
	c.scroll = 0
	cl, seq, ref := c.ctx.Client, c.seq, c.ref
	var opts []client.QueryOption
	if c.explain {
		opts = append(opts, client.Explain())
	}
	// A new turn makes the notices of the last one (a declined
	// confirmation, a failed action) stale.
	return tea.Batch(common.ClearToast, c.ctx.Task("asking", func(ctx context.Context) tea.Msg {
		resp, err := cl.Dialogue.Text(ctx, q, ref, opts...)
		return answerMsg{seq: seq, resp: resp, err: err}
	}))
}

// answered fills the turn the answer is for and returns it (nil when that
// turn is gone). An expired session gives the query back to the input (the
// draft is kept for after the re-login).
func (c *Model) answered(m answerMsg) *turn {
	i := slices.IndexFunc(c.turns, func(t turn) bool { return t.pending && t.seq == m.seq })
	if i < 0 {
		return nil
	}
	t := &c.turns[i]
	t.pending = false
	if m.err != nil {
		if common.SessionExpired(m.err) {
			if c.input.Value() == "" {
				c.input.SetValue(t.query)
				c.input.CursorEnd()
			}
			c.turns = append(c.turns[:i], c.turns[i+1:]...)
			return nil
		}
		t.err = common.Describe(m.err)
		return t
	}
	r := m.resp
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
	return t
}

// actionData renders an action's data compactly for a chip's detail line.
func actionData(raw json.RawMessage) string {
	if len(bytes.TrimSpace(raw)) == 0 || string(raw) == "null" || string(raw) == "{}" {
		return ""
	}
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return common.OneLine(string(raw))
	}
	return common.OneLine(b.String())
}

func (c *Model) transcript() []string {
	t := c.ctx.Theme
	w := max(c.width-2, 10)
	var lines []string
	for _, tr := range c.turns {
		if tr.query == "" {
			lines = append(lines, t.Muted.Render(tr.answer), "")
			continue
		}
		// The query wraps too: a line wider than the screen would be
		// folded by the root and push the input line out of sight.
		prefix := t.Muted.Render(tr.at.Format("15:04")) + " " + t.Query.Render("you: ")
		for i, l := range common.Wrap(tr.query, max(w-common.CellWidth(prefix), 8)) {
			if i > 0 {
				prefix = strings.Repeat(" ", common.CellWidth(prefix))
			}
			lines = append(lines, prefix+l)
		}
		switch {
		case tr.pending:
			lines = append(lines, t.Muted.Render("  …"))
		case tr.err != "":
			for _, l := range common.Wrap(tr.err, w-2) {
				lines = append(lines, "  "+t.Error.Render(l))
			}
		default:
			for _, para := range strings.Split(tr.answer, "\n") {
				for _, l := range common.Wrap(para, w-2) {
					lines = append(lines, "  "+t.Answer.Render(l))
				}
			}
			if c.explain {
				lines = append(lines, explainLines(tr.explain, t, w)...)
				for _, a := range tr.actions {
					chip := t.Chip.Render(" " + common.OneLine(a.Action) + " ")
					if d := actionData(a.Data); d != "" {
						chip += " " + t.Muted.Render(common.AnsiFit(d, max(w-common.CellWidth(chip)-3, 8)))
					}
					lines = append(lines, "  "+chip)
				}
			} else if len(tr.actions) > 0 && !c.voice.Enabled() {
				// Nothing carries actions out in this run: say so rather
				// than show codes (the explain view has them).
				lines = append(lines, "  "+t.Muted.Render(common.AnsiFit("· not carried out: actions are off in this run ("+
					c.keys.Explain.Help().Key+" shows them)", max(w-4, 8))))
			}
			lines = append(lines, c.voice.TurnLines(tr.voice, t, w)...)
		}
		lines = append(lines, "")
	}
	return lines
}

func (c *Model) View() string {
	t := c.ctx.Theme
	extra := append(c.voice.PanelLines(t, c.width), c.voice.Dialog(t, c.width)...)
	avail := max(c.height-2-len(extra), 1)
	lines := c.transcript()
	if len(c.turns) == 0 {
		hint := "Type a question and press enter (? or f1 shows every key). Answers, and the actions the assistant asks this device to carry out, appear here."
		if c.voice.CanTalk() {
			hint = "Type a question and press enter, or press ctrl+t and speak (ctrl+t again sends). Answers, and the actions the assistant asks this device to carry out, appear here."
		}
		lines = nil
		for _, l := range common.Wrap(hint, max(c.width-2, 10)) {
			lines = append(lines, t.Muted.Render(l))
		}
	}
	end := max(len(lines)-c.scroll, 0)
	c.scroll = len(lines) - end
	start := max(end-avail, 0)
	view := lines[start:end]
	pad := avail - len(view)
	var b strings.Builder
	for range pad {
		b.WriteString("\n")
	}
	for _, l := range view {
		b.WriteString(" " + l + "\n")
	}
	status := "new conversation"
	if c.ref != 0 {
		status = "follow-ups go to conversation " + common.Itoa(c.ref)
	}
	if c.explain {
		status = "explain on · " + status // first: a long ref must not push it out of sight
	}
	if r := c.recordingStatus(); r != "" {
		status = r + " · " + status // first too: a recording must not go unnoticed
	}
	if l := c.languageStatus(); l != "" {
		status += " · " + l
	}
	if c.scroll > 0 {
		status += " · scrolled up " + common.Itoa(int64(c.scroll)) + " lines"
	}
	// What voice is doing comes first while it does something; at rest
	// the conversation does, and the devices' notes follow.
	if vs := c.voice.Status(); vs != "" && c.voice.Busy() {
		status = vs + " · " + status
	} else if vs != "" {
		status += " · " + vs
	}
	for _, l := range extra {
		b.WriteString(" " + l + "\n")
	}
	b.WriteString(t.Muted.Render(common.Fit(" "+status, c.width)) + "\n")
	if c.voice.Confirming() {
		// the dialog above is answered first and takes every key; an input
		// line here would invite typing that goes nowhere
		return b.String()
	}
	b.WriteString(c.input.View())
	return b.String()
}

// Draft is what the input holds (kept across a re-login).
func (c *Model) Draft() string { return c.input.Value() }

// Ref is the conversation follow-ups go to, 0 for a new one.
func (c *Model) Ref() int64 { return c.ref }
