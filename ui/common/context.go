// Package common holds what every screen of hark's console shares: the
// program context (options, session, size, tasks), the messages screens
// send the root, the shared key bindings, the theme and the text helpers.
package common

import (
	"context"
	"fmt"
	"runtime/debug"
	"time"

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
	// Username is the platform's handle of the person (u_ and 12 hex digits): the id the
	// recommendation service records their ratings under. Sessions kept before it existed lack it.
	Username string `json:"username,omitempty"`
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

// Settings are the choices that outlive a run: the city, the language and
// the screen last shown.
type Settings struct {
	City     string `json:"city,omitempty"`
	Language string `json:"language,omitempty"`
	Screen   string `json:"screen,omitempty"`
}

// SettingsStore keeps Settings between runs (cmd/hark: a JSON file under
// the XDG state directory). Save is only called from commands.
type SettingsStore interface {
	Load() (Settings, error)
	Save(Settings) error
}

// Options is what every screen may read of the host's configuration.
type Options struct {
	Client   *client.Client
	Sessions SessionStore
	// Settings, when set, remembers the city, language and screen.
	Settings SettingsStore
	// Platform names the server in the header ("embedded platform" or a URL).
	Platform string
	// Now is the clock for relative dates and the transcript (tests fix it).
	Now     func() time.Time
	NoColor bool
	// DownloadDir is the destination storage downloads offer first.
	DownloadDir string
	// ReportPanic writes a report of a panic caught in a command and
	// returns where it went; nil only logs it in the toast.
	ReportPanic func(recovered any, stack []byte) string
	// StaticCursor stops the input cursors from blinking (fewer repaints
	// over slow links, steady screenshots and tests).
	StaticCursor bool
	// Context bounds every command; cancelling it stops work in flight.
	Context context.Context
}

// Context is shared by every screen: options, theme, size and who is
// signed in. Screens read it; only the root changes it.
type Context struct {
	Options
	Theme   *Theme
	Session Session
	Width   int
	Height  int
}

// NewContext fills the defaults of opt.
func NewContext(opt Options) *Context {
	if opt.Now == nil {
		opt.Now = time.Now
	}
	if opt.Context == nil {
		opt.Context = context.Background()
	}
	if opt.DownloadDir == "" {
		opt.DownloadDir = DownloadDir()
	}
	return &Context{Options: opt, Theme: NewTheme(opt.NoColor), Width: 80, Height: 24}
}

// Task runs fn as a command bracketed by TaskBeginMsg/TaskEndMsg so the
// root can show a spinner while work is in flight; a panic inside fn
// becomes an error toast (with a report file) instead of killing the
// program. The root routes the result to the screen that started it.
func (c *Context) Task(label string, fn func(ctx context.Context) tea.Msg) tea.Cmd {
	ctx, report := c.Context, c.ReportPanic
	return tea.Sequence(
		func() tea.Msg { return TaskBeginMsg{Label: label} },
		func() (msg tea.Msg) {
			defer func() {
				if r := recover(); r != nil {
					where := "the log"
					if report != nil {
						where = report(r, debug.Stack())
					}
					msg = TaskEndMsg{Label: label, Inner: ToastMsg{Err: true,
						Text: fmt.Sprintf("%s failed unexpectedly (report: %s)", label, where)}}
				}
			}()
			return TaskEndMsg{Label: label, Inner: fn(ctx)}
		},
	)
}
