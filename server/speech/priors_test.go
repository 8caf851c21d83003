package speech

import (
	"math"
	"testing"
	"time"
)

func TestPriorsFoldAndForget(t *testing.T) {
	if got := NewPriors(2).Get("a"); got.Mean != nil || got.Warp != 0 || !got.Estimate {
		t.Fatalf("an unknown speaker got %+v, want no mean, no warp and an estimate asked", got)
	}
	// The means alone (no estimates asked, so none awaited).
	p := NewPriors(2)
	p.NoWarp = true
	p.Add("a", &Prior{Mean: []float32{10, 0}, Frames: 100})
	p.Add("a", nil) // nothing heard: no change
	p.Add("a", &Prior{Mean: []float32{40, 3}, Frames: 50})
	got := p.Get("a")
	if got.Frames != 150 || math.Abs(float64(got.Mean[0])-20) > 1e-4 || math.Abs(float64(got.Mean[1])-1) > 1e-4 {
		t.Fatalf("folded prior %+v, want mean (20, 1) over 150 frames", got)
	}
	got.Mean[0] = 99 // a copy: the kept mean is unchanged
	if p.Get("a").Mean[0] == 99 {
		t.Fatal("Get returned the kept slice")
	}
	// The frames are capped, so new speech keeps its weight.
	for range 10 {
		p.Add("a", &Prior{Mean: []float32{0, 0}, Frames: 100})
	}
	if f := p.Get("a").Frames; f != maxPriorFrames {
		t.Fatalf("%d frames, want the cap %d", f, maxPriorFrames)
	}
	// Keys are separate; the least recently used one is forgotten.
	p.Add("b", &Prior{Mean: []float32{1, 1}, Frames: 10})
	p.Get("a")
	p.Add("c", &Prior{Mean: []float32{2, 2}, Frames: 10})
	if p.Get("b").Mean != nil || p.Get("a").Mean == nil || p.Get("c").Mean[0] != 2 {
		t.Fatal("the least recently used speaker was not the one forgotten")
	}
}

// A speaker's warp is the grid warp of the highest frame-weighted score;
// the mean measured under another warp is not handed out with it, and is
// replaced by the first one measured under the new warp. Estimates are
// asked for until the evidence settles, then every warpRecheck utterances;
// new evidence outweighs old once the cap is reached.
func TestPriorsWarp(t *testing.T) {
	p := NewPriors(4)
	peak := func(w float64) []float64 {
		s := make([]float64, len(WarpGrid))
		for i, g := range WarpGrid {
			s[i] = -40 - 10*math.Abs(g-w)
		}
		return s
	}
	p.Add("a", &Prior{Mean: []float32{1, 2}, Frames: 100})
	p.AddWarps("a", peak(1.2), 200)
	got := p.Get("a")
	if got.Warp != 1.2 || got.Mean != nil || !got.Estimate {
		t.Fatalf("after 200 frames peaking at 1.2: %+v, want warp 1.2, no mean (it was measured at 1), an estimate asked", got)
	}
	p.Add("a", &Prior{Mean: []float32{5, 6}, Frames: 50, Warp: 1.2})
	p.AddWarps("a", peak(1.2), 150)
	got = p.Get("a")
	if got.Warp != 1.2 || got.Frames != 50 || got.Mean[0] != 5 || got.Estimate {
		t.Fatalf("settled: %+v, want warp 1.2 with the mean measured under it and no estimate", got)
	}
	for range warpRecheck - 2 {
		p.Get("a")
	}
	if !p.Get("a").Estimate {
		t.Fatalf("no estimate asked after %d utterances", warpRecheck)
	}
	// Another voice on the account: the estimate that disagrees asks for
	// the next, and its evidence wins within the cap.
	p.AddWarps("a", peak(0.88), 200)
	if got := p.Get("a"); got.Warp != 1.2 || !got.Estimate {
		t.Fatalf("after one estimate of another voice: %+v, want warp 1.2 still and an estimate asked", got)
	}
	p.AddWarps("a", peak(0.88), 200)
	if got := p.Get("a"); got.Warp != 0.88 || got.Estimate {
		t.Fatalf("after two estimates of another voice: %+v, want warp 0.88 and no estimate (they agree)", got)
	}
	// With NoWarp, the same evidence gives neither a warp nor a request.
	off := NewPriors(4)
	off.NoWarp = true
	off.Add("a", &Prior{Mean: []float32{1, 2}, Frames: 100})
	off.AddWarps("a", peak(1.2), 400)
	if got := off.Get("a"); got.Warp != 0 || got.Estimate || got.Mean == nil || off.Get("new").Estimate {
		t.Fatalf("NoWarp: %+v", got)
	}
	// Scores that are not one per grid warp, or not finite, are ignored.
	p.AddWarps("b", []float64{1, 2}, 100)
	p.AddWarps("b", append(peak(1.2)[:len(WarpGrid)-1], math.NaN()), 100)
	if got := p.Get("b"); got.Warp != 0 || !got.Estimate {
		t.Fatalf("malformed scores were kept: %+v", got)
	}
}

// A speaker's next utterance that begins while the estimate of their
// previous one is still being computed (it comes after the answer) waits
// for it, and starts from it; an estimate that will not come (the
// recognition failed: AddWarps with none) ends the wait.
func TestPriorsWaitForTheEstimateInFlight(t *testing.T) {
	p := NewPriors(4)
	if !p.Get("a").Estimate {
		t.Fatal("no estimate asked of a new speaker")
	}
	next := make(chan *Prior)
	go func() { next <- p.Get("a") }()
	select {
	case got := <-next:
		t.Fatalf("the next utterance started from %+v before the estimate was in", got)
	case <-time.After(50 * time.Millisecond):
	}
	scores := make([]float64, len(WarpGrid))
	for i, g := range WarpGrid {
		scores[i] = -40 - 10*math.Abs(g-1.2)
	}
	p.AddWarps("a", scores, 200)
	if got := <-next; got.Warp != 1.2 || !got.Estimate {
		t.Fatalf("after the estimate: %+v, want warp 1.2 and another estimate asked (200 frames do not settle it)", got)
	}
	go func() { next <- p.Get("a") }()
	p.AddWarps("a", nil, 0) // that estimate failed
	if got := <-next; got.Warp != 1.2 {
		t.Fatalf("after a failed estimate: %+v, want the warp learnt before", got)
	}
}
