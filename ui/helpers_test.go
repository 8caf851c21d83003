package ui

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/bubbles/spinner"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/harkhq/hark/client"
	"github.com/harkhq/hark/server/speechworker"
)

func TestMain(m *testing.M) {
	speechworker.RunIfWorker() // the platforms of these tests run their speech workers from this binary
	lipgloss.SetColorProfile(termenv.Ascii)
	os.Exit(m.Run())
}

// fixedNow is the clock of every test: goldens must not move.
var fixedNow = time.Date(2026, 3, 14, 9, 30, 0, 0, time.UTC)

// fakePlatform answers fixed JSON for the routes a test sets, and records
// the requests, so screens can be drawn from data that never changes.
type fakePlatform struct {
	mu       sync.Mutex
	routes   map[string]http.HandlerFunc
	requests []*http.Request
	srv      *httptest.Server
}

func newFakePlatform(t *testing.T) *fakePlatform {
	f := &fakePlatform{routes: map[string]http.HandlerFunc{}}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.requests = append(f.requests, r.Clone(context.Background()))
		h := f.routes[r.Method+" "+r.URL.Path]
		f.mu.Unlock()
		if h == nil {
			w.WriteHeader(404)
			json.NewEncoder(w).Encode(map[string]string{"code": "EntityNotFound", "description": "no such endpoint: " + r.URL.Path})
			return
		}
		h(w, r)
	}))
	t.Cleanup(f.srv.Close)
	return f
}

// json sets a route answering status and body (marshalled unless a string).
func (f *fakePlatform) json(route string, status int, body any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.routes[route] = func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		if s, ok := body.(string); ok {
			w.Write([]byte(s))
			return
		}
		json.NewEncoder(w).Encode(body)
	}
}

func (f *fakePlatform) handle(route string, h http.HandlerFunc) {
	f.mu.Lock()
	f.routes[route] = h
	f.mu.Unlock()
}

func (f *fakePlatform) seen(route string) []*http.Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []*http.Request
	for _, r := range f.requests {
		if r.Method+" "+r.URL.Path == route {
			out = append(out, r)
		}
	}
	return out
}

func (f *fakePlatform) client(t *testing.T) *client.Client {
	c, err := client.New(client.Config{BaseURL: f.srv.URL + "/v2", PublicKey: "pk", PrivateKey: "sk", MaxRetries: -1, TimeZone: "UTC"})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// memSessions is a SessionStore in memory.
type memSessions struct {
	mu    sync.Mutex
	saved []Session
	clear int
	id    string
}

func (m *memSessions) Save(s Session) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.saved = append(m.saved, s)
	return nil
}
func (m *memSessions) Clear() error { m.mu.Lock(); m.clear++; m.mu.Unlock(); return nil }
func (m *memSessions) ExternalID() (string, error) {
	if m.id == "" {
		m.id = "hark-test-device"
	}
	return m.id, nil
}

func testOptions(c *client.Client, signedIn bool) Options {
	o := Options{Client: c, Sessions: &memSessions{}, Platform: "test platform", Now: func() time.Time { return fixedNow },
		DownloadDir: "/home/ann/Downloads", NoColor: true, StaticCursor: true}
	if signedIn {
		o.Session = &Session{Token: "tok", Name: "Ann", Email: "ann@example.com"}
	}
	return o
}

// drive runs cmd and feeds its messages back into the model until no
// command is left (bounded), the way the program would, without a
// terminal. Ticks (blink, spinner, toast expiry) are dropped.
func drive(t *testing.T, m tea.Model, cmd tea.Cmd) {
	t.Helper()
	queue := []tea.Cmd{cmd}
	for steps := 0; len(queue) > 0; steps++ {
		if steps > 500 {
			t.Fatal("commands did not settle")
		}
		c := queue[0]
		queue = queue[1:]
		if c == nil {
			continue
		}
		msg := runCmd(c)
		switch msg := msg.(type) {
		case nil:
		case tea.BatchMsg:
			queue = append(queue, msg...)
		case sequenceMsg:
			queue = append(queue, msg...)
		default:
			if isTick(msg) {
				continue
			}
			_, next := m.Update(msg)
			queue = append(queue, next)
		}
	}
}

type sequenceMsg []tea.Cmd

// runCmd runs c with a bound, unpacking tea.Sequence (whose message type
// is private) through reflection-free means: Sequence returns a func that
// yields a sequenceMsg-like slice we can't name, so we detect it by kind.
func runCmd(c tea.Cmd) tea.Msg {
	done := make(chan tea.Msg, 1)
	go func() { done <- c() }()
	select {
	case m := <-done:
		if cmds, ok := asCmdSlice(m); ok {
			return sequenceMsg(cmds)
		}
		return m
	case <-time.After(10 * time.Second):
		return nil
	}
}

var cmdType = reflect.TypeOf(tea.Cmd(nil))

// asCmdSlice unpacks tea.Sequence's private message ([]tea.Cmd underneath).
func asCmdSlice(m tea.Msg) ([]tea.Cmd, bool) {
	v := reflect.ValueOf(m)
	if !v.IsValid() || v.Kind() != reflect.Slice || v.Type().Elem() != cmdType {
		return nil, false
	}
	return v.Convert(reflect.TypeOf([]tea.Cmd(nil))).Interface().([]tea.Cmd), true
}

func isTick(m tea.Msg) bool {
	switch m.(type) {
	case spinner.TickMsg, toastExpiredMsg:
		return true
	}
	return reflect.TypeOf(m).PkgPath() == "github.com/charmbracelet/bubbles/cursor"
}

// newTestApp is an App sized w x h whose toasts expire at once.
func newTestApp(t *testing.T, opt Options, w, h int) *App {
	a := New(opt)
	a.toastLife = time.Millisecond
	a.Update(tea.WindowSizeMsg{Width: w, Height: h})
	return a
}

func keys(s string) tea.KeyMsg { return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)} }

// press sends a key by name ("enter", "alt+s", "ctrl+n", "x").
func press(t *testing.T, m tea.Model, name string) {
	t.Helper()
	_, cmd := m.Update(keyMsg(name))
	drive(t, m, cmd)
}

func keyMsg(name string) tea.KeyMsg {
	alt := false
	if strings.HasPrefix(name, "alt+") {
		alt, name = true, strings.TrimPrefix(name, "alt+")
	}
	for kt, n := range keyNames {
		if n == name {
			return tea.KeyMsg{Type: kt, Alt: alt}
		}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(name), Alt: alt}
}

var keyNames = map[tea.KeyType]string{
	tea.KeyEnter: "enter", tea.KeyEsc: "esc", tea.KeyTab: "tab", tea.KeyShiftTab: "shift+tab",
	tea.KeyUp: "up", tea.KeyDown: "down", tea.KeyLeft: "left", tea.KeyRight: "right",
	tea.KeyBackspace: "backspace", tea.KeyCtrlN: "ctrl+n", tea.KeyCtrlC: "ctrl+c", tea.KeySpace: " ",
	tea.KeyPgDown: "pgdown", tea.KeyPgUp: "pgup", tea.KeyEnd: "end", tea.KeyHome: "home", tea.KeyF1: "f1",
}

// typeText types s into the model one rune at a time.
func typeText(t *testing.T, m tea.Model, s string) {
	for _, r := range s {
		_, cmd := m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
		drive(t, m, cmd)
	}
}
