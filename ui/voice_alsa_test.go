//go:build cgo && linux

package ui

// The voice console's device tests run the real PortAudio capture and oto playback against
// ALSA without hardware (testdata/voice/asound.conf, set as ALSA_CONFIG_PATH before anything
// in the process touches ALSA): the microphone reads a fixture file through ALSA's file
// plugin, the speaker is a FIFO drained at real-time speed by the test. The "no device" and
// "no speaker" configurations need a process of their own (ALSA reads its configuration
// once), so those tests re-run the test binary.

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/harkhq/hark/audio"
	"github.com/harkhq/hark/client"
	"github.com/harkhq/hark/server"
	"github.com/harkhq/hark/server/servertest"
)

// voiceChildEnv names the ALSA configuration a re-run test binary uses.
const voiceChildEnv = "HARK_UI_VOICE_CHILD_CONFIG"

var devices struct {
	once sync.Once
	spk  *speaker
	err  error
}

// voiceDevices points ALSA at the test configuration and starts the speaker (once per
// process). It returns nil as the speaker in a child process without one.
func voiceDevices(t testing.TB) *speaker {
	t.Helper()
	devices.once.Do(func() {
		conf := os.Getenv(voiceChildEnv)
		if conf == "" {
			conf = "testdata/voice/asound.conf"
		}
		abs, err := filepath.Abs(conf)
		if err != nil {
			devices.err = err
			return
		}
		os.Setenv("ALSA_CONFIG_PATH", abs)
		if os.Getenv(voiceChildEnv) != "" {
			return
		}
		dir, err := os.MkdirTemp("", "hark-ui-voice")
		if err != nil {
			devices.err = err
			return
		}
		// The FIFO stays open for the life of the process (the output context is global);
		// its directory can go once ALSA has opened it.
		defer os.RemoveAll(dir)
		devices.spk, devices.err = startSpeaker(filepath.Join(dir, "speaker.fifo"))
		if devices.err != nil {
			return
		}
		os.Setenv("HARK_TEST_SPEAKER", devices.spk.path)
		if _, err := audio.NewPlayer(); err != nil {
			devices.err = fmt.Errorf("open the test speaker: %w", err)
		}
	})
	if devices.err != nil {
		t.Fatal(devices.err)
	}
	return devices.spk
}

// testMic is the console's microphone in the tests: the default ALSA capture reading the
// fixture set last (each open re-reads it from the start).
type testMic struct {
	mu   sync.Mutex
	path string
	dir  string
	hold chan struct{} // when set, opening waits until it is closed
}

func newTestMic(t testing.TB) *testMic { return &testMic{dir: t.TempDir()} }

// set makes pcm (16 kHz mono) what the microphone hears next, padded with silence because
// the file plugin repeats its last periods forever at the end of the file.
func (m *testMic) set(t testing.TB, pcm []byte) {
	t.Helper()
	m.mu.Lock()
	defer m.mu.Unlock()
	path := filepath.Join(m.dir, fmt.Sprintf("mic%d.raw", time.Now().UnixNano()))
	padded := append(append([]byte(nil), pcm...), make([]byte, 4*audio.CaptureRate*2)...)
	if err := os.WriteFile(path, padded, 0o600); err != nil {
		t.Fatal(err)
	}
	m.path = path
}

func (m *testMic) open(cfg audio.CaptureConfig) (*audio.Capture, error) {
	m.mu.Lock()
	hold := m.hold
	m.mu.Unlock()
	if hold != nil {
		<-hold
	}
	m.mu.Lock()
	os.Setenv("HARK_TEST_MIC", m.path)
	m.mu.Unlock()
	return audio.OpenCapture(cfg)
}

// flitePCM synthesises 16 kHz mono speech (never committed).
func flitePCM(t testing.TB, text string) []byte {
	t.Helper()
	if _, err := exec.LookPath("flite"); err != nil {
		t.Skip("flite is not installed (make test installs it)")
	}
	out := filepath.Join(t.TempDir(), "say.wav")
	if b, err := exec.Command("flite", "-voice", "kal16", "-t", text, "-o", out).CombinedOutput(); err != nil {
		t.Fatalf("flite: %v %s", err, b)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	pcm, rate, err := audio.DecodeWAV(f)
	if err != nil || rate != audio.CaptureRate {
		t.Fatalf("flite output: rate %d, %v", rate, err)
	}
	return pcm
}

// voicePlatform is a real in-process harkd with speech loaded, and a signed-in client.
func voicePlatform(t testing.TB) *client.Client {
	t.Helper()
	p := servertest.Start(t, server.Config{})
	c, err := client.New(client.Config{BaseURL: p.BaseURL, PublicKey: p.PublicKey, PrivateKey: p.PrivateKey, TimeZone: "UTC"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if _, _, err := c.Auth.Anonymous(ctx, "voice-test", "terminal", "Vic"); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Server.Recognizer(ctx); err != nil {
		t.Skipf("speech recognition is not available here: %v", err)
	}
	return c
}

// speaker drains the playback FIFO at the output's real-time rate and keeps what arrived,
// with when it arrived.
type speaker struct {
	path string
	f    *os.File

	mu       sync.Mutex
	samples  []float32 // interleaved stereo since the last reset
	arrivals []arrival
	total    int64 // bytes drained since start, for the CPU benchmark
}

type arrival struct {
	index int
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
	// A small pipe before anything is written: the writer is paced by the drain.
	if _, err := unix.FcntlInt(f.Fd(), unix.F_SETPIPE_SZ, 4096); err != nil {
		f.Close()
		return nil, fmt.Errorf("F_SETPIPE_SZ: %w", err)
	}
	s := &speaker{path: path, f: f}
	go s.drain()
	return s, nil
}

// maxKeptSamples bounds what the speaker keeps between resets (a minute of stereo).
const maxKeptSamples = 60 * audio.OutputRate * 2

func (s *speaker) drain() {
	const bytesPerSecond = audio.OutputRate * 2 * 4
	const tick = 5 * time.Millisecond
	maxBurst := int(bytesPerSecond * tick.Seconds() * 4)
	buf := make([]byte, maxBurst)
	var pending []byte
	start := time.Now()
	drained := 0
	for {
		due := int(time.Since(start).Seconds()*bytesPerSecond) - drained
		if due > maxBurst {
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
		whole := len(pending) &^ 7
		s.mu.Lock()
		s.total += int64(n)
		if len(s.samples) < maxKeptSamples {
			s.arrivals = append(s.arrivals, arrival{index: len(s.samples), at: now})
			for i := 0; i < whole; i += 4 {
				s.samples = append(s.samples, math.Float32frombits(binary.LittleEndian.Uint32(pending[i:])))
			}
		}
		s.mu.Unlock()
		pending = append(pending[:0], pending[whole:]...)
	}
}

func (s *speaker) reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.samples = s.samples[:0]
	s.arrivals = s.arrivals[:0]
}

// sound is the span from the first to the last audible sample since the reset, its RMS,
// and when its first sample arrived (zero when silent).
func (s *speaker) sound() (span time.Duration, rms float64, first time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	lo, hi := -1, -1
	var sum float64
	for i, v := range s.samples {
		if math.Abs(float64(v)) > 1e-3 {
			if lo < 0 {
				lo = i
			}
			hi = i
		}
	}
	if lo < 0 {
		return 0, 0, time.Time{}
	}
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
	return time.Duration(hi/2-lo/2) * time.Second / audio.OutputRate, rms, first
}

// audibleSince reports whether an audible sample arrived at or after t0.
func (s *speaker) audibleSince(t0 time.Time) bool {
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
			if math.Abs(float64(v)) > 1e-3 {
				return true
			}
		}
	}
	return false
}

// lastAudibleBefore is when the last audible sample that arrived before t1 arrived.
func (s *speaker) lastAudibleBefore(t1 time.Time) time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	for k := len(s.arrivals) - 1; k >= 0; k-- {
		a := s.arrivals[k]
		if !a.at.Before(t1) {
			continue
		}
		end := len(s.samples)
		if k+1 < len(s.arrivals) {
			end = s.arrivals[k+1].index
		}
		for _, v := range s.samples[a.index:end] {
			if math.Abs(float64(v)) > 1e-3 {
				return a.at
			}
		}
	}
	return time.Time{}
}

// lastAudible is when the last audible sample arrived since the reset (zero when none).
func (s *speaker) lastAudible() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	for k := len(s.arrivals) - 1; k >= 0; k-- {
		a := s.arrivals[k]
		end := len(s.samples)
		if k+1 < len(s.arrivals) {
			end = s.arrivals[k+1].index
		}
		for _, v := range s.samples[a.index:end] {
			if math.Abs(float64(v)) > 1e-3 {
				return a.at
			}
		}
	}
	return time.Time{}
}

// quiet waits (bounded) until nothing audible has arrived for 300 ms, then resets.
func (s *speaker) quiet(t testing.TB) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for s.audibleSince(time.Now().Add(-300 * time.Millisecond)) {
		if time.Now().After(deadline) {
			t.Fatal("the speaker never fell silent")
		}
		time.Sleep(50 * time.Millisecond)
	}
	s.reset()
}
