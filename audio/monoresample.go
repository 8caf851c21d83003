package audio

import (
	"encoding/binary"
	"math"
)

// ResampleMono converts 16-bit little-endian mono PCM from one sample rate to another with a
// band-limited filter: a Kaiser-windowed sinc whose cutoff sits a little below the lower
// of the two Nyquist frequencies. Unlike the playback resampler (linear, where a few
// aliased kilohertz go unheard), this one prepares audio for a recogniser: 16 kHz speech
// taken down to 8 kHz must lose its 4-8 kHz band rather than fold it onto the telephone
// band, as a real 8 kHz channel would. It works on whole buffers (synthesised or recorded
// turns), so its cost, about 32 multiplications per output sample per octave of
// decimation, does not matter. Equal rates return a copy.
func ResampleMono(pcm []byte, from, to int) []byte {
	pcm = pcm[:len(pcm)&^1]
	if from == to || from <= 0 || to <= 0 || len(pcm) == 0 {
		return append([]byte(nil), pcm...)
	}
	g := gcd(from, to)
	up, down := to/g, from/g // output sample n sits at input position n*down/up
	bank := designPolyphase(up, down)
	half := len(bank[0]) / 2

	in := make([]float64, len(pcm)/2)
	for i := range in {
		in[i] = float64(int16(binary.LittleEndian.Uint16(pcm[2*i:])))
	}
	n := (len(in)*up + down - 1) / down
	out := make([]byte, 0, 2*n)
	for i := 0; i < n; i++ {
		pos := i * down
		q, phase := pos/up, pos%up
		var acc float64
		for j, w := range bank[phase] {
			if k := q - half + 1 + j; k >= 0 && k < len(in) {
				acc += w * in[k]
			}
		}
		out = binary.LittleEndian.AppendUint16(out, uint16(clampInt16(acc)))
	}
	return out
}

// designPolyphase returns one filter per output phase: bank[p][j] weighs input sample
// q-half+1+j for an output at input position q+p/up. Each filter is normalised to unit
// gain so that a constant stays constant at every phase.
func designPolyphase(up, down int) [][]float64 {
	const (
		zeroCrossings = 16  // on each side, at the output rate when decimating
		beta          = 8.0 // Kaiser window: about 80 dB stopband
		guard         = 0.9 // cutoff as a share of the lower Nyquist frequency
	)
	scale := math.Min(1, float64(up)/float64(down))
	fc := 0.5 * scale * guard // cycles per input sample
	half := int(math.Ceil(zeroCrossings / scale))
	bank := make([][]float64, up)
	for p := range bank {
		frac := float64(p) / float64(up)
		taps := make([]float64, 2*half)
		var sum float64
		for j := range taps {
			x := float64(j-half+1) - frac // distance from the output position, in input samples
			r := x / float64(half)
			if r <= -1 || r >= 1 {
				continue
			}
			s := 2 * fc
			if x != 0 {
				s = math.Sin(2*math.Pi*fc*x) / (math.Pi * x)
			}
			taps[j] = s * besselI0(beta*math.Sqrt(1-r*r)) / besselI0(beta)
			sum += taps[j]
		}
		for j := range taps {
			taps[j] /= sum
		}
		bank[p] = taps
	}
	return bank
}

// besselI0 is the modified Bessel function of the first kind, order zero (power series).
func besselI0(x float64) float64 {
	sum, term := 1.0, 1.0
	for k := 1; k < 60; k++ {
		term *= (x / (2 * float64(k))) * (x / (2 * float64(k)))
		sum += term
		if term < 1e-12*sum {
			break
		}
	}
	return sum
}

func clampInt16(v float64) int16 {
	v = math.Round(v)
	if v > math.MaxInt16 {
		return math.MaxInt16
	}
	if v < math.MinInt16 {
		return math.MinInt16
	}
	return int16(v)
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}
