package ui

import (
	"bytes"
	"fmt"
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
	setup    func(f *fakePlatform)
	// steps drive the program; each wait names text that must be on screen
	// before the next step.
	steps func(t *testing.T, tm *teatest.TestModel)
}

func waitFor(t *testing.T, tm *teatest.TestModel, text string) {
	t.Helper()
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte(text)) },
		teatest.WithDuration(10*time.Second), teatest.WithCheckInterval(5*time.Millisecond))
}

func send(tm *teatest.TestModel, names ...string) {
	for _, n := range names {
		tm.Send(keyMsg(n))
	}
}

func storageFixture(f *fakePlatform) {
	mod := fixedNow.Add(-26 * time.Hour).UnixMilli()
	f.json("GET /v2/storage/folder/list", 200, []string{"reports", "photos"})
	f.json("GET /v2/storage/file/list", 200, []map[string]any{
		{"name": "readme.md", "size": 1234, "lastModified": mod},
		{"name": "movies.csv", "size": 5 << 20, "lastModified": mod + 3600e3},
	})
	f.json("GET /v2/storage/total-size", 200, 5<<20+1234+987654)
}

var goldenScreens = []goldenScreen{
	{name: "signin", steps: func(t *testing.T, tm *teatest.TestModel) {
		waitFor(t, tm, "E-mail")
	}},
	{name: "signin-register-error", setup: func(f *fakePlatform) {
		f.json("POST /v2/auth/register", 409, map[string]string{"code": "Conflict", "description": "exists"})
	}, steps: func(t *testing.T, tm *teatest.TestModel) {
		send(tm, "ctrl+n")
		tm.Type("ann@example.com")
		send(tm, "tab")
		tm.Type("long enough")
		send(tm, "enter")
		waitFor(t, tm, "already exists")
	}},
	{name: "onboarding-ack", signedIn: true, setup: func(f *fakePlatform) { onboardingFlow(f, new([]map[string]string)) },
		steps: func(t *testing.T, tm *teatest.TestModel) {
			tm.Send(openScreenMsg{id: screenOnboarding})
			waitFor(t, tm, "I accept")
		}},
	{name: "onboarding-input-refused", signedIn: true, setup: func(f *fakePlatform) { onboardingFlow(f, new([]map[string]string)) },
		steps: func(t *testing.T, tm *teatest.TestModel) {
			tm.Send(openScreenMsg{id: screenOnboarding})
			waitFor(t, tm, "I accept")
			send(tm, "enter")
			waitFor(t, tm, "call you")
			tm.Type(strings.Repeat("z", 45))
			send(tm, "enter")
			waitFor(t, tm, "not accepted")
		}},
	{name: "onboarding-selection-permission-survey", signedIn: true, setup: func(f *fakePlatform) { onboardingFlow(f, new([]map[string]string)) },
		steps: func(t *testing.T, tm *teatest.TestModel) {
			tm.Send(openScreenMsg{id: screenOnboarding})
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
	{name: "console", signedIn: true, setup: answerWith, steps: func(t *testing.T, tm *teatest.TestModel) {
		tm.Type("wake me at 7")
		send(tm, "enter")
		waitFor(t, tm, "SET_ALARM")
		tm.Type("and tomorrow?")
	}},
	{name: "storage", signedIn: true, setup: storageFixture, steps: func(t *testing.T, tm *teatest.TestModel) {
		send(tm, "alt+s")
		waitFor(t, tm, "movies.csv")
		send(tm, "down", "down", "down")
	}},
	{name: "storage-confirm-delete", signedIn: true, setup: storageFixture, steps: func(t *testing.T, tm *teatest.TestModel) {
		send(tm, "alt+s")
		waitFor(t, tm, "movies.csv")
		send(tm, "down", "down", " ", " ", "x")
		waitFor(t, tm, "[y/N]")
	}},
	{name: "storage-full-help", signedIn: true, setup: storageFixture, steps: func(t *testing.T, tm *teatest.TestModel) {
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
				f := newFakePlatform(t)
				if sc.setup != nil {
					sc.setup(f)
				}
				app := New(testOptions(f.client(t), sc.signedIn))
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
