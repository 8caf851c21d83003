package ui

import (
	"bytes"
	"fmt"
	"github.com/harkhq/hark/ui/common"
	"github.com/harkhq/hark/ui/internal/uitest"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest"
)

// goldenScreen is one screen state drawn at every size.
type goldenScreen struct {
	name     string
	signedIn bool
	setup    func(f *uitest.FakePlatform)
	// steps drive the program; each wait names text that must be on screen
	// before the next step.
	steps func(t *testing.T, tm *teatest.TestModel)
}

func waitFor(t *testing.T, tm *teatest.TestModel, text string) {
	t.Helper()
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte(text)) },
		teatest.WithDuration(30*time.Second), teatest.WithCheckInterval(5*time.Millisecond)) // a bound for a loaded machine under -race, not a timing
}

func send(tm *teatest.TestModel, names ...string) {
	for _, n := range names {
		tm.Send(keyMsg(n))
	}
}

var goldenScreens = []goldenScreen{
	{name: "places", signedIn: true, setup: uitest.PlacesFixture, steps: func(t *testing.T, tm *teatest.TestModel) {
		send(tm, "alt+p")
		waitFor(t, tm, "visits")
	}},
	{name: "recomm-empty", signedIn: true, setup: uitest.RecommEmptyFixture, steps: func(t *testing.T, tm *teatest.TestModel) {
		send(tm, "alt+r")
		waitFor(t, tm, "sample")
	}},
	{name: "recomm-titled", signedIn: true, setup: uitest.RecommFixture, steps: func(t *testing.T, tm *teatest.TestModel) {
		send(tm, "alt+r")
		waitFor(t, tm, "books")
		send(tm, "down", "enter")
		waitFor(t, tm, "Braveheart")
		send(tm, "enter") // the detail over the whole width, loaded
		waitFor(t, tm, "More like this")
		send(tm, "esc") // the list, and beside it on wide terminals the detail pane
		waitFor(t, tm, "Braveheart")
	}},
	{name: "recomm-side-by-side", signedIn: true, setup: uitest.RecommFixture, steps: func(t *testing.T, tm *teatest.TestModel) {
		send(tm, "alt+r")
		waitFor(t, tm, "books")
		send(tm, "down", "enter")
		waitFor(t, tm, "Braveheart")
		send(tm, "tab")
		waitFor(t, tm, "> 7")
		send(tm, "enter")
		waitFor(t, tm, "History")
		send(tm, "tab", "tab")
		waitFor(t, tm, "in common")
	}},
	{name: "items-movies", signedIn: true, setup: uitest.ItemsFixture, steps: func(t *testing.T, tm *teatest.TestModel) {
		send(tm, "alt+i")
		waitFor(t, tm, "Castro")
	}},
	{name: "items-restaurants", signedIn: true, setup: uitest.ItemsFixture, steps: func(t *testing.T, tm *teatest.TestModel) {
		send(tm, "alt+i")
		waitFor(t, tm, "Castro")
		send(tm, "tab")
		waitFor(t, tm, "Tartine")
	}},
	{name: "items-weather", signedIn: true, setup: uitest.ItemsFixture, steps: func(t *testing.T, tm *teatest.TestModel) {
		send(tm, "alt+i")
		waitFor(t, tm, "Castro")
		send(tm, "shift+tab", "shift+tab", "shift+tab", "shift+tab", "shift+tab", "shift+tab", "shift+tab", "shift+tab", "shift+tab", "shift+tab")
		waitFor(t, tm, "sunrise")
	}},
	{name: "surveys", signedIn: true, setup: uitest.ItemsFixture, steps: func(t *testing.T, tm *teatest.TestModel) {
		send(tm, "alt+u")
		waitFor(t, tm, "Cuisine")
		send(tm, "enter")
		waitFor(t, tm, "Politics")
		send(tm, "down", " ")
		waitFor(t, tm, "not saved")
	}},
	{name: "signin", steps: func(t *testing.T, tm *teatest.TestModel) {
		waitFor(t, tm, "E-mail")
	}},
	{name: "signin-register-error", setup: func(f *uitest.FakePlatform) {
		f.JSON("POST /v2/auth/register", 409, map[string]string{"code": "Conflict", "description": "exists"})
	}, steps: func(t *testing.T, tm *teatest.TestModel) {
		send(tm, "ctrl+n")
		tm.Type("ann@example.com")
		send(tm, "tab")
		tm.Type("long enough")
		send(tm, "enter")
		waitFor(t, tm, "already exists")
	}},
	{name: "onboarding-ack", signedIn: true, setup: func(f *uitest.FakePlatform) { uitest.OnboardingFlow(f, new([]map[string]string)) },
		steps: func(t *testing.T, tm *teatest.TestModel) {
			tm.Send(common.OpenScreenMsg{ID: common.ScreenOnboarding})
			waitFor(t, tm, "I accept")
		}},
	{name: "onboarding-input-refused", signedIn: true, setup: func(f *uitest.FakePlatform) { uitest.OnboardingFlow(f, new([]map[string]string)) },
		steps: func(t *testing.T, tm *teatest.TestModel) {
			tm.Send(common.OpenScreenMsg{ID: common.ScreenOnboarding})
			waitFor(t, tm, "I accept")
			send(tm, "enter")
			waitFor(t, tm, "call you")
			tm.Type(strings.Repeat("z", 45))
			send(tm, "enter")
			waitFor(t, tm, "not accepted")
		}},
	{name: "onboarding-selection-permission-survey", signedIn: true, setup: func(f *uitest.FakePlatform) { uitest.OnboardingFlow(f, new([]map[string]string)) },
		steps: func(t *testing.T, tm *teatest.TestModel) {
			tm.Send(common.OpenScreenMsg{ID: common.ScreenOnboarding})
			waitFor(t, tm, "I accept")
			send(tm, "enter")
			waitFor(t, tm, "call you")
			tm.Type("Zed")
			send(tm, "enter")
			waitFor(t, tm, "Imperial")
			send(tm, "enter")
			waitFor(t, tm, "Notifications:")
			send(tm, "down", " ", "enter")
			waitFor(t, tm, "Science")
			send(tm, "down", "down", " ")
			waitFor(t, tm, "2 chosen")
		}},
	{name: "console", signedIn: true, setup: uitest.AnswerWith, steps: func(t *testing.T, tm *teatest.TestModel) {
		tm.Type("wake me at 7")
		send(tm, "enter")
		waitFor(t, tm, "not carried out")
		tm.Type("and tomorrow?")
	}},
	{name: "console-explain", signedIn: true, setup: uitest.AnswerWith, steps: func(t *testing.T, tm *teatest.TestModel) {
		send(tm, "alt+e")
		tm.Type("wak me at 7")
		send(tm, "enter")
		waitFor(t, tm, "wake me at {time}")
	}},
	{name: "storage", signedIn: true, setup: uitest.StorageFixture, steps: func(t *testing.T, tm *teatest.TestModel) {
		send(tm, "alt+s")
		waitFor(t, tm, "movies.csv")
		send(tm, "down", "down", "down")
	}},
	{name: "storage-confirm-delete", signedIn: true, setup: uitest.StorageFixture, steps: func(t *testing.T, tm *teatest.TestModel) {
		send(tm, "alt+s")
		waitFor(t, tm, "movies.csv")
		send(tm, "down", "down", " ", " ", "x")
		waitFor(t, tm, "[y/N]")
	}},
	{name: "console-help", signedIn: true, setup: uitest.AnswerWith, steps: func(t *testing.T, tm *teatest.TestModel) {
		send(tm, "?")
		waitFor(t, tm, "esc or ? closes")
	}},
	{name: "items-help", signedIn: true, setup: uitest.ItemsFixture, steps: func(t *testing.T, tm *teatest.TestModel) {
		send(tm, "alt+i")
		waitFor(t, tm, "Castro")
		send(tm, "f1")
		waitFor(t, tm, "esc or ? closes")
	}},
	{name: "storage-full-help", signedIn: true, setup: uitest.StorageFixture, steps: func(t *testing.T, tm *teatest.TestModel) {
		send(tm, "alt+s")
		waitFor(t, tm, "movies.csv")
		send(tm, "?")
		waitFor(t, tm, "clear all")
	}},
}

// TestGolden draws every screen at 80x24 and 120x40 with the ASCII
// profile and compares with testdata (go test ./ui -run Golden -update).
func TestGolden(t *testing.T) {
	for _, sc := range goldenScreens {
		for _, size := range [][2]int{{80, 24}, {120, 40}} {
			t.Run(fmt.Sprintf("%s/%dx%d", sc.name, size[0], size[1]), func(t *testing.T) {
				f := uitest.NewFakePlatform(t)
				if sc.setup != nil {
					sc.setup(f)
				}
				app := New(testOptions(f.Client(t), sc.signedIn))
				tm := teatest.NewTestModel(t, app, teatest.WithInitialTermSize(size[0], size[1]))
				sc.steps(t, tm)
				// A final no-op round trip so every message sent is handled.
				tm.Send(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
				if err := tm.Quit(); err != nil {
					t.Fatal(err)
				}
				final := tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second)).(*App)
				final.hasToast = false // toasts come and go with time
				golden.RequireEqual(t, []byte(final.View()))
			})
		}
	}
}

// TestEveryScreenFitsANarrowTerminal draws every screen at 40x12 (narrower
// than the 80 columns it is designed for): nothing may spill over.
func TestEveryScreenFitsANarrowTerminal(t *testing.T) {
	f := uitest.NewFakePlatform(t)
	uitest.StorageFixture(f)
	uitest.ItemsFixture(f)
	uitest.RecommFixture(f)
	uitest.AnswerWith(f)
	a := newTestApp(t, testOptions(f.Client(t), true), 40, 12)
	typeText(t, a, "a question long enough to wrap around twice at least")
	press(t, a, "enter")
	for _, k := range []string{"alt+c", "alt+s", "alt+i", "tab", "tab", "tab", "tab", "tab", "alt+u", "alt+r", "alt+p", "f1"} {
		press(t, a, k)
		v := a.View()
		lines := strings.Split(v, "\n")
		if len(lines) > 12+6 { // the full help may add rows; the body shrinks to one line
			t.Errorf("after %s: %d lines", k, len(lines))
		}
		for _, l := range lines {
			if w := common.CellWidth(l); w > 40 {
				t.Errorf("after %s (%s): a line of %d cells: %q", k, screenTitles[a.active], w, l)
				break
			}
		}
	}
}
