// Package tts speaks harkd's answers: espeak-ng synthesises each sentence
// as 22050 Hz mono 16-bit PCM and libmp3lame (mp3enc) encodes it as the
// speech MP3 of DECISIONS §6 (Layer III, mono, 22050 Hz MPEG-2, 64 kbps
// CBR). Stream writes the frames of each sentence as soon as it is
// encoded, so playback can start before the whole answer is synthesised.
// harkd speaks through package speechworker, which runs InProcess in
// worker processes; the MP3 encoding stays in the server.
package tts

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/harkhq/hark/server/apierr"
	"github.com/harkhq/hark/server/speech/mp3enc"
)

// Format of the speech MP3.
const (
	SampleRate = 22050
	Bitrate    = 64 // kbps
)

// MaxTextRunes bounds the text of one answer.
const MaxTextRunes = 5000

// voices maps the dialogue languages to espeak-ng voices.
var voices = map[string]string{"": "en-us", "en": "en-us", "es": "es"}

// Engine speaks one sentence with an espeak-ng voice as SampleRate mono
// PCM. InProcess calls libespeak-ng in this process; harkd uses
// speechworker's pool, which runs InProcess in worker processes so that a
// crash of the native library cannot take the server down.
type Engine interface {
	Speak(ctx context.Context, voice, sentence string) ([]int16, error)
}

// Synthesizer turns text into speech MP3 with an Engine. It is safe for
// concurrent use when its Engine is.
type Synthesizer struct {
	engine Engine
}

// NewWith returns a Synthesizer speaking through engine.
func NewWith(engine Engine) *Synthesizer { return &Synthesizer{engine: engine} }

// Voice checks lang and returns the espeak-ng voice for it.
func Voice(lang string) (string, error) {
	v, ok := voices[lang]
	if !ok {
		return "", apierr.InvalidArgumentf("language %q has no voice (en, es)", lang)
	}
	return v, nil
}

// Synthesize returns the whole MP3 of text; nil when the text has nothing
// to say.
func (s *Synthesizer) Synthesize(ctx context.Context, lang, text string) ([]byte, error) {
	var out bytes.Buffer
	if err := s.Stream(ctx, lang, text, &out); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// Stream writes the MP3 of text to w sentence by sentence. After each
// sentence the frames so far are complete and, when w has a Flush method
// (an HTTP response writer, a bufio.Writer), flushed. Nothing is written
// when the text has nothing to say.
func (s *Synthesizer) Stream(ctx context.Context, lang, text string, w io.Writer) error {
	voice, err := Voice(lang)
	if err != nil {
		return err
	}
	if !utf8.ValidString(text) {
		return apierr.InvalidArgumentf("speech text is not valid UTF-8")
	}
	if n := utf8.RuneCountInString(text); n > MaxTextRunes {
		return apierr.InvalidArgumentf("speech text of %d characters is longer than %d", n, MaxTextRunes)
	}
	parts := Sentences(text)
	if len(parts) == 0 {
		return nil
	}
	enc, err := mp3enc.New(w, SampleRate, Bitrate)
	if err != nil {
		return err
	}
	defer enc.Close()
	for _, sentence := range parts {
		if err := ctx.Err(); err != nil {
			return err
		}
		pcm, err := s.engine.Speak(ctx, voice, sentence)
		if err != nil {
			return fmt.Errorf("tts: %q: %w", sentence, err)
		}
		if err := enc.Write(pcm); err != nil {
			return err
		}
		if err := enc.Flush(); err != nil {
			return err
		}
		if err := flush(w); err != nil {
			return err
		}
	}
	if err := enc.Close(); err != nil {
		return err
	}
	return flush(w)
}

func flush(w io.Writer) error {
	switch f := w.(type) {
	case interface{ Flush() error }:
		return f.Flush()
	case interface{ Flush() }:
		f.Flush()
	}
	return nil
}

// Sentences splits text at sentence ends (. ! ? ; followed by a space, and
// line breaks), keeping the punctuation that shapes the intonation.
func Sentences(text string) []string {
	var out []string
	var cur strings.Builder
	runes := []rune(text)
	for i, r := range runes {
		lineBreak := r == '\n' || r == '\r'
		if lineBreak {
			r = ' '
		}
		cur.WriteRune(r)
		end := strings.ContainsRune(".!?;", r) && (i+1 == len(runes) || unicode.IsSpace(runes[i+1]))
		if end || lineBreak {
			if s := strings.TrimSpace(cur.String()); hasWord(s) {
				out = append(out, s)
			}
			cur.Reset()
		}
	}
	if s := strings.TrimSpace(cur.String()); hasWord(s) {
		out = append(out, s)
	}
	return out
}

func hasWord(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0
}

var errNoSpeech = errors.New("espeak-ng produced no audio")
