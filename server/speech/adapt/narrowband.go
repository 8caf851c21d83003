package adapt

import (
	"fmt"
	"math"
)

// FrontEnd is what Narrowband needs of a model's front end (its
// feat.params): the mel filters' band and count, the cepstra kept and the
// lifter applied to them.
type FrontEnd struct {
	LowerF, UpperF   float64
	Filters, Cepstra int
	Lifter           int
}

// Narrowband is the transform that makes a wideband model hear audio
// whose band ends at cutoff Hz (8 kHz audio upsampled for a 16 kHz model),
// computed from the front end alone, with no speech to learn from.
//
// Why: after the per-utterance mean is removed, a mel filter that lies
// above the cutoff hears only the constant floor of an empty band, so its
// normalised log energy is zero in every frame; the model, trained on
// wideband speech, expects it to rise with every fricative. The transform
// moves each Gaussian's mean to what that speech sounds like through the
// channel: it takes the mean back from cepstra to log mel energies (the
// inverse of the front end's orthonormal DCT and lifter), zeroes the
// filters above the cutoff and returns to cepstra. That is a linear map,
// the same for the static and both dynamic streams (a delta of zeros is
// zero), so it is an MLLR transform with no offset. A filter counts as
// above the cutoff when less than half of its triangle lies below it.
//
// Measured on flite's kal16 taken down to 8 kHz (120 dev commands, the
// full English model): 45.9 % word errors without it, 23.3 % with it cut
// at 4.4 kHz (speech.NarrowbandCutoff has the other cutoffs tried); a
// transform estimated on three other voices' speech gave 29.9 %, the
// speaker's own from five of their utterances 26.1 %.
func Narrowband(fe FrontEnd, cutoff float64) (Transform, error) {
	if fe.Filters < 2 || fe.Cepstra < 1 || fe.Cepstra > fe.Filters || fe.Cepstra > maxDim || !(fe.LowerF >= 0 && fe.LowerF < fe.UpperF) {
		return Transform{}, fmt.Errorf("adapt: a front end of %d filters over %g-%g Hz with %d cepstra is not one Narrowband knows", fe.Filters, fe.LowerF, fe.UpperF, fe.Cepstra)
	}
	n, c := fe.Filters, fe.Cepstra
	// Filter k spans edges k to k+2 and peaks at k+1, evenly spaced in mel
	// (sphinxbase's fe_build_melfilters).
	mel := func(f float64) float64 { return 2595 * math.Log10(1+f/700) }
	hz := func(m float64) float64 { return 700 * (math.Pow(10, m/2595) - 1) }
	lo, hi := mel(fe.LowerF), mel(fe.UpperF)
	edge := func(k int) float64 { return hz(lo + float64(k)*(hi-lo)/float64(n+1)) }
	keep := make([]float64, n)
	for k := range keep {
		l, peak, h := edge(k), edge(k+1), edge(k+2)
		if triangleBelow(l, peak, h, cutoff) >= 0.5 {
			keep[k] = 1
		}
	}
	// The front end's DCT (fe_dct2, orthonormal) and lifter (fe_lifter).
	dct := func(i, j int) float64 {
		if i == 0 {
			return math.Sqrt(1 / float64(n))
		}
		return math.Sqrt(2/float64(n)) * math.Cos(math.Pi*float64(i)*(float64(j)+0.5)/float64(n))
	}
	lifter := func(i int) float64 {
		if fe.Lifter <= 0 {
			return 1
		}
		return 1 + float64(fe.Lifter)/2*math.Sin(float64(i)*math.Pi/float64(fe.Lifter))
	}
	var t Transform
	for range 3 {
		s := Stream{A: make([][]float64, c), B: make([]float64, c), H: make([]float64, c)}
		for a := range c {
			s.A[a] = make([]float64, c)
			for b := range c {
				sum := 0.0
				for j := range n {
					sum += dct(a, j) * keep[j] * dct(b, j)
				}
				s.A[a][b] = lifter(a) * sum / lifter(b)
			}
			s.H[a] = 1
		}
		t.Streams = append(t.Streams, s)
	}
	return t, nil
}

// triangleBelow is the share of a triangular filter's area (rising from l
// to peak, falling to h) that lies below f.
func triangleBelow(l, peak, h, f float64) float64 {
	area := func(x float64) float64 { // area from l to x
		switch {
		case x <= l:
			return 0
		case x <= peak:
			return (x - l) * (x - l) / (2 * (peak - l))
		case x < h:
			return (h-l)/2 - (h-x)*(h-x)/(2*(h-peak))
		}
		return (h - l) / 2
	}
	return area(f) / area(h)
}
