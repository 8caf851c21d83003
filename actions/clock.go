package actions

import (
	"sort"
	"sync"
	"time"
)

// Clock is the time source of the scheduler; tests pass a ManualClock so that alarms fire
// at once and at exact instants.
type Clock interface {
	Now() time.Time
	// AfterFunc calls f in its own goroutine once d has elapsed, unless stopped first.
	AfterFunc(d time.Duration, f func()) Timer
}

// Timer is a pending AfterFunc call.
type Timer interface {
	// Stop prevents the call; it reports false when the call already happened or began.
	Stop() bool
}

// SystemClock is the real clock.
type SystemClock struct{}

func (SystemClock) Now() time.Time { return time.Now() }

func (SystemClock) AfterFunc(d time.Duration, f func()) Timer { return time.AfterFunc(d, f) }

// ManualClock is a Clock that only moves when told to. Advance runs the calls that fall due,
// in order of their instants, in the caller's goroutine, with Now set to each call's instant:
// when Advance returns, everything due has happened. Safe for concurrent use; meant for tests
// of this package and of the UI.
type ManualClock struct {
	mu     sync.Mutex
	now    time.Time
	seq    int
	timers []*manualTimer
}

// NewManualClock returns a clock standing at now.
func NewManualClock(now time.Time) *ManualClock {
	return &ManualClock{now: now}
}

type manualTimer struct {
	c   *ManualClock
	at  time.Time
	seq int
	f   func()
}

func (c *ManualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *ManualClock) AfterFunc(d time.Duration, f func()) Timer {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seq++
	t := &manualTimer{c: c, at: c.now.Add(d), seq: c.seq, f: f}
	c.timers = append(c.timers, t)
	return t
}

func (t *manualTimer) Stop() bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	for i, x := range t.c.timers {
		if x == t {
			t.c.timers = append(t.c.timers[:i], t.c.timers[i+1:]...)
			return true
		}
	}
	return false
}

// Pending is the number of calls waiting.
func (c *ManualClock) Pending() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.timers)
}

// maxManualSteps bounds one Advance, so a callback that keeps re-arming itself at the same
// instant cannot hang a test.
const maxManualSteps = 1_000_000

// Advance moves the clock forward by d, running every call due on the way.
func (c *ManualClock) Advance(d time.Duration) {
	c.mu.Lock()
	target := c.now.Add(d)
	c.mu.Unlock()
	c.AdvanceTo(target)
}

// AdvanceTo moves the clock to t (never backwards), running every call due on the way.
func (c *ManualClock) AdvanceTo(t time.Time) {
	for step := 0; step < maxManualSteps; step++ {
		c.mu.Lock()
		sort.Slice(c.timers, func(i, j int) bool {
			if !c.timers[i].at.Equal(c.timers[j].at) {
				return c.timers[i].at.Before(c.timers[j].at)
			}
			return c.timers[i].seq < c.timers[j].seq
		})
		if len(c.timers) == 0 || c.timers[0].at.After(t) {
			if t.After(c.now) {
				c.now = t
			}
			c.mu.Unlock()
			return
		}
		next := c.timers[0]
		c.timers = c.timers[1:]
		if next.at.After(c.now) {
			c.now = next.at
		}
		c.mu.Unlock()
		next.f()
	}
	panic("actions: ManualClock.Advance: timers keep re-arming at the same instant")
}
