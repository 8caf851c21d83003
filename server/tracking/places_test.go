package tracking

import (
	"testing"
	"time"
)

func fixesAt(lat, lon float64, from time.Time, step time.Duration, n int) []fix {
	out := make([]fix, n)
	for i := range out {
		out[i] = fix{at: from.Add(time.Duration(i) * step), lat: lat, lon: lon, accuracy: 10}
	}
	return out
}

func TestPlacesNeedRepeatedStays(t *testing.T) {
	day := time.Date(2020, 2, 3, 0, 0, 0, 0, time.UTC) // a Monday
	// One long night somewhere is a stay but not a place: places need two.
	if got := detectPlaces(fixesAt(10, 10, day, 5*time.Minute, 100)); len(got) != 0 {
		t.Errorf("one stay made places %+v", got)
	}
	// Short visits (10 minutes) are not stays at all.
	var fx []fix
	for d := range 5 {
		fx = append(fx, fixesAt(10, 10, day.AddDate(0, 0, d).Add(12*time.Hour), 2*time.Minute, 6)...)
		fx = append(fx, fixesAt(10.1, 10, day.AddDate(0, 0, d).Add(13*time.Hour), 2*time.Minute, 6)...)
	}
	if got := detectPlaces(fx); len(got) != 0 {
		t.Errorf("10-minute visits made places %+v", got)
	}
}

func TestPlacesLabelsNeedEvidence(t *testing.T) {
	day := time.Date(2020, 2, 8, 0, 0, 0, 0, time.UTC) // a Saturday
	var fx []fix
	// Two weekend afternoons at one place, two at another: no night, no
	// working hours, so both are Other.
	for d := range 2 {
		fx = append(fx, fixesAt(10, 10, day.AddDate(0, 0, d).Add(13*time.Hour), 5*time.Minute, 12)...)
		fx = append(fx, fixesAt(10.1, 10, day.AddDate(0, 0, d).Add(16*time.Hour), 5*time.Minute, 12)...)
	}
	got := detectPlaces(fx)
	if len(got) != 2 {
		t.Fatalf("places %+v, want 2", got)
	}
	for _, p := range got {
		if p.Label != LabelOther || p.Visits != 2 || p.DwellMinutes != 110 {
			t.Errorf("place %+v, want Other with 2 visits of 55 minutes", p)
		}
	}
}

// Pathological input must stay cheap: tens of thousands of fixes with one
// stamp at one spot, and thousands of stays a few metres apart.
func TestPlacesPathologicalInputIsBounded(t *testing.T) {
	day := time.Date(2020, 2, 3, 0, 0, 0, 0, time.UTC)
	fx := fixesAt(10, 10, day, 0, 50000)
	var chain []fix
	for i := range 3000 {
		at := day.Add(time.Duration(i+1) * time.Hour)
		chain = append(chain, fixesAt(20+float64(i)*0.00003, 20, at, 5*time.Minute, 4)...)
		chain = append(chain, fixesAt(0, 0, at.Add(30*time.Minute), 0, 1)...) // away between stays
	}
	fx = append(fx, chain...)
	got := detectPlaces(fx)
	if len(got) != 1 || got[0].Visits != 3000 {
		t.Errorf("got %d places (first %+v), want the chain as one place of 3000 visits", len(got), got)
	}
}
