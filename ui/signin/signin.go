package signin

import (
	"context"
	"errors"
	"fmt"
	"github.com/harkhq/hark/ui/common"
	"net/mail"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/harkhq/hark/client"
)

// signInMode is what the sign-in form does on enter.
type signInMode int

const (
	modeLogin signInMode = iota
	modeRegister
	modeAnonymous
)

var modeNames = []string{"Log in", "Register", "Continue anonymously"}

// deviceName identifies this program to the accounts service.
const deviceName = "hark-terminal"

type signInKeys struct {
	Next, Prev, Mode, Submit key.Binding
}

// signIn is the first screen: log in, register, or continue anonymously.
// Errors stay in place under the form; a notice explains why it is shown
// again (an expired session).
type Model struct {
	ctx     *common.Context
	keys    signInKeys
	mode    signInMode
	fields  []textinput.Model // email, password, name
	focus   int
	pending bool
	errText string
	notice  string
	width   int
	height  int
}

func New(pc *common.Context) *Model {
	s := &Model{ctx: pc, keys: signInKeys{
		Next:   key.NewBinding(key.WithKeys("tab", "down"), key.WithHelp("tab", "next field")),
		Prev:   key.NewBinding(key.WithKeys("shift+tab", "up"), key.WithHelp("shift+tab", "previous")),
		Mode:   key.NewBinding(key.WithKeys("ctrl+n", "alt+m"), key.WithHelp("ctrl+n", "switch mode")),
		Submit: key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "submit")),
	}}
	for i, ph := range []string{"you@example.com", "password", "your name"} {
		ti := common.NewInput(pc)
		ti.Placeholder = ph
		ti.CharLimit = 200
		ti.Prompt = ""
		if i == 1 {
			ti.EchoMode = textinput.EchoPassword
			ti.EchoCharacter = '•'
		}
		s.fields = append(s.fields, ti)
	}
	s.fields[0].Focus()
	return s
}

// Reset clears the error and shows notice (why sign-in is shown again).
func (s *Model) Reset(notice string) {
	s.notice, s.errText, s.pending = notice, "", false
	s.fields[1].SetValue("")
}

func (s *Model) Init() tea.Cmd { return textinput.Blink }

func (s *Model) SetSize(w, h int) { s.width, s.height = w, h }

func (s *Model) Typing() bool { return true }

func (s *Model) InputEmpty() bool { return s.fields[s.visible()[s.focus]].Value() == "" }

// TakesTab: tab and shift+tab move between the fields.
func (s *Model) TakesTab() bool { return true }

func (s *Model) ShortHelp() []key.Binding {
	return []key.Binding{s.keys.Submit, s.keys.Next, s.keys.Mode}
}

func (s *Model) FullHelp() [][]key.Binding {
	return [][]key.Binding{{s.keys.Submit, s.keys.Next, s.keys.Prev, s.keys.Mode}}
}

// visible are the indexes of the fields of the current mode.
func (s *Model) visible() []int {
	switch s.mode {
	case modeRegister:
		return []int{0, 1, 2}
	case modeAnonymous:
		return []int{2}
	}
	return []int{0, 1}
}

type signInResultMsg struct {
	session common.Session
	err     error
	mode    signInMode
}

func (m signInResultMsg) Failed() error { return m.err }

func (s *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case signInResultMsg:
		s.pending = false
		if msg.err != nil {
			s.errText = s.explain(msg.err, msg.mode)
			return s, nil
		}
		s.errText, s.notice = "", ""
		s.fields[1].SetValue("")
		return s, func() tea.Msg { return common.SignedInMsg{Session: msg.session} }
	case tea.KeyMsg:
		if s.pending {
			return s, nil
		}
		switch {
		case key.Matches(msg, s.keys.Mode):
			s.mode = (s.mode + 1) % 3
			s.errText = ""
			s.focusField(0)
			return s, nil
		case key.Matches(msg, s.keys.Next):
			s.focusField(s.focus + 1)
			return s, nil
		case key.Matches(msg, s.keys.Prev):
			s.focusField(s.focus - 1)
			return s, nil
		case key.Matches(msg, s.keys.Submit):
			return s, s.submit()
		}
		if msg.Paste {
			msg.Runes = []rune(common.OneLine(string(msg.Runes)))
		}
		vis := s.visible()
		var cmd tea.Cmd
		s.fields[vis[s.focus]], cmd = s.fields[vis[s.focus]].Update(msg)
		return s, cmd
	}
	return s, nil
}

func (s *Model) focusField(i int) {
	vis := s.visible()
	s.focus = (i%len(vis) + len(vis)) % len(vis)
	for j := range s.fields {
		s.fields[j].Blur()
	}
	s.fields[vis[s.focus]].Focus()
}

// submit checks the form locally, then sends it as a command.
func (s *Model) submit() tea.Cmd {
	email := strings.TrimSpace(s.fields[0].Value())
	password := s.fields[1].Value()
	name := strings.TrimSpace(s.fields[2].Value())
	if s.mode != modeAnonymous {
		if _, err := mail.ParseAddress(email); err != nil || !strings.Contains(email, "@") {
			s.errText = "Enter an e-mail address like you@example.com."
			s.focusField(0)
			return nil
		}
		if password == "" {
			s.errText = "Enter your password."
			s.focusField(1)
			return nil
		}
	}
	if s.mode == modeRegister && len(password) < 8 {
		s.errText = "Choose a password of at least 8 characters."
		s.focusField(1)
		return nil
	}
	s.pending, s.errText = true, ""
	c, store, mode := s.ctx.Client, s.ctx.Sessions, s.mode
	return s.ctx.Task(strings.ToLower(modeNames[mode]), func(ctx context.Context) tea.Msg {
		var tok client.Token
		var err error
		sess := common.Session{Email: email, Name: name}
		switch mode {
		case modeLogin:
			tok, err = c.Auth.Login(ctx, email, password, deviceName)
		case modeRegister:
			tok, err = c.Auth.Register(ctx, email, password, name, deviceName)
		case modeAnonymous:
			var id string
			if store == nil {
				err = fmt.Errorf("no place to keep the anonymous id")
				break
			}
			if id, err = store.ExternalID(); err != nil {
				break
			}
			sess.Anonymous, sess.Email = true, ""
			tok, _, err = c.Auth.Anonymous(ctx, id, deviceName, name)
		}
		if err != nil {
			return signInResultMsg{err: err, mode: mode}
		}
		sess.Token, sess.Expires, sess.Username = tok.Token, tok.Expires, tok.Username
		if tok.Username != "" && sess.Name == "" {
			sess.Name = tok.Username
		}
		return signInResultMsg{session: sess, mode: mode}
	})
}

// explain words the server's refusals for this form.
func (s *Model) explain(err error, mode signInMode) string {
	var api *client.APIError
	if !errors.As(err, &api) {
		return common.Sentence(common.Describe(err))
	}
	switch {
	case api.Status == 409:
		return "An account with this e-mail already exists. Press ctrl+n to log in instead."
	case api.Status == 401 && mode == modeLogin:
		return "Wrong e-mail or password."
	case api.Status == 401:
		return "The platform refused this workspace's keys (" + common.Describe(err) + "). Check --api-key and --private-key."
	case api.Status == 429:
		wait := api.RetryAfter
		if wait <= 0 {
			wait = time.Minute
		}
		return fmt.Sprintf("Too many attempts. Wait %s before trying again.", wait.Round(time.Second))
	case api.Status == 403 && mode == modeRegister:
		return "This workspace does not accept new accounts: " + common.Describe(err)
	}
	return common.Sentence(common.Describe(err))
}

func (s *Model) View() string {
	t := s.ctx.Theme
	var b strings.Builder
	b.WriteString("\n")
	if s.notice != "" {
		for _, l := range common.Wrap(s.notice, max(s.width-4, 10)) {
			b.WriteString("  " + t.Warn.Render(l) + "\n")
		}
		b.WriteString("\n")
	}
	var tabs []string
	for i, n := range modeNames {
		if signInMode(i) == s.mode {
			tabs = append(tabs, t.Cursor.Render("["+n+"]"))
		} else {
			tabs = append(tabs, t.Muted.Render(" "+n+" "))
		}
	}
	b.WriteString("  " + strings.Join(tabs, " ") + "\n")
	if s.mode == modeLogin {
		// A first-time user has no account: say how to get going.
		for _, l := range common.Wrap("New here? ctrl+n: Register, again: Continue anonymously (no account).", max(s.width-4, 10)) {
			b.WriteString("  " + t.Muted.Render(l) + "\n")
		}
	}
	b.WriteString("\n")
	labels := []string{"E-mail", "Password", "Name"}
	if s.mode == modeAnonymous {
		b.WriteString("  " + t.Muted.Render("No account needed: this machine keeps an id for you.") + "\n\n")
		labels[2] = "Name (optional)"
	}
	fieldW := max(min(s.width-22, 48), 8)
	for i, idx := range s.visible() {
		f := s.fields[idx]
		f.Width = fieldW
		marker := "  "
		if i == s.focus {
			marker = t.Selected.Render("> ")
		}
		b.WriteString(marker + common.Fit(labels[idx], 16) + " " + f.View() + "\n")
	}
	b.WriteString("\n")
	switch {
	case s.pending:
		b.WriteString("  " + t.Muted.Render("Waiting for the platform…") + "\n")
	case s.errText != "":
		for _, l := range common.Wrap(s.errText, max(s.width-4, 10)) {
			b.WriteString("  " + t.Error.Render(l) + "\n")
		}
	}
	return b.String()
}
