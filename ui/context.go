// Package ui is hark's terminal console: one root model (App) that routes
// every message, and one file per screen (sign-in, onboarding, console,
// storage, ...). Screens share a program context and follow one contract:
// tea.Model plus help.KeyMap plus SetSize. All I/O runs in tea.Cmd
// functions through the client package; Update only changes state.
package ui

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"time"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/harkhq/hark/client"
)

// Session is a signed-in user as remembered between runs.
type Session struct {
	Token     string `json:"token"`
	Name      string `json:"name,omitempty"`
	Email     string `json:"email,omitempty"`
	Expires   int64  `json:"expires,omitempty"` // ms since the epoch
	Anonymous bool   `json:"anonymous,omitempty"`
}

// SessionStore keeps the session and the anonymous external id between
// runs (cmd/hark puts them in the OS keyring or a 0600 file). Its methods
// do I/O and are only called from commands.
type SessionStore interface {
	Save(Session) error
	Clear() error
	// ExternalID is the id of the anonymous user of this machine, made up
	// on first use and kept.
	ExternalID() (string, error)
}

// Options is what the host (cmd/hark or a test) hands the console.
type Options struct {
	Client   *client.Client
	Sessions SessionStore
	// Session, when set, is a remembered sign-in: the console opens on it.
	Session *Session
	// Platform names the server in the header ("embedded platform" or a URL).
	Platform string
	// Now is the clock for relative dates and the transcript (tests fix it).
	Now     func() time.Time
	NoColor bool
	// DownloadDir is where storage downloads land (default: current directory).
	DownloadDir string
	// ReportPanic writes a report of a panic caught in a command and
	// returns where it went; nil only logs it in the toast.
	ReportPanic func(recovered any, stack []byte) string
	// StaticCursor stops the input cursors from blinking (fewer repaints
	// over slow links, steady screenshots and tests).
	StaticCursor bool
	// PlatformReady, when set, yields once the platform serves, or the
	// error that stopped it (an embedded platform opening in the background).
	PlatformReady <-chan error
	// Context bounds every command; cancelling it stops work in flight.
	Context context.Context
	// Voice, when set, lets the console talk (microphone, speaker) and carry out the
	// answers' next actions (see voice.go); nil keeps it typed-only.
	Voice *Voice
}

// programContext is shared by every screen: options, theme, size and who
// is signed in. Screens read it; only the root changes it.
type programContext struct {
	Options
	Theme   *Theme
	Session Session
	Width   int
	Height  int
}

func (c *programContext) now() time.Time { return c.Now() }

// task runs fn as a command bracketed by taskBegin/taskEnd so the root can
// show a spinner while work is in flight; a panic inside fn becomes an
// error message (with a report file) instead of killing the program.
func (c *programContext) task(label string, fn func(ctx context.Context) tea.Msg) tea.Cmd {
	ctx, report := c.Context, c.ReportPanic
	return tea.Sequence(
		func() tea.Msg { return taskBeginMsg{label: label} },
		func() (msg tea.Msg) {
			defer func() {
				if r := recover(); r != nil {
					where := "the log"
					if report != nil {
						where = report(r, debug.Stack())
					}
					msg = taskEndMsg{label: label, inner: toastMsg{err: true,
						text: fmt.Sprintf("%s failed unexpectedly (report: %s)", label, where)}}
				}
			}()
			return taskEndMsg{label: label, inner: fn(ctx)}
		},
	)
}

type taskBeginMsg struct{ label string }
type taskEndMsg struct {
	label string
	inner tea.Msg
}

// toastMsg shows a short notice in the status line.
type toastMsg struct {
	text string
	err  bool
}

type toastExpiredMsg struct{ id int }

func toast(text string) tea.Cmd { return func() tea.Msg { return toastMsg{text: text} } }

// failure is implemented by results that carry an error, so the root can
// notice an expired session whatever screen asked.
type failure interface{ failed() error }

// sessionExpired tells whether err means the token is no longer valid.
func sessionExpired(err error) bool {
	var api *client.APIError
	return errors.As(err, &api) && api.Status == 401 && api.Code == "TokenExpired"
}

// describe turns an error into one line for a toast or status line,
// naming the server's code and wait time where there is one.
func describe(err error) string {
	var api *client.APIError
	if errors.As(err, &api) {
		s := api.Description
		if s == "" {
			s = api.Code
		}
		if api.Status == 429 && api.RetryAfter > 0 {
			s += fmt.Sprintf(" (try again in %s)", api.RetryAfter.Round(time.Second))
		}
		return fmt.Sprintf("%s: %s", api.Code, oneLine(s))
	}
	if errors.Is(err, context.Canceled) {
		return "cancelled"
	}
	return oneLine(err.Error())
}

func asAPIError(err error, target **client.APIError) bool { return errors.As(err, target) }

// newInput is a text field following the program's cursor preference.
func newInput(pc *programContext) textinput.Model {
	in := textinput.New()
	if pc.StaticCursor {
		in.Cursor.SetMode(cursor.CursorStatic)
	}
	return in
}

// inputField is a text field whose Update takes only keys, with pasted
// control characters removed.
type inputField struct{ textinput.Model }

func newInputField(pc *programContext) inputField { return inputField{newInput(pc)} }

func (f *inputField) Update(msg tea.KeyMsg) tea.Cmd {
	if msg.Paste {
		msg.Runes = []rune(oneLine(string(msg.Runes)))
	}
	var cmd tea.Cmd
	f.Model, cmd = f.Model.Update(msg)
	return cmd
}
