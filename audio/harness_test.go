//go:build cgo && linux

package audio

// The device tests run against ALSA without hardware (see testdata/asound.conf): capture
// reads a fixture file through ALSA's file plugin, playback writes into a FIFO that the
// speaker below drains at real-time speed. The output context is process-global, so one
// speaker serves the whole test binary.

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// childEnv names the ALSA configuration a re-executed test binary runs under.
const childEnv = "HARK_AUDIO_TEST_CHILD_CONFIG"

var (
	testDir string
	spk     *speaker
)

func TestMain(m *testing.M) {
	os.Exit(runTests(m))
}

func runTests(m *testing.M) int {
	if cfg := os.Getenv(childEnv); cfg != "" {
		os.Setenv("ALSA_CONFIG_PATH", cfg)
		return m.Run()
	}
	conf, err := filepath.Abs("testdata/asound.conf")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	// Before anything touches ALSA: it reads its configuration once per process.
	os.Setenv("ALSA_CONFIG_PATH", conf)
	testDir, err = os.MkdirTemp("", "hark-audio-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(testDir)
	// The default microphone must exist whenever PortAudio probes devices.
	idle := filepath.Join(testDir, "idle.raw")
	if err := os.WriteFile(idle, make([]byte, 2*CaptureRate*2), 0o600); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	os.Setenv("HARK_TEST_MIC", idle)
	spk, err = startSpeaker(filepath.Join(testDir, "speaker.fifo"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer spk.close()
	os.Setenv("HARK_TEST_SPEAKER", spk.path)
	return m.Run()
}

// speaker drains the playback FIFO at the output's real-time rate and keeps what arrived,
// with the time each piece arrived.
type speaker struct {
	path string
	f    *os.File

	mu       sync.Mutex
	samples  []float32 // interleaved stereo since the last reset
	arrivals []arrival
}

type arrival struct {
	index int // first sample index of a read
	at    time.Time
}

func startSpeaker(path string) (*speaker, error) {
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
	s := &speaker{path: path, f: f}
	go s.drain()
	return s, nil
}

func (s *speaker) drain() {
	const bytesPerSecond = OutputRate * 2 * 4
	const tick = 5 * time.Millisecond
	maxBurst := int(bytesPerSecond * tick.Seconds() * 4)
	buf := make([]byte, maxBurst)
	var pending []byte
	start := time.Now()
	drained := 0
	for {
		due := int(time.Since(start).Seconds()*bytesPerSecond) - drained
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
		s.arrivals = append(s.arrivals, arrival{index: len(s.samples), at: now})
		for i := 0; i < whole; i += 4 {
			s.samples = append(s.samples, math.Float32frombits(binary.LittleEndian.Uint32(pending[i:])))
		}
		s.mu.Unlock()
		pending = append(pending[:0], pending[whole:]...)
	}
}

// close closes the FIFO; the drain goroutine may stay blocked in a read until the process
// exits (a FIFO read is not interrupted by close).
func (s *speaker) close() {
	s.f.Close()
}

// quietReset waits (bounded) until nothing but silence has arrived for 300 ms, so the tail of
// an earlier test cannot be mistaken for this one's sound, then forgets what arrived.
func (s *speaker) quietReset(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		since := time.Now().Add(-300 * time.Millisecond)
		if sound, _ := s.soundSince(since); !sound {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the speaker never fell silent")
		}
		time.Sleep(50 * time.Millisecond)
	}
	s.reset()
}

// reset forgets what arrived so far.
func (s *speaker) reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.samples = s.samples[:0]
	s.arrivals = s.arrivals[:0]
}

// snapshot returns the interleaved samples since the last reset.
func (s *speaker) snapshot() []float32 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]float32(nil), s.samples...)
}

// arrivedAt is when the sample with this index arrived.
func (s *speaker) arrivedAt(index int) time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	var at time.Time
	for _, a := range s.arrivals {
		if a.index > index {
			break
		}
		at = a.at
	}
	return at
}

// firstSound waits (bounded) for a non-zero sample and returns its index and arrival time.
func (s *speaker) firstSound(t *testing.T, within time.Duration) (int, time.Time) {
	t.Helper()
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		s.mu.Lock()
		for i, v := range s.samples {
			if v != 0 {
				s.mu.Unlock()
				return i, s.arrivedAt(i)
			}
		}
		s.mu.Unlock()
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("no sound reached the speaker within %v", within)
	return 0, time.Time{}
}

// soundSince reports whether a non-zero sample arrived at or after t0.
func (s *speaker) soundSince(t0 time.Time) (bool, time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for k, a := range s.arrivals {
		if a.at.Before(t0) {
			continue
		}
		end := len(s.samples)
		if k+1 < len(s.arrivals) {
			end = s.arrivals[k+1].index
		}
		for _, v := range s.samples[a.index:end] {
			if v != 0 {
				return true, a.at
			}
		}
	}
	return false, time.Time{}
}

// testPlayer returns the process's player, failing the test if there is no output.
func testPlayer(t *testing.T) *Player {
	t.Helper()
	p, err := NewPlayer()
	if err != nil {
		t.Fatalf("NewPlayer: %v", err)
	}
	return p
}

// setMic points the default microphone at a fixture of raw PCM, padded with silence
// because ALSA's file plugin repeats its last periods forever at the end of the file.
func setMic(t testing.TB, env string, pcm []byte) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "mic.raw")
	padded := append(append([]byte(nil), pcm...), make([]byte, 4*CaptureRate*2)...)
	if err := os.WriteFile(path, padded, 0o600); err != nil {
		t.Fatal(err)
	}
	old := os.Getenv(env)
	os.Setenv(env, path)
	t.Cleanup(func() { os.Setenv(env, old) })
}
