package onboarding

import (
	"context"
	"errors"
	"fmt"
	"github.com/harkhq/hark/ui/common"
	"regexp"
	"strconv"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/harkhq/hark/client"
)

// permissionReasons explains to the user what each permission is for.
var permissionReasons = map[string]string{
	"LOCATION":      "Location: nearby restaurants, cinemas, weather and places you visit.",
	"NOTIFICATIONS": "Notifications: alarms, timers and reminders can alert you.",
	"CONTACTS":      "Contacts: call or message people by name.",
	"CALENDAR":      "Calendar: read and add your events.",
}

type onboardingKeys struct {
	Up, Down, Toggle, Submit key.Binding
}

// onboarding walks the set-up steps: messages flow on, the last step of
// each batch waits for an answer, END (or an empty batch) opens the
// console. The server remembers progress, so starting again resumes.
type Model struct {
	ctx   *common.Context
	keys  onboardingKeys
	shown []shownLine // messages and the person's answers so far
	step  *client.Step
	// said is the answer on its way; it joins shown once accepted.
	said string
	// answered counts the steps answered, for "step n of m".
	answered int
	input    textinput.Model
	cursor   int
	checked  map[int]bool // selection in SHOW_SURVEY, grants in WAIT_PERMISSION
	pending  bool
	errText  string
	width    int
	height   int
}

func New(pc *common.Context) *Model {
	in := common.NewInput(pc)
	in.Prompt = "› "
	in.CharLimit = 100
	return &Model{ctx: pc, input: in, checked: map[int]bool{}, keys: onboardingKeys{
		Up:     common.Keys.Up,
		Down:   common.Keys.Down,
		Toggle: common.WithHelp(common.Keys.Select, "space", "toggle"),
		Submit: key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "answer")),
	}}
}

// shownLine is a message of the set-up or an answer of the person.
type shownLine struct {
	text   string
	answer bool
}

type stepsMsg struct {
	steps []client.Step
	err   error
	start bool
}

func (m stepsMsg) Failed() error { return m.err }

func (o *Model) Init() tea.Cmd {
	o.shown, o.step, o.errText, o.pending, o.answered, o.said = nil, nil, "", true, 0, ""
	c := o.ctx.Client
	return o.ctx.Task("loading set-up", func(ctx context.Context) tea.Msg {
		steps, err := c.Onboarding.Start(ctx)
		return stepsMsg{steps: steps, err: err, start: true}
	})
}

func (o *Model) SetSize(w, h int) { o.width, o.height = w, h; o.input.Width = max(w-6, 10) }

func (o *Model) Typing() bool { return o.step != nil && o.step.Type == "WAIT_INPUT" }

func (o *Model) InputEmpty() bool { return !o.Typing() || o.input.Value() == "" }

func (o *Model) ShortHelp() []key.Binding {
	if o.step == nil {
		return nil
	}
	switch o.step.Type {
	case "WAIT_SELECTION":
		return []key.Binding{o.keys.Up, o.keys.Submit}
	case "SHOW_SURVEY", "WAIT_PERMISSION":
		return []key.Binding{o.keys.Up, o.keys.Toggle, o.keys.Submit}
	}
	return []key.Binding{o.keys.Submit}
}

func (o *Model) FullHelp() [][]key.Binding { return [][]key.Binding{o.ShortHelp()} }

func (o *Model) personal(s string) string {
	name := o.ctx.Session.Name
	if name == "" {
		name = "friend"
	}
	return common.Clean(strings.ReplaceAll(s, "%%USERNAME%%", name))
}

func (o *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case stepsMsg:
		return o, o.received(msg)
	case tea.KeyMsg:
		if o.pending || o.step == nil {
			return o, nil
		}
		if key.Matches(msg, common.Keys.Back) {
			// The protocol takes answers once and has no way back: say so,
			// and where the answers can be changed later.
			return o, common.Toast("the set-up cannot go back: your answers are kept above; interests can be changed later on the Surveys screen")
		}
		return o, o.key(msg)
	}
	return o, nil
}

// Resume shows steps the root fetched (a set-up left half done).
func (o *Model) Resume(steps []client.Step) tea.Cmd { return o.received(stepsMsg{steps: steps}) }

// received shows a batch of steps; the last one waits.
func (o *Model) received(m stepsMsg) tea.Cmd {
	o.pending = false
	said := o.said
	o.said = ""
	if m.err != nil {
		var api *client.APIError
		if errors.As(m.err, &api) && api.Status == 400 && !m.start {
			o.errText = "The server refused this answer: " + common.Describe(m.err)
			return nil
		}
		if m.start {
			// No onboarding on this platform (or it failed): the console
			// still works, so go there and say why.
			return tea.Batch(common.OpenScreen(common.ScreenConsole), func() tea.Msg {
				return common.ToastMsg{Err: true, Text: "set-up skipped: " + common.Describe(m.err)}
			})
		}
		o.errText = common.Describe(m.err)
		return nil
	}
	o.errText = ""
	if o.step != nil && !m.start {
		o.answered++
		if said != "" {
			o.shown = append(o.shown, shownLine{text: said, answer: true})
		}
	}
	if len(m.steps) == 0 {
		return common.OpenScreen(common.ScreenConsole)
	}
	for i := range m.steps {
		st := m.steps[i]
		if st.Type == "END" {
			o.step = nil
			if i > 0 && m.steps[i-1].Payload.Message != "" {
				// The farewell would vanish with the screen: keep it as a toast.
				// In sequence: the screen change clears the notices of
				// the screen left, and this one belongs to the next.
				return tea.Sequence(common.OpenScreen(common.ScreenConsole), common.Toast(o.personal(m.steps[i-1].Payload.Message)))
			}
			return common.OpenScreen(common.ScreenConsole)
		}
		if st.Payload.Message != "" {
			o.shown = append(o.shown, shownLine{text: st.Payload.Message})
		}
		o.step = &m.steps[i]
	}
	o.cursor = 0
	o.checked = map[int]bool{}
	o.input.SetValue("")
	o.input.Blur()
	switch o.step.Type {
	case "WAIT_INPUT":
		// The suggestion is a placeholder: enter on an empty field takes it.
		o.input.Placeholder = o.step.Payload.DefaultValue
		if o.step.Payload.Preference == "USERNAME" && o.ctx.Session.Name != "" {
			o.input.Placeholder = o.ctx.Session.Name
		}
		return o.input.Focus()
	case "SHOW_SURVEY":
		for i, it := range o.step.Payload.Items {
			o.checked[i] = it.Selected
		}
	case "WAIT_PERMISSION":
		for i := range o.step.Payload.Permissions {
			o.checked[i] = true
		}
	case "SHOW_MESSAGE":
		// A batch ending on a message (no waiting step) moves on by itself.
		return o.answer(struct{}{})
	}
	return nil
}

func (o *Model) choices() int {
	switch o.step.Type {
	case "WAIT_SELECTION":
		return len(o.step.Payload.Options)
	case "SHOW_SURVEY":
		return len(o.step.Payload.Items)
	case "WAIT_PERMISSION":
		return len(o.step.Payload.Permissions)
	}
	return 0
}

func (o *Model) key(msg tea.KeyMsg) tea.Cmd {
	p := o.step.Payload
	if o.step.Type == "WAIT_INPUT" {
		if key.Matches(msg, o.keys.Submit) {
			return o.submitInput()
		}
		if msg.Paste {
			msg.Runes = []rune(common.OneLine(string(msg.Runes)))
		}
		var cmd tea.Cmd
		o.input, cmd = o.input.Update(msg)
		return cmd
	}
	n := o.choices()
	switch {
	case key.Matches(msg, o.keys.Up):
		o.cursor = max(o.cursor-1, 0)
	case key.Matches(msg, o.keys.Down):
		o.cursor = min(o.cursor+1, max(n-1, 0))
	case key.Matches(msg, common.Keys.Top):
		o.cursor = 0
	case key.Matches(msg, common.Keys.Bottom):
		o.cursor = max(n-1, 0)
	case key.Matches(msg, o.keys.Toggle):
		if o.step.Type == "SHOW_SURVEY" || o.step.Type == "WAIT_PERMISSION" {
			o.checked[o.cursor] = !o.checked[o.cursor]
			o.errText = "" // "choose at least n" is stale once the choice changes
		}
	case key.Matches(msg, o.keys.Submit):
		switch o.step.Type {
		case "WAIT_ACK":
			o.said = ackText(p.Ack)
			return o.answer(struct{}{})
		case "WAIT_SELECTION":
			if n == 0 {
				return nil
			}
			o.said = common.OneLine(p.Options[o.cursor].Text)
			return o.answer(map[string]string{p.Parameter: p.Options[o.cursor].Key})
		case "WAIT_PERMISSION":
			grants := map[string]string{}
			for i, perm := range p.Permissions {
				grants[perm] = map[bool]string{true: "granted", false: "denied"}[o.checked[i]]
			}
			var said []string
			for i, perm := range p.Permissions {
				said = append(said, permissionName(perm)+" "+map[bool]string{true: "allowed", false: "denied"}[o.checked[i]])
			}
			o.said = strings.Join(said, ", ")
			return o.answer(grants)
		case "SHOW_SURVEY":
			var ids []string
			for i, it := range p.Items {
				if o.checked[i] {
					ids = append(ids, strconv.Itoa(it.ID))
				}
			}
			if len(ids) < p.MinOptions {
				o.errText = fmt.Sprintf("Choose at least %d (%d chosen).", p.MinOptions, len(ids))
				return nil
			}
			var names []string
			for i, it := range p.Items {
				if o.checked[i] {
					names = append(names, common.OneLine(it.Text))
				}
			}
			o.said = strings.Join(names, ", ")
			return o.answer(map[string]string{"survey_id": strings.Trim(string(p.SurveyID), `"`),
				"item_id_list": strings.Join(ids, ",")})
		default:
			return o.answer(struct{}{})
		}
	}
	return nil
}

// submitInput checks the payload's regular expressions before sending.
func (o *Model) submitInput() tea.Cmd {
	p := o.step.Payload
	v := strings.TrimSpace(common.OneLine(o.input.Value()))
	if v == "" {
		v = o.input.Placeholder
	}
	if p.Validation != nil {
		for _, expr := range p.Validation.RegExps {
			re, err := regexp.Compile(expr)
			if err != nil {
				continue // the server checks it too; a pattern Go can't read is not the user's fault
			}
			if !re.MatchString(v) {
				o.errText = fmt.Sprintf("%q is not accepted here (it must match %s).", v, expr)
				return nil
			}
		}
	}
	param := p.Parameter
	if param == "" {
		param = "value"
	}
	o.said = v
	cmd := o.answer(map[string]string{param: v})
	if p.Preference == "USERNAME" {
		return tea.Batch(func() tea.Msg { return common.DisplayNameMsg{Name: v} }, cmd)
	}
	return cmd
}

func (o *Model) answer(data any) tea.Cmd {
	o.pending, o.errText = true, ""
	c, id := o.ctx.Client, o.step.ID
	return o.ctx.Task("answering", func(ctx context.Context) tea.Msg {
		steps, err := c.Onboarding.Answer(ctx, id, data)
		return stepsMsg{steps: steps, err: err}
	})
}

func (o *Model) View() string {
	t := o.ctx.Theme
	w := max(o.width-4, 10)
	var lines []string
	for i, m := range o.shown {
		if m.answer {
			// The person's answers stay visible beside the questions.
			for _, l := range common.Wrap("› "+m.text, w) {
				lines = append(lines, "  "+t.Selected.Render(l))
			}
			lines = append(lines, "")
			continue
		}
		style := t.Muted
		if i == len(o.shown)-1 {
			style = t.Header
		}
		for _, l := range common.Wrap(o.personal(m.text), w) {
			lines = append(lines, "  "+style.Render(l))
		}
		lines = append(lines, "")
	}
	if o.step != nil {
		p := o.step.Payload
		switch o.step.Type {
		case "WAIT_ACK":
			ack := p.Ack
			if ack == "" {
				ack = "OK"
			}
			lines = append(lines, "  "+t.Color(p.ColorAck, p.TextColorAck).Render("[ "+common.OneLine(ack)+" ]")+"  "+t.Muted.Render("press enter"))
		case "WAIT_INPUT":
			lines = append(lines, "  "+o.input.View())
		case "WAIT_SELECTION":
			for i, opt := range p.Options {
				label := " " + common.OneLine(opt.Text) + " "
				if i == o.cursor {
					lines = append(lines, "  > "+t.Color(opt.ColorAck, opt.TextColorAck).Render(label))
				} else {
					lines = append(lines, "    "+label)
				}
			}
		case "WAIT_PERMISSION":
			for i, perm := range p.Permissions {
				reason := permissionReasons[perm]
				if reason == "" {
					reason = perm
				}
				mark := map[bool]string{true: "[allow]", false: "[deny] "}[o.checked[i]]
				lines = append(lines, o.row(i, mark+" "+reason))
			}
		case "SHOW_SURVEY":
			chosen := 0
			for i, it := range p.Items {
				mark := "[ ]"
				if o.checked[i] {
					mark, chosen = "[x]", chosen+1
				}
				lines = append(lines, o.row(i, mark+" "+common.OneLine(it.Text)))
			}
			lines = append(lines, "", "  "+t.Muted.Render(fmt.Sprintf("%d chosen, at least %d", chosen, p.MinOptions)))
		}
	}
	if o.pending {
		lines = append(lines, "", "  "+t.Muted.Render("…"))
	}
	if o.errText != "" {
		lines = append(lines, "")
		for _, l := range common.Wrap(o.errText, w) {
			lines = append(lines, "  "+t.Error.Render(l))
		}
	}
	// Keep the waiting step visible: older messages scroll off the top,
	// under the progress line, which stays.
	var head []string
	if o.step != nil {
		head = []string{"  " + t.Muted.Render(o.progress()+" · answers cannot be changed once given"), ""}
	}
	if extra := len(lines) + len(head) - o.height; extra > 0 {
		lines = lines[min(extra, len(lines)):]
	}
	return strings.Join(append(head, lines...), "\n")
}

func (o *Model) row(i int, text string) string {
	if i == o.cursor {
		return "  > " + o.ctx.Theme.Selected.Render(text)
	}
	return "    " + text
}
