package server

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/harkhq/hark/server/apierr"
	"github.com/harkhq/hark/server/dialogue"
	"github.com/harkhq/hark/server/media"
	"github.com/harkhq/hark/server/speech"
	"github.com/harkhq/hark/server/speech/tts"
	"github.com/harkhq/hark/server/speechworker"
	"github.com/harkhq/hark/server/spoken"
)

// voice runs the speech engines in supervised worker processes (package
// speechworker): libespeak-ng and pocketsphinx are native code, and a
// crash of theirs must cost one request, never harkd (or the terminal of
// a hark with the embedded platform). The first worker of each pool loads
// in the background: harkd answers everything else at once, audio
// requests wait for the load, and a missing library or model is logged
// once and answered 503 naming the Debian package while text dialogue
// keeps working. On demand (Config.SpeechOnDemand) the workers start with
// the first request that needs them instead.
type voice struct {
	logger  *slog.Logger
	cfg     speech.Config
	begun   sync.Once // the workers started, or shutdown came first
	ready   chan struct{}
	synth   *speechworker.Synthesis
	recog   *speechworker.Recognition
	tts     *tts.Synthesizer
	ttsErr  error
	recErr  error
	closing sync.Once
}

// maxSpeechPriors bounds the speakers whose cepstral mean, warp and
// transform harkd keeps, in memory (speech.Priors) and in the database
// (package speakers): about 20 KB each once adapted (an MLLR transform of
// the 39 cepstral dimensions as text is 18 KB), the audio kept for
// adaptation aside, which speech.Priors bounds.
const maxSpeechPriors = 10000

// speakerDrain bounds how long Close waits for the warp estimates and
// transforms of the last answers (speech.Priors.Drain): a warp estimate
// comes within a second, a transform of forty commands in about two
// seconds on 2 idle cores.
const speakerDrain = 5 * time.Second

// musicTracks is the music library as the dialogue reads it.
func musicTracks() []dialogue.Track {
	var tracks []dialogue.Track
	for _, t := range media.Tracks() {
		tracks = append(tracks, dialogue.Track{ID: t.ID, Title: t.Title, Artist: t.Artist, Album: t.Album, Genre: t.Genre, Mood: t.Mood})
	}
	return tracks
}

// PrepareSpeechModels builds the language models a platform's recognition
// workers read (from the dialogue's patterns and the music library's
// names) into the cache, so that the first worker finds them (harkd
// speech-models; see speech.PrepareModels).
func PrepareSpeechModels() error {
	return speech.PrepareModels(speech.Config{Grammar: dialogue.New(dialogue.Config{Music: musicTracks()}).GrammarSpec("en")})
}

// loadVoice prepares the speech workers and, unless onDemand, starts them;
// cfg is the recogniser's configuration but for its grammar, which is the
// dialogue's.
func loadVoice(logger *slog.Logger, engine *dialogue.Engine, cfg speech.Config, onDemand bool) *voice {
	cfg.Grammar = engine.GrammarSpec("en")
	v := &voice{logger: logger, cfg: cfg, ready: make(chan struct{})}
	if !onDemand {
		v.begin()
	}
	return v
}

// begin starts the workers once, and loads them in the background.
func (v *voice) begin() {
	v.begun.Do(func() {
		opt := speechworker.Options{Logger: v.logger}
		v.synth = speechworker.NewSynthesis(opt)
		v.recog = speechworker.NewRecognition(v.cfg, opt)
		go v.load()
	})
}

func (v *voice) load() {
	defer close(v.ready)
	start := time.Now()
	ctx := context.Background()
	if v.ttsErr = v.synth.Ready(ctx); v.ttsErr != nil {
		v.logger.Warn("speech output unavailable", "err", v.ttsErr)
	} else {
		v.tts = tts.NewWith(v.synth)
	}
	if v.recErr = v.recog.Ready(ctx); v.recErr != nil {
		v.logger.Warn("speech recognition unavailable", "err", v.recErr)
		return
	}
	v.logger.Info("speech ready", "load_ms", time.Since(start).Milliseconds(), "decoders", v.recog.Slots())
	if dropped := v.recog.Dropped(); len(dropped) > 0 {
		v.logger.Info("speech grammar: parts the dictionary cannot say are left out", "count", len(dropped), "first", dropped[0])
	}
}

func (v *voice) wait(ctx context.Context) error {
	v.begin()
	select {
	case <-v.ready:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (v *voice) recognizer(ctx context.Context) (speech.Engine, error) {
	if err := v.wait(ctx); err != nil {
		return nil, err
	}
	if v.recErr != nil {
		return nil, unavailable("speech recognition", v.recErr)
	}
	return v.recog, nil
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

// shutdown stops the workers; workers never started will not start.
func (v *voice) shutdown() {
	v.begun.Do(func() {
		v.ttsErr, v.recErr = errVoiceClosed, errVoiceClosed
		close(v.ready)
	})
	v.closing.Do(func() {
		if v.synth != nil {
			v.synth.Close()
			v.recog.Close()
		}
	})
}

var errVoiceClosed = apierr.Unavailablef("the server is shutting down")

// Recognizer waits for the speech recogniser and returns it (tests and
// diagnostics look at its pool).
func (s *Server) Recognizer(ctx context.Context) (speech.Engine, error) {
	return s.voice.recognizer(ctx)
}

// SpeechWorkers returns the pools of synthesis and recognition workers
// (tests and diagnostics look at them).
func (s *Server) SpeechWorkers() (synthesis, recognition *speechworker.Pool) {
	s.voice.begin()
	if s.voice.synth == nil { // shut down before they started
		return nil, nil
	}
	return s.voice.synth.Pool, s.voice.recog.Pool
}

func newSpeechPriors(logger *slog.Logger, noWarp, noAdapt bool) *speech.Priors {
	p := speech.NewPriors(maxSpeechPriors)
	p.NoWarp = noWarp
	if noAdapt {
		return p
	}
	est, err := speech.NewEstimator()
	if err != nil {
		logger.Info("speaker adaptation is off", "err", err)
		return p
	}
	p.Adapt = est
	p.OnAdapt = func(key string, n int, took time.Duration, err error) {
		if err != nil {
			logger.Warn("speaker adaptation failed", "speaker", key, "utterances", n, "err", err)
			return
		}
		logger.Info("speaker adapted", "speaker", key, "utterances", n, "ms", took.Milliseconds())
	}
	return p
}
