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
	near := func(got []float32, want ...float64) {
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
