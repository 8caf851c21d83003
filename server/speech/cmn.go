package speech

import "math"

// meanNormalizer subtracts the cepstral mean from frames as they arrive,
// so the decoders can search while the audio uploads (see the package
// documentation, "Decoding while the audio arrives").
//
// The first delay frames are held back until their own mean is known and
// then released normalised by it; every later frame is normalised by the
// mean of all frames up to and including itself. An utterance shorter
// than delay frames is normalised by its whole mean when it ends, exactly
// as a batch normaliser would.
//
// Frames with a negative energy coefficient (c0: near-digital silence,
// which the voice activity detector keeps a little of around speech) are
// normalised but left out of the mean, as pocketsphinx's batch normaliser
// does, so that a stretch of digital silence cannot drag the mean down.
type meanNormalizer struct {
	ncep  int
	delay int
	sum   []float64
	n     int
	held  []float32
	// released is set once the first delay counted frames have gone out.
	released bool
}

func newMeanNormalizer(ncep, delay int) *meanNormalizer {
	return &meanNormalizer{ncep: ncep, delay: delay, sum: make([]float64, ncep)}
}

// add appends to dst the normalised frames it can release now.
func (m *meanNormalizer) add(dst, frames []float32) []float32 {
	for i := 0; i+m.ncep <= len(frames); i += m.ncep {
		f := frames[i : i+m.ncep]
		counted := f[0] >= 0
		if counted {
			m.n++
			for j, v := range f {
				m.sum[j] += float64(v)
			}
		}
		if m.released {
			dst = m.subtract(dst, f)
			continue
		}
		m.held = append(m.held, f...)
		if m.n == m.delay {
			dst = m.flush(dst)
			m.released = true
		}
	}
	return dst
}

// flush releases the frames still held, normalised by the mean so far.
func (m *meanNormalizer) flush(dst []float32) []float32 {
	for i := 0; i < len(m.held); i += m.ncep {
		dst = m.subtract(dst, m.held[i:i+m.ncep])
	}
	m.held = m.held[:0]
	return dst
}

func (m *meanNormalizer) subtract(dst, f []float32) []float32 {
	n := float64(max(m.n, 1)) // no counted frame yet: the mean is zero
	for j, v := range f {
		dst = append(dst, v-float32(m.sum[j]/n))
	}
	return dst
}

// mean returns the mean of the counted frames so far as a Prior (nil when
// no frame was counted), for the caller to seed the speaker's next
// utterance with.
func (m *meanNormalizer) mean() *Prior {
	if m.n == 0 {
		return nil
	}
	p := &Prior{Mean: make([]float32, m.ncep), Frames: m.n}
	for j, s := range m.sum {
		p.Mean[j] = float32(s / float64(m.n))
	}
	return p
}

// earlyNormalizer gives the full decoder provisional frames while the
// meanNormalizer still holds the first frames of an utterance (see the
// package documentation, "Short commands"): each frame is normalised at
// once by a running mean that starts from a prior counted as weight
// frames, so that the first frames are not normalised by a mean of
// almost nothing; as speech accumulates, the utterance's own frames take
// over. Frames of negative energy are left out of the mean, as in
// meanNormalizer.
type earlyNormalizer struct {
	sum  []float64
	n    float64
	seed []float32 // the prior it started from; nil for none
}

// newEarlyNormalizer seeds the mean with prior (ignored when nil or when
// weight is 0: the mean is then the running mean from the first frame).
func newEarlyNormalizer(ncep int, prior []float32, weight int) *earlyNormalizer {
	e := &earlyNormalizer{sum: make([]float64, ncep)}
	if prior != nil && weight > 0 {
		for j, v := range prior {
			e.sum[j] = float64(v) * float64(weight)
		}
		e.n = float64(weight)
		e.seed = prior
	}
	return e
}

// seedDistance is the Euclidean distance between the seed and exact, the
// utterance's own mean, over the cepstral coefficients (c0 included: a
// louder or quieter channel shifts every provisional frame by it too); -1
// without a seed.
func (e *earlyNormalizer) seedDistance(exact []float32) float64 {
	if e.seed == nil || len(exact) != len(e.seed) {
		return -1
	}
	var d float64
	for j, v := range exact {
		x := float64(v - e.seed[j])
		d += x * x
	}
	return math.Sqrt(d)
}

// add appends frames normalised by the mean so far, each frame included.
func (e *earlyNormalizer) add(dst, frames []float32) []float32 {
	ncep := len(e.sum)
	for i := 0; i+ncep <= len(frames); i += ncep {
		f := frames[i : i+ncep]
		if f[0] >= 0 {
			e.n++
			for j, v := range f {
				e.sum[j] += float64(v)
			}
		}
		n := max(e.n, 1)
		for j, v := range f {
			dst = append(dst, v-float32(e.sum[j]/n))
		}
	}
	return dst
}
