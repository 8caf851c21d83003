//go:build cgo && linux

package audio

// The device tests run against ALSA without hardware (see testdata/asound.conf): capture
// reads a fixture file through ALSA's file plugin, playback writes into a FIFO that an
// audiotest.Speaker drains at real-time speed. The output context is process-global, so one
// speaker serves the whole test binary.

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/harkhq/hark/audio/audiotest"
)

// childEnv names the ALSA configuration a re-executed test binary runs under.
const childEnv = "HARK_AUDIO_TEST_CHILD_CONFIG"

var (
	testDir string
	spk     *audiotest.Speaker
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
	spk, err = audiotest.StartSpeaker(filepath.Join(testDir, "speaker.fifo"), OutputRate, 0)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer spk.Close()
	os.Setenv("HARK_TEST_SPEAKER", spk.Path())
	return m.Run()
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
