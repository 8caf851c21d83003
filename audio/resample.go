package audio

import (
	"encoding/binary"
	"math"
)

// stereoResampler converts 16-bit stereo PCM at one rate into float32 stereo at another by
// linear interpolation, chunk by chunk, keeping its phase across chunks. Linear
// interpolation is enough for speech replies (22050 Hz doubled to 44100 keeps every source
// sample and places midpoints between them); at equal rates samples pass through exactly.
type stereoResampler struct {
	in, out int       // rates
	frac    int       // phase: position between src[0] and src[1], in 1/out units
	src     []float32 // pending source frames (interleaved L R), src[0:2] is the oldest
	dst     []byte    // output, reused between calls
}

func newStereoResampler(in, out int) *stereoResampler {
	return &stereoResampler{in: in, out: out}
}

// push converts a chunk of 16-bit little-endian stereo frames and returns float32
// little-endian stereo frames. The returned slice is valid until the next call.
func (r *stereoResampler) push(pcm []byte) []byte {
	r.dst = r.dst[:0]
	frames := len(pcm) / 4
	if r.in == r.out {
		for i := 0; i < frames*2; i++ {
			r.dst = appendFloat32(r.dst, int16sample(pcm, i))
		}
		return r.dst
	}
	for i := 0; i < frames*2; i++ {
		r.src = append(r.src, int16sample(pcm, i))
	}
	r.interpolate(false)
	return r.dst
}

// flush returns the frames still held back at the end of the stream.
func (r *stereoResampler) flush() []byte {
	r.dst = r.dst[:0]
	if r.in != r.out {
		r.interpolate(true)
	}
	return r.dst
}

func (r *stereoResampler) interpolate(final bool) {
	n := len(r.src) / 2
	idx := 0
	for {
		if idx+1 >= n && !(final && idx < n) {
			break
		}
		w := float32(r.frac) / float32(r.out)
		for ch := 0; ch < 2; ch++ {
			a := r.src[2*idx+ch]
			b := a
			if idx+1 < n {
				b = r.src[2*(idx+1)+ch]
			}
			r.dst = appendFloat32(r.dst, a+(b-a)*w)
		}
		r.frac += r.in
		for r.frac >= r.out {
			r.frac -= r.out
			idx++
		}
	}
	if idx > n {
		idx = n
	}
	r.src = append(r.src[:0], r.src[2*idx:]...)
}

func int16sample(pcm []byte, i int) float32 {
	return float32(int16(binary.LittleEndian.Uint16(pcm[2*i:]))) / 32768
}

func appendFloat32(b []byte, v float32) []byte {
	return binary.LittleEndian.AppendUint32(b, math.Float32bits(v))
}
