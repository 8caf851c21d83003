package audio

import (
	"bytes"
	"encoding/binary"
	"math"
	"testing"
)

func stereoPCM(frames int, f func(i, ch int) int16) []byte {
	b := make([]byte, 4*frames)
	for i := 0; i < frames; i++ {
		for ch := 0; ch < 2; ch++ {
			binary.LittleEndian.PutUint16(b[4*i+2*ch:], uint16(f(i, ch)))
		}
	}
	return b
}

func floats(b []byte) []float32 {
	out := make([]float32, len(b)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}

// resampleAll runs a resampler over pcm cut into chunks of the given size (in frames).
func resampleAll(in, out, chunk int, pcm []byte) []float32 {
	r := newStereoResampler(in, out)
	var all []byte
	for len(pcm) > 0 {
		n := min(len(pcm), 4*chunk)
		all = append(all, r.push(pcm[:n])...)
		pcm = pcm[n:]
	}
	all = append(all, r.flush()...)
	return floats(all)
}

func TestResampleSameRateIsExact(t *testing.T) {
	pcm := stereoPCM(1000, func(i, ch int) int16 { return int16(i*31 - ch*7000) })
	got := resampleAll(44100, 44100, 77, pcm)
	if len(got) != 2000 {
		t.Fatalf("%d samples", len(got))
	}
	for i, v := range got {
		if want := float32(int16(binary.LittleEndian.Uint16(pcm[2*i:]))) / 32768; v != want {
			t.Fatalf("sample %d: %v, want %v", i, v, want)
		}
	}
}

func TestResampleDoublingKeepsEverySourceSample(t *testing.T) {
	pcm := stereoPCM(1001, func(i, ch int) int16 { return int16((i*i)%20000 - 10000 + ch) })
	got := resampleAll(22050, 44100, 1152, pcm)
	if len(got) != 2*2*1001 {
		t.Fatalf("%d samples from 1001 frames, want %d", len(got), 4*1001)
	}
	for i := 0; i < 1001; i++ {
		for ch := 0; ch < 2; ch++ {
			src := float32(int16(binary.LittleEndian.Uint16(pcm[4*i+2*ch:]))) / 32768
			if got[4*i+ch] != src {
				t.Fatalf("frame %d ch %d: %v, want source %v", i, ch, got[4*i+ch], src)
			}
			if i+1 < 1001 {
				next := float32(int16(binary.LittleEndian.Uint16(pcm[4*(i+1)+2*ch:]))) / 32768
				if mid := got[4*i+2+ch]; math.Abs(float64(mid-(src+next)/2)) > 1e-6 {
					t.Fatalf("frame %d ch %d: midpoint %v, want %v", i, ch, mid, (src+next)/2)
				}
			}
		}
	}
}

func TestResampleChunkingDoesNotMatter(t *testing.T) {
	pcm := stereoPCM(5000, func(i, ch int) int16 {
		return int16(12000 * math.Sin(float64(i)*0.05+float64(ch)))
	})
	whole := resampleAll(48000, 44100, 5000, pcm)
	for _, chunk := range []int{1, 7, 1152} {
		if got := resampleAll(48000, 44100, chunk, pcm); !equalFloats(got, whole) {
			t.Fatalf("chunks of %d frames give %d samples, one chunk %d (or different values)", chunk, len(got), len(whole))
		}
	}
	if want := 5000 * 44100 / 48000; len(whole)/2 < want-1 || len(whole)/2 > want+1 {
		t.Fatalf("%d frames out of 5000 at 48000→44100, want about %d", len(whole)/2, want)
	}
}

func TestResamplePreservesAToneAt48k(t *testing.T) {
	const in, out, freq = 48000, 44100, 1000.0
	pcm := stereoPCM(in, func(i, ch int) int16 {
		return int16(16000 * math.Sin(2*math.Pi*freq*float64(i)/in))
	})
	got := resampleAll(in, out, 1152, pcm)
	var ab, aa, bb float64
	for i := 0; i < len(got)/2-1; i++ {
		ideal := 16000.0 / 32768 * math.Sin(2*math.Pi*freq*float64(i)/out)
		v := float64(got[2*i])
		ab, aa, bb = ab+ideal*v, aa+ideal*ideal, bb+v*v
	}
	if c := ab / math.Sqrt(aa*bb); c < 0.9999 {
		t.Fatalf("correlation with the ideal tone %v", c)
	}
}

func equalFloats(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	var ab, bb bytes.Buffer
	binary.Write(&ab, binary.LittleEndian, a)
	binary.Write(&bb, binary.LittleEndian, b)
	return bytes.Equal(ab.Bytes(), bb.Bytes())
}
