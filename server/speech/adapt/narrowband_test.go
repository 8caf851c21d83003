package adapt

import (
	"math"
	"testing"
)

// The English model's front end (its feat.params).
var englishFrontEnd = FrontEnd{LowerF: 130, UpperF: 6800, Filters: 25, Cepstra: 13, Lifter: 22}

// With the whole band heard the transform is the identity: the inverse
// DCT and lifter undo the forward ones exactly. With the band cut at 3.8
// kHz, 19 of the 25 filters are heard, and a mean's energy term (c0, the
// sum of the log energies) keeps 19/25 of itself; every stream is the same
// map, without offset, and the file format takes it.
func TestNarrowband(t *testing.T) {
	whole, err := Narrowband(englishFrontEnd, 8000)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range whole.Streams {
		for i, row := range s.A {
			for j, v := range row {
				if want := b2f(i == j); math.Abs(v-want) > 1e-9 {
					t.Fatalf("whole band: A[%d][%d] = %g, want %g", i, j, v, want)
				}
			}
		}
	}
	cut, err := Narrowband(englishFrontEnd, 3800)
	if err != nil {
		t.Fatal(err)
	}
	if got := cut.Streams[0].A[0][0]; math.Abs(got-19.0/25) > 1e-9 {
		t.Fatalf("c0 keeps %g of itself, want 19/25", got)
	}
	for k, s := range cut.Streams {
		for i := range s.A {
			if s.B[i] != 0 || s.H[i] != 1 || s.A[i][i] != cut.Streams[0].A[i][i] {
				t.Fatalf("stream %d differs from the first or has an offset", k)
			}
		}
	}
	back, err := ParseTransform(cut.String())
	if err != nil || back.ID() != cut.ID() {
		t.Fatalf("the narrowband transform does not read back: %v", err)
	}
	for _, bad := range []FrontEnd{{}, {LowerF: 6800, UpperF: 130, Filters: 25, Cepstra: 13}, {LowerF: 130, UpperF: 6800, Filters: 10, Cepstra: 13}} {
		if _, err := Narrowband(bad, 3800); err == nil {
			t.Errorf("front end %+v accepted", bad)
		}
	}
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// A triangle's share below a frequency: none below it, all above it, half
// at its peak when it is symmetric, a quarter at the middle of its rise.
func TestTriangleBelow(t *testing.T) {
	for _, c := range []struct{ f, want float64 }{{0, 0}, {100, 0}, {300, 1}, {500, 1}, {200, 0.5}, {150, 0.125}, {250, 0.875}} {
		if got := triangleBelow(100, 200, 300, c.f); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("below %g: %g, want %g", c.f, got, c.want)
		}
	}
}
