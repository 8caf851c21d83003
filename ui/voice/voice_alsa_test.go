//go:build cgo && linux

package voice

// The voice console's device tests run the real PortAudio capture and oto playback against
// ALSA without hardware (testdata/voice/asound.conf, set as ALSA_CONFIG_PATH before anything
// in the process touches ALSA): the microphone reads a fixture file through ALSA's file
// plugin, the speaker is a FIFO drained at real-time speed by the test. The "no device" and
// "no speaker" configurations need a process of their own (ALSA reads its configuration
// once), so those tests re-run the test binary.

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/harkhq/hark/audio"
	"github.com/harkhq/hark/audio/audiotest"
	"github.com/harkhq/hark/client"
	"github.com/harkhq/hark/server"
	"github.com/harkhq/hark/server/servertest"
)

// voiceChildEnv names the ALSA configuration a re-run test binary uses.
const voiceChildEnv = "HARK_UI_VOICE_CHILD_CONFIG"

var devices struct {
	once sync.Once
	spk  *audiotest.Speaker
	err  error
}

// voiceDevices points ALSA at the test configuration and starts the speaker (once per
// process). It returns nil as the speaker in a child process without one.
func voiceDevices(t testing.TB) *audiotest.Speaker {
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
		// Audible: louder than -60 dBFS.
		devices.spk, devices.err = audiotest.StartSpeaker(filepath.Join(dir, "speaker.fifo"), audio.OutputRate, 1e-3)
		if devices.err != nil {
			return
		}
		os.Setenv("HARK_TEST_SPEAKER", devices.spk.Path())
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
