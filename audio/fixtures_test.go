//go:build cgo && linux

package audio

import (
	"bytes"
	"encoding/binary"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/hajimehoshi/go-mp3"

	"github.com/harkhq/hark/audio/internal/mp3enc"
)

// fliteSpeech synthesises text with flite's 16 kHz voice and returns its PCM.
func fliteSpeech(t testing.TB, text string) []byte {
	t.Helper()
	path := filepath.Join(t.TempDir(), "speech.wav")
	out, err := exec.Command("flite", "-voice", "kal16", "-t", text, "-o", path).CombinedOutput()
	if err != nil {
		t.Fatalf("flite: %v: %s", err, out)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	pcm, rate, err := DecodeWAV(f)
	if err != nil {
		t.Fatalf("decode flite output: %v", err)
	}
	if rate != CaptureRate {
		t.Fatalf("flite kal16 wrote %d Hz", rate)
	}
	return pcm
}

// espeakSpeech synthesises text with espeak-ng (22050 Hz mono, as the server's replies).
func espeakSpeech(t testing.TB, text string) ([]int16, int) {
	t.Helper()
	out, err := exec.Command("espeak-ng", "--stdout", text).Output()
	if err != nil {
		t.Fatalf("espeak-ng: %v", err)
	}
	pcm, rate, err := DecodeWAV(bytes.NewReader(out))
	if err != nil {
		t.Fatalf("decode espeak-ng output: %v", err)
	}
	return pcmToInt16(pcm), rate
}

// musicSamples is a stereo signal with different tones left and right.
func musicSamples(rate int, seconds float64) []int16 {
	n := int(float64(rate) * seconds)
	s := make([]int16, 2*n)
	for i := 0; i < n; i++ {
		t := float64(i) / float64(rate)
		l := 0.3*math.Sin(2*math.Pi*440*t) + 0.1*math.Sin(2*math.Pi*1234*t)
		r := 0.25*math.Sin(2*math.Pi*660*t+1) + 0.05*math.Sin(2*math.Pi*3000*t)
		s[2*i] = int16(l * 32767)
		s[2*i+1] = int16(r * 32767)
	}
	return s
}

func encodeMP3(t testing.TB, samples []int16, rate, channels int) []byte {
	t.Helper()
	out, err := mp3enc.Encode(samples, rate, channels, 128)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// decodeReference decodes an MP3 with go-mp3 directly: the expected output.
func decodeReference(t testing.TB, data []byte) ([]int16, int) {
	t.Helper()
	dec, err := mp3.NewDecoder(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	pcm, err := io.ReadAll(dec)
	if err != nil {
		t.Fatal(err)
	}
	return pcmToInt16(pcm), dec.SampleRate()
}

func pcmToInt16(pcm []byte) []int16 {
	s := make([]int16, len(pcm)/2)
	for i := range s {
		s[i] = int16(binary.LittleEndian.Uint16(pcm[2*i:]))
	}
	return s
}

func int16ToPCM(s []int16) []byte {
	pcm := make([]byte, 2*len(s))
	for i, v := range s {
		binary.LittleEndian.PutUint16(pcm[2*i:], uint16(v))
	}
	return pcm
}

// sineMono is a 16 kHz mono sine of the given amplitude (fraction of full scale).
func sineMono(seconds, freq, amplitude float64) []byte {
	n := int(seconds * CaptureRate)
	s := make([]int16, n)
	for i := range s {
		s[i] = int16(math.Round(amplitude * 32767 * math.Sin(2*math.Pi*freq*float64(i)/CaptureRate)))
	}
	return int16ToPCM(s)
}
