// Package astro computes sunrise, sunset and the Moon's principal phases.
//
// Sunrise and sunset follow the NOAA solar calculator (the algorithms of
// Meeus, "Astronomical Algorithms", as used in NOAA's spreadsheet): the
// Sun's position at local solar noon, the hour angle at which its centre is
// 0.833° below the horizon (refraction plus the solar radius), and the
// equation of time. The result agrees with published almanac times to about
// a minute for latitudes below 60°.
//
// Moon phases are found as the instants when the difference between the
// apparent ecliptic longitudes of the Moon and the Sun crosses 0°, 90°,
// 180° and 270°. The Moon's longitude uses the largest periodic terms of
// Meeus chapter 47 (accurate to a few hundredths of a degree, a few minutes
// of time), the Sun's the low-precision series of chapter 25.
package astro

import (
	"math"
	"time"
)

const rad = math.Pi / 180

// julianDay of t (UT).
func julianDay(t time.Time) float64 {
	return float64(t.UnixNano())/86400e9 + 2440587.5
}

func fromJulianDay(jd float64) time.Time {
	ns := (jd - 2440587.5) * 86400e9
	return time.Unix(0, int64(ns)).UTC()
}

func norm360(a float64) float64 {
	a = math.Mod(a, 360)
	if a < 0 {
		a += 360
	}
	return a
}

// sun returns the Sun's declination (degrees) and the equation of time
// (minutes) at julian century T, per the NOAA spreadsheet.
func sun(T float64) (decl, eqTime float64) {
	L0 := norm360(280.46646 + T*(36000.76983+T*0.0003032))
	M := 357.52911 + T*(35999.05029-0.0001537*T)
	e := 0.016708634 - T*(0.000042037+0.0000001267*T)
	C := math.Sin(M*rad)*(1.914602-T*(0.004817+0.000014*T)) + math.Sin(2*M*rad)*(0.019993-0.000101*T) +
		math.Sin(3*M*rad)*0.000289
	trueLong := L0 + C
	omega := 125.04 - 1934.136*T
	appLong := trueLong - 0.00569 - 0.00478*math.Sin(omega*rad)
	meanObliq := 23 + (26+(21.448-T*(46.815+T*(0.00059-T*0.001813)))/60)/60
	obliq := meanObliq + 0.00256*math.Cos(omega*rad)
	decl = math.Asin(math.Sin(obliq*rad)*math.Sin(appLong*rad)) / rad
	y := math.Tan(obliq / 2 * rad)
	y *= y
	eqTime = 4 / rad * (y*math.Sin(2*L0*rad) - 2*e*math.Sin(M*rad) + 4*e*y*math.Sin(M*rad)*math.Cos(2*L0*rad) -
		0.5*y*y*math.Sin(4*L0*rad) - 1.25*e*e*math.Sin(2*M*rad))
	return decl, eqTime
}

// SunTimes are the sunrise and sunset of one local day. Polar day or night
// leave both zero and set the matching flag.
type SunTimes struct {
	Sunrise, Sunset time.Time
	AlwaysUp        bool
	AlwaysDown      bool
}

// Sun returns sunrise and sunset on the calendar day of date in date's
// location, for the position lat, lon (degrees, east positive).
func Sun(date time.Time, lat, lon float64) SunTimes {
	loc := date.Location()
	y, m, d := date.Date()
	midnightUTC := time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
	// Local solar noon in UTC minutes, refined once with the Sun's state at
	// that instant; each event is then refined once more at its own time.
	noon := 720 - 4*lon
	at := func(minutes float64) float64 {
		return (julianDay(midnightUTC) + minutes/1440 - 2451545) / 36525
	}
	_, eq := sun(at(noon))
	noon = 720 - 4*lon - eq
	event := func(sign float64) (float64, bool, bool) {
		minutes := noon
		for i := 0; i < 2; i++ {
			decl, eq := sun(at(minutes))
			cosH := math.Cos(90.833*rad)/(math.Cos(lat*rad)*math.Cos(decl*rad)) - math.Tan(lat*rad)*math.Tan(decl*rad)
			if cosH < -1 {
				return 0, true, false
			}
			if cosH > 1 {
				return 0, false, true
			}
			ha := math.Acos(cosH) / rad
			minutes = 720 - 4*(lon+sign*ha) - eq
		}
		return minutes, false, false
	}
	// Minutes count from midnight UTC of the local calendar date; local
	// solar noon then falls on that same local date for any longitude whose
	// zone offset roughly follows it, which holds for every inhabited zone.
	rise, up, down := event(1)
	set, _, _ := event(-1)
	if up || down {
		return SunTimes{AlwaysUp: up, AlwaysDown: down}
	}
	toTime := func(utcMinutes float64) time.Time {
		return midnightUTC.Add(time.Duration(utcMinutes * float64(time.Minute))).In(loc).Round(time.Second)
	}
	return SunTimes{Sunrise: toTime(rise), Sunset: toTime(set)}
}

// Phase is one of the Moon's four principal phases.
type Phase int

const (
	NewMoon Phase = iota
	FirstQuarter
	FullMoon
	LastQuarter
)

func (p Phase) String() string {
	return [...]string{"New moon", "First quarter", "Full moon", "Last quarter"}[p]
}

// Code is a stable identifier of the phase for JSON.
func (p Phase) Code() string {
	return [...]string{"NEW_MOON", "FIRST_QUARTER", "FULL_MOON", "LAST_QUARTER"}[p]
}

// PhaseEvent is the instant (UTC) the Moon reaches a principal phase.
type PhaseEvent struct {
	Phase Phase
	Time  time.Time
}

// elongation is the apparent longitude of the Moon minus that of the Sun,
// 0..360 degrees: 0 at new moon, 180 at full moon.
func elongation(jd float64) float64 {
	T := (jd - 2451545) / 36525
	// Sun, Meeus ch. 25 (low precision).
	M := 357.52911 + 35999.05029*T
	L0 := 280.46646 + 36000.76983*T
	C := (1.914602-0.004817*T)*math.Sin(M*rad) + (0.019993-0.000101*T)*math.Sin(2*M*rad) + 0.000289*math.Sin(3*M*rad)
	omega := 125.04 - 1934.136*T
	sunLong := L0 + C - 0.00569 - 0.00478*math.Sin(omega*rad)
	// Moon, Meeus ch. 47: the terms of the longitude series above 0.008°.
	Lp := 218.3164477 + 481267.88123421*T
	D := (297.8501921 + 445267.1114034*T) * rad
	Ms := (357.5291092 + 35999.0502909*T) * rad
	Mp := (134.9633964 + 477198.8675055*T) * rad
	F := (93.2720950 + 483202.0175233*T) * rad
	E := 1 - 0.002516*T
	moonLong := Lp +
		6.288774*math.Sin(Mp) +
		1.274027*math.Sin(2*D-Mp) +
		0.658314*math.Sin(2*D) +
		0.213618*math.Sin(2*Mp) -
		0.185116*E*math.Sin(Ms) -
		0.114332*math.Sin(2*F) +
		0.058793*math.Sin(2*D-2*Mp) +
		0.057066*E*math.Sin(2*D-Ms-Mp) +
		0.053322*math.Sin(2*D+Mp) +
		0.045758*E*math.Sin(2*D-Ms) -
		0.040923*E*math.Sin(Ms-Mp) -
		0.034720*math.Sin(D) -
		0.030383*E*math.Sin(Ms+Mp) +
		0.015327*math.Sin(2*D-2*F) -
		0.012528*math.Sin(Mp+2*F) +
		0.010980*math.Sin(Mp-2*F) +
		0.010675*math.Sin(4*D-Mp) +
		0.010034*math.Sin(3*Mp) +
		0.008548*math.Sin(4*D-2*Mp)
	// Nutation in longitude shifts both bodies equally and cancels out.
	return norm360(moonLong - sunLong)
}

// Illumination is the illuminated fraction of the Moon's disc at t (0..1),
// from the elongation (phase angle ≈ 180° − elongation).
func Illumination(t time.Time) float64 {
	return (1 - math.Cos(elongation(julianDay(t))*rad)) / 2
}

// NextPhases returns the next n principal phases at or after from.
func NextPhases(from time.Time, n int) []PhaseEvent {
	out := make([]PhaseEvent, 0, n)
	const step = 1.0 // days; the elongation grows 11° to 15° per day, far less than 90°
	jd := julianDay(from)
	prev := elongation(jd)
	for len(out) < n {
		next := elongation(jd + step)
		// Which quarter boundary (0, 90, 180, 270) lies in (prev, next]?
		unwrapped := next
		if unwrapped < prev {
			unwrapped += 360
		}
		boundary := math.Ceil(prev/90) * 90
		if boundary == prev {
			boundary += 90
		}
		if boundary <= unwrapped {
			target := math.Mod(boundary, 360)
			lo, hi := jd, jd+step
			for hi-lo > 1.0/2880 { // bisect to half a minute
				mid := (lo + hi) / 2
				d := norm360(elongation(mid)-target+180) - 180 // signed distance to target
				if d < 0 {
					lo = mid
				} else {
					hi = mid
				}
			}
			out = append(out, PhaseEvent{Phase: Phase(int(target) / 90), Time: fromJulianDay(hi).Round(time.Minute)})
			// Restart just past the event so the same boundary is not found twice.
			jd = hi + 1.0/1440
			prev = elongation(jd)
			continue
		}
		jd += step
		prev = next
	}
	return out
}
