package speech

import (
	"math"
	"testing"
)

func TestPriorsFoldAndForget(t *testing.T) {
	p := NewPriors(2)
	if p.Get("a") != nil {
		t.Fatal("prior of an unknown speaker")
	}
	p.Add("a", &Prior{Mean: []float32{10, 0}, Frames: 100})
	p.Add("a", nil) // nothing heard: no change
	p.Add("a", &Prior{Mean: []float32{40, 3}, Frames: 50})
	got := p.Get("a")
	if got.Frames != 150 || math.Abs(float64(got.Mean[0])-20) > 1e-4 || math.Abs(float64(got.Mean[1])-1) > 1e-4 {
		t.Fatalf("folded prior %+v, want mean (20, 1) over 150 frames", got)
	}
	got.Mean[0] = 99 // a copy: the kept mean is unchanged
	if p.Get("a").Mean[0] == 99 {
		t.Fatal("Get returned the kept slice")
	}
	// The frames are capped, so new speech keeps its weight.
	for range 10 {
		p.Add("a", &Prior{Mean: []float32{0, 0}, Frames: 100})
	}
	if f := p.Get("a").Frames; f != maxPriorFrames {
		t.Fatalf("%d frames, want the cap %d", f, maxPriorFrames)
	}
	// Keys are separate; the least recently used one is forgotten.
	p.Add("b", &Prior{Mean: []float32{1, 1}, Frames: 10})
	p.Get("a")
	p.Add("c", &Prior{Mean: []float32{2, 2}, Frames: 10})
	if p.Get("b") != nil || p.Get("a") == nil || p.Get("c").Mean[0] != 2 {
		t.Fatal("the least recently used speaker was not the one forgotten")
	}
}
