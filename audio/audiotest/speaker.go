//go:build linux

// Package audiotest is the speaker of the device tests, which run the real playback
// against ALSA without hardware: the tests' asound.conf sends the default output into a
// FIFO, and a Speaker drains it at the output's real-time rate, keeping what arrived and
// when. It does not import audio, so audio's own tests can use it.
package audiotest

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// maxKeptSeconds bounds what a Speaker keeps between resets.
const maxKeptSeconds = 60

// Speaker drains a playback FIFO of interleaved stereo float32 samples.
type Speaker struct {
	path  string
	f     *os.File
	rate  int
	level float64 // a sample louder than this is sound

	mu       sync.Mutex
	samples  []float32 // interleaved stereo since the last reset
	arrivals []arrival
}

type arrival struct {
	index int // first sample index of a read
	at    time.Time
}

// StartSpeaker makes the FIFO at path and drains it at rate frames per second. A sample
// whose magnitude exceeds level counts as sound (0: any non-zero sample).
func StartSpeaker(path string, rate int, level float64) (*Speaker, error) {
	if err := unix.Mkfifo(path, 0o600); err != nil {
		return nil, fmt.Errorf("mkfifo: %w", err)
	}
	// Read-write, so neither side's open blocks and the writer never sees a closed reader.
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return nil, err
	}
	// A small pipe before anything is written: the writer is paced by the drain, so what
	// arrives is what a real device would play, when it would play it.
	if _, err := unix.FcntlInt(f.Fd(), unix.F_SETPIPE_SZ, 4096); err != nil {
		f.Close()
		return nil, fmt.Errorf("F_SETPIPE_SZ: %w", err)
	}
	s := &Speaker{path: path, f: f, rate: rate, level: level}
	go s.drain()
	return s, nil
}

// Path is the FIFO's path, for the ALSA configuration.
func (s *Speaker) Path() string { return s.path }

// Close closes the FIFO; the drain goroutine may stay blocked in a read until the process
// exits (a FIFO read is not interrupted by close).
func (s *Speaker) Close() { s.f.Close() }

func (s *Speaker) drain() {
	bytesPerSecond := s.rate * 2 * 4
	const tick = 5 * time.Millisecond
	maxBurst := int(float64(bytesPerSecond) * tick.Seconds() * 4)
	buf := make([]byte, maxBurst)
	var pending []byte
	start := time.Now()
	drained := 0
	for {
		due := int(time.Since(start).Seconds()*float64(bytesPerSecond)) - drained
		if due > maxBurst {
			// The writer was idle (no context yet): do not let credit pile up.
			drained += due - maxBurst
			due = maxBurst
		}
		if due < 8 {
			time.Sleep(tick)
			continue
		}
		n, err := s.f.Read(buf[:due])
		if err != nil {
			return
		}
		drained += n
		now := time.Now()
		pending = append(pending, buf[:n]...)
		whole := len(pending) &^ 7 // whole stereo frames, so a reset keeps the channels in place
		s.mu.Lock()
		if len(s.samples) < maxKeptSeconds*s.rate*2 {
			s.arrivals = append(s.arrivals, arrival{index: len(s.samples), at: now})
			for i := 0; i < whole; i += 4 {
				s.samples = append(s.samples, math.Float32frombits(binary.LittleEndian.Uint32(pending[i:])))
			}
		}
		s.mu.Unlock()
		pending = append(pending[:0], pending[whole:]...)
	}
}

// Reset forgets what arrived so far.
func (s *Speaker) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.samples = s.samples[:0]
	s.arrivals = s.arrivals[:0]
}

// Samples returns the interleaved samples since the last reset.
func (s *Speaker) Samples() []float32 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]float32(nil), s.samples...)
}

func (s *Speaker) loud(v float32) bool { return math.Abs(float64(v)) > s.level }

// readsLocked calls fn with each read's samples and arrival time, newest first when
// backwards is set, until fn returns true; s.mu is held.
func (s *Speaker) readsLocked(backwards bool, fn func(samples []float32, at time.Time) bool) {
	for i := range s.arrivals {
		k := i
		if backwards {
			k = len(s.arrivals) - 1 - i
		}
		end := len(s.samples)
		if k+1 < len(s.arrivals) {
			end = s.arrivals[k+1].index
		}
		if fn(s.samples[s.arrivals[k].index:end], s.arrivals[k].at) {
			return
		}
	}
}

// FirstSoundSince is when the first sound that arrived at or after t0 arrived (zero when
// none).
func (s *Speaker) FirstSoundSince(t0 time.Time) time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	var when time.Time
	s.readsLocked(false, func(samples []float32, at time.Time) bool {
		if at.Before(t0) {
			return false
		}
		for _, v := range samples {
			if s.loud(v) {
				when = at
				return true
			}
		}
		return false
	})
	return when
}

// Audible reports whether sound arrived at or after t0.
func (s *Speaker) Audible(t0 time.Time) bool { return !s.FirstSoundSince(t0).IsZero() }

// LastSound is when the last sound since the reset arrived (zero when none).
func (s *Speaker) LastSound() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	var when time.Time
	s.readsLocked(true, func(samples []float32, at time.Time) bool {
		for _, v := range samples {
			if s.loud(v) {
				when = at
				return true
			}
		}
		return false
	})
	return when
}

// Sound is the span from the first to the last sound since the reset, its RMS, and when
// its first sample arrived (all zero when silent).
func (s *Speaker) Sound() (span time.Duration, rms float64, first time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	lo, hi := -1, -1
	for i, v := range s.samples {
		if s.loud(v) {
			if lo < 0 {
				lo = i
			}
			hi = i
		}
	}
	if lo < 0 {
		return 0, 0, time.Time{}
	}
	var sum float64
	for _, v := range s.samples[lo : hi+1] {
		sum += float64(v) * float64(v)
	}
	rms = math.Sqrt(sum / float64(hi-lo+1))
	for _, a := range s.arrivals {
		if a.index > lo {
			break
		}
		first = a.at
	}
	return time.Duration(hi/2-lo/2) * time.Second / time.Duration(s.rate), rms, first
}

// WaitSound waits (bounded) for sound since the reset and returns when it arrived.
func (s *Speaker) WaitSound(t testing.TB, within time.Duration) time.Time {
	t.Helper()
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		if _, _, first := s.Sound(); !first.IsZero() {
			return first
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("no sound reached the speaker within %v", within)
	return time.Time{}
}

// Quiet waits (bounded) until no sound has arrived for 300 ms, so the tail of an earlier
// test cannot be mistaken for this one's, then resets.
func (s *Speaker) Quiet(t testing.TB) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for s.Audible(time.Now().Add(-300 * time.Millisecond)) {
		if time.Now().After(deadline) {
			t.Fatal("the speaker never fell silent")
		}
		time.Sleep(50 * time.Millisecond)
	}
	s.Reset()
}
