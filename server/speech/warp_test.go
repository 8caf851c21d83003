package speech

import (
	"bytes"
	"context"
	"slices"
	"testing"

	"github.com/harkhq/hark/server/apierr"
)

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
		res, err := RecognizeWith(context.Background(), rec, "en", 16000, Options{Prior: &Prior{Estimate: true}}, bytes.NewReader(audio))
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Warps) != len(WarpGrid) || res.WarpFrames < 100 {
			t.Fatalf("%s: %d scores over %d frames, want %d over the utterance", voice, len(res.Warps), res.WarpFrames, len(WarpGrid))
		}
		i := 0
		for j, s := range res.Warps {
			if s >= 0 {
				t.Fatalf("%s: score %g at warp %g is not a log likelihood", voice, s, WarpGrid[j])
			}
			if s > res.Warps[i] {
				i = j
			}
		}
		best[voice] = WarpGrid[i]
		t.Logf("%s: best warp %g, scores %.1f", voice, WarpGrid[i], res.Warps)
	}
	if !(best["slt"] > best["kal16"] && best["slt"] > best["awb"]) {
		t.Errorf("best warps %v: slt's should be above kal16's and awb's", best)
	}

	audio := speak(t, dir, "slt", text)
	plain, err := RecognizeWith(context.Background(), rec, "en", 16000, Options{}, bytes.NewReader(audio))
	if err != nil {
		t.Fatal(err)
	}
	if plain.Warps != nil || plain.Mean == nil || plain.Mean.Warp != 0 {
		t.Fatalf("without an estimate asked: warps %v, mean %+v", plain.Warps, plain.Mean)
	}
	warped, err := RecognizeWith(context.Background(), rec, "en", 16000, Options{Prior: &Prior{Warp: 1.2}}, bytes.NewReader(audio))
	if err != nil {
		t.Fatal(err)
	}
	if warped.Mean == nil || warped.Mean.Warp != 1.2 || slices.Equal(warped.Mean.Mean, plain.Mean.Mean) {
		t.Fatalf("decoded at warp 1.2: mean %+v, want one measured under 1.2", warped.Mean)
	}
	// 8 kHz audio keeps the model's filters and carries no estimate.
	narrow, err := RecognizeWith(context.Background(), rec, "en", 8000, Options{Prior: &Prior{Warp: 1.2, Estimate: true}},
		bytes.NewReader(speak(t, dir, "kal", text)))
	if err != nil {
		t.Fatal(err)
	}
	if narrow.Warps != nil || narrow.Mean == nil || narrow.Mean.Warp != 0 {
		t.Fatalf("8 kHz with warp 1.2 and an estimate asked: warps %v, mean %+v", narrow.Warps, narrow.Mean)
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
// command), against the recognition of the same audio in the same run.
func BenchmarkWarpEstimate(b *testing.B) {
	rec := testRecognizer(b)
	audio := speak(b, b.TempDir(), "slt", "set an alarm for seven thirty tomorrow morning")
	for _, c := range []struct {
		name string
		opt  Options
	}{{"recognition", Options{}}, {"recognition+estimate", Options{Prior: &Prior{Estimate: true}}}} {
		b.Run(c.name, func(b *testing.B) {
			start := processCPU()
			for b.Loop() {
				if _, err := RecognizeWith(context.Background(), rec, "en", 16000, c.opt, bytes.NewReader(audio)); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64((processCPU()-start).Milliseconds())/float64(b.N), "cpu-ms/op")
		})
	}
}
