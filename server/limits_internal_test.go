package server

import "testing"

// With Processes set, every rate limit is this process's share, and a limit
// left zero is shared from its default rather than kept whole.
func TestShareLimits(t *testing.T) {
	c := Config{Processes: 4, RatePerSecond: 40, RateBurst: 2, AuthWorkspaceRate: 8}
	c.defaults()
	got := []float64{c.RatePerSecond, c.RateBurst, c.AuthRate, c.AuthBurst, c.AuthWorkspaceRate, c.AuthWorkspaceBurst}
	want := []float64{10, 1, 1.25, 5, 2, 15}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("limits %v, want %v", got, want)
		}
	}
	one := Config{RatePerSecond: 40}
	one.defaults()
	if one.RatePerSecond != 40 || one.AuthRate != 0 {
		t.Fatalf("one process changed its limits: %+v", one)
	}
}
