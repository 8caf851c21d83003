package ui

import (
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/harkhq/hark/client"
	"github.com/harkhq/hark/ui/internal/uitest"
)

func TestMain(m *testing.M) { uitest.Main(m) }

var fixedNow = uitest.FixedNow

func testOptions(c *client.Client, signedIn bool) Options {
	o := Options{Client: c, Sessions: &uitest.MemSessions{}, Platform: "test platform", Now: func() time.Time { return fixedNow },
		DownloadDir: "/home/ann/Downloads", NoColor: true, StaticCursor: true}
	if signedIn {
		o.Session = &Session{Token: "tok", Name: "Ann", Email: "ann@example.com"}
	}
	return o
}

// newTestApp is an App sized w x h whose toasts expire at once.
func newTestApp(t *testing.T, opt Options, w, h int) *App {
	a := New(opt)
	a.toastLife = time.Millisecond
	a.Update(tea.WindowSizeMsg{Width: w, Height: h})
	return a
}

func press(t *testing.T, m tea.Model, name string) { t.Helper(); uitest.Press(t, m, name) }
func keyMsg(name string) tea.KeyMsg                { return uitest.KeyMsg(name) }
func typeText(t *testing.T, m tea.Model, s string) { uitest.TypeText(t, m, s) }
func drive(t testing.TB, m tea.Model, cmd tea.Cmd) { t.Helper(); uitest.Drive(t, m, cmd) }
