package tts

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hajimehoshi/go-mp3"

	"github.com/harkhq/hark/server/apierr"
	"github.com/harkhq/hark/server/speech/mp3enc"
)

func newSynth(t testing.TB) *Synthesizer {
	t.Helper()
	s, err := New()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// checkSpeechMP3 verifies every frame header and decodes the stream,
// returning the decoded duration.
func checkSpeechMP3(t *testing.T, data []byte) time.Duration {
	t.Helper()
	frames, err := mp3enc.Frames(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(frames) == 0 {
		t.Fatal("no frames")
	}
	for i, f := range frames {
		if f.Version != "MPEG-2" || f.Layer != 3 || f.SampleRate != 22050 || f.Bitrate != 64 || !f.Mono {
			t.Fatalf("frame %d: %+v, want MPEG-2 Layer III 22050 Hz 64 kbps mono", i, f)
		}
	}
	dec, err := mp3.NewDecoder(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	pcm, err := io.ReadAll(dec)
	if err != nil {
		t.Fatal(err)
	}
	var loud int
	for i := 0; i+1 < len(pcm); i += 4 {
		if v := int16(uint16(pcm[i]) | uint16(pcm[i+1])<<8); v > 3000 || v < -3000 {
			loud++
		}
	}
	if loud < len(pcm)/4/50 {
		t.Fatalf("decoded audio is nearly silent: %d loud samples of %d", loud, len(pcm)/4)
	}
	return time.Duration(len(pcm)/4) * time.Second / 22050
}

func TestSynthesizeBothLanguages(t *testing.T) {
	s := newSynth(t)
	for lang, text := range map[string]string{
		"en": "Your alarm is set for seven a.m. Anything else?",
		"es": "Tu alarma está puesta a las siete. ¿Algo más?",
	} {
		t.Run(lang, func(t *testing.T) {
			data, err := s.Synthesize(context.Background(), lang, text)
			if err != nil {
				t.Fatal(err)
			}
			d := checkSpeechMP3(t, data)
			if d < 1500*time.Millisecond || d > 8*time.Second {
				t.Fatalf("%v of speech for %q", d, text)
			}
		})
	}
}

func TestConcurrentCallersGetTheirOwnSpeech(t *testing.T) {
	s := newSynth(t)
	texts := []string{"One.", "This sentence is quite a lot longer than the first one, by design."}
	// espeak-ng's first English utterance after the package's other tests
	// (Spanish, streamed and cancelled synthesis) can end a frame longer:
	// "One." gave 3761 MP3 bytes there and 3552 after English, failing the
	// second run of go test -race -count=3. That is its own state, not
	// another caller's audio, so the lengths are measured after English.
	if _, err := s.Synthesize(context.Background(), "en", texts[1]); err != nil {
		t.Fatal(err)
	}
	want := make([]int, len(texts))
	for i, text := range texts {
		data, err := s.Synthesize(context.Background(), "en", text)
		if err != nil {
			t.Fatal(err)
		}
		want[i] = len(data)
	}
	errs := make(chan error, 8)
	for i := range 8 {
		go func() {
			data, err := s.Synthesize(context.Background(), "en", texts[i%2])
			if err == nil && len(data) != want[i%2] {
				err = fmt.Errorf("%q: %d bytes, alone %d", texts[i%2], len(data), want[i%2])
			}
			errs <- err
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

// flushRecorder records how much MP3 existed at each flush.
type flushRecorder struct {
	bytes.Buffer
	sizes []int
}

func (f *flushRecorder) Flush() { f.sizes = append(f.sizes, f.Len()) }

func TestStreamFlushesWholeFramesPerSentence(t *testing.T) {
	s := newSynth(t)
	text := "It is sunny in Madrid. The high is twenty four degrees! Do you want the forecast for tomorrow?"
	var w flushRecorder
	if err := s.Stream(context.Background(), "en", text, &w); err != nil {
		t.Fatal(err)
	}
	// One flush per sentence and one at the end.
	if len(w.sizes) != 4 {
		t.Fatalf("%d flushes, want 4: %v", len(w.sizes), w.sizes)
	}
	if !slices.IsSorted(w.sizes) || w.sizes[0] == 0 || w.sizes[0] >= w.sizes[3] {
		t.Fatalf("flush sizes %v: the first sentence must be out before the rest", w.sizes)
	}
	// What was out at the first flush is a playable stream by itself.
	first := w.Bytes()[:w.sizes[0]]
	if d := checkSpeechMP3(t, first); d < 500*time.Millisecond {
		t.Fatalf("first sentence is %v", d)
	}
	checkSpeechMP3(t, w.Bytes())
}

func TestBadInput(t *testing.T) {
	s := newSynth(t)
	ctx := context.Background()
	for _, c := range []struct{ lang, text string }{
		{"fr", "bonjour"},
		{"en", strings.Repeat("a ", MaxTextRunes)},
		{"en", "bad \xff utf8"},
	} {
		_, err := s.Synthesize(ctx, c.lang, c.text)
		if e, ok := apierr.As(err); !ok || e.Status != 400 {
			t.Errorf("%q %.20q: %v, want a 400", c.lang, c.text, err)
		}
	}
	for _, text := range []string{"", "   ", "?!.", "\n\n"} {
		data, err := s.Synthesize(ctx, "en", text)
		if err != nil || len(data) != 0 {
			t.Errorf("%q: %d bytes, %v; want nothing", text, len(data), err)
		}
	}
	// Markup and option-like text are read as text, not obeyed.
	if _, err := s.Synthesize(ctx, "en", "--help <speak>hello</speak>"); err != nil {
		t.Error(err)
	}
}

func TestCancelledContext(t *testing.T) {
	s := newSynth(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var w bytes.Buffer
	err := s.Stream(ctx, "en", "This will not be spoken. Nor this.", &w)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("%v, want context.Canceled", err)
	}
}

func TestSentences(t *testing.T) {
	got := Sentences("Hello there. It's 7.30 now!Really? Yes; fine\nnext line ... ")
	want := []string{"Hello there.", "It's 7.30 now!Really?", "Yes;", "fine", "next line ..."}
	if !slices.Equal(got, want) {
		t.Fatalf("got %q\nwant %q", got, want)
	}
}

const benchText = "The weather in Madrid is sunny, with a high of twenty four degrees. Tomorrow will be cloudy in the afternoon."

// BenchmarkSynthesize reports synthesis plus encoding time per second of
// speech produced.
func BenchmarkSynthesize(b *testing.B) {
	s := newSynth(b)
	ctx := context.Background()
	data, err := s.Synthesize(ctx, "en", benchText)
	if err != nil {
		b.Fatal(err)
	}
	frames, _ := mp3enc.Frames(data)
	speech := float64(len(frames)*576) / 22050
	b.ResetTimer()
	for b.Loop() {
		if _, err := s.Synthesize(ctx, "en", benchText); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(b.Elapsed().Seconds()*1000/float64(b.N)/speech, "ms/s-speech")
}

func TestCloseClauses(t *testing.T) {
	for in, want := range map[string]string{
		"¿Algo más?":                       "¿Algo más)?",
		"Vale, ¿para cuántas personas?":    "Vale), ¿para cuántas personas)?",
		"Your alarm is set for seven a.m.": "Your alarm is set for seven a.m).",
		"It's 7.30 now":                    "It's 7.30 now)",
		"Say \"hello\", please.":           "Say \"hello)\", please).",
		"don't stop":                       "don't stop)",
		"at 7.":                            "at 7.",
		"":                                 "",
	} {
		if got := closeClauses(in); got != want {
			t.Errorf("closeClauses(%q) = %q, want %q", in, got, want)
		}
	}
}
