package actions

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// start is the fake clock's start: Tue 10 Mar 2026 09:00 UTC.
var start = time.Date(2026, 3, 10, 9, 0, 0, 0, time.UTC)

type recordingOpener struct {
	mu   sync.Mutex
	urls []string
	apps []string
	err  error
}

func (o *recordingOpener) OpenURL(_ context.Context, u string) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.urls = append(o.urls, u)
	return o.err
}

func (o *recordingOpener) OpenApp(_ context.Context, name string) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.apps = append(o.apps, name)
	return o.err
}

func (o *recordingOpener) calls() (urls, apps []string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]string(nil), o.urls...), append([]string(nil), o.apps...)
}

type notification struct{ title, body string }

type recordingNotifier struct {
	mu   sync.Mutex
	sent []notification
}

func (n *recordingNotifier) Notify(_ context.Context, title, body string) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.sent = append(n.sent, notification{title, body})
	return nil
}

func (n *recordingNotifier) all() []notification {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]notification(nil), n.sent...)
}

type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

type fakePlayer struct {
	mu      sync.Mutex
	track   Track
	volume  int
	plays   int
	playErr error
}

func (p *fakePlayer) Play(_ context.Context, url, title, artist string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.playErr != nil {
		return p.playErr
	}
	p.plays++
	p.track = Track{URL: url, Title: title, Artist: artist, Playing: true}
	return nil
}

func (p *fakePlayer) Pause() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.track.Paused = true
	return nil
}

func (p *fakePlayer) Resume() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.track.Paused = false
	return nil
}

func (p *fakePlayer) Stop() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.track = Track{}
	return nil
}

func (p *fakePlayer) SetVolume(v int) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if v < 0 || v > 100 {
		return errors.New("volume out of range")
	}
	p.volume = v
	return nil
}

func (p *fakePlayer) NowPlaying() Track {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.track
}

func (p *fakePlayer) state() (Track, int, int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.track, p.volume, p.plays
}

// rig is a registry with every surrounding faked.
type rig struct {
	*Registry
	clock    *ManualClock
	opener   *recordingOpener
	notifier *recordingNotifier
	bell     *lockedBuffer
	player   *fakePlayer
	path     string
}

func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// newRig builds a registry at start; path "" keeps state in memory, "tmp" puts it in a
// fresh temporary directory.
func newRig(t *testing.T, path string) *rig {
	t.Helper()
	if path == "tmp" {
		path = filepath.Join(t.TempDir(), "hark", "schedule.json")
	}
	return openRig(t, path, NewManualClock(start))
}

func openRig(t *testing.T, path string, clock *ManualClock) *rig {
	t.Helper()
	g := &rig{clock: clock, opener: &recordingOpener{}, notifier: &recordingNotifier{},
		bell: &lockedBuffer{}, player: &fakePlayer{}, path: path}
	r, err := New(Config{StatePath: path, Clock: clock, Player: g.player, Opener: g.opener,
		Notifier: g.notifier, Bell: g.bell, Location: time.UTC, Logger: quietLogger(), EventBuffer: 256})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(r.Close)
	g.Registry = r
	return g
}

func (g *rig) do(t *testing.T, code, data string) Outcome {
	t.Helper()
	var raw json.RawMessage
	if data != "" {
		raw = json.RawMessage(data)
	}
	return g.Dispatch(context.Background(), Action{Code: code, Data: raw}, 42)
}

// drain returns the events waiting, without blocking.
func (g *rig) drain() []Event {
	var out []Event
	for {
		select {
		case ev, ok := <-g.Events():
			if !ok {
				return out
			}
			out = append(out, ev)
		default:
			return out
		}
	}
}

func ringing(evs []Event) []Event {
	var out []Event
	for _, ev := range evs {
		if ev.Rings() {
			out = append(out, ev)
		}
	}
	return out
}

func ms(t time.Time) string { return strconv.Quote(strconv.FormatInt(t.UnixMilli(), 10)) }
