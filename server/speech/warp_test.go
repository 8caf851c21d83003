package speech

import (
	"bytes"
	"context"
	"slices"
	"testing"
	"time"

	"github.com/harkhq/hark/server/apierr"
)

// recognizeWarps recognises audio with opt and an estimate receiver, and
// returns the result with the estimate, checking that it came exactly
// once and that the result did not wait for it: the receiver holds on
// until the result is in the test's hands (a Finish that waited for the
// estimate would return only when the receiver gives up, 30 s later).
func recognizeWarps(t *testing.T, rec *Recognizer, rate int, opt Options, audio []byte) (Result, []float64, int) {
	t.Helper()
	type estimate struct {
		scores      []float64
		frames      int
		afterResult bool
	}
	got := make(chan estimate, 2)
	returned := make(chan struct{})
	opt.Warps = func(scores []float64, frames int) {
		select {
		case <-returned:
			got <- estimate{scores, frames, true}
		case <-time.After(30 * time.Second):
			got <- estimate{scores, frames, false}
		}
	}
	res, err := RecognizeWith(context.Background(), rec, "en", rate, opt, bytes.NewReader(audio))
	close(returned)
	if err != nil {
		t.Fatal(err)
	}
	e := <-got
	if !e.afterResult {
		t.Fatal("the result waited for the warp estimate")
	}
	select {
	case <-got:
		t.Fatal("the estimate came twice")
	case <-time.After(100 * time.Millisecond):
	}
	return res, e.scores, e.frames
}

// An utterance whose prior asks for it carries its score at every grid
// warp, and the voices' best warps follow their vocal tracts: slt (a
// woman's voice) is most likely under a higher warp than kal16 and awb
// (men's), as measured on the dev lines. The mean it returns was measured
// under the warp it was decoded with, which a prior out of range cannot
// set; 8 kHz audio is never warped.
func TestWarpEstimate(t *testing.T) {
	if raceEnabled {
		t.Skip("measured without the race detector (make test runs it so)")
	}
	rec := testRecognizer(t)
	dir := t.TempDir()
	const text = "set an alarm for seven thirty tomorrow morning"
	best := map[string]float64{}
	for _, voice := range []string{"kal16", "slt", "awb"} {
		audio := speak(t, dir, voice, text)
		_, warps, frames := recognizeWarps(t, rec, 16000, Options{Prior: &Prior{Estimate: true}}, audio)
		if len(warps) != len(WarpGrid) || frames < 100 {
			t.Fatalf("%s: %d scores over %d frames, want %d over the utterance", voice, len(warps), frames, len(WarpGrid))
		}
		i := 0
		for j, s := range warps {
			if s >= 0 {
				t.Fatalf("%s: score %g at warp %g is not a log likelihood", voice, s, WarpGrid[j])
			}
			if s > warps[i] {
				i = j
			}
		}
		best[voice] = WarpGrid[i]
		t.Logf("%s: best warp %g, scores %.1f", voice, WarpGrid[i], warps)
	}
	if !(best["slt"] > best["kal16"] && best["slt"] > best["awb"]) {
		t.Errorf("best warps %v: slt's should be above kal16's and awb's", best)
	}

	audio := speak(t, dir, "slt", text)
	plain, warps, _ := recognizeWarps(t, rec, 16000, Options{}, audio)
	if warps != nil || plain.Mean == nil || plain.Mean.Warp != 0 {
		t.Fatalf("without an estimate asked: warps %v, mean %+v", warps, plain.Mean)
	}
	warped, err := RecognizeWith(context.Background(), rec, "en", 16000, Options{Prior: &Prior{Warp: 1.2}}, bytes.NewReader(audio))
	if err != nil {
		t.Fatal(err)
	}
	if warped.Mean == nil || warped.Mean.Warp != 1.2 || slices.Equal(warped.Mean.Mean, plain.Mean.Mean) {
		t.Fatalf("decoded at warp 1.2: mean %+v, want one measured under 1.2", warped.Mean)
	}
	// 8 kHz audio keeps the model's filters and carries no estimate.
	narrow, warps, _ := recognizeWarps(t, rec, 8000, Options{Prior: &Prior{Warp: 1.2, Estimate: true}}, speak(t, dir, "kal", text))
	if warps != nil || narrow.Mean == nil || narrow.Mean.Warp != 0 {
		t.Fatalf("8 kHz with warp 1.2 and an estimate asked: warps %v, mean %+v", warps, narrow.Mean)
	}
	for _, bad := range []float64{0.2, 3, -1} {
		_, err := RecognizeWith(context.Background(), rec, "en", 16000, Options{Prior: &Prior{Warp: bad}}, bytes.NewReader(audio))
		if e, ok := apierr.As(err); !ok || e.Status != 400 {
			t.Errorf("warp %g: %v, want 400", bad, err)
		}
	}
}

// BenchmarkWarpEstimate times the estimate an utterance carries when its
// prior asks (every grid warp's front end and domain search over a 2-3 s
// command), against the recognition of the same audio in the same run:
// result-ms/op is how long the caller waits for the result (the estimate
// comes after it), cpu-ms/op the work of both, ns/op until the estimate
// is in.
func BenchmarkWarpEstimate(b *testing.B) {
	rec := testRecognizer(b)
	audio := speak(b, b.TempDir(), "slt", "set an alarm for seven thirty tomorrow morning")
	for _, c := range []struct {
		name     string
		estimate bool
	}{{"recognition", false}, {"recognition+estimate", true}} {
		b.Run(c.name, func(b *testing.B) {
			start, toResult := processCPU(), time.Duration(0)
			for b.Loop() {
				in := make(chan struct{})
				opt := Options{Prior: &Prior{Estimate: c.estimate}, Warps: func([]float64, int) { close(in) }}
				began := time.Now()
				if _, err := RecognizeWith(context.Background(), rec, "en", 16000, opt, bytes.NewReader(audio)); err != nil {
					b.Fatal(err)
				}
				toResult += time.Since(began)
				<-in
			}
			b.ReportMetric(float64((processCPU()-start).Milliseconds())/float64(b.N), "cpu-ms/op")
			b.ReportMetric(float64(toResult.Milliseconds())/float64(b.N), "result-ms/op")
		})
	}
}
