// Package resample doubles the sample rate of 16-bit mono PCM (8 kHz
// telephone-band uploads to the 16 kHz the acoustic model expects).
//
// Upsampling by two inserts a zero after every input sample, which leaves
// a mirror image of the 0-4 kHz band at 4-8 kHz; a low-pass at the old
// Nyquist frequency removes it. The filter is a Kaiser-windowed sinc split
// into its two polyphase branches, so each output sample costs taps/2
// multiplications and no zero is ever multiplied. State carries across
// calls, so audio can be fed in chunks of any size.
package resample

import "math"

// Filter design: 96 taps, cutoff at the input Nyquist (a quarter of the
// output rate), Kaiser beta 8 (about 80 dB stopband). The transition band
// is roughly 3.6-4.4 kHz for 8 kHz input.
const (
	taps      = 96
	phaseLen  = taps / 2
	kaiserB   = 8.0
	cutoffRel = 0.25 // of the output rate
)

var phases = design()

// design returns the two polyphase branches of the prototype low-pass,
// scaled by the upsampling factor so the passband gain is one.
func design() [2][phaseLen]float64 {
	var h [taps]float64
	mid := float64(taps-1) / 2
	for i := range h {
		x := float64(i) - mid
		sinc := 2 * cutoffRel
		if x != 0 {
			sinc = math.Sin(2*math.Pi*cutoffRel*x) / (math.Pi * x)
		}
		r := 2*float64(i)/float64(taps-1) - 1
		h[i] = 2 * sinc * bessel0(kaiserB*math.Sqrt(1-r*r)) / bessel0(kaiserB)
	}
	var p [2][phaseLen]float64
	for j := 0; j < phaseLen; j++ {
		p[0][j] = h[2*j]
		p[1][j] = h[2*j+1]
	}
	return p
}

// bessel0 is the modified Bessel function of the first kind, order zero,
// by its power series (converges fast for the arguments used here).
func bessel0(x float64) float64 {
	sum, term := 1.0, 1.0
	for k := 1; k < 50; k++ {
		term *= (x / (2 * float64(k))) * (x / (2 * float64(k)))
		sum += term
		if term < 1e-12*sum {
			break
		}
	}
	return sum
}

// Upsampler doubles the sample rate of a stream. The zero value is not
// ready; use NewUpsampler.
type Upsampler struct {
	// hist holds the last phaseLen-1 input samples followed by the
	// current chunk, newest last.
	hist []float64
}

// NewUpsampler returns an upsampler with silent history.
func NewUpsampler() *Upsampler {
	return &Upsampler{hist: make([]float64, phaseLen-1, 4096)}
}

// Process appends 2*len(src) output samples to dst and returns it.
func (u *Upsampler) Process(dst, src []int16) []int16 {
	for _, s := range src {
		u.hist = append(u.hist, float64(s))
	}
	// Output pair n uses input samples n-phaseLen+1 .. n.
	for n := phaseLen - 1; n < len(u.hist); n++ {
		win := u.hist[n-phaseLen+1 : n+1]
		var a, b float64
		for j := 0; j < phaseLen; j++ {
			x := win[phaseLen-1-j]
			a += phases[0][j] * x
			b += phases[1][j] * x
		}
		dst = append(dst, clip(a), clip(b))
	}
	keep := u.hist[len(u.hist)-(phaseLen-1):]
	u.hist = append(u.hist[:0], keep...)
	return dst
}

// Flush appends the tail still inside the filter (as if silence followed)
// and resets the history.
func (u *Upsampler) Flush(dst []int16) []int16 {
	dst = u.Process(dst, make([]int16, phaseLen/2))
	clear(u.hist)
	return dst
}

func clip(v float64) int16 {
	v = math.Round(v)
	switch {
	case v > math.MaxInt16:
		return math.MaxInt16
	case v < math.MinInt16:
		return math.MinInt16
	}
	return int16(v)
}
