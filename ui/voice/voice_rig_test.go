package voice

import (
	"context"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/bubbles/spinner"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/harkhq/hark/actions"
)

// rig drives an App the way the program does, commands running concurrently and their
// messages applied one at a time in the test's goroutine, so that voice paths (recordings,
// uploads, playbacks, action events) run as they would on a terminal. Ticks of the spinner
// and the cursor are dropped; every wait is bounded.
type rig struct {
	t    testing.TB
	app  *app
	msgs chan tea.Msg
	mu   sync.Mutex
	seen []tea.Msg // the alarm tones started, for the tests
}

func newRig(t testing.TB, opt Options) *rig {
	a := &app{c: newConsole(opt)}
	r := &rig{t: t, app: a, msgs: make(chan tea.Msg, 256)}
	r.run(a.c.Init())
	return r
}

func (r *rig) console() *console { return r.app.c }

func (r *rig) run(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	go func() { r.deliver(cmd()) }()
}

func (r *rig) deliver(msg tea.Msg) {
	switch m := msg.(type) {
	case nil:
		return
	case tea.BatchMsg:
		for _, c := range m {
			r.run(c)
		}
		return
	case spinner.TickMsg:
		return
	}
	if cmds, ok := asCmdSlice(msg); ok { // tea.Sequence: in order, in this goroutine
		for _, c := range cmds {
			if c != nil {
				r.deliver(c())
			}
		}
		return
	}
	if reflect.TypeOf(msg).PkgPath() == "github.com/charmbracelet/bubbles/cursor" {
		return
	}
	r.msgs <- msg
}

// update applies a message (a key, say) as the program would.
func (r *rig) update(msg tea.Msg) {
	if _, ok := msg.(toneMsg); ok {
		r.mu.Lock()
		r.seen = append(r.seen, msg)
		r.mu.Unlock()
	}
	_, cmd := r.app.Update(msg)
	r.run(cmd)
}

func (r *rig) key(name string) { r.update(keyMsg(name)) }

func (r *rig) ctrl(name string) {
	for kt, n := range map[tea.KeyType]string{tea.KeyCtrlT: "ctrl+t", tea.KeyCtrlR: "ctrl+r", tea.KeyCtrlG: "ctrl+g",
		tea.KeyCtrlP: "ctrl+p", tea.KeyCtrlX: "ctrl+x", tea.KeyEsc: "esc", tea.KeyEnter: "enter"} {
		if n == name {
			r.update(tea.KeyMsg{Type: kt})
			return
		}
	}
	r.t.Fatalf("rig: no key %q", name)
}

// until applies messages until cond holds, failing after within.
func (r *rig) until(what string, within time.Duration, cond func() bool) {
	r.t.Helper()
	deadline := time.NewTimer(within)
	defer deadline.Stop()
	for !cond() {
		select {
		case m := <-r.msgs:
			r.update(m)
		case <-deadline.C:
			r.t.Fatalf("%s: not within %v; screen:\n%s", what, within, r.app.View())
		}
	}
}

// settle applies messages for d (ticks keep coming, so there is no "idle").
func (r *rig) settle(d time.Duration) {
	end := time.After(d)
	for {
		select {
		case m := <-r.msgs:
			r.update(m)
		case <-end:
			return
		}
	}
}

func (r *rig) view() string { return r.app.View() }

func (r *rig) hasToast(part string) bool {
	return r.app.hasToast && strings.Contains(r.app.toast.Text, part)
}

// desktop is a Notifier and an Opener that keep what they were asked.
type desktop struct{ notes }

func (d *desktop) Notify(_ context.Context, title, body string) error {
	d.add("notify " + title + ": " + body)
	return nil
}

func (d *desktop) OpenURL(_ context.Context, url string) error { d.add("open " + url); return nil }

func (d *desktop) OpenApp(_ context.Context, name string) error { d.add("app " + name); return nil }

type notes struct {
	mu  sync.Mutex
	got []string
}

func (n *notes) add(s string) {
	n.mu.Lock()
	n.got = append(n.got, s)
	n.mu.Unlock()
}

func (n *notes) list() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]string(nil), n.got...)
}

// bell is a concurrency-safe io.Writer for the registry's bell.
type bell struct{ notes }

func (b *bell) Write(p []byte) (int, error) { b.add(string(p)); return len(p), nil }

// testRegistry is a registry on a manual clock with a fake desktop, its state in a temp dir.
func testRegistry(t testing.TB, clock *actions.ManualClock, player actions.Player) (*actions.Registry, *desktop, *bell) {
	t.Helper()
	d, b := &desktop{}, &bell{}
	reg, err := actions.New(actions.Config{StatePath: filepath.Join(t.TempDir(), "schedule.json"), Clock: clock,
		Player: player, Opener: d, Notifier: d, Bell: b, Location: time.UTC})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(reg.Close)
	return reg, d, b
}
