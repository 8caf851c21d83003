package speech

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"sync"
	"testing"

	"github.com/harkhq/hark/server/apierr"
	"github.com/harkhq/hark/server/speech/adapt"
	"github.com/harkhq/hark/server/speech/resample"
	"github.com/harkhq/hark/server/speech/wav"
)

// countingEstimator records the estimates Priors asks for and answers
// each with a transform that names how many utterances it came from (in
// its first offset), or with fail's error.
type countingEstimator struct {
	mu    sync.Mutex
	calls []int // utterances per estimate
	warps []float64
	fail  error
}

func (c *countingEstimator) estimate(_ context.Context, utts []adapt.Utterance, warp float64) (adapt.Transform, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls, c.warps = append(c.calls, len(utts)), append(c.warps, warp)
	if c.fail != nil {
		return adapt.Transform{}, c.fail
	}
	t := adapt.Identity(13, 13, 13)
	t.Streams[0].B[0] = float64(len(utts))
	return t, nil
}

func (c *countingEstimator) seen() []int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]int(nil), c.calls...)
}

// offset is the first offset of a transform text, what countingEstimator
// writes its utterance count in; -1 for none.
func offset(t *testing.T, text string) int {
	t.Helper()
	if text == "" {
		return -1
	}
	tr, err := adapt.ParseTransform(text)
	if err != nil {
		t.Fatal(err)
	}
	return int(tr.Streams[0].B[0])
}

var aSecond = wav.Encode(make([]int16, 16000), 16000)

// A speaker is first adapted at their adaptFirst-th utterance, then every
// adaptEvery, from their last adaptKeep at most; the utterance after one
// that made an estimate due waits for it and is decoded under it. Another
// speaker's transform is never theirs, and a transform learnt under one
// warp is not given under another.
func TestAdaptationIsDueAndWaitedFor(t *testing.T) {
	est := &countingEstimator{}
	p := NewPriors(8)
	p.NoWarp = true
	p.Adapt = est.estimate
	for i := 1; i < adaptFirst; i++ {
		p.AddHeard("a", aSecond, "call mom", 0)
	}
	if got := p.Get("a").Transform; got != "" || len(est.seen()) != 0 {
		t.Fatalf("adapted after %d utterances", adaptFirst-1)
	}
	p.AddHeard("a", aSecond, "call mom", 0)
	if got := offset(t, p.Get("a").Transform); got != adaptFirst {
		t.Fatalf("after %d utterances: a transform from %d", adaptFirst, got)
	}
	if got := p.Get("b").Transform; got != "" {
		t.Fatal("another speaker got a's transform")
	}
	for range 100 { // turns as the platform takes them: Get, recognise, AddHeard
		p.Get("a")
		p.AddHeard("a", aSecond, "what time is it", 1)
	}
	want := []int{adaptFirst}
	for n := adaptFirst + adaptEvery; n <= adaptFirst+100; n += adaptEvery {
		want = append(want, min(n, adaptKeep))
	}
	p.Get("a") // waits for the last
	if got := est.seen(); !slices.Equal(got, want) {
		t.Fatalf("estimates from %v utterances, want %v", got, want)
	}
	if got := offset(t, p.Get("a").Transform); got != adaptKeep {
		t.Fatalf("latest transform from %d utterances, want %d", got, adaptKeep)
	}

	// A transform is given only under the warp it was estimated under;
	// under another, the kept utterances are estimated again, once.
	w := NewPriors(8)
	w.Adapt = est.estimate
	for range adaptFirst {
		w.AddHeard("c", aSecond, "stop", 1.2)
	}
	w.mu.Lock()
	under12 := w.transform("c", 1.2) // waits for the estimate AddHeard began
	n := len(est.seen())
	under1 := w.transform("c", 0)
	w.mu.Unlock()
	if offset(t, under12) != adaptFirst || offset(t, under1) != adaptFirst || len(est.seen()) != n+1 {
		t.Fatalf("estimates %v: none under 1.2 or under the model's filters", est.seen())
	}
	est.mu.Lock()
	again := est.warps[len(est.warps)-1]
	est.fail = errors.New("bw failed")
	est.mu.Unlock()
	if again != 1 {
		t.Fatalf("estimated again under %g, want 1", again)
	}
	w.mu.Lock()
	w.transform("c", 0.9)
	w.transform("c", 0.9)
	w.mu.Unlock()
	if len(est.seen()) != n+2 {
		t.Fatalf("a failed estimate under a new warp was begun %d times", len(est.seen())-n-1)
	}
}

// A failed estimate keeps the speaker's previous transform; audio that is
// not a 16-bit mono WAV at 16 kHz, or an empty text, is not kept; the
// audio held in all stays under its bound, the least recently heard
// speakers' dropped first.
func TestAdaptationBadInputAndBounds(t *testing.T) {
	est := &countingEstimator{}
	p := NewPriors(8)
	p.NoWarp = true
	p.Adapt = est.estimate
	stereo := append(wav.AppendHeader(nil, 16000, 2, 6400), make([]byte, 6400)...)
	for _, bad := range [][]byte{nil, []byte("not audio"), stereo, wav.Encode(make([]int16, 100), 44100),
		wav.Encode(make([]int16, 8000), 8000), wav.Encode(make([]int16, 21*16000), 16000)} {
		p.AddHeard("a", bad, "call mom", 0)
	}
	p.AddHeard("a", aSecond, "   ", 0)
	p.mu.Lock()
	held := p.held
	p.mu.Unlock()
	if held != 0 {
		t.Fatalf("%d samples kept of bad input", held)
	}
	for range adaptFirst {
		p.AddHeard("a", aSecond, "call mom", 0)
	}
	first := p.Get("a").Transform
	est.mu.Lock()
	est.fail = errors.New("bw: final state not reached")
	est.mu.Unlock()
	for range adaptEvery {
		p.AddHeard("a", aSecond, "call mom", 0)
	}
	if got := p.Get("a").Transform; got != first || len(est.seen()) != 2 {
		t.Fatalf("after a failed estimate (%d estimates): the transform changed", len(est.seen()))
	}

	q := NewPriors(8)
	q.Adapt = est.estimate
	q.heldMax = 2 * 16000
	q.AddHeard("old", aSecond, "stop", 0)
	q.AddHeard("old", aSecond, "stop", 0)
	q.AddHeard("new", aSecond, "stop", 0)
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.held > q.heldMax {
		t.Fatalf("%d samples held, bound %d", q.held, q.heldMax)
	}
	if n := len(q.byKey["old"].Value.(*priorEntry).adapt.heard); n != 0 {
		t.Fatalf("the least recently heard speaker keeps %d utterances", n)
	}
	if n := q.byKey["new"].Value.(*priorEntry).adapt.held(); n != 16000 || q.held != n {
		t.Fatalf("the latest speaker keeps %d samples, %d held in all; want 16000", n, q.held)
	}
}

// A speaker's transform, estimated by sphinxtrain from what the recogniser
// heard in six of their commands, reaches the decoders: five other
// commands are heard with fewer word errors under it. The speaker is flite's kal,
// an 8 kHz voice, sent as 16 kHz audio (a telephone line recorded at 16
// kHz: nothing says its band is narrow, so only their own transform can
// learn it). The slot's next utterance without a transform is decoded
// under the model's own means again, exactly as before (same texts, same
// margin); the result says which transform it was decoded under, 8 kHz
// audio's being the narrowband one. A transform the model cannot take is
// refused.
func TestTransformAdaptsTheDecodersAndIsUndone(t *testing.T) {
	if raceEnabled {
		t.Skip("speech-bound: run without the race detector (make test runs it so)")
	}
	est, err := NewEstimator()
	if err != nil {
		t.Skip(err)
	}
	rec, err := New(Config{Grammar: dialogueGrammar(), Slots: 1}) // one slot: every utterance meets the last one's transform
	if err != nil {
		t.Skip(err)
	}
	defer rec.Close()
	set, dir, bg := loadTestSet(t), t.TempDir(), context.Background()
	decode := func(audio []byte, rate int, p *Prior) Result {
		t.Helper()
		res, err := RecognizeWith(bg, rec, "en", rate, Options{Prior: p}, bytes.NewReader(audio))
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	// kal's 8 kHz WAV as a 16 kHz one.
	wideband := func(text string) []byte {
		pcm, err := wav.Decode(speak(t, dir, "kal", text), 8000)
		if err != nil {
			t.Fatal(err)
		}
		up := resample.NewUpsampler()
		return wav.Encode(up.Flush(up.Process(nil, pcm)), 16000)
	}
	var heard []adapt.Utterance
	for _, text := range set.Commands[10:16] {
		audio := wideband(text)
		pcm, ok := heardPCM(audio)
		if !ok {
			t.Fatal("a fixture is not a WAV AddHeard keeps")
		}
		heard = append(heard, adapt.Utterance{PCM: pcm, Text: decode(audio, 16000, nil).Text})
	}
	tr, err := est(bg, heard, 1)
	if err != nil {
		t.Fatal(err)
	}
	adapted := &Prior{Transform: tr.String()}
	var before []Result
	var errsBefore, errsAfter float64
	test := set.Commands[:5]
	for _, text := range test {
		audio := wideband(text)
		b, a := decode(audio, 16000, nil), decode(audio, 16000, adapted)
		if b.Adaptation != "" || a.Adaptation != AdaptedSpeaker {
			t.Fatalf("decoded under %q and %q, want none and %q", b.Adaptation, a.Adaptation, AdaptedSpeaker)
		}
		before = append(before, b)
		errsBefore += wordErrorRate(text, b.Text)
		errsAfter += wordErrorRate(text, a.Text)
		if a.Text != b.Text {
			t.Logf("%q: %q unadapted, %q adapted", text, b.Text, a.Text)
		}
	}
	n := float64(len(test)) / 100
	t.Logf("word error rate over %d commands: %.1f %% unadapted, %.1f %% adapted", len(test), errsBefore/n, errsAfter/n)
	if errsAfter >= errsBefore {
		t.Errorf("the speaker's transform did not help: %.1f %% → %.1f %%", errsBefore/n, errsAfter/n)
	}
	if again := decode(wideband(set.Commands[0]), 16000, nil); again.Text != before[0].Text || again.Margin != before[0].Margin {
		t.Errorf("after an adapted utterance, the model's own means heard %q (margin %g), first %q (margin %g)",
			again.Text, again.Margin, before[0].Text, before[0].Margin)
	}
	if got := decode(speak(t, dir, "kal", "stop"), 8000, nil).Adaptation; got != AdaptedNarrowband {
		t.Errorf("8 kHz audio decoded under %q, want %q", got, AdaptedNarrowband)
	}
	for name, text := range map[string]string{
		"garbage":     "not a transform",
		"two streams": adapt.Identity(13, 13).String(),
		"wrong size":  adapt.Identity(12, 12, 12).String(),
	} {
		_, err := RecognizeWith(bg, rec, "en", 8000, Options{Prior: &Prior{Transform: text}}, bytes.NewReader(speak(t, dir, "kal", "stop")))
		if e, ok := apierr.As(err); !ok || e.Status != 400 {
			t.Errorf("%s: %v, want 400", name, err)
		}
	}
}

// BenchmarkSpeakerSwitch is one upload on a one-slot recogniser whose
// utterances come from one speaker without a transform (the baseline), one
// adapted speaker (the transform is already in the decoders), and two
// adapted speakers in turn (every utterance reloads the decoders' means
// under the other's transform): the last two against the first are the
// price of adaptation. go test -run - -bench SpeakerSwitch ./server/speech
func BenchmarkSpeakerSwitch(b *testing.B) {
	rec, err := New(Config{Grammar: dialogueGrammar(), Slots: 1})
	if err != nil {
		b.Skip(err)
	}
	defer rec.Close()
	samples, seconds := benchmarkAudio(b)
	audio := wav.Encode(samples, 16000)
	one, other := adapt.Identity(13, 13, 13), adapt.Identity(13, 13, 13)
	one.Streams[0].B[1], other.Streams[0].B[1] = 0.5, -0.5
	for _, c := range []struct {
		name   string
		priors []*Prior
	}{
		{"unadapted", []*Prior{nil}},
		{"one-speaker", []*Prior{{Transform: one.String()}}},
		{"two-speakers", []*Prior{{Transform: one.String()}, {Transform: other.String()}}},
	} {
		b.Run(c.name, func(b *testing.B) {
			i := 0
			for b.Loop() {
				p := c.priors[i%len(c.priors)]
				i++
				if _, err := RecognizeWith(context.Background(), rec, "en", 16000, Options{Prior: p}, bytes.NewReader(audio)); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(b.Elapsed().Seconds()/float64(b.N)/seconds, "RTF")
		})
	}
}
