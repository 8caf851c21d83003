package speechworker

import (
	"context"
	"errors"
	"unicode/utf8"

	"github.com/harkhq/hark/server/apierr"
)

// Synthesis is a pool of synthesis workers; it is the tts.Engine of the
// server.
type Synthesis struct {
	*Pool
}

// NewSynthesis starts a pool of synthesis workers (the first one at once).
func NewSynthesis(opt Options) *Synthesis {
	return &Synthesis{newPool(RoleSynthesis, "speech synthesis", struct{}{}, opt)}
}

// errSynthesisFailed is the answer when a sentence killed two workers.
var errSynthesisFailed = apierr.Unavailablef("speech synthesis failed twice; try again")

// Speak speaks one sentence in a worker. When the worker dies, the
// sentence is tried once more on another worker; a second death answers
// 503 Unavailable.
func (s *Synthesis) Speak(ctx context.Context, voice, sentence string) ([]int16, error) {
	for attempt := 1; ; attempt++ {
		w, err := s.acquire(ctx)
		if err != nil {
			return nil, err
		}
		pcm, err := s.speak(ctx, w, voice, sentence)
		if !errors.Is(err, errDied) {
			if errors.Is(err, errHung) {
				s.died(w, "hung", "text_runes", utf8.RuneCountInString(sentence), "attempt", attempt)
				return nil, err
			}
			s.release(w)
			return pcm, err
		}
		s.died(w, "crashed", "text_runes", utf8.RuneCountInString(sentence), "attempt", attempt)
		if attempt == 2 {
			return nil, errSynthesisFailed
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
}

var errHung = apierr.Unavailablef("the speech worker stopped answering; try again")

func (s *Synthesis) speak(ctx context.Context, w *worker, voice, sentence string) ([]int16, error) {
	if err := w.sendJSON(frameSpeak, speakRequest{Voice: voice, Text: sentence}); err != nil {
		return nil, errDied
	}
	f, err := w.await(ctx, replyTimeout)
	cancelled := false
	if err != nil && ctx.Err() != nil && !errors.Is(err, errDied) {
		// Cancelled: espeak-ng stops at its next callback; the worker is
		// reusable once it has answered.
		if w.send(frameCancel, nil) != nil {
			return nil, errDied
		}
		cancelled = true
		f, err = w.await(context.Background(), replyTimeout)
	}
	switch {
	case errors.Is(err, errDied):
		return nil, errDied
	case err != nil:
		return nil, errHung
	case cancelled:
		return nil, ctx.Err()
	}
	switch f.typ {
	case framePCM:
		return bytesToSamples(f.payload)
	case frameError:
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		return nil, fromWire(f.payload)
	}
	return nil, errHung
}
