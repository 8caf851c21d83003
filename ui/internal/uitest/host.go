package uitest

import (
	"context"
	"github.com/harkhq/hark/server/speechworker"
	"os"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/harkhq/hark/client"
	"github.com/harkhq/hark/server"
	"github.com/harkhq/hark/server/servertest"
	"github.com/harkhq/hark/ui/common"
)

// Main runs a package's tests with the ASCII colour profile, so views
// compare as text.
func Main(m *testing.M) {
	speechworker.RunIfWorker() // the platforms of these tests run their speech workers from this binary
	lipgloss.SetColorProfile(termenv.Ascii)
	os.Exit(m.Run())
}

// PlatformClient is a client of a real in-process platform.
func PlatformClient(t testing.TB) *client.Client {
	p := servertest.Start(t, server.Config{})
	c, err := client.New(client.Config{BaseURL: p.BaseURL, PublicKey: p.PublicKey, PrivateKey: p.PrivateKey, MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Context is a program context on c, fixed clock, no colour, signed in as
// Ann when signedIn.
func Context(c *client.Client, signedIn bool) *common.Context {
	pc := common.NewContext(common.Options{Client: c, Sessions: &MemSessions{}, Platform: "test platform",
		Now: func() time.Time { return FixedNow }, DownloadDir: "/home/ann/Downloads", NoColor: true, StaticCursor: true})
	if info := c.RequestInfo(); info.Lat == nil {
		common.SetCity(c, common.CityBySlug("san-francisco")) // as the root does on start
	}
	if signedIn {
		pc.Session = common.Session{Token: "tok", Name: "Ann", Email: "ann@example.com"}
		if c.Token() == "" {
			c.SetToken("tok")
		}
	}
	return pc
}

// Screen is what a Host drives: a screen of the console.
type Screen interface {
	tea.Model
	SetSize(w, h int)
}

// Host plays the root's part for one screen: it unwraps task results,
// keeps the toasts and the messages meant for the root, and draws the
// screen with the last toast under it.
type Host struct {
	Screen Screen
	Toasts []common.ToastMsg
	// ToRoot are the other messages for the root (screens opened, sign-ins).
	ToRoot []tea.Msg
	Busy   int
}

// NewHost sizes s to w x h and starts it.
func NewHost(t *testing.T, s Screen, w, h int) *Host {
	hs := &Host{Screen: s}
	s.SetSize(w, h)
	Drive(t, hs, s.Init())
	return hs
}

func (h *Host) Init() tea.Cmd { return nil }

func (h *Host) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case common.TaskBeginMsg:
		h.Busy++
		return h, nil
	case common.TaskEndMsg:
		h.Busy--
		switch inner := msg.Inner.(type) {
		case nil:
			return h, nil
		case tea.BatchMsg:
			return h, tea.Batch(inner...)
		}
		return h.Update(msg.Inner)
	case common.ToastMsg:
		h.Toasts = append(h.Toasts, msg)
		return h, nil
	case common.ClearToastMsg:
		h.Toasts = nil
		return h, nil
	case common.OpenScreenMsg, common.SignedInMsg, common.DisplayNameMsg, common.CityChangedMsg:
		h.ToRoot = append(h.ToRoot, msg)
		return h, nil
	}
	_, cmd := h.Screen.Update(msg)
	return h, cmd
}

// Toast is the last notice, "" when none.
func (h *Host) Toast() string {
	if len(h.Toasts) == 0 {
		return ""
	}
	return h.Toasts[len(h.Toasts)-1].Text
}

// HasToast tells whether a notice containing part was shown.
func (h *Host) HasToast(part string) bool {
	for _, t := range h.Toasts {
		if strings.Contains(t.Text, part) {
			return true
		}
	}
	return false
}

func (h *Host) View() string { return h.Screen.View() + "\n" + h.Toast() }

// Press sends a key by name and runs what follows.
func (h *Host) Press(t *testing.T, names ...string) {
	t.Helper()
	for _, n := range names {
		Press(t, h, n)
	}
}

// Type types s one rune at a time.
func (h *Host) Type(t *testing.T, s string) { TypeText(t, h, s) }

// SignedInClient is a client of a real in-process platform with a new
// account signed in.
func SignedInClient(t testing.TB) *client.Client {
	c := PlatformClient(t)
	tok, err := c.Auth.Register(context.Background(), "ivy@example.com", "correct horse", "Ivy", "hark-test")
	if err != nil {
		t.Fatal(err)
	}
	c.SetToken(tok.Token)
	return c
}
