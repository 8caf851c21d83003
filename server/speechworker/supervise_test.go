package speechworker

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/harkhq/hark/server/apierr"
	"github.com/harkhq/hark/server/dialogue"
	"github.com/harkhq/hark/server/speech"
	"github.com/harkhq/hark/server/speech/wav"
)

// logTo collects a pool's log lines.
type logTo struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logTo) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *logTo) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

func (l *logTo) logger() *slog.Logger { return slog.New(slog.NewTextHandler(l, nil)) }

func synthesisPool(t testing.TB, size int, log *logTo) *Synthesis {
	t.Helper()
	if log == nil {
		log = &logTo{}
	}
	s := NewSynthesis(Options{Size: size, Logger: log.logger()})
	t.Cleanup(s.Close)
	if err := s.Ready(context.Background()); err != nil {
		t.Skipf("speech synthesis is not available here: %v", err)
	}
	return s
}

// killer sends sig to the workers of p that serve a request, at most
// limit of them (0: no limit), until stopped; it reports how many it
// killed.
func killer(p *Pool, sig syscall.Signal, limit int) (stop func() int) {
	done := make(chan struct{})
	killed := map[int]bool{}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-done:
				return
			case <-time.After(time.Millisecond):
			}
			for _, pid := range p.Stats().Busy {
				if !killed[pid] && (limit == 0 || len(killed) < limit) {
					killed[pid] = true
					syscall.Kill(pid, sig)
				}
			}
		}
	}()
	return func() int {
		close(done)
		wg.Wait()
		return len(killed)
	}
}

// waitFull waits for a pool to have live workers again, all idle
// (workers start on demand, up to the pool's size).
func waitFull(t *testing.T, p *Pool, live int) Stats {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		s := p.Stats()
		if s.Live == live && s.Idle == live {
			return s
		}
		if time.Now().After(deadline) {
			t.Fatalf("the pool did not recover: %+v", s)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// longSentence takes espeak-ng about a second.
var longSentence = strings.Repeat("the quick brown fox jumps over the lazy dog, ", 40) + "and that is all."

func TestSynthesisWorkerKilledMidRequestIsRetried(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGSEGV, syscall.SIGKILL} {
		t.Run(sig.String(), func(t *testing.T) {
			log := &logTo{}
			s := synthesisPool(t, 2, log)
			want, err := s.Speak(context.Background(), "en-us", longSentence)
			if err != nil {
				t.Fatal(err)
			}
			live := s.Stats().Live
			stop := killer(s.Pool, sig, 1)
			got, err := s.Speak(context.Background(), "en-us", longSentence)
			if killed := stop(); killed != 1 {
				t.Fatalf("%d workers killed, want 1", killed)
			}
			if err != nil {
				t.Fatalf("the retry failed: %v", err)
			}
			if len(got) != len(want) {
				t.Fatalf("%d samples after the retry, %d undisturbed", len(got), len(want))
			}
			st := waitFull(t, s.Pool, live)
			if st.Restarts != 1 {
				t.Fatalf("%d restarts, want 1", st.Restarts)
			}
			line := log.String()
			for _, want := range []string{"speech worker died", "text_runes=" + strconv.Itoa(len([]rune(longSentence))), "attempt=1", "exit="} {
				if !strings.Contains(line, want) {
					t.Errorf("the crash log lacks %q:\n%s", want, line)
				}
			}
		})
	}
}

func TestSynthesisDyingEveryTimeAnswers503(t *testing.T) {
	s := synthesisPool(t, 1, nil)
	stop := killer(s.Pool, syscall.SIGSEGV, 0)
	_, err := s.Speak(context.Background(), "en-us", longSentence)
	killed := stop()
	e, ok := apierr.As(err)
	if !ok || e.Status != 503 || e.Code != apierr.Unavailable || !strings.Contains(e.Description, "failed twice") {
		t.Fatalf("%v, want 503 Unavailable \"speech synthesis failed twice; try again\"", err)
	}
	if killed != 2 {
		t.Fatalf("%d workers killed, want 2 (one try and one retry)", killed)
	}
	// The pool comes back to its size and serves again.
	st := waitFull(t, s.Pool, 1)
	if st.Restarts != 2 {
		t.Fatalf("%d restarts, want 2", st.Restarts)
	}
	if pcm, err := s.Speak(context.Background(), "en-us", "Back again."); err != nil || len(pcm) == 0 {
		t.Fatalf("after the crashes: %d samples, %v", len(pcm), err)
	}
}

func TestSynthesisCancelLeavesAWorkingWorker(t *testing.T) {
	s := synthesisPool(t, 1, nil)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for len(s.Stats().Busy) == 0 {
			time.Sleep(time.Millisecond)
		}
		cancel()
	}()
	if _, err := s.Speak(ctx, "en-us", longSentence); !errors.Is(err, context.Canceled) {
		t.Fatalf("%v, want context.Canceled", err)
	}
	if st := s.Stats(); st.Restarts != 0 || st.Idle != 1 {
		t.Fatalf("after a cancel: %+v", st)
	}
	if _, err := s.Speak(context.Background(), "en-us", "Still here."); err != nil {
		t.Fatal(err)
	}
}

// flite synthesises a 16 kHz WAV fixture (never committed).
func flite(t testing.TB, text string) []byte {
	t.Helper()
	if _, err := exec.LookPath("flite"); err != nil {
		t.Skip("flite is not installed (Debian package flite): no speech fixtures")
	}
	out := filepath.Join(t.TempDir(), "say.wav")
	if b, err := exec.Command("flite", "-voice", "kal16", "-t", text, "-o", out).CombinedOutput(); err != nil {
		t.Fatalf("flite: %v %s", err, b)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func dialogueGrammar() speech.GrammarSource { return dialogue.GrammarSpecOf("en") }

func recognitionPool(t testing.TB, size int, log *logTo) *Recognition {
	t.Helper()
	if log == nil {
		log = &logTo{}
	}
	r := NewRecognition(speech.Config{Grammar: dialogueGrammar()}, Options{Size: size, Logger: log.logger()})
	t.Cleanup(r.Close)
	if err := r.Ready(context.Background()); err != nil {
		t.Skipf("speech recognition is not available here: %v", err)
	}
	return r
}

// pcmOf returns the PCM of a WAV fixture.
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

// stream writes pcm in 20 ms chunks, calling mid once half of it is out.
func stream(t testing.TB, u speech.Stream, pcm []byte, pace time.Duration, mid func()) (speech.Result, error) {
	t.Helper()
	for i := 0; i < len(pcm); i += 640 {
		if i >= len(pcm)/2 && mid != nil {
			mid()
			mid = nil
		}
		if _, err := u.Write(pcm[i:min(i+640, len(pcm))]); err != nil {
			return speech.Result{}, err
		}
		time.Sleep(pace)
	}
	return u.Finish()
}

// TestRecognitionInWorkers shares one pool of one worker (loading the
// models takes seconds): an abort keeps the worker, a worker killed
// mid-utterance is replaced and the utterance replayed, and a worker dying
// on every try answers 503.
func TestRecognitionInWorkers(t *testing.T) {
	log := &logTo{}
	r := recognitionPool(t, 1, log)
	pcm := pcmOf(t, flite(t, "what time is it"))
	t.Run("AbortReturnsTheWorker", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		u, err := r.Open(ctx, "en", 16000)
		if err != nil {
			t.Fatal(err)
		}
		u.Write(pcm[:len(pcm)/2])
		cancel()
		for r.Idle() != r.Slots() { // the abort runs on its own goroutine
			time.Sleep(time.Millisecond)
		}
		if _, err := u.Write(pcm[len(pcm)/2:]); err == nil {
			t.Fatal("writing after the cancel worked")
		}
		if st := waitFull(t, r.Pool, 1); st.Restarts != 0 {
			t.Fatalf("an abort killed a worker: %+v", st)
		}
		u, err = r.Open(context.Background(), "en", 16000)
		if err != nil {
			t.Fatal(err)
		}
		res, err := stream(t, u, pcm, 0, nil)
		if err != nil || res.Text != "what time is it" {
			t.Fatalf("after an abort: %q %v", res.Text, err)
		}
		// The readings cross the pipe: the chosen one first, then the
		// full decoder's other readings, below its best path, and the
		// in-domain decoder's, marked as its alternatives.
		if len(res.Hypotheses) < 2 || res.Hypotheses[0].Text != res.Text || res.Hypotheses[0].Source != res.Source {
			t.Fatalf("hypotheses %+v for %q from %s", res.Hypotheses, res.Text, res.Source)
		}
		full, alts := 0, 0
		for _, h := range res.Hypotheses[1:] {
			switch {
			case h.Source == speech.SourceFull:
				full++
				if h.Score > 0 {
					t.Errorf("full reading %+v above the best path", h)
				}
			case h.Alternative:
				alts++
			}
		}
		if full == 0 || alts == 0 {
			t.Errorf("%d n-best readings of the full decoder and %d other readings of the in-domain one among %+v", full, alts, res.Hypotheses)
		}
	})
	t.Run("PriorCrossesThePipe", func(t *testing.T) {
		// The result carries the utterance's cepstral mean; the next
		// open request carries it back as the prior, and the worker
		// checks it (a mean of the wrong size is refused, not ignored).
		u, err := r.Open(context.Background(), "en", 16000)
		if err != nil {
			t.Fatal(err)
		}
		first, err := stream(t, u, pcm, 0, nil)
		if err != nil || first.Mean == nil || len(first.Mean.Mean) != 13 || first.Mean.Frames < 50 {
			t.Fatalf("first utterance: %+v %v", first, err)
		}
		_, err = r.OpenWith(context.Background(), "en", 16000, speech.Options{Prior: &speech.Prior{Mean: first.Mean.Mean[:5], Frames: 80}})
		if e, ok := apierr.As(err); !ok || e.Status != 400 || !strings.Contains(e.Description, "5 coefficients") {
			t.Fatalf("a prior of 5 coefficients: %v, want 400", err)
		}
		u, err = r.OpenWith(context.Background(), "en", 16000, speech.Options{Prior: first.Mean})
		if err != nil {
			t.Fatal(err)
		}
		if res, err := stream(t, u, pcm, 0, nil); err != nil || res.Text != "what time is it" {
			t.Fatalf("with the prior: %q %v", res.Text, err)
		}
		if st := waitFull(t, r.Pool, 1); st.Restarts != 0 {
			t.Fatalf("a refused prior killed a worker: %+v", st)
		}
		// The speaker's warp and the request for an estimate cross too:
		// the mean comes back measured under the warp, and a command long
		// enough carries its scores at every grid warp, after its result;
		// the worker takes its next utterance once it has sent them.
		long := pcmOf(t, flite(t, "set an alarm for seven thirty tomorrow morning"))
		type estimate struct {
			scores []float64
			frames int
		}
		got := make(chan estimate, 1)
		u, err = r.OpenWith(context.Background(), "en", 16000, speech.Options{Prior: &speech.Prior{Warp: 1.2, Estimate: true},
			Warps: func(scores []float64, frames int) { got <- estimate{scores, frames} }})
		if err != nil {
			t.Fatal(err)
		}
		res, err := stream(t, u, long, 0, nil)
		if err != nil || res.Mean == nil || res.Mean.Warp != 1.2 {
			t.Fatalf("with warp 1.2 and an estimate asked: %v, mean %+v", err, res.Mean)
		}
		if e := <-got; len(e.scores) != len(speech.WarpGrid) || e.frames < 100 {
			t.Fatalf("with an estimate asked: %d warp scores over %d frames", len(e.scores), e.frames)
		}
		next, err := r.Open(context.Background(), "en", 16000)
		if err != nil {
			t.Fatal(err)
		}
		if res, err := stream(t, next, long, 0, nil); err != nil || res.Text == "" {
			t.Fatalf("the utterance after an estimate: %q %v", res.Text, err)
		}
		if st := waitFull(t, r.Pool, 1); st.Restarts != 0 {
			t.Fatalf("an estimate killed a worker: %+v", st)
		}
		if _, err = r.OpenWith(context.Background(), "en", 16000, speech.Options{Prior: &speech.Prior{Warp: 7}}); err == nil {
			t.Fatal("a warp of 7 was accepted")
		}
	})
	t.Run("KilledMidUtteranceIsRetried", func(t *testing.T) {
		before := r.Stats().Restarts
		u, err := r.Open(context.Background(), "en", 16000)
		if err != nil {
			t.Fatal(err)
		}
		var victim int
		res, err := stream(t, u, pcm, time.Millisecond, func() {
			victim = r.Stats().Busy[0]
			syscall.Kill(victim, syscall.SIGSEGV)
		})
		if err != nil {
			t.Fatalf("the retry failed: %v", err)
		}
		if res.Text != "what time is it" {
			t.Fatalf("heard %q after the retry", res.Text)
		}
		if st := waitFull(t, r.Pool, 1); st.Restarts != before+1 {
			t.Fatalf("%d restarts, want %d: %+v", st.Restarts, before+1, st)
		}
		if !strings.Contains(log.String(), "audio_bytes=") || !strings.Contains(log.String(), "pid="+strconv.Itoa(victim)) {
			t.Fatalf("the crash log lacks the audio length or the pid:\n%s", log.String())
		}
	})
	t.Run("DyingEveryTimeAnswers503", func(t *testing.T) {
		u, err := r.Open(context.Background(), "en", 16000)
		if err != nil {
			t.Fatal(err)
		}
		stop := killer(r.Pool, syscall.SIGKILL, 0)
		_, err = stream(t, u, pcm, time.Millisecond, nil)
		stop()
		if e, ok := apierr.As(err); !ok || e.Status != 503 || !strings.Contains(e.Description, "speech recognition failed twice") {
			t.Fatalf("%v, want 503 \"speech recognition failed twice; try again\"", err)
		}
		u.Abort()
		waitFull(t, r.Pool, 1)
		if r.Idle() != r.Slots() {
			t.Fatalf("%d of %d slots idle", r.Idle(), r.Slots())
		}
	})
}

// When replacements cannot start (the binary was replaced, say), requests
// get a 503 at once instead of waiting, and the pool recovers once
// workers start again.
func TestWorkersThatCannotStartAnswer503(t *testing.T) {
	var broken atomic.Bool
	s := NewSynthesis(Options{Size: 1, Command: func(role string) (*exec.Cmd, error) {
		if broken.Load() {
			return exec.Command("false"), nil
		}
		return SelfCommand(role)
	}})
	t.Cleanup(s.Close)
	if err := s.Ready(context.Background()); err != nil {
		t.Skipf("speech synthesis is not available here: %v", err)
	}
	broken.Store(true)
	stop := killer(s.Pool, syscall.SIGKILL, 1)
	_, err := s.Speak(context.Background(), "en-us", longSentence)
	stop()
	if e, ok := apierr.As(err); !ok || e.Status != 503 {
		t.Fatalf("%v, want a 503", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	start := time.Now()
	_, err = s.Speak(ctx, "en-us", "Anyone there?")
	if e, ok := apierr.As(err); !ok || e.Status != 503 || time.Since(start) > 5*time.Second {
		t.Fatalf("%v after %s, want a 503 at once", err, time.Since(start))
	}
	broken.Store(false)
	waitFull(t, s.Pool, 1)
	if _, err := s.Speak(context.Background(), "en-us", "Back."); err != nil {
		t.Fatal(err)
	}
}

func TestRecognitionRefusesTooMuchAudio(t *testing.T) {
	r := NewRecognition(speech.Config{Grammar: dialogueGrammar(), MaxBytes: 32000}, Options{Size: 1})
	t.Cleanup(r.Close)
	if err := r.Ready(context.Background()); err != nil {
		t.Skipf("speech recognition is not available here: %v", err)
	}
	u, err := r.Open(context.Background(), "en", 16000)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := u.Write(make([]byte, 30000)); err != nil {
		t.Fatal(err)
	}
	_, err = u.Write(make([]byte, 4000))
	if e, ok := apierr.As(err); !ok || e.Code != apierr.PayloadTooLarge {
		t.Fatalf("%v, want 400 PayloadTooLarge", err)
	}
	if _, err := u.Finish(); err == nil {
		t.Fatal("the utterance finished after its audio was refused")
	}
	waitFull(t, r.Pool, 1)
	if st := r.Stats(); st.Restarts != 0 {
		t.Fatalf("refusing audio killed a worker: %+v", st)
	}
}
