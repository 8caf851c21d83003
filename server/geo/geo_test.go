package geo

import (
	"math"
	"testing"
)

func TestDistanceKm(t *testing.T) {
	for _, c := range []struct {
		name                   string
		lat1, lon1, lat2, lon2 float64
		want, tol              float64
	}{
		{"same point", 40.4168, -3.7038, 40.4168, -3.7038, 0, 1e-9},
		// Madrid Puerta del Sol to London Trafalgar Square: about 1,264 km.
		{"Madrid-London", 40.4169, -3.7035, 51.5080, -0.1281, 1264, 5},
		// A quarter of a meridian.
		{"pole to equator", 90, 0, 0, 0, 10007.5, 1},
		{"antipodes", 0, 0, 0, 180, math.Pi * earthRadiusKm, 1e-6},
	} {
		if got := DistanceKm(c.lat1, c.lon1, c.lat2, c.lon2); math.Abs(got-c.want) > c.tol {
			t.Errorf("%s: %.3f km, want %.3f ± %.3f", c.name, got, c.want, c.tol)
		}
	}
}
