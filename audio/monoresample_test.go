package audio

import (
	"encoding/binary"
	"math"
	"testing"
)

func sinePCM(rate, n int, hz, amp float64) []byte {
	b := make([]byte, 2*n)
	for i := 0; i < n; i++ {
		v := amp * math.Sin(2*math.Pi*hz*float64(i)/float64(rate))
		binary.LittleEndian.PutUint16(b[2*i:], uint16(int16(v)))
	}
	return b
}

// rms is taken away from the edges, where the filter sees the zeros beyond the buffer.
func rms(pcm []byte) float64 {
	n := len(pcm) / 2
	var sum float64
	count := 0
	for i := n / 10; i < n-n/10; i++ {
		v := float64(int16(binary.LittleEndian.Uint16(pcm[2*i:])))
		sum += v * v
		count++
	}
	return math.Sqrt(sum / float64(count))
}

// zeroCrossings counts sign changes, which give the frequency of a sine.
func zeroCrossings(pcm []byte) int {
	n := len(pcm) / 2
	c := 0
	prev := int16(binary.LittleEndian.Uint16(pcm))
	for i := 1; i < n; i++ {
		v := int16(binary.LittleEndian.Uint16(pcm[2*i:]))
		if (prev < 0) != (v < 0) {
			c++
		}
		prev = v
	}
	return c
}

func TestResampleMonoKeepsTheSpeechBand(t *testing.T) {
	cases := []struct {
		from, to int
		hz       float64
	}{
		{16000, 8000, 1000},
		{22050, 16000, 3000},
		{22050, 8000, 700},
		{8000, 16000, 1500},
	}
	for _, c := range cases {
		in := sinePCM(c.from, c.from, c.hz, 10000) // one second
		out := ResampleMono(in, c.from, c.to)
		if len(out) != 2*c.to {
			t.Errorf("%d→%d: %d samples from one second, want %d", c.from, c.to, len(out)/2, c.to)
			continue
		}
		if r := rms(out) / rms(in); r < 0.97 || r > 1.03 {
			t.Errorf("%d→%d: a %.0f Hz tone changed level by %.3f", c.from, c.to, c.hz, r)
		}
		if zc, want := zeroCrossings(out), int(2*c.hz); zc < want-2 || zc > want+2 {
			t.Errorf("%d→%d: %d zero crossings for %.0f Hz, want about %d", c.from, c.to, zc, c.hz, want)
		}
	}
}

func TestResampleMonoRemovesWhatTheLowerRateCannotCarry(t *testing.T) {
	// 6 kHz is above the 4 kHz Nyquist of 8 kHz audio: decimating without a filter would
	// fold it onto 2 kHz at full level.
	in := sinePCM(16000, 16000, 6000, 10000)
	out := ResampleMono(in, 16000, 8000)
	if db := 20 * math.Log10(rms(out)/rms(in)); db > -60 {
		t.Fatalf("a 6 kHz tone taken to 8 kHz is only %.1f dB down", db)
	}
}

func TestResampleMonoEdgeCases(t *testing.T) {
	pcm := sinePCM(16000, 100, 440, 20000)
	if got := ResampleMono(pcm, 16000, 16000); string(got) != string(pcm) || &got[0] == &pcm[0] {
		t.Fatal("equal rates must return an equal copy")
	}
	if got := ResampleMono(pcm[:3], 16000, 8000); len(got) != 2 {
		t.Fatalf("an odd byte is dropped: got %d bytes", len(got))
	}
	if got := ResampleMono(nil, 22050, 8000); len(got) != 0 {
		t.Fatalf("empty input gave %d bytes", len(got))
	}
	// A full-scale square wave keeps only its fundamental below the cutoff, and that sine
	// peaks at 4/π of full scale: the peaks must clamp, not wrap to the other sign.
	square := make([]byte, 2*22050)
	for i := 0; i < len(square)/2; i++ {
		v := uint16(0x8000)
		if i%8 < 4 {
			v = math.MaxInt16
		}
		binary.LittleEndian.PutUint16(square[2*i:], v)
	}
	out := ResampleMono(square, 22050, 16000)
	clamped := 0
	for i := 100; i < len(out)/2-100; i++ {
		v := int16(binary.LittleEndian.Uint16(out[2*i:]))
		prev := int16(binary.LittleEndian.Uint16(out[2*i-2:]))
		next := int16(binary.LittleEndian.Uint16(out[2*i+2:]))
		if v == math.MaxInt16 || v == math.MinInt16 {
			clamped++
		}
		// Near a peak both neighbours are loud and of one sign; a wrapped sample flips it.
		if (prev > 20000 && next > 20000 && v < 0) || (prev < -20000 && next < -20000 && v > 0) {
			t.Fatalf("samples %d-%d-%d are %d %d %d: a peak wrapped", i-1, i, i+1, prev, v, next)
		}
	}
	if clamped == 0 {
		t.Fatal("a square wave's fundamental never reached full scale")
	}
}
