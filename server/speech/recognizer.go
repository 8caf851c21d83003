// Package speech is the speech engine of harkd: recognition of spoken
// queries with pocketsphinx (through the sphinx subpackage), taking the
// audio as it uploads. Synthesis lives in the tts subpackage; WAV, resampling and MP3
// in wav, resample and mp3enc.
//
// # Two decoders per utterance
//
// Each pool slot holds two pocketsphinx decoders on the same acoustic
// model: one constrained by a JSGF grammar generated from the dialogue's
// own phrases (fast, exact on in-domain commands, but it forces every
// utterance onto some command), and one with the full English trigram
// model (slower, good at open questions).
//
// The slot is taken when the upload starts; chunks are converted and, at
// 8 kHz, resampled as they arrive, and the two decoders run side by side
// (one goroutine each) on the whole utterance when it ends. They do not
// decode chunk by chunk because the acoustic model normalises cepstra per
// block of audio (-cmn batch). Measured with the dialogue's grammar on 30
// flite commands (20 at 16 kHz, 10 at 8 kHz) and 10 open questions: whole
// utterances, mean command WER 7.6 % and 1 question taken by the grammar;
// 1.5 s blocks, 14.4 % and 2; 1 s blocks, 21.1 % and 2. With a 26-pattern
// test grammar, 250 ms blocks (8 KiB reads) gave 15 % WER on 8 kHz
// commands against 6 %, and live normalisation, which adapts too slowly
// within a two-second command, lost 7 of 10 8 kHz commands entirely. The
// cost is latency: decoding runs after the last byte, at a fraction of the
// audio's duration
// (see BenchmarkRecognizeUtterance).
//
// # Choosing the hypothesis
//
// A grammar decoder always answers with some command, so its hypothesis
// is accepted only when it explains the audio about as well as the free
// full model does. Both decoders report a path score (log base 1.0001 of
// the acoustic likelihood plus the weighted language score); per frame of
// 10 ms:
//
//	margin = (grammar path score - full path score) / frames
//	choose "grammar" when the grammar hypothesis is non-empty and margin >= Config.MinMargin (default 5)
//	otherwise choose "full"
//
// On an in-domain command the grammar path is the same words as the full
// model's best path, with a far more probable language score, so the
// margin is clearly positive; on an open question, or a command phrased
// outside the grammar, the grammar has to force the audio onto words that
// do not fit (or finds no path at all), and the margin falls. Measured
// with the dialogue's English grammar (251 patterns, 711 words) on flite
// speech: in-grammar commands +8 to +34; open questions -12 to -4, or no
// grammar path, except "how tall is mount everest" at +10 (taken by the
// grammar as "how cold is it madrid"); commands outside the grammar ("call
// the office", "stop the music") -0.5 to +4.6, so the full model's correct
// text won. Result carries both hypotheses and the margin, and the
// accuracy test logs them for every fixture, so the threshold can be
// re-measured when the grammar changes.
package speech

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
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
const DefaultMinMargin = 5.0

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
}

// Recognizer decodes utterances with a bounded pool of decoder pairs.
type Recognizer struct {
	cfg     Config
	grammar Grammar
	pool    chan *slot
}

// slot is one decoder pair; its decoders are loaded on first use.
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
	r := &Recognizer{cfg: cfg, grammar: g, pool: make(chan *slot, cfg.Slots)}
	first := &slot{}
	if err := r.load(first); err != nil {
		return nil, err
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
	// Both decoders keep pocketsphinx's default search settings: the
	// choice rule compares their path scores, and narrower settings on the
	// full decoder (-topn 2 in particular) change its acoustic scores
	// enough to make open questions look in-domain (measured).
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
	// Audio is the duration of the audio received.
	Audio time.Duration
}

// Utterance is one utterance being decoded. Write, Finish and Abort may be
// called from different goroutines; the slot returns to the pool exactly
// once, on Finish, Abort or the cancellation of Start's context.
type Utterance struct {
	r        *Recognizer
	mu       sync.Mutex
	s        *slot // nil once released
	err      error // why the utterance ended early
	up       *resample.Upsampler
	carry    []byte
	audio    []int16 // at 16 kHz
	received int64
	rate     int
	stop     func() bool
}

var errEnded = errors.New("speech: utterance already finished or aborted")

// Start takes a decoder slot, waiting at most as long as ctx allows, and
// begins an utterance of 16-bit mono PCM at rate (8000 or 16000 Hz) in
// lang. Cancelling ctx later aborts the utterance.
func (r *Recognizer) Start(ctx context.Context, lang string, rate int) (*Utterance, error) {
	if err := Available(lang); err != nil {
		return nil, err
	}
	if rate != 8000 && rate != 16000 {
		return nil, apierr.InvalidArgumentf("sample rate %d Hz is not supported (8000 or 16000)", rate)
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
	u := &Utterance{r: r, s: s, rate: rate}
	if rate == 8000 {
		u.up = resample.NewUpsampler()
	}
	// Held while registering: a context already cancelled runs the
	// callback at once, and it must see u.stop set.
	u.mu.Lock()
	u.stop = context.AfterFunc(ctx, func() { u.end(fmt.Errorf("speech: utterance cancelled: %w", ctx.Err())) })
	u.mu.Unlock()
	return u, nil
}

// Write feeds PCM bytes (little-endian 16-bit) as they arrive; a chunk
// may end in the middle of a sample.
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
	data := pcm
	if len(u.carry) > 0 {
		data = append(u.carry, pcm...)
		u.carry = u.carry[:0]
	}
	if len(data)%2 == 1 {
		u.carry = append(u.carry, data[len(data)-1])
		data = data[:len(data)-1]
	}
	samples := make([]int16, len(data)/2)
	for i := range samples {
		samples[i] = int16(binary.LittleEndian.Uint16(data[2*i:]))
	}
	if u.up != nil {
		samples = u.up.Process(nil, samples)
	}
	u.audio = append(u.audio, samples...)
	return len(pcm), nil
}

// Finish ends the utterance, returns the slot and gives the result.
func (u *Utterance) Finish() (Result, error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.s == nil {
		return Result{}, u.endedErr()
	}
	u.stop()
	res := Result{Audio: time.Duration(u.received/2) * time.Second / time.Duration(u.rate)}
	if u.up != nil {
		u.audio = u.up.Flush(u.audio)
	}
	var g, f sphinx.Hyp
	var gerr, ferr error
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		if gerr = u.s.grammar.DecodeUtterance(u.audio); gerr == nil {
			g = u.s.grammar.Hyp()
		}
	}()
	if ferr = u.s.full.DecodeUtterance(u.audio); ferr == nil {
		f = u.s.full.Hyp()
	}
	wg.Wait()
	err := errors.Join(gerr, ferr)
	if err == nil {
		res.GrammarText, res.FullText = g.Text, f.Text
		res.Text, res.Source, res.Margin = choose(g, f, u.r.cfg.MinMargin)
	}
	u.audio = nil
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

// release returns the slot; u.mu is held.
func (u *Utterance) release(why error) {
	u.stop()
	u.err = why
	u.audio = nil
	u.r.pool <- u.s
	u.s = nil
}

func (u *Utterance) endedErr() error {
	if u.err != nil {
		return u.err
	}
	return errEnded
}

// choose applies the package's rule to the two hypotheses.
func choose(g, f sphinx.Hyp, minMargin float64) (text, source string, margin float64) {
	frames := max(g.Frames, f.Frames, 1)
	margin = float64(g.Score-f.Score) / float64(frames)
	if strings.TrimSpace(g.Text) != "" && margin >= minMargin {
		return g.Text, SourceGrammar, margin
	}
	return f.Text, SourceFull, margin
}

// editDistance is the word-level Levenshtein distance.
func editDistance(a, b []string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			sub := prev[j-1]
			if a[i-1] != b[j-1] {
				sub++
			}
			cur[j] = min(sub, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// WER is the word error rate of hyp against ref.
func WER(ref, hyp string) float64 {
	r := strings.Fields(normalizeWords(ref))
	if len(r) == 0 {
		if len(strings.Fields(hyp)) == 0 {
			return 0
		}
		return 1
	}
	return float64(editDistance(r, strings.Fields(normalizeWords(hyp)))) / float64(len(r))
}

// Recognize reads a WAV stream (header, then PCM as it arrives), checks it
// is PCM 16-bit mono at the declared rate, and recognises it. Malformed or
// mismatching WAV gives a 400 InvalidArgument.
func (r *Recognizer) Recognize(ctx context.Context, lang string, rate int, body io.Reader) (Result, error) {
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
	u, err := r.Start(ctx, lang, rate)
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
