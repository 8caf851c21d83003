// Package uitest holds what the console's tests share: a fake platform
// with fixed answers, a real in-process one, a host that plays the root's
// part for one screen, and helpers to drive a model the way the program
// does without a terminal.
package uitest

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/bubbles/spinner"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/harkhq/hark/client"
	"github.com/harkhq/hark/ui/common"
)

// FixedNow is the clock of every test: goldens must not move.
var FixedNow = time.Date(2026, 3, 14, 9, 30, 0, 0, time.UTC)

// FakePlatform answers fixed JSON for the routes a test sets, and records
// the requests, so screens can be drawn from data that never changes.
type FakePlatform struct {
	mu       sync.Mutex
	routes   map[string]http.HandlerFunc
	requests []*http.Request
	srv      *httptest.Server
}

func NewFakePlatform(t testing.TB) *FakePlatform {
	f := &FakePlatform{routes: map[string]http.HandlerFunc{}}
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
func (f *FakePlatform) JSON(route string, status int, body any) {
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

func (f *FakePlatform) Handle(route string, h http.HandlerFunc) {
	f.mu.Lock()
	f.routes[route] = h
	f.mu.Unlock()
}

func (f *FakePlatform) Seen(route string) []*http.Request {
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

func (f *FakePlatform) Client(t testing.TB) *client.Client {
	c, err := client.New(client.Config{BaseURL: f.srv.URL + "/v2", PublicKey: "pk", PrivateKey: "sk", MaxRetries: -1, TimeZone: "UTC"})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// MemSessions is a common.SessionStore in memory.
type MemSessions struct {
	mu      sync.Mutex
	Saved   []common.Session
	Cleared int
	ID      string
}

func (m *MemSessions) Save(s common.Session) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.Saved = append(m.Saved, s)
	return nil
}
func (m *MemSessions) Clear() error { m.mu.Lock(); m.Cleared++; m.mu.Unlock(); return nil }
func (m *MemSessions) ExternalID() (string, error) {
	if m.ID == "" {
		m.ID = "hark-test-device"
	}
	return m.ID, nil
}

// drive runs cmd and feeds its messages back into the model until no
// command is left (bounded), the way the program would, without a
// terminal. Ticks (blink, spinner, toast expiry) are dropped.
func Drive(t testing.TB, m tea.Model, cmd tea.Cmd) {
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
		msg, ok := RunCmd(c)
		if !ok {
			t.Fatalf("a command did not return within %v", cmdWait)
		}
		switch msg := msg.(type) {
		case nil:
		case tea.BatchMsg:
			queue = append(queue, msg...)
		case sequenceMsg:
			queue = append(queue, msg...)
		default:
			if IsTick(msg) {
				continue
			}
			_, next := m.Update(msg)
			queue = append(queue, next)
		}
	}
}

type sequenceMsg []tea.Cmd

// cmdWait is how long a command may take. No screen's command blocks for good, so reaching it is a
// failure; it is generous because a loaded 2-core machine running the race detector makes a
// request that takes a fraction of a second take several (loading the sample catalog took 6 s).
const cmdWait = 2 * time.Minute

// RunCmd runs c, waiting at most cmdWait (ok false then), and unpacks tea.Sequence, whose message
// type is private (its slice of commands is recognised by kind, see AsCmdSlice).
func RunCmd(c tea.Cmd) (tea.Msg, bool) {
	done := make(chan tea.Msg, 1)
	go func() { done <- c() }()
	select {
	case m := <-done:
		if cmds, ok := AsCmdSlice(m); ok {
			return sequenceMsg(cmds), true
		}
		return m, true
	case <-time.After(cmdWait):
		return nil, false
	}
}

var cmdType = reflect.TypeOf(tea.Cmd(nil))

// AsCmdSlice unpacks tea.Sequence's private message ([]tea.Cmd underneath).
func AsCmdSlice(m tea.Msg) ([]tea.Cmd, bool) {
	v := reflect.ValueOf(m)
	if !v.IsValid() || v.Kind() != reflect.Slice || v.Type().Elem() != cmdType {
		return nil, false
	}
	return v.Convert(reflect.TypeOf([]tea.Cmd(nil))).Interface().([]tea.Cmd), true
}

func IsTick(m tea.Msg) bool {
	if w, ok := m.(interface{ Unwrap() tea.Msg }); ok {
		m = w.Unwrap()
	}
	switch m.(type) {
	case spinner.TickMsg, common.ToastExpiredMsg:
		return true
	}
	return reflect.TypeOf(m).PkgPath() == "github.com/charmbracelet/bubbles/cursor"
}

func Keys(s string) tea.KeyMsg { return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)} }

// press sends a key by name ("enter", "alt+s", "ctrl+n", "x").
func Press(t testing.TB, m tea.Model, name string) {
	t.Helper()
	_, cmd := m.Update(KeyMsg(name))
	Drive(t, m, cmd)
}

func KeyMsg(name string) tea.KeyMsg {
	alt := false
	if strings.HasPrefix(name, "alt+") {
		alt, name = true, strings.TrimPrefix(name, "alt+")
	}
	for kt, n := range KeyNames {
		if n == name {
			return tea.KeyMsg{Type: kt, Alt: alt}
		}
	}
	// Any other named key ("ctrl+t", "f2"), as the terminal reader reports
	// it: bubbletea's key types run from about -100 to 127.
	for kt := tea.KeyType(-200); kt < 128; kt++ {
		if kt != tea.KeyRunes && kt.String() == name {
			return tea.KeyMsg{Type: kt, Alt: alt}
		}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(name), Alt: alt}
}

var KeyNames = map[tea.KeyType]string{
	tea.KeyEnter: "enter", tea.KeyEsc: "esc", tea.KeyTab: "tab", tea.KeyShiftTab: "shift+tab",
	tea.KeyUp: "up", tea.KeyDown: "down", tea.KeyLeft: "left", tea.KeyRight: "right",
	tea.KeyBackspace: "backspace", tea.KeyCtrlN: "ctrl+n", tea.KeyCtrlC: "ctrl+c", tea.KeySpace: " ",
	tea.KeyPgDown: "pgdown", tea.KeyPgUp: "pgup", tea.KeyEnd: "end", tea.KeyHome: "home", tea.KeyF1: "f1",
}

// typeText types s into the model one rune at a time.
func TypeText(t testing.TB, m tea.Model, s string) {
	for _, r := range s {
		_, cmd := m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
		Drive(t, m, cmd)
	}
}
