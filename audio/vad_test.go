package audio

import (
	"math"
	"testing"
)

// pushLevels runs a detector over levels and returns its decisions.
func pushLevels(v *VAD, levels []float64) []bool {
	out := make([]bool, len(levels))
	for i, l := range levels {
		out[i] = v.Push(l)
	}
	return out
}

func repeat(level float64, frames int) []float64 {
	l := make([]float64, frames)
	for i := range l {
		l[i] = level
	}
	return l
}

func concat(parts ...[]float64) []float64 {
	var all []float64
	for _, p := range parts {
		all = append(all, p...)
	}
	return all
}

func TestVADOnsetHangoverAndAdaptiveFloor(t *testing.T) {
	// 1 s of digital silence, then a steady loud tone for 6 s.
	levels := concat(repeat(SilenceDBFS, 50), repeat(-9, 300))
	got := pushLevels(NewVAD(), levels)
	for i, speech := range got {
		// Frames are numbered from 0: the tone starts at frame 50 and is speech from its
		// third frame. The silent block (frames 40-49) leaves the 3 s window when block 19
		// (frames 190-199) begins; the hangover then lasts 15 frames.
		want := i >= 52 && i < 190+VADHangoverFrames-1
		if speech != want {
			t.Fatalf("frame %d: speech %v, want %v", i, speech, want)
		}
	}
}

func TestVADIgnoresClicksAndSteadyNoise(t *testing.T) {
	v := NewVAD()
	noise := repeat(-45, 200) // above VADMinLevel, but it is the floor
	for i, s := range pushLevels(v, noise) {
		if s {
			t.Fatalf("steady noise judged speech at frame %d", i)
		}
	}
	if math.Abs(v.Floor()-(-45)) > 1e-9 {
		t.Fatalf("floor %v, want -45", v.Floor())
	}
	click := concat(repeat(-10, VADOnsetFrames-1), repeat(-45, 20))
	for i, s := range pushLevels(v, click) {
		if s {
			t.Fatalf("a %d-frame click judged speech at frame %d", VADOnsetFrames-1, i)
		}
	}
	// Speech over the noise, with a short pause inside: one utterance.
	utterance := concat(repeat(-20, 30), repeat(-45, 10), repeat(-20, 30))
	for i, s := range pushLevels(v, utterance) {
		if want := i >= VADOnsetFrames-1; s != want {
			t.Fatalf("utterance frame %d: speech %v", i, s)
		}
	}
	tail := pushLevels(v, repeat(-45, 30))
	for i, s := range tail {
		if want := i < VADHangoverFrames-1; s != want {
			t.Fatalf("after speech, frame %d: speech %v, want %v", i, s, want)
		}
	}
}

func TestVADQuietSpeechBelowTheMinimumIsNotSpeech(t *testing.T) {
	levels := concat(repeat(SilenceDBFS, 50), repeat(VADMinLevel-1, 50))
	for i, s := range pushLevels(NewVAD(), levels) {
		if s {
			t.Fatalf("frame %d at %v dBFS judged speech", i, levels[i])
		}
	}
}

func TestMeasureLevel(t *testing.T) {
	square := make([]int16, FrameSamples)
	for i := range square {
		square[i] = 32767
		if i%2 == 1 {
			square[i] = -32768
		}
	}
	rms, peak := MeasureLevel(square)
	if math.Abs(rms) > 0.001 || peak != 0 {
		t.Errorf("full-scale square: RMS %v peak %v, want 0 dBFS", rms, peak)
	}
	rms, peak = MeasureLevel(make([]int16, FrameSamples))
	if rms != SilenceDBFS || peak != SilenceDBFS {
		t.Errorf("silence: %v %v", rms, peak)
	}
	rms, peak = MeasureLevel(nil)
	if rms != SilenceDBFS || peak != SilenceDBFS {
		t.Errorf("no samples: %v %v", rms, peak)
	}
	one := make([]int16, 4)
	one[2] = -1
	if _, peak := MeasureLevel(one); math.Abs(peak-(-90.309)) > 0.001 {
		t.Errorf("one LSB peak %v, want -90.31 dBFS", peak)
	}
}
