package resample

import (
	"math"
	"math/rand/v2"
	"testing"
)

// goertzel returns the amplitude of the frequency f in x sampled at rate.
// The tests use frames of a whole second so every integer frequency falls
// exactly on a bin and nothing leaks between bins.
func goertzel(x []int16, f, rate float64) float64 {
	w := 2 * math.Pi * f / rate
	c := 2 * math.Cos(w)
	var s1, s2 float64
	for _, v := range x {
		s0 := float64(v) + c*s1 - s2
		s2, s1 = s1, s0
	}
	re := s1 - s2*math.Cos(w)
	im := s2 * math.Sin(w)
	return 2 * math.Hypot(re, im) / float64(len(x))
}

func db(r float64) float64 { return 20 * math.Log10(r) }

// TestSweepKeepsPassbandAndSuppressesImages steps a sine through the
// telephone band, feeding it in random chunk sizes, and measures the tone
// and its image (8000-f) at the output.
func TestSweepKeepsPassbandAndSuppressesImages(t *testing.T) {
	const amp = 10000.0
	rng := rand.New(rand.NewPCG(1, 2))
	for f := 100.0; f <= 3500; f += 200 {
		in := make([]int16, 8000+800)
		for i := range in {
			in[i] = int16(amp * math.Sin(2*math.Pi*f*float64(i)/8000))
		}
		u := NewUpsampler()
		var out []int16
		for rest := in; len(rest) > 0; {
			n := min(1+rng.IntN(700), len(rest))
			out = u.Process(out, rest[:n])
			rest = rest[n:]
		}
		if len(out) != 2*len(in) {
			t.Fatalf("%d output samples for %d input", len(out), len(in))
		}
		frame := out[1000 : 1000+16000]
		gain := db(goertzel(frame, f, 16000) / amp)
		image := db(goertzel(frame, 8000-f, 16000) / amp)
		t.Logf("%4.0f Hz: gain %+.3f dB, image at %4.0f Hz %.1f dB", f, gain, 8000-f, image)
		if math.Abs(gain) > 0.1 {
			t.Errorf("%v Hz: passband gain %.3f dB, want within ±0.1 dB", f, gain)
		}
		if image > -70 {
			t.Errorf("%v Hz: image at %v Hz only %.1f dB down, want ≤ -70 dB", f, 8000-f, image)
		}
	}
}

func TestChunkingDoesNotChangeOutput(t *testing.T) {
	in := make([]int16, 3001)
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range in {
		in[i] = int16(rng.IntN(20000) - 10000)
	}
	whole := NewUpsampler().Process(nil, in)
	u := NewUpsampler()
	var parts []int16
	for i := 0; i < len(in); i += 7 {
		parts = u.Process(parts, in[i:min(i+7, len(in))])
	}
	for i := range whole {
		if whole[i] != parts[i] {
			t.Fatalf("sample %d: %d chunked vs %d whole", i, parts[i], whole[i])
		}
	}
}

func TestFlushEmitsTailAndClipsLoudInput(t *testing.T) {
	u := NewUpsampler()
	in := make([]int16, 100)
	for i := range in {
		in[i] = math.MaxInt16
		if i%2 == 1 {
			in[i] = math.MinInt16
		}
	}
	out := u.Process(nil, in)
	out = u.Flush(out)
	if len(out) != 2*len(in)+phaseLen {
		t.Fatalf("%d samples after flush, want %d", len(out), 2*len(in)+phaseLen)
	}
	// The impulse response of the last input sample must have reached the
	// output: the tail is not silent.
	var energy float64
	for _, v := range out[2*len(in):] {
		energy += float64(v) * float64(v)
	}
	if energy == 0 {
		t.Fatal("flush produced silence")
	}
}

func BenchmarkUpsampleSecond(b *testing.B) {
	in := make([]int16, 8000)
	for i := range in {
		in[i] = int16(8000 * math.Sin(float64(i)/3))
	}
	u := NewUpsampler()
	out := make([]int16, 0, 16000)
	b.SetBytes(2 * 8000)
	for b.Loop() {
		out = u.Process(out[:0], in)
	}
}
