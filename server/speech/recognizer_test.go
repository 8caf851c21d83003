package speech

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/harkhq/hark/server/apierr"
	"github.com/harkhq/hark/server/dialogue"
	"github.com/harkhq/hark/server/speech/sphinx"
	"github.com/harkhq/hark/server/speech/wav"
)

type testSet struct {
	Commands  []string `json:"commands"`
	Questions []string `json:"questions"`
	Short     []string `json:"short"` // sub-second commands (TestShortCommandsEarly)
}

func loadTestSet(t testing.TB) testSet {
	t.Helper()
	b, err := os.ReadFile("testdata/commands.json")
	if err != nil {
		t.Fatal(err)
	}
	var s testSet
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	return s
}

// dialogueGrammar is the English grammar of the dialogue engine, the one
// harkd recognises with.
func dialogueGrammar() GrammarSource { return dialogue.GrammarSpecOf("en") }

var (
	sharedOnce sync.Once
	sharedRec  *Recognizer
	sharedErr  error
)

// testRecognizer shares one recogniser (about a second to load) among tests.
// HARK_SPEECH_WEIGHT and HARK_SPEECH_MARGIN set its Config.DomainWeight and
// MixedMargin, to compare them on the accuracy test (defaults when unset).
func testRecognizer(t testing.TB) *Recognizer {
	t.Helper()
	sharedOnce.Do(func() {
		cfg := Config{Grammar: dialogueGrammar()}
		for _, e := range []struct {
			name string
			to   *float64
		}{{"HARK_SPEECH_WEIGHT", &cfg.DomainWeight}, {"HARK_SPEECH_MARGIN", &cfg.MixedMargin}} {
			if v := os.Getenv(e.name); v != "" {
				if *e.to, sharedErr = strconv.ParseFloat(v, 64); sharedErr != nil {
					return
				}
			}
		}
		sharedRec, sharedErr = New(cfg)
	})
	if sharedErr != nil {
		t.Fatal(sharedErr)
	}
	return sharedRec
}

// speak synthesises text with flite into dir and returns the WAV bytes.
// kal16 speaks at 16 kHz, kal at 8 kHz.
func speak(t testing.TB, dir, voice, text string) []byte {
	t.Helper()
	if _, err := exec.LookPath("flite"); err != nil {
		t.Skip("flite is not installed (Debian package flite): no speech fixtures")
	}
	name := filepath.Join(dir, voice+"-"+strings.ReplaceAll(text, " ", "_")+".wav")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if out, err := exec.CommandContext(ctx, "flite", "-voice", voice, "-t", text, "-o", name).CombinedOutput(); err != nil {
		t.Fatalf("flite %q: %v: %s", text, err, out)
	}
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func rateOf(t testing.TB, b []byte) int {
	h, err := wav.ReadHeader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return h.SampleRate
}

type outcome struct {
	ref string
	res Result
	err error
}

// recognizeAll decodes fixtures two at a time (one per core).
func recognizeAll(t *testing.T, rec *Recognizer, voice string, texts []string) []outcome {
	dir := t.TempDir()
	out := make([]outcome, len(texts))
	var wg sync.WaitGroup
	sem := make(chan struct{}, rec.Slots())
	for i, text := range texts {
		audio := speak(t, dir, voice, text)
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			res, err := rec.Recognize(context.Background(), "en", rateOf(t, audio), bytes.NewReader(audio))
			out[i] = outcome{ref: text, res: res, err: err}
		}()
	}
	wg.Wait()
	return out
}

// summarize logs the outcomes and returns their word error rate and the
// share of utterances taken from the in-domain decoder (the first of the
// arrangement) rather than the full model.
func summarize(t *testing.T, label string, out []outcome) (wer float64, inDomainShare float64) {
	var errs, words, fromGrammar float64
	for _, o := range out {
		if o.err != nil {
			t.Fatalf("%q: %v", o.ref, o.err)
		}
		n := float64(len(strings.Fields(o.ref)))
		errs += wordErrorRate(o.ref, o.res.Text) * n
		words += n
		if o.res.Source != SourceFull {
			fromGrammar++
		}
		t.Logf("%s: %-40q -> %-40q [%s, margin %+.1f; grammar %q; full %q]",
			label, o.ref, o.res.Text, o.res.Source, o.res.Margin, o.res.GrammarText, o.res.FullText)
	}
	wer = errs / words
	inDomainShare = fromGrammar / float64(len(out))
	t.Logf("%s: WER %.1f%% over %.0f words, in-domain decoder chosen for %.0f%% of %d utterances",
		label, 100*wer, words, 100*inDomainShare, len(out))
	return wer, inDomainShare
}

func TestRecognitionAccuracy(t *testing.T) {
	skipUnderRace(t)
	set := loadTestSet(t)
	rec := testRecognizer(t)
	if len(set.Commands) < 40 || len(set.Questions) < 10 {
		t.Fatalf("test set has %d commands and %d questions", len(set.Commands), len(set.Questions))
	}
	// Some of these phrasings are outside the dialogue's grammar ("call the
	// office", "switch off the kitchen lights"): the choice rule must hand
	// them to a free model, so only the text is asserted, not the source.
	// The action the dialogue takes on what was heard must be the one it
	// takes on the command typed for 95 % of the commands in each voice.
	// With the grammar + full pair (before issue #14) kal16 got every one;
	// the mixed + full default loses "delete alarm" in kal16, heard as "the
	// way to lark" by the mixed and the full models alike (only the
	// grammar's forcing hears it), and gains on the blind phrasings (see the
	// package documentation). The acoustic model hears slt's "call mom" as
	// "calm nine" or "call nine" (stock pocketsphinx_continuous with the
	// same model hears "common").
	//
	// Word error rate: at most 5 % over both voices and 7 % in each. The
	// mixed + full default measured 5.5 % in kal16 (grammar + full 3.8 %:
	// the grammar forced "am" where the mixed model hears "m", and "delete
	// alarm") and 1.6 % in slt (grammar + full 2.7 %); with the patterns of
	// the dialogue's round 8 (the domain model is estimated from them)
	// kal16 measures 6.6 %: two words more of 182, "switch off the picture
	// lights" (the full model hears "kitchen") and "blue tooth" for
	// "bluetooth" (the same action).
	//
	// make test hears kal16, a male voice; make eval (HARK_SPEECH_EVAL=1)
	// adds slt, a female one, and the mean over both. make test's spoken
	// sample hears slt's held-back lines through the server; slt here cost
	// make test 50 s of CPU for a guard the sample keeps.
	voices := []string{"kal16"}
	if os.Getenv("HARK_SPEECH_EVAL") != "" {
		voices = append(voices, "slt")
	}
	var errs float64
	for _, voice := range voices {
		out := recognizeAll(t, rec, voice, set.Commands)
		cmdWER, _ := summarize(t, "command "+voice, out)
		errs += cmdWER
		if cmdWER > 0.07 {
			t.Errorf("in-domain WER with %s %.1f%%, want ≤ 7%%", voice, 100*cmdWER)
		}
		same := 0
		for _, o := range out {
			want, got := actionOf(t, o.ref), actionOf(t, o.res.Text)
			if got == want {
				same++
				continue
			}
			t.Logf("%s: %q heard as %q: %s, want %s", voice, o.ref, o.res.Text, got, want)
		}
		if share := float64(same) / float64(len(out)); share < 0.95 {
			t.Errorf("%s: the expected action for %d of %d commands, want ≥ 95 %%", voice, same, len(out))
		}
	}
	if len(voices) == 2 {
		if mean := errs / 2; mean > 0.05 {
			t.Errorf("in-domain WER over both voices %.1f%%, want ≤ 5%%", 100*mean)
		}
	}
	// 8 kHz uploads go through the resampler; flite's kal voice speaks at
	// 8 kHz. The wideband model hears nothing above 4 kHz in them. They are
	// decoded by the domain + full pair (measured on 42 commands: 12.6 %
	// against 27.5 % with the grammar + full pair, which measured 19 % on
	// these first 10: "start the stopwatch" came out as "art in singapore
	// thursday"), under the narrowband transform (adapt.Narrowband) since
	// 2026-11-29: these 10 went from 7 word errors of 52 to 2.
	narrowWER, _ := summarize(t, "command 8 kHz", recognizeAll(t, rec, "kal", set.Commands[:10]))
	if narrowWER > 0.06 {
		t.Errorf("in-domain WER at 8 kHz %.1f%%, want ≤ 6%%", 100*narrowWER)
	}
	// Open questions: the chosen text must be no worse than the full
	// model's own (issue #14). This used to require the choice rule to hand
	// most of them to the full model, which kept the grammar from forcing
	// them onto commands; the mixed model holds every n-gram of the general
	// one, and with its search settings (language weight 5) it is chosen
	// for 80-90 % of them while hearing them as well or better (kal16 5.1 %
	// against the full model's 8.5 %, slt 22.0 % both).
	for _, voice := range voices {
		out := recognizeAll(t, rec, voice, set.Questions)
		chosen, _ := summarize(t, "question "+voice, out)
		var errs, words float64
		for _, o := range out {
			n := float64(len(strings.Fields(normalizeWords(o.ref))))
			errs += wordErrorRate(o.ref, o.res.FullText) * n
			words += n
		}
		if full := errs / words; chosen > full+1e-9 {
			t.Errorf("open questions (%s): WER of the chosen text %.1f%%, the full model's %.1f%%", voice, 100*chosen, 100*full)
		}
	}
	if rec.Idle() != rec.Slots() {
		t.Fatalf("%d of %d slots idle after recognition", rec.Idle(), rec.Slots())
	}
}

var engine = dialogue.New(dialogue.Config{})

// actionOf is what the dialogue does with text, at a fixed time: its
// answer and its next actions with their data. (Without knowledge sources
// the information intents share one answer, so the text separates them
// from the fallback, not from each other.)
func actionOf(t *testing.T, text string) string {
	t.Helper()
	resp, err := engine.Answer(context.Background(), dialogue.Request{Query: text, Lang: "en",
		Now: time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC)})
	if err != nil {
		return "error: " + err.Error()
	}
	b, err := json.Marshal(resp.NextActions)
	if err != nil {
		t.Fatal(err)
	}
	return resp.Responses.Text + " " + string(b)
}

// pcmOf returns the PCM bytes after a WAV header.
func pcmOf(t testing.TB, b []byte) []byte {
	t.Helper()
	r, err := wav.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	pcm, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return pcm
}

func TestOddChunksGiveTheSameText(t *testing.T) {
	rec := testRecognizer(t)
	pcm := pcmOf(t, speak(t, t.TempDir(), "kal16", "set a timer for ten minutes"))
	u, err := rec.Start(context.Background(), "en", 16000)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < len(pcm); i += 333 { // odd: chunks end mid-sample
		if _, err := u.Write(pcm[i:min(i+333, len(pcm))]); err != nil {
			t.Fatal(err)
		}
	}
	res, err := u.Finish()
	if err != nil {
		t.Fatal(err)
	}
	// (The mixed model hears "set the timer", the full one "set a timer",
	// itself a sentence of the grammar, so the rule's last condition takes
	// the full model's.)
	if res.Text != "set a timer for ten minutes" || !slices.Contains(rec.Decoders(), res.Source) {
		t.Fatalf("%+v", res)
	}
	if res.Audio < time.Second || res.Audio > 5*time.Second {
		t.Fatalf("audio duration %v", res.Audio)
	}
}

// waitIdle polls until every slot is back, for at most two seconds.
func waitIdle(t *testing.T, rec *Recognizer) {
	t.Helper()
	for i := 0; i < 200 && rec.Idle() != rec.Slots(); i++ {
		time.Sleep(10 * time.Millisecond)
	}
	if rec.Idle() != rec.Slots() {
		t.Fatalf("%d of %d slots idle: a decoder leaked", rec.Idle(), rec.Slots())
	}
}

func TestSlotsAlwaysReturn(t *testing.T) {
	rec := testRecognizer(t)
	waitIdle(t, rec)
	bg := context.Background()
	pcm := make([]byte, 3200) // 100 ms of silence

	// Fill the pool; the next Start waits only as long as its context.
	ctxA, cancelA := context.WithCancel(bg)
	var held []*Utterance
	for i := 0; i < rec.Slots(); i++ {
		ctx := bg
		if i == 0 {
			ctx = ctxA
		}
		u, err := rec.Start(ctx, "en", 16000)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := u.Write(pcm); err != nil {
			t.Fatal(err)
		}
		held = append(held, u)
	}
	short, cancel := context.WithTimeout(bg, 50*time.Millisecond)
	_, err := rec.Start(short, "en", 16000)
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Start on a full pool: %v, want DeadlineExceeded", err)
	}

	// Cancelling the first utterance's context frees its slot.
	cancelA()
	for i := 0; i < 200 && rec.Idle() == 0; i++ {
		time.Sleep(10 * time.Millisecond)
	}
	if rec.Idle() != 1 {
		t.Fatalf("%d idle after cancel, want 1", rec.Idle())
	}
	if _, err := held[0].Write(pcm); !errors.Is(err, context.Canceled) {
		t.Fatalf("Write after cancel: %v", err)
	}
	if _, err := held[0].Finish(); err == nil {
		t.Fatal("Finish after cancel succeeded")
	}

	// Abort, twice, frees the others; Write and Finish afterwards fail.
	for _, u := range held[1:] {
		u.Abort()
		u.Abort()
		if _, err := u.Write(pcm); err == nil {
			t.Fatal("Write after Abort succeeded")
		}
		if _, err := u.Finish(); err == nil {
			t.Fatal("Finish after Abort succeeded")
		}
	}
	waitIdle(t, rec)

	// After Finish, Write and a second Finish fail and Abort is harmless.
	u, err := rec.Start(bg, "en", 8000)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := u.Write(pcm); err != nil {
		t.Fatal(err)
	}
	if _, err := u.Finish(); err != nil {
		t.Fatal(err)
	}
	if _, err := u.Write(pcm); err == nil {
		t.Fatal("Write after Finish succeeded")
	}
	if _, err := u.Finish(); err == nil {
		t.Fatal("second Finish succeeded")
	}
	u.Abort()
	waitIdle(t, rec)

	// A decoder abandoned mid-utterance is usable again.
	res, err := rec.Recognize(bg, "en", 16000, bytes.NewReader(speak(t, t.TempDir(), "kal16", "call mom")))
	if err != nil || res.Text != "call mom" {
		t.Fatalf("after aborts: %+v, %v", res, err)
	}
	waitIdle(t, rec)
}

func TestPayloadLimit(t *testing.T) {
	shared := testRecognizer(t)
	small := *shared // same pool, smaller limit
	small.cfg.MaxBytes = 1000
	u, err := small.Start(context.Background(), "en", 16000)
	if err != nil {
		t.Fatal(err)
	}
	_, err = u.Write(make([]byte, 1001))
	if e, ok := apierr.As(err); !ok || e.Code != apierr.PayloadTooLarge {
		t.Fatalf("%v, want PayloadTooLarge", err)
	}
	waitIdle(t, shared)
}

func TestRecognizeRejectsBadInput(t *testing.T) {
	rec := testRecognizer(t)
	bg := context.Background()
	good := wav.Encode(make([]int16, 1600), 16000)
	stereo := wav.AppendHeader(nil, 16000, 2, 6400)
	stereo = append(stereo, make([]byte, 6400)...)
	cases := []struct {
		name   string
		lang   string
		rate   int
		body   []byte
		status int
	}{
		{"rate disagrees with header", "en", 8000, good, 400},
		{"stereo", "en", 16000, stereo, 400},
		{"not a WAV", "en", 16000, []byte("hello, this is not audio at all"), 400},
		{"empty body", "en", 16000, nil, 400},
		{"truncated data", "en", 16000, good[:100], 400},
		{"44.1 kHz declared", "en", 44100, wav.Encode(make([]int16, 100), 44100), 400},
		{"Spanish", "es", 16000, good, 503},
		{"French", "fr", 16000, good, 400},
	}
	for _, c := range cases {
		_, err := rec.Recognize(bg, c.lang, c.rate, bytes.NewReader(c.body))
		e, ok := apierr.As(err)
		if !ok || e.Status != c.status {
			t.Errorf("%s: %v, want status %d", c.name, err, c.status)
		}
	}
	// Silence is not an error: it recognises as nothing or next to nothing.
	if _, err := rec.Recognize(bg, "en", 16000, bytes.NewReader(good)); err != nil {
		t.Errorf("silence: %v", err)
	}
	if err := Available("es"); err == nil || !strings.Contains(err.Error(), "Spanish") {
		t.Errorf("Spanish: %v", err)
	}
	waitIdle(t, rec)
}

func TestMissingModelNamesThePackage(t *testing.T) {
	_, err := New(Config{ModelDir: t.TempDir()})
	e, ok := apierr.As(err)
	if !ok || e.Status != 503 || !strings.Contains(e.Description, "pocketsphinx-en-us") {
		t.Fatalf("%v, want 503 naming pocketsphinx-en-us", err)
	}
}

// benchmarkAudio is a typical command, synthesised once.
func benchmarkAudio(b *testing.B) ([]int16, float64) {
	pcm := pcmOf(b, speak(b, b.TempDir(), "kal16", "what's the weather like in london tomorrow"))
	s := make([]int16, len(pcm)/2)
	for i := range s {
		s[i] = int16(binary.LittleEndian.Uint16(pcm[2*i:]))
	}
	return s, float64(len(s)) / 16000
}

// benchmarkDecoder times one decoder's search over the benchmark
// utterance's cepstra (computed and normalised once, outside the timing).
func benchmarkDecoder(b *testing.B, d *sphinx.Decoder) {
	samples, seconds := benchmarkAudio(b)
	fe, err := sphinx.NewFrontend(d, 1)
	if err != nil {
		b.Fatal(err)
	}
	defer fe.Close()
	if err := fe.Start(); err != nil {
		b.Fatal(err)
	}
	cep, err := fe.Process(nil, samples)
	if err != nil {
		b.Fatal(err)
	}
	if cep, err = fe.End(cep); err != nil {
		b.Fatal(err)
	}
	m := newMeanNormalizer(d.CepstrumSize(), len(cep))
	frames := m.flush(m.add(nil, cep))
	b.ResetTimer()
	start := processCPU()
	for b.Loop() {
		if err := d.Start(); err != nil {
			b.Fatal(err)
		}
		if err := d.ProcessCepstra(frames); err != nil {
			b.Fatal(err)
		}
		if err := d.End(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N)/seconds, "RTF")
	// The process's CPU time: less sensitive than the wall time to the
	// rest of a shared machine's work.
	b.ReportMetric((processCPU()-start).Seconds()/float64(b.N)/seconds, "CPU-RTF")
}

func processCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkMixedModels is the mixed decoder alone with the general
// model's n-grams as they were carried over before the trie reader
// (queried: its words and some bigrams), all of them (the default) and
// pruned, in one run. go test -run - -bench MixedModels -benchtime 5x
// ./server/speech
func BenchmarkMixedModels(b *testing.B) {
	for _, c := range []struct {
		name      string
		cfg       Config
		noOpeners bool // the domain model without its openers (before 2026-12-01)
	}{{"queried", Config{mixQueried: true}, false}, {"all", Config{}, false}, {"all-without-openers", Config{}, true}, {"pruned1e-7", Config{mixPrune: 1e-7}, false}} {
		cfg := c.cfg
		cfg.Grammar, cfg.Slots = dialogueGrammar(), 1
		if c.noOpeners {
			cfg.Grammar.Openers = nil
		}
		cfg.Decoders = []string{SourceMixed}
		cfg.NarrowbandDecoders = cfg.Decoders
		rec, err := New(cfg)
		if err != nil {
			b.Fatal(err)
		}
		u, err := rec.Start(context.Background(), "en", 16000)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(c.name, func(b *testing.B) { benchmarkDecoder(b, u.s.decs[0]) })
		u.Abort()
		rec.Close()
	}
}

// BenchmarkDecoders reports the real-time factor (processing time / audio
// time) of each kind of decoder alone on the same utterance, in one run so
// that they share the machine's load: today's pair costs grammar + full,
// an arrangement its decoders' sum (they run in parallel, one goroutine
// each). go test -run - -bench Decoders -benchtime 5x ./server/speech
func BenchmarkDecoders(b *testing.B) {
	all := []string{SourceGrammar, SourceFull, SourceDomain, SourceMixed}
	rec, err := New(Config{Grammar: dialogueGrammar(), Slots: 1, Decoders: all, NarrowbandDecoders: all})
	if err != nil {
		b.Fatal(err)
	}
	defer rec.Close()
	u, err := rec.Start(context.Background(), "en", 16000)
	if err != nil {
		b.Fatal(err)
	}
	defer u.Abort()
	for i, kind := range rec.Decoders() {
		b.Run(kind, func(b *testing.B) { benchmarkDecoder(b, u.s.decs[i]) })
	}
}

// BenchmarkRecognizeUtterance is the whole path of one upload: both
// decoders, the choice, the slot round trip. It also reports the CPU time
// of the process per second of audio (less sensitive than the wall time
// to the other work of a shared machine), and its Late variant decodes
// nothing before the mean is known (Config.LateStart), so the cost of the
// early start of the full decoder (it searches the first second twice on
// a longer command) shows in the same run.
func BenchmarkRecognizeUtterance(b *testing.B) {
	benchmarkUtterance(b, testRecognizer(b))
}

func BenchmarkRecognizeUtteranceLate(b *testing.B) {
	late := *testRecognizer(b)
	late.cfg.LateStart = true
	benchmarkUtterance(b, &late)
}

// BenchmarkArrangements is the whole path of one upload with the old pair
// (grammar + full), the defaults, the defaults with pocketsphinx's own
// search settings on the mixed decoder, and the 8 kHz pair, in one run:
// RTF is wall time / audio time (the decoders run in parallel), CPU-RTF
// the process's CPU time / audio time. go test -run - -bench Arrangements
// -benchtime 5x ./server/speech
func BenchmarkArrangements(b *testing.B) {
	for _, arr := range []struct {
		name     string
		decoders []string
		args     []string
	}{
		{"grammar+full", []string{SourceGrammar, SourceFull}, nil},
		{"mixed+full", DefaultDecoders, nil},
		{"mixed+full,pocketsphinx-settings", DefaultDecoders, PocketsphinxSearchArgs},
		{"domain+full", DefaultNarrowbandDecoders, nil},
	} {
		b.Run(arr.name, func(b *testing.B) {
			rec, err := New(Config{Grammar: dialogueGrammar(), Slots: 1, Decoders: arr.decoders, NarrowbandDecoders: arr.decoders, SearchArgs: arr.args})
			if err != nil {
				b.Fatal(err)
			}
			defer rec.Close()
			benchmarkUtterance(b, rec)
		})
	}
}

func benchmarkUtterance(b *testing.B, rec *Recognizer) {
	samples, seconds := benchmarkAudio(b)
	pcm := make([]byte, 2*len(samples))
	for i, v := range samples {
		binary.LittleEndian.PutUint16(pcm[2*i:], uint16(v))
	}
	cpu := processCPU
	b.ResetTimer()
	start := cpu()
	for b.Loop() {
		u, err := rec.Start(context.Background(), "en", 16000)
		if err != nil {
			b.Fatal(err)
		}
		for i := 0; i < len(pcm); i += 640 {
			if _, err := u.Write(pcm[i:min(i+640, len(pcm))]); err != nil {
				b.Fatal(err)
			}
		}
		if _, err := u.Finish(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N)/seconds, "RTF")
	b.ReportMetric((cpu()-start).Seconds()/float64(b.N)/seconds, "CPU-RTF")
}

func TestStartWithCancelledContextLeaksNothing(t *testing.T) {
	rec := testRecognizer(t)
	waitIdle(t, rec)
	for range 20 {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		u, err := rec.Start(ctx, "en", 16000)
		if err == nil {
			// The slot was free: the cancellation aborts the utterance.
			for i := 0; i < 200 && rec.Idle() != rec.Slots(); i++ {
				time.Sleep(5 * time.Millisecond)
			}
			if _, err := u.Finish(); err == nil {
				t.Fatal("Finish on a cancelled utterance succeeded")
			}
		}
	}
	waitIdle(t, rec)
}

func TestPCMDecoderAcrossSplitSamples(t *testing.T) {
	b := make([]byte, 64)
	for i := range b {
		b[i] = byte(i*37 + 1)
	}
	want := (&pcmDecoder{}).decode(nil, b)
	if len(want) != 32 || want[0] != int16(uint16(b[0])|uint16(b[1])<<8) {
		t.Fatalf("whole: %v", want)
	}
	// Chunks of 1, 2, 3 ... bytes: odd ones end mid-sample, short ones
	// follow them (a split sample must not be overwritten by the next).
	var d pcmDecoder
	var got []int16
	for i, n := 0, 1; i < len(b); i, n = i+n, n%7+1 {
		got = d.decode(got, b[i:min(i+n, len(b))])
	}
	if !slices.Equal(got, want) {
		t.Fatalf("chunked %v, want %v", got, want)
	}
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

// wordErrorRate is the word error rate of hyp against ref.
func wordErrorRate(ref, hyp string) float64 {
	r := strings.Fields(normalizeWords(ref))
	if len(r) == 0 {
		if len(strings.Fields(hyp)) == 0 {
			return 0
		}
		return 1
	}
	return float64(editDistance(r, strings.Fields(normalizeWords(hyp)))) / float64(len(r))
}

// TestMixedMarginOnlyMixed: Config.MixedMargin moves the threshold of the
// mixed arrangement alone; the short commands' domain decoder and 8 kHz
// keep their measured margins, and MinMargin still overrides every one.
func TestMixedMarginOnlyMixed(t *testing.T) {
	for _, c := range []struct {
		names      []string
		min, mixed float64
		narrowband bool
		want       float64
	}{
		{[]string{SourceMixed, SourceFull}, 0, 0, false, DefaultMixedMargin},
		{[]string{SourceMixed, SourceFull}, 0, -1, false, -1},
		{[]string{SourceMixed, SourceFull}, 2, -1, false, 2},
		{[]string{SourceDomain, SourceFull}, 0, -1, false, DefaultDomainMargin},
		{[]string{SourceDomain, SourceFull}, 0, -1, true, DefaultNarrowbandDomainMargin},
		{[]string{SourceGrammar, SourceFull}, 0, -1, false, DefaultMinMargin},
	} {
		var kinds []string
		a, err := arrange(c.names, c.min, c.mixed, c.narrowband, &kinds)
		if err != nil {
			t.Fatal(err)
		}
		if a.margin != c.want {
			t.Errorf("%v MinMargin %g MixedMargin %g narrowband %v: margin %g, want %g", c.names, c.min, c.mixed, c.narrowband, a.margin, c.want)
		}
	}
}

// The search settings reach the mixed decoder alone: the full decoder
// keeps pocketsphinx's, and the domain decoder of short commands and 8 kHz
// audio has its own (Config.DomainSearchArgs, none by default).
func TestSearchArgsReachTheMixedDecoder(t *testing.T) {
	rec := testRecognizer(t)
	if got := rec.decoderConfig(SourceMixed).Args; !slices.Equal(got, DefaultSearchArgs) {
		t.Errorf("mixed decoder: %q, want %q", got, DefaultSearchArgs)
	}
	if got := rec.decoderConfig(SourceDomain).Args; len(got) != 0 {
		t.Errorf("domain decoder: %q, want pocketsphinx's own", got)
	}
	for _, kind := range []string{SourceFull, SourceGrammar} {
		if got := rec.decoderConfig(kind).Args; got != nil {
			t.Errorf("%s decoder: %q, want pocketsphinx's own settings", kind, got)
		}
	}
}

// Config.DomainSearchArgs reach the domain decoder alone, nil and empty
// meaning pocketsphinx's own; a real decoder
// loads with them (sphinxbase refuses settings it does not know).
func TestDomainSearchArgsReachTheDomainDecoder(t *testing.T) {
	args := []string{"-lw", "7", "-beam", "1e-60"}
	for _, c := range []struct {
		set, want []string
	}{{nil, nil}, {[]string{}, nil}, {args, args}} {
		r := &Recognizer{cfg: Config{ModelDir: DefaultModelDir, DomainSearchArgs: c.set}.withDefaults()}
		if got := r.decoderConfig(SourceDomain).Args; !slices.Equal(got, c.want) {
			t.Errorf("DomainSearchArgs %q: domain decoder %q, want %q", c.set, got, c.want)
		}
		if got := r.decoderConfig(SourceMixed).Args; !slices.Equal(got, DefaultSearchArgs) {
			t.Errorf("DomainSearchArgs %q: mixed decoder %q, want %q", c.set, got, DefaultSearchArgs)
		}
		if got := r.decoderConfig(SourceFull).Args; got != nil {
			t.Errorf("DomainSearchArgs %q: full decoder %q, want pocketsphinx's own", c.set, got)
		}
	}
	rec, err := New(Config{Grammar: dialogueGrammar(), Slots: 1, Decoders: []string{SourceDomain}, NarrowbandDecoders: []string{SourceDomain},
		DomainSearchArgs: args})
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Close()
	if got := rec.decoderConfig(SourceDomain).Args; !slices.Equal(got, args) {
		t.Errorf("domain decoder of New: %q, want %q", got, args)
	}
}

// The short arrangement replaces the first decoder with ShortDecoder,
// unless ShortDecoder is in the arrangement already (it would be there
// twice, which New refuses).
func TestShortDecoders(t *testing.T) {
	for _, c := range []struct {
		decoders, want []string
	}{
		{[]string{SourceMixed, SourceFull}, []string{SourceDomain, SourceFull}},
		{[]string{SourceDomain, SourceFull}, []string{SourceDomain, SourceFull}},
		{[]string{SourceFull, SourceDomain}, []string{SourceFull, SourceDomain}},
		{[]string{SourceMixed}, []string{SourceMixed}},
	} {
		if got := (Config{Decoders: c.decoders}).withDefaults().shortDecoders(); !slices.Equal(got, c.want) {
			t.Errorf("Decoders %v: short arrangement %v, want %v", c.decoders, got, c.want)
		}
	}
}
