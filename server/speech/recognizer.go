// Package speech is the speech engine of harkd: recognition of spoken
// queries with pocketsphinx (through the sphinx subpackage), decoding the
// audio while it uploads. Synthesis lives in the tts subpackage; WAV,
// resampling and MP3 in wav, resample and mp3enc. harkd does not call
// pocketsphinx in its own process: package speechworker runs a Recognizer
// in each of its worker processes and is the server's Engine.
//
// # Two decoders per utterance
//
// Each pool slot holds two pocketsphinx decoders on the same acoustic
// model: one constrained by a JSGF grammar generated from the dialogue's
// own phrases (fast, exact on in-domain commands, but it forces every
// utterance onto some command), and one with the full English trigram
// model (slower, good at open questions). Each utterance has its own front
// end turning the audio into cepstra for both.
//
// # Decoding while the audio arrives
//
// Each Write converts the chunk (resampling 8 kHz to 16 kHz), computes its
// cepstra, normalises them and hands them to the two decoders, which
// search on their own goroutines; Finish only flushes the last frame and
// waits for the searches to end.
//
// The acoustic model expects cepstra with the utterance's mean subtracted
// (its feat.params says -cmn batch), which is only known at the end. The
// recogniser therefore normalises the cepstra itself (see meanNormalizer):
// it holds back the first MeanDelay frames of speech (100, one second;
// silence is dropped before counting), releases them normalised by their
// own mean, and normalises every later frame by the mean of all frames up
// to it. An utterance shorter than that is normalised as a whole when it
// ends, like batch normalisation. Measured on the flite fixtures of the
// accuracy test (42 commands at 16 kHz, 10 at 8 kHz, 10 open questions),
// word error rates:
//
//	mean of                              commands  8 kHz   questions
//	the whole utterance, after its end      2.2 %   21.2 %   15.3 %
//	first 150 frames, then running          2.2 %   17.3 %   10.2 %
//	first 100 frames, then running          2.2 %   19.2 %   10.2 %
//	first  50 frames, then running          4.4 %   26.9 %   15.3 %
//
// (Measured before "please" joined the grammar and the last condition of
// the choice rule below; with both, and a fresh front end per utterance,
// the default measures 2.7 %, 21.2 % and 11.9 %; in flite's slt voice,
// 2.7 % on commands and 22.0 % on questions.)
//
// (The previous design, pocketsphinx's own batch normalisation after the
// last byte and the full decoder's flat pass, measured 1.6 %, 17.3 % and
// 10.2 % with recognition finishing 1.9 s after the last byte.)
//
// Pocketsphinx's own live normalisation uses a prior mean for the whole
// first utterance of a decoder and adapts only between utterances; it
// misheard utterance-initial words ("please set an alarm" became "twenty
// to seven alarm") and, worse, any channel unlike the prior: upsampled
// 8 kHz audio has nothing above 4 kHz, and its commands were lost. The
// delay costs latency only for utterances shorter than a second of speech;
// for 2-3 s commands the decoders (real-time factor about 0.2 and 0.35)
// catch up before the audio ends (see BenchmarkStreamLatency in the client
// package). Shorter commands start early, see "Short commands".
//
// # Short commands
//
// A command under one second of speech ("stop", "what time is it") never
// reaches MeanDelay counted frames, so under the rule above nothing of it
// was decoded before its end: both decoders then searched the whole of it
// after the last byte, 320-680 ms before the answer. Now the full
// decoder, the slow one, starts at once on provisional frames: each frame
// normalised by a running mean seeded with a prior (earlyNormalizer). If
// the utterance reaches MeanDelay frames, the full decoder abandons that
// search and starts over on the exactly normalised frames, so an
// utterance longer than a second is decoded as before (at the cost of
// searching its first second twice); if it ends first, the provisional
// search is its result. The grammar decoder always gets the exact frames
// (the whole utterance's mean for a short one), so for a short command
// it still searches after the end; it is the faster of the two, and its
// forced reading needs the exact frames: started early on the same
// provisional frames, it lost accuracy (last rows below).
//
// The prior is, in order: the speaker's own cepstral mean from earlier
// utterances (Options.Prior; harkd keeps it per user and rate, see
// Priors, from Result.Mean), weighted as min(its frames, 100) frames;
// otherwise the acoustic model's initial mean (-cmninit in its
// feat.params) weighted as 100 frames. Measured on the sub-second
// commands of testdata/commands.json (short: those under 100 counted
// frames, 17 in kal16, 9 in slt, 17 in kal at 8 kHz; the session prior is
// the mean of one 2-3 s command of the same voice), word error rates on
// one run (TestShortCommandsEarly; HARK_SHORT_VARIANTS=1 for all rows):
//
//	full decoder's frames of a short command       kal16    slt   8 kHz
//	exact, decoded after the end (LateStart)        12.1 %  28.6 %  33.3 %
//	early, model mean (100) - a first command       12.1 %  21.4 %  30.3 %
//	early, session prior (<= 100) - later ones      12.1 %  28.6 %  24.2 %
//	early, running mean from the first frame        12.1 %  28.6 %  36.4 %
//	early, model mean weighted 30                   12.1 %  35.7 %  33.3 %
//	early, model mean weighted 300                  12.1 %  14.3 %  45.5 %
//	early, session prior weighted 30                12.1 %  28.6 %  27.3 %
//	early, session prior weighted 300                6.1 %  28.6 %  24.2 %
//	early, prior of another short command            6.1 %  28.6 %  24.2 %
//	grammar early too, model mean                   30.3 %  21.4 %  63.6 %
//	grammar early too, session prior                24.2 %  21.4 %  24.2 %
//
// These sets are small (80 words in all; one word is 3-7 points) and
// one-word commands are the hard part ("help", "cancel", "mute" are
// misheard either way), so the rows differ by a word or two; what they
// show is that no seed loses accuracy against decoding after the end
// except the bare running mean (its first frames are normalised by a mean
// of almost nothing), the model mean at a light weight on slt and at a
// heavy one at 8 kHz (the model's mean is of wideband speech: the channel
// mismatch pocketsphinx's own live normalisation suffered), and the
// grammar decoder on provisional frames ("delete alarm" forced onto "the
// way to lark"). The defaults are the two rows that never lost anything.
//
// Starting over costs the full decoder a second of search twice on every
// longer command (CPU per second of audio 0.68 against 0.61 on a 2.6 s
// command, BenchmarkRecognizeUtterance and its Late variant in one run),
// and on a loaded machine that delays the answer to 2-3 s commands (see
// the README's Performance table). Going on instead with the early search,
// exact frames from the MeanDelay-th on, was measured with a temporary
// switch on the 42 commands and 10 questions (kal16 / slt), against
// decoding late: with the model's mean, commands 5.5 % / 2.2 % against
// 3.8 % / 2.7 % ("switch off the kitchen lights" forced onto "switch off
// computer please") and questions 13.6 % / 25.4 % against 11.9 % /
// 22.0 %; with a session prior, commands unchanged and questions 15.3 % /
// 22.0 %. Both lose accuracy, so the search starts over; with it, the 42
// commands give the same text in both voices as decoding late. Seeding every
// worker's normaliser from the previous utterances it decoded, whoever
// spoke them, was tried before and lost accuracy: a prior is only ever
// one speaker's own, on one channel (8 and 16 kHz are kept apart), and
// the running mean takes over from it within the utterance. The pre-roll
// (the audio before speech onset) was not used as a seed: the stream
// starts at the microphone's opening, silence is dropped by the front
// end's voice detector and left out of every mean (c0 < 0), and in the
// flite fixtures it is digital silence, so there is nothing to measure
// it on here.
//
// # Choosing the hypothesis
//
// A grammar decoder always answers with some command, so its hypothesis
// is accepted only when it explains the audio clearly better than the
// free full model does. Both decoders report a path score (log base 1.0001
// of the acoustic likelihood plus the weighted language score); per frame
// of 10 ms:
//
//	margin = (grammar path score - full path score) / frames
//	choose "grammar" when the grammar hypothesis is non-empty, margin >= Config.MinMargin (default 12),
//	    and the full hypothesis is the same words or not a sentence of the grammar
//	otherwise choose "full"
//
// On an in-domain command the grammar path is the same words as the full
// model's best path, with a far more probable language score, so the
// margin is clearly positive; on an open question, or a command phrased
// outside the grammar, the grammar has to force the audio onto words that
// do not fit (or finds no path at all), and the margin falls. Measured
// with the dialogue's English grammar (251 patterns, 711 words, "please"
// allowed around each) on flite speech, the full decoder without its
// second flat pass: in-grammar commands +15 to +34; commands outside the
// grammar ("stop the music", "call the office", "switch off the kitchen
// lights") +4.8 to +10.1, so the full model's correct text wins; open
// questions +3 or less, or no grammar path, except "how tall is mount
// everest" at +13.6 (taken by the grammar as "how cold is it london
// please"). The threshold sits in the gap between the two command groups;
// any value from 11 to 14 gives the same choices.
//
// The last condition is for short commands, where the grammar's forced
// reading can be wrong with a large margin: "set an alarm" came out of the
// grammar decoder as "set ten alarm" (+19) while the full model heard "set
// an alarm", itself a sentence of the grammar; when the unconstrained model
// lands on a different in-domain sentence, that is independent evidence
// for it (Grammar.Contains decides). It costs "what's the date today",
// which the full model hears as "what's the day today" (the same intent).
// Result carries both hypotheses and the margin, and the accuracy test
// logs them for every fixture, so the threshold can be re-measured when
// the grammar changes.
package speech

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/harkhq/hark/server/apierr"
	"github.com/harkhq/hark/server/speech/resample"
	"github.com/harkhq/hark/server/speech/sphinx"
	"github.com/harkhq/hark/server/speech/wav"
)

// DefaultModelDir is where Debian's pocketsphinx-en-us installs the model.
const DefaultModelDir = "/usr/share/pocketsphinx/model/en-us"

// DefaultMinMargin is the per-frame score margin at or above which the
// grammar hypothesis is chosen (see the package documentation).
const DefaultMinMargin = 12.0

// DefaultMeanDelay is the number of frames the cepstral mean is first
// estimated from (see the package documentation).
const DefaultMeanDelay = 100

// Sources of a Result.
const (
	SourceGrammar = "grammar"
	SourceFull    = "full"
)

// Config configures a Recognizer.
type Config struct {
	// ModelDir holds en-us/ (acoustic model), en-us.lm.bin and
	// cmudict-en-us.dict; DefaultModelDir when empty.
	ModelDir string
	// Grammar is the English in-domain language.
	Grammar GrammarSource
	// Slots is the number of utterances decoded at once; runtime.NumCPU()
	// when zero.
	Slots int
	// MaxBytes bounds the PCM bytes of one utterance (10 MiB when zero,
	// DECISIONS §4); more is refused with 400 PayloadTooLarge.
	MaxBytes int64
	// MinMargin is the threshold of the hypothesis choice;
	// DefaultMinMargin when zero.
	MinMargin float64
	// MeanDelay is how many frames (10 ms each, silence excluded) the
	// cepstral mean is estimated from before decoding starts;
	// DefaultMeanDelay when zero.
	MeanDelay int
	// LateStart turns the early decoding of short commands off: nothing
	// is decoded before the first MeanDelay frames, as before it existed
	// (for comparisons; see "Short commands" in the package documentation).
	LateStart bool
}

// Prior is a cepstral mean an utterance's normalisation may start from:
// the mean of the speaker's previous utterances (Result.Mean), carried by
// the caller to the same speaker's next one.
type Prior struct {
	Mean   []float32 `json:"mean"`
	Frames int       `json:"frames"` // how many frames of speech it was estimated from
}

// Options are the optional parts of an utterance.
type Options struct {
	// Prior is the cepstral mean of this speaker's earlier utterances, at
	// the same sample rate; nil for a speaker's first.
	Prior *Prior

	// For the measurements of the package tests: how the early frames
	// are normalised without a prior (earlyModel, earlyRunning) and the
	// weight, in frames, of a prior (0: the defaults).
	early       string
	priorWeight int
	// earlyGrammar starts the grammar decoder early too (measured and
	// rejected: see "Short commands").
	earlyGrammar bool
}

// Seeds of the early normalisation without a session prior.
const (
	earlyModel   = "model"   // the acoustic model's -cmninit
	earlyRunning = "running" // the running mean from the first frame
)

// Engine decodes utterances: a *Recognizer in this process, or
// speechworker's pool, which runs Recognizers in worker processes so that
// a crash of the native decoder cannot take the server down.
type Engine interface {
	// Open begins an utterance (see Recognizer.Start).
	Open(ctx context.Context, lang string, rate int) (Stream, error)
	// OpenWith is Open with options (see Recognizer.StartWith).
	OpenWith(ctx context.Context, lang string, rate int, opt Options) (Stream, error)
	// Idle and Slots report the free and total utterance slots.
	Idle() int
	Slots() int
}

// Stream is one utterance being decoded (see Utterance).
type Stream interface {
	Write(pcm []byte) (int, error)
	Finish() (Result, error)
	Abort()
}

// Recognizer decodes utterances with a bounded pool of decoder pairs.
type Recognizer struct {
	cfg     Config
	grammar Grammar
	pool    chan *slot
	// cmnInit is the acoustic model's initial cepstral mean (-cmninit in
	// its feat.params), the early normalisation's seed without a session
	// prior; nil when the model has none.
	cmnInit []float32
	ncep    int // coefficients per frame
}

// slot is one decoder pair, loaded on first use.
type slot struct {
	grammar, full *sphinx.Decoder
}

// New checks the model files, builds the grammar from cfg.Grammar and
// loads the first decoder pair. A missing model yields a 503 Unavailable
// *apierr.Error naming the Debian package to install.
func New(cfg Config) (*Recognizer, error) {
	if cfg.ModelDir == "" {
		cfg.ModelDir = DefaultModelDir
	}
	if cfg.Slots <= 0 {
		cfg.Slots = runtime.NumCPU()
	}
	if cfg.MaxBytes <= 0 {
		cfg.MaxBytes = 10 << 20
	}
	if cfg.MinMargin == 0 {
		cfg.MinMargin = DefaultMinMargin
	}
	if cfg.MeanDelay <= 0 {
		cfg.MeanDelay = DefaultMeanDelay
	}
	for _, f := range []string{"en-us/mdef", "en-us/means", "en-us.lm.bin", "cmudict-en-us.dict"} {
		if _, err := os.Stat(filepath.Join(cfg.ModelDir, f)); err != nil {
			return nil, apierr.Unavailablef("speech recognition is not installed: %s is missing (install the Debian package pocketsphinx-en-us)",
				filepath.Join(cfg.ModelDir, f))
		}
	}
	dict, err := loadDictionary(filepath.Join(cfg.ModelDir, "cmudict-en-us.dict"))
	if err != nil {
		return nil, fmt.Errorf("speech: %w", err)
	}
	g, err := BuildGrammar(cfg.Grammar, func(w string) bool { return dict[w] })
	if err != nil {
		return nil, fmt.Errorf("speech: %w", err)
	}
	r := &Recognizer{cfg: cfg, grammar: g, pool: make(chan *slot, cfg.Slots),
		cmnInit: readCMNInit(filepath.Join(cfg.ModelDir, "en-us", "feat.params"))}
	first := &slot{}
	if err := r.load(first); err != nil {
		return nil, err
	}
	r.ncep = first.grammar.CepstrumSize()
	if len(r.cmnInit) != r.ncep {
		r.cmnInit = nil
	}
	r.pool <- first
	for i := 1; i < cfg.Slots; i++ {
		r.pool <- &slot{}
	}
	return r, nil
}

func (r *Recognizer) load(s *slot) error {
	if s.grammar != nil {
		return nil
	}
	base := sphinx.Config{HMM: filepath.Join(r.cfg.ModelDir, "en-us"), Dict: filepath.Join(r.cfg.ModelDir, "cmudict-en-us.dict")}
	gc := base
	gc.JSGF = r.grammar.JSGF
	gd, err := sphinx.NewDecoder(gc)
	if err != nil {
		return fmt.Errorf("speech: grammar decoder: %w", err)
	}
	fc := base
	fc.LM = filepath.Join(r.cfg.ModelDir, "en-us.lm.bin")
	// The full decoder skips the flat-lexicon second pass, which would run
	// over the whole utterance after its end (about 100 ms of the 115 ms
	// left after the last byte, measured); the choice threshold is
	// measured with it off. Otherwise both keep pocketsphinx's default
	// search settings: narrower ones on the full decoder (-topn 2 in
	// particular) change its acoustic scores enough to make open questions
	// look in-domain (measured).
	fc.NoFlatPass = true
	fd, err := sphinx.NewDecoder(fc)
	if err != nil {
		gd.Close()
		return fmt.Errorf("speech: full decoder: %w", err)
	}
	s.grammar, s.full = gd, fd
	return nil
}

// Grammar returns the grammar in use, with the parts it had to drop.
func (r *Recognizer) Grammar() Grammar { return r.grammar }

// Idle reports how many decoder slots are free.
func (r *Recognizer) Idle() int { return len(r.pool) }

// Slots reports the pool size.
func (r *Recognizer) Slots() int { return r.cfg.Slots }

// Available reports whether lang can be recognised: nil for English, a
// 503 Unavailable for Spanish, a 400 InvalidArgument otherwise.
func Available(lang string) error {
	switch lang {
	case "", "en":
		return nil
	case "es":
		return apierr.Unavailablef("Spanish speech recognition is not available: Debian ships no Spanish pocketsphinx model (only pocketsphinx-en-us); send Spanish queries as text")
	}
	return apierr.InvalidArgumentf("language %q is not supported for speech (en, es)", lang)
}

// Close frees the decoders of idle slots. Utterances still running keep
// theirs until they end.
func (r *Recognizer) Close() {
	for {
		select {
		case s := <-r.pool:
			if s.grammar != nil {
				s.grammar.Close()
				s.full.Close()
			}
		default:
			return
		}
	}
}

// Result is a recognised utterance.
type Result struct {
	Text   string // the chosen hypothesis
	Source string // SourceGrammar or SourceFull
	// GrammarText and FullText are both decoders' hypotheses; Margin is
	// the per-frame score margin of the grammar path over the full one,
	// the quantity the choice rule compares with Config.MinMargin.
	GrammarText string
	FullText    string
	Margin      float64
	// Hypotheses are the readings harkd may choose among by understanding
	// (see Hypothesis): the chosen Text first, then the full decoder's
	// n-best list, then the grammar's reading, each text once.
	Hypotheses []Hypothesis
	// Audio is the duration of the audio received.
	Audio time.Duration
	// Mean is the cepstral mean of the utterance's speech (nil when none
	// was heard): the Prior of the same speaker's next utterance.
	Mean *Prior `json:",omitempty"`
}

// Utterance is one utterance being decoded. Write, Finish and Abort may be
// called from different goroutines; the slot returns to the pool exactly
// once, on Finish, Abort or the cancellation of Start's context, after
// both decoders have stopped.
type Utterance struct {
	r        *Recognizer
	mu       sync.Mutex
	s        *slot // nil once released
	err      error // why the utterance ended early
	up       *resample.Upsampler
	pcm      pcmDecoder
	fe       *sphinx.Frontend
	pending  []int16   // audio held until the front end is primed; nil after
	cep      []float32 // scratch: cepstra of the last chunk
	norm     *meanNormalizer
	early    *earlyNormalizer // the decoders' frames until norm releases; nil after
	feeds    [2]*feed         // grammar, full
	decoded  [2]decoded       // grammar, full
	wg       sync.WaitGroup
	received int64
	rate     int
	stop     func() bool

	earlyGrammar bool // the grammar decoder starts early too (measurements only)
}

var errEnded = errors.New("speech: utterance already finished or aborted")

// Open is Start as an Engine.
func (r *Recognizer) Open(ctx context.Context, lang string, rate int) (Stream, error) {
	return r.OpenWith(ctx, lang, rate, Options{})
}

// OpenWith is StartWith as an Engine.
func (r *Recognizer) OpenWith(ctx context.Context, lang string, rate int, opt Options) (Stream, error) {
	u, err := r.StartWith(ctx, lang, rate, opt)
	if err != nil {
		return nil, err
	}
	return u, nil
}

// Start is StartWith without options.
func (r *Recognizer) Start(ctx context.Context, lang string, rate int) (*Utterance, error) {
	return r.StartWith(ctx, lang, rate, Options{})
}

// StartWith takes a decoder slot, waiting at most as long as ctx allows,
// and begins an utterance of 16-bit mono PCM at rate (8000 or 16000 Hz) in
// lang; its two decoders start searching on their own goroutines as
// frames arrive. Cancelling ctx later aborts the utterance. A prior that
// is not a mean of CepstrumSize finite values over at least one frame is
// refused with 400 InvalidArgument.
func (r *Recognizer) StartWith(ctx context.Context, lang string, rate int, opt Options) (*Utterance, error) {
	if err := Available(lang); err != nil {
		return nil, err
	}
	if rate != 8000 && rate != 16000 {
		return nil, apierr.InvalidArgumentf("sample rate %d Hz is not supported (8000 or 16000)", rate)
	}
	if err := opt.Prior.check(r.ncep); err != nil {
		return nil, err
	}
	var s *slot
	select {
	case s = <-r.pool:
	case <-ctx.Done():
		return nil, fmt.Errorf("speech: waiting for a decoder: %w", ctx.Err())
	}
	if err := r.load(s); err != nil {
		r.pool <- s
		return nil, err
	}
	// A front end per utterance: pocketsphinx's keeps its voice activity
	// and noise estimates from one utterance to the next, which would make
	// a result depend on whoever used the slot before. Making one takes
	// 27 µs; it is primed in analyse.
	fe, err := sphinx.NewFrontend(s.grammar)
	if err == nil {
		if err = fe.Start(); err != nil {
			fe.Close()
		}
	}
	if err != nil {
		r.pool <- s
		return nil, err
	}
	ncep := s.grammar.CepstrumSize()
	u := &Utterance{r: r, s: s, fe: fe, pending: make([]int16, 0, primeSamples), rate: rate,
		feeds: [2]*feed{newFeed(), newFeed()}, norm: newMeanNormalizer(ncep, r.cfg.MeanDelay)}
	if !r.cfg.LateStart {
		u.early = r.earlyNormalizer(ncep, opt)
		u.earlyGrammar = opt.earlyGrammar
	}
	if rate == 8000 {
		u.up = resample.NewUpsampler()
	}
	u.wg.Add(2)
	go u.feeds[0].decode(s.grammar, &u.decoded[0], &u.wg)
	go u.feeds[1].decode(s.full, &u.decoded[1], &u.wg)
	// Held while registering: a context already cancelled runs the
	// callback at once, and it must see u.stop set.
	u.mu.Lock()
	u.stop = context.AfterFunc(ctx, func() { u.end(fmt.Errorf("speech: utterance cancelled: %w", ctx.Err())) })
	u.mu.Unlock()
	return u, nil
}

// Write feeds PCM bytes (little-endian 16-bit) as they arrive; a chunk
// may end in the middle of a sample. The frames they complete go to the
// decoders at once (after the first MeanDelay frames).
func (u *Utterance) Write(pcm []byte) (int, error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.s == nil {
		return 0, u.endedErr()
	}
	u.received += int64(len(pcm))
	if u.received > u.r.cfg.MaxBytes {
		u.release(errEnded)
		return 0, apierr.TooLargef("audio longer than %d bytes", u.r.cfg.MaxBytes)
	}
	samples := u.pcm.decode(make([]int16, 0, len(pcm)/2+1), pcm)
	if u.up != nil {
		samples = u.up.Process(nil, samples)
	}
	if err := u.analyse(samples, false); err != nil {
		u.release(err)
		return 0, err
	}
	return len(pcm), nil
}

// primeSamples is how much audio (300 ms at 16 kHz) a fresh front end
// hears before the utterance starts over. Its noise and voice activity
// estimates need that long to settle: unprimed, it passed about 20 more
// frames of silence as speech ("please set an alarm" gave 144 frames
// against 124 primed, 123 after a whole utterance), which cost 2.2 points
// of command WER.
const primeSamples = 4800

// analyse turns samples into cepstra and hands the normalised frames to
// the decoders; last ends the front end's utterance. The first
// primeSamples are held until the front end has heard them once. u.mu is
// held.
func (u *Utterance) analyse(samples []int16, last bool) error {
	if u.pending != nil {
		u.pending = append(u.pending, samples...)
		if len(u.pending) < primeSamples && !last {
			return nil
		}
		samples, u.pending = u.pending, nil
		if _, err := u.fe.Process(nil, samples[:min(len(samples), primeSamples)]); err != nil {
			return err
		}
		if _, err := u.fe.End(nil); err != nil {
			return err
		}
		if err := u.fe.Start(); err != nil {
			return err
		}
	}
	var err error
	if u.cep, err = u.fe.Process(u.cep[:0], samples); err != nil {
		return err
	}
	if last {
		if u.cep, err = u.fe.End(u.cep); err != nil {
			return err
		}
	}
	held := !u.norm.released
	out := u.norm.add(nil, u.cep)
	if last {
		out = u.norm.flush(out)
	}
	switch {
	case u.early == nil:
		u.feeds[0].push(out)
		u.feeds[1].push(out)
	case held && u.norm.released:
		// The mean is known: the decoders start over on the exact frames,
		// so an utterance longer than MeanDelay is decoded as if there had
		// been no early start.
		for i, f := range u.feeds {
			if i == 0 && !u.earlyGrammar {
				f.push(out)
			} else {
				f.restart(out)
			}
		}
		u.early = nil
	default:
		early := u.early.add(nil, u.cep)
		u.feeds[1].push(early)
		if u.earlyGrammar {
			u.feeds[0].push(early)
		} else {
			u.feeds[0].push(out)
		}
	}
	return nil
}

// pcmDecoder turns little-endian 16-bit PCM into samples across chunks
// that may split a sample.
type pcmDecoder struct {
	low     byte // the first byte of a split sample
	pending bool
}

func (d *pcmDecoder) decode(dst []int16, b []byte) []int16 {
	if d.pending && len(b) > 0 {
		dst = append(dst, int16(uint16(d.low)|uint16(b[0])<<8))
		b, d.pending = b[1:], false
	}
	for ; len(b) >= 2; b = b[2:] {
		dst = append(dst, int16(binary.LittleEndian.Uint16(b)))
	}
	if len(b) == 1 {
		d.low, d.pending = b[0], true
	}
	return dst
}

// Finish ends the utterance, waits for both decoders to finish their
// search, returns the slot and gives the result.
func (u *Utterance) Finish() (Result, error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.s == nil {
		return Result{}, u.endedErr()
	}
	u.stop()
	res := Result{Audio: time.Duration(u.received/2) * time.Second / time.Duration(u.rate)}
	var tail []int16
	if u.up != nil {
		tail = u.up.Flush(nil)
	}
	if err := u.analyse(tail, true); err != nil {
		u.release(err)
		return Result{}, err
	}
	u.feeds[0].close()
	u.feeds[1].close()
	u.wg.Wait()
	res.Mean = u.norm.mean()
	g, f := u.decoded[0], u.decoded[1]
	err := errors.Join(g.err, f.err)
	if err == nil {
		res.GrammarText, res.FullText = g.hyp.Text, f.hyp.Text
		res.Text, res.Source, res.Margin = choose(g.hyp, f.hyp, u.r.cfg.MinMargin, u.r.grammar.Contains)
		// The decoders have stopped and the slot is still held.
		res.Hypotheses = hypotheses(res.Text, res.Source, res.Margin, g.hyp, f.hyp, u.s.full.NBest(NBestSize))
	}
	u.release(errEnded)
	return res, err
}

// Abort abandons the utterance and returns its slot; it is safe to call
// at any time, more than once.
func (u *Utterance) Abort() {
	u.end(errEnded)
}

func (u *Utterance) end(why error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.s != nil {
		u.release(why)
	}
}

// release stops the decoders and returns the slot; u.mu is held.
func (u *Utterance) release(why error) {
	u.stop()
	u.err = why
	u.feeds[0].abort()
	u.feeds[1].abort()
	u.wg.Wait()
	u.fe.Close()
	u.r.pool <- u.s
	u.s = nil
}

func (u *Utterance) endedErr() error {
	if u.err != nil {
		return u.err
	}
	return errEnded
}

// decoded is what one decoder found.
type decoded struct {
	hyp sphinx.Hyp
	err error
}

// feed hands normalised frames from the writer to a decoder goroutine.
// frames only grows between restarts (a restart replaces it), so a reader
// may keep the part it was given while the writer appends.
type feed struct {
	mu      sync.Mutex
	cond    sync.Cond
	frames  []float32
	gen     int  // restarts so far
	closed  bool // no more frames: finish the search
	aborted bool // stop now
}

func newFeed() *feed {
	f := &feed{}
	f.cond.L = &f.mu
	return f
}

func (f *feed) push(frames []float32) {
	if len(frames) == 0 {
		return
	}
	f.mu.Lock()
	f.frames = append(f.frames, frames...)
	f.mu.Unlock()
	f.cond.Broadcast()
}

// restart replaces the frames given so far with frames: the decoder
// abandons its search and starts over on them.
func (f *feed) restart(frames []float32) {
	f.mu.Lock()
	f.frames = append([]float32(nil), frames...)
	f.gen++
	f.mu.Unlock()
	f.cond.Broadcast()
}

func (f *feed) close() {
	f.mu.Lock()
	f.closed = true
	f.mu.Unlock()
	f.cond.Broadcast()
}

func (f *feed) abort() {
	f.mu.Lock()
	f.aborted = true
	f.mu.Unlock()
	f.cond.Broadcast()
}

// next waits for frames past from in generation gen, a restart, the end
// of the utterance or an abort; after a restart (cur != gen) frames are
// the new generation's from its start.
func (f *feed) next(from, gen int) (frames []float32, cur int, closed, aborted bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for f.gen == gen && len(f.frames) == from && !f.closed && !f.aborted {
		f.cond.Wait()
	}
	if f.gen != gen {
		from = 0
	}
	return f.frames[from:], f.gen, f.closed, f.aborted
}

// decode runs one decoder over the feed until it closes (then the search
// is finished and its hypothesis kept) or aborts.
func (f *feed) decode(d *sphinx.Decoder, out *decoded, wg *sync.WaitGroup) {
	defer wg.Done()
	if out.err = d.Start(); out.err != nil {
		return
	}
	for pos, gen := 0, 0; ; {
		frames, cur, closed, aborted := f.next(pos, gen)
		if !aborted && cur != gen {
			if out.err = d.Start(); out.err != nil { // abandons the search so far
				return
			}
			pos, gen = 0, cur
		}
		switch {
		case aborted:
			d.End()
			return
		case len(frames) > 0:
			if out.err = d.ProcessCepstra(frames); out.err != nil {
				d.End()
				return
			}
			pos += len(frames)
		case closed:
			if out.err = d.End(); out.err == nil {
				out.hyp = d.Hyp()
			}
			return
		}
	}
}

// choose applies the package's rule to the two hypotheses.
func choose(g, f sphinx.Hyp, minMargin float64, inGrammar func(string) bool) (text, source string, margin float64) {
	frames := max(g.Frames, f.Frames, 1)
	margin = float64(g.Score-f.Score) / float64(frames)
	if strings.TrimSpace(g.Text) != "" && margin >= minMargin &&
		(normalizeWords(f.Text) == normalizeWords(g.Text) || !inGrammar(f.Text)) {
		return g.Text, SourceGrammar, margin
	}
	return f.Text, SourceFull, margin
}

// Recognize is the package function Recognize on this Recognizer.
func (r *Recognizer) Recognize(ctx context.Context, lang string, rate int, body io.Reader) (Result, error) {
	return Recognize(ctx, r, lang, rate, body)
}

// Recognize reads a WAV stream (header, then PCM as it arrives), checks it
// is PCM 16-bit mono at the declared rate, and recognises it with e, the
// PCM handed over as it arrives. Malformed or mismatching WAV gives a 400
// InvalidArgument.
func Recognize(ctx context.Context, e Engine, lang string, rate int, body io.Reader) (Result, error) {
	return RecognizeWith(ctx, e, lang, rate, Options{}, body)
}

// RecognizeWith is Recognize with options (a session's Prior).
func RecognizeWith(ctx context.Context, e Engine, lang string, rate int, opt Options, body io.Reader) (Result, error) {
	if err := Available(lang); err != nil {
		return Result{}, err
	}
	wr, err := wav.NewReader(body)
	if err != nil {
		return Result{}, wavError(err)
	}
	if err := wr.Header.Validate(rate); err != nil {
		return Result{}, wavError(err)
	}
	u, err := e.OpenWith(ctx, lang, rate, opt)
	if err != nil {
		return Result{}, err
	}
	defer u.Abort()
	buf := make([]byte, 8192)
	for {
		n, err := wr.Read(buf)
		if n > 0 {
			if _, werr := u.Write(buf[:n]); werr != nil {
				return Result{}, werr
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			if errors.Is(err, wav.ErrInvalid) {
				return Result{}, wavError(err)
			}
			return Result{}, fmt.Errorf("speech: read audio: %w", err)
		}
	}
	return u.Finish()
}

func wavError(err error) error {
	if errors.Is(err, wav.ErrInvalid) {
		return apierr.InvalidArgumentf("%v", err)
	}
	return err
}

// check refuses a prior that cannot be a cepstral mean; nil is fine.
func (p *Prior) check(ncep int) error {
	if p == nil {
		return nil
	}
	if len(p.Mean) != ncep {
		return apierr.InvalidArgumentf("a cepstral prior has %d coefficients, not %d", len(p.Mean), ncep)
	}
	if p.Frames <= 0 {
		return apierr.InvalidArgumentf("a cepstral prior needs a positive frame count, not %d", p.Frames)
	}
	for _, v := range p.Mean {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return apierr.InvalidArgumentf("a cepstral prior has a value that is not finite")
		}
	}
	return nil
}

// Weights, in frames, of the early normalisation's seed (see "Short
// commands" in the package documentation).
const (
	defaultPriorWeight = 100 // at most: a session prior from fewer frames weighs its frame count
	defaultModelWeight = 100
)

// earlyNormalizer is the full decoder's provisional normaliser for an
// utterance: seeded with the session's prior when there is one of the
// right size, otherwise with the model's initial mean.
func (r *Recognizer) earlyNormalizer(ncep int, opt Options) *earlyNormalizer {
	if p := opt.Prior; p != nil {
		w := opt.priorWeight
		if w == 0 {
			w = defaultPriorWeight
		}
		return newEarlyNormalizer(ncep, p.Mean, min(w, p.Frames))
	}
	switch opt.early {
	case earlyRunning:
		return newEarlyNormalizer(ncep, nil, 0)
	}
	w := opt.priorWeight
	if w == 0 {
		w = defaultModelWeight
	}
	return newEarlyNormalizer(ncep, r.cmnInit, w)
}

// readCMNInit reads -cmninit from an acoustic model's feat.params; nil
// when the file or the option is missing or malformed.
func readCMNInit(path string) []float32 {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	fields := strings.Fields(string(b))
	for i := 0; i+1 < len(fields); i++ {
		if fields[i] != "-cmninit" {
			continue
		}
		var mean []float32
		for _, f := range strings.Split(fields[i+1], ",") {
			v, err := strconv.ParseFloat(f, 32)
			if err != nil {
				return nil
			}
			mean = append(mean, float32(v))
		}
		return mean
	}
	return nil
}
