package speech

import (
	"math"
	"testing"
)

func TestMeanNormalizer(t *testing.T) {
	// Two coefficients per frame; frame i is (i, 10*i).
	frames := func(from, to int) []float32 {
		var f []float32
		for i := from; i < to; i++ {
			f = append(f, float32(i), float32(10*i))
		}
		return f
	}
	near := func(got []float32, want ...float64) { t.Helper(); nearFrames(t, got, want...) }

	m := newMeanNormalizer(2, 3)
	if out := m.add(nil, frames(0, 2)); len(out) != 0 {
		t.Fatalf("released %v before the delay", out)
	}
	// The third frame releases all three by their mean (1, 10).
	near(m.add(nil, frames(2, 3)), -1, -10, 0, 0, 1, 10)
	// Later frames: the mean of all frames so far, the frame included.
	near(m.add(nil, frames(3, 4)), 1.5, 15) // mean of 0..3 is 1.5
	near(m.add(nil, frames(4, 5)), 2, 20)   // mean of 0..4 is 2
	near(m.flush(nil))                      // nothing held

	// An utterance shorter than the delay is normalised as a whole.
	short := newMeanNormalizer(2, 100)
	if out := short.add(nil, frames(0, 4)); len(out) != 0 {
		t.Fatalf("released %v before the delay", out)
	}
	near(short.flush(nil), -1.5, -15, -0.5, -5, 0.5, 5, 1.5, 15)

	// Frames of negative energy (c0 < 0) are normalised but not counted,
	// neither in the mean nor towards the delay.
	quiet := newMeanNormalizer(2, 2)
	if out := quiet.add(nil, []float32{-50, 7, 4, 40}); len(out) != 0 {
		t.Fatalf("released %v before two counted frames", out)
	}
	near(quiet.add(nil, []float32{6, 60}), -55, -43, -1, -10, 1, 10) // mean (5, 50)
	near(quiet.add(nil, []float32{-1, 0}), -6, -50)                  // mean unchanged
}

func TestEarlyNormalizer(t *testing.T) {
	near := func(got []float32, want ...float64) { t.Helper(); nearFrames(t, got, want...) }
	// A prior (10, 100) worth 3 frames: each frame goes out at once,
	// normalised by the prior blended with the frames so far.
	e := newEarlyNormalizer(2, []float32{10, 100}, 3)
	near(e.add(nil, []float32{14, 140}), 3, 30)   // mean (44/4, 440/4) = (11, 110)
	near(e.add(nil, []float32{-1, 5}), -12, -105) // c0 < 0: not counted
	near(e.add(nil, []float32{16, 160}), 4, 40)   // mean (60/5, 600/5)
	// Without a prior: the running mean from the first frame.
	r := newEarlyNormalizer(2, nil, 0)
	near(r.add(nil, []float32{2, 20, 4, 40}), 0, 0, 1, 10)
	// A weight of 0 ignores the prior.
	z := newEarlyNormalizer(2, []float32{10, 100}, 0)
	near(z.add(nil, []float32{2, 20}), 0, 0)
	// The normalizer's mean is the Prior of the next utterance.
	m := newMeanNormalizer(2, 100)
	if m.mean() != nil {
		t.Fatal("a mean of no frames")
	}
	m.add(nil, []float32{2, 20, -1, 0, 4, 40})
	if p := m.mean(); p.Frames != 2 || p.Mean[0] != 3 || p.Mean[1] != 30 {
		t.Fatalf("mean %+v, want (3, 30) over 2 frames", p)
	}
}

// nearFrames fails t unless got holds want's values within 1e-4.
func nearFrames(t *testing.T, got []float32, want ...float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range got {
		if math.Abs(float64(got[i])-want[i]) > 1e-4 {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
}
