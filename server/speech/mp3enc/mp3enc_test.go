package mp3enc

import (
	"bytes"
	"io"
	"math"
	"testing"

	"github.com/hajimehoshi/go-mp3"
)

func tone(n, rate int, f float64) []int16 {
	s := make([]int16, n)
	for i := range s {
		s[i] = int16(12000 * math.Sin(2*math.Pi*f*float64(i)/float64(rate)))
	}
	return s
}

func TestEncodeDecodesAndHasSpeechFrameHeader(t *testing.T) {
	pcm := tone(22050*2, 22050, 440)
	data, err := Encode(pcm, 22050, 64)
	if err != nil {
		t.Fatal(err)
	}
	frames, err := Frames(data)
	if err != nil {
		t.Fatal(err)
	}
	for i, f := range frames {
		if f.Version != "MPEG-2" || f.Layer != 3 || f.SampleRate != 22050 || f.Bitrate != 64 || !f.Mono {
			t.Fatalf("frame %d: %+v", i, f)
		}
	}
	// 576 samples per MPEG-2 Layer III frame.
	if min := len(pcm) / 576; len(frames) < min {
		t.Fatalf("%d frames for %d samples, want at least %d", len(frames), len(pcm), min)
	}
	dec, err := mp3.NewDecoder(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if dec.SampleRate() != 22050 {
		t.Fatalf("decoded rate %d", dec.SampleRate())
	}
	out, err := io.ReadAll(dec)
	if err != nil {
		t.Fatal(err)
	}
	// go-mp3 yields 16-bit stereo: 4 bytes per sample.
	got := len(out) / 4
	if got < len(pcm) || got > len(pcm)+3*576 {
		t.Fatalf("decoded %d samples from %d", got, len(pcm))
	}
	// The tone survives: its energy dominates the decoded signal.
	var e float64
	for i := 0; i+3 < len(out); i += 4 {
		v := float64(int16(uint16(out[i]) | uint16(out[i+1])<<8))
		e += v * v
	}
	rms := math.Sqrt(e / float64(got))
	if rms < 12000/math.Sqrt2*0.8 || rms > 12000/math.Sqrt2*1.2 {
		t.Fatalf("decoded RMS %.0f, want about %.0f", rms, 12000/math.Sqrt2)
	}
}

func TestFlushEmitsWholeFramesMidStream(t *testing.T) {
	var out bytes.Buffer
	e, err := New(&out, 22050, 64)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if err := e.Write(tone(5000, 22050, 300)); err != nil {
		t.Fatal(err)
	}
	if err := e.Flush(); err != nil {
		t.Fatal(err)
	}
	frames, err := Frames(out.Bytes())
	if err != nil {
		t.Fatalf("after flush: %v", err)
	}
	// Everything but LAME's look-ahead (at most 3 frames) must be out.
	if n := len(frames) * 576; n < 5000-3*576 {
		t.Fatalf("after flush %d frames cover %d samples, want ≥ %d", len(frames), n, 5000-3*576)
	}
	if err := e.Write(tone(5000, 22050, 300)); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := Frames(out.Bytes()); err != nil {
		t.Fatalf("whole stream: %v", err)
	}
	if err := e.Write(tone(10, 22050, 300)); err == nil {
		t.Fatal("write after Close succeeded")
	}
}

func TestRejectsBadSettings(t *testing.T) {
	for _, c := range []struct{ rate, kbps int }{{8000, 64}, {11025, 64}, {22050, 0}, {22050, 1000}, {0, 64}} {
		if _, err := New(io.Discard, c.rate, c.kbps); err == nil {
			t.Errorf("rate %d, %d kbps accepted", c.rate, c.kbps)
		}
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, io.ErrClosedPipe }

func TestWriterErrorStopsEncoder(t *testing.T) {
	e, err := New(failWriter{}, 22050, 64)
	if err != nil {
		t.Fatal(err)
	}
	err = e.Write(tone(22050, 22050, 200))
	if err == nil {
		err = e.Close()
	} else {
		e.Close()
	}
	if err == nil {
		t.Fatal("a failing writer went unnoticed")
	}
}

func TestFramesRejectsGarbage(t *testing.T) {
	if _, err := Frames([]byte("not an mp3 at all")); err == nil {
		t.Fatal("garbage accepted")
	}
	data, _ := Encode(tone(4000, 22050, 500), 22050, 64)
	if _, err := Frames(data[:len(data)-10]); err == nil {
		t.Fatal("cut last frame accepted")
	}
}

func BenchmarkEncodeSecondOfSpeechRate(b *testing.B) {
	pcm := tone(22050, 22050, 220)
	b.SetBytes(2 * 22050)
	for b.Loop() {
		if _, err := Encode(pcm, 22050, 64); err != nil {
			b.Fatal(err)
		}
	}
}
