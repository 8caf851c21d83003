package server

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/harkhq/hark/server/apierr"
	"github.com/harkhq/hark/server/dialogue"
	"github.com/harkhq/hark/server/speech"
	"github.com/harkhq/hark/server/speech/tts"
	"github.com/harkhq/hark/server/spoken"
)

// voice loads the speech engines in the background: loading the acoustic
// models takes a while, and harkd (or hark's embedded platform) should
// answer everything else at once. Audio requests wait for the load; a
// missing library or model is logged once and answered 503 naming the
// Debian package, while text dialogue keeps working.
type voice struct {
	ready  chan struct{}
	rec    *speech.Recognizer
	recErr error
	tts    *tts.Synthesizer
	ttsErr error
	close  sync.Once
}

func loadVoice(logger *slog.Logger, engine *dialogue.Engine, maxAudio int64) *voice {
	v := &voice{ready: make(chan struct{})}
	go func() {
		defer close(v.ready)
		start := time.Now()
		if v.tts, v.ttsErr = tts.New(); v.ttsErr != nil {
			logger.Warn("speech output unavailable", "err", v.ttsErr)
		}
		src := engine.GrammarSpec("en")
		if v.rec, v.recErr = speech.New(speech.Config{Grammar: src, MaxBytes: maxAudio}); v.recErr != nil {
			logger.Warn("speech recognition unavailable", "err", v.recErr)
		} else {
			logger.Info("speech ready", "load_ms", time.Since(start).Milliseconds(), "decoders", v.rec.Slots())
			if dropped := v.rec.Grammar().Dropped; len(dropped) > 0 {
				logger.Info("speech grammar: parts the dictionary cannot say are left out", "count", len(dropped), "first", dropped[0])
			}
		}
	}()
	return v
}

func (v *voice) wait(ctx context.Context) error {
	select {
	case <-v.ready:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (v *voice) recognizer(ctx context.Context) (*speech.Recognizer, error) {
	if err := v.wait(ctx); err != nil {
		return nil, err
	}
	if v.recErr != nil {
		return nil, unavailable("speech recognition", v.recErr)
	}
	return v.rec, nil
}

func (v *voice) synthesizer(ctx context.Context) (*tts.Synthesizer, error) {
	if err := v.wait(ctx); err != nil {
		return nil, err
	}
	if v.ttsErr != nil {
		return nil, unavailable("speech output", v.ttsErr)
	}
	return v.tts, nil
}

// spokenSynth adapts the synthesizer for the answer audio store.
func (v *voice) spokenSynth() (spoken.Synthesizer, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	return v.synthesizer(ctx)
}

func unavailable(what string, err error) error {
	if e, ok := apierr.As(err); ok && e.Code == apierr.Unavailable {
		return e
	}
	return apierr.Unavailablef("%s is not available on this server: %v", what, err)
}

// shutdown releases the decoders once loading has ended.
func (v *voice) shutdown() {
	v.close.Do(func() {
		<-v.ready
		if v.rec != nil {
			v.rec.Close()
		}
	})
}

// Recognizer waits for the speech recogniser and returns it (tests and
// diagnostics look at its pool).
func (s *Server) Recognizer(ctx context.Context) (*speech.Recognizer, error) {
	return s.voice.recognizer(ctx)
}
