package tracking

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"time"
	_ "time/tzdata" // the five cities' zones must load on machines without a zoneinfo database

	"github.com/harkhq/hark/server/apierr"
)

// StampLayout is the layout of a point's stamp: local wall-clock time.
const StampLayout = "2006-01-02 15:04:05"

type latLon struct{ lat, lon float64 }

// city is one simulated user: where they live, work and spend free time.
type city struct {
	slug    string
	zone    string
	userID  int64
	seed    uint64
	home    latLon
	office  latLon
	leisure latLon
}

var cities = []city{
	{slug: "san-francisco", zone: "America/Los_Angeles", userID: 7300001, seed: 0x5f0001,
		home:    latLon{37.75018, -122.43371}, // Noe Valley
		office:  latLon{37.78974, -122.40003}, // Financial District
		leisure: latLon{37.76940, -122.48620}, // Golden Gate Park
	},
	{slug: "new-york", zone: "America/New_York", userID: 7300002, seed: 0x4e0002,
		home:    latLon{40.67101, -73.98143}, // Park Slope
		office:  latLon{40.75491, -73.98402}, // Midtown
		leisure: latLon{40.78121, -73.96650}, // Central Park
	},
	{slug: "madrid", zone: "Europe/Madrid", userID: 7300003, seed: 0x4d0003,
		home:    latLon{40.43452, -3.70381}, // Chamberí
		office:  latLon{40.45053, -3.69204}, // AZCA, Castellana
		leisure: latLon{40.41529, -3.68451}, // El Retiro
	},
	{slug: "london", zone: "Europe/London", userID: 7300004, seed: 0x4c0004,
		home:    latLon{51.54162, -0.10224}, // Islington
		office:  latLon{51.51452, -0.08803}, // the City
		leisure: latLon{51.50731, -0.16572}, // Hyde Park
	},
	{slug: "singapore", zone: "Asia/Singapore", userID: 7300005, seed: 0x530005,
		home:    latLon{1.28581, 103.82703}, // Tiong Bahru
		office:  latLon{1.28403, 103.85150}, // Raffles Place
		leisure: latLon{1.31381, 103.81591}, // Botanic Gardens
	},
}

// Cities lists the slugs Dataset accepts, in a fixed order.
func Cities() []string {
	out := make([]string, len(cities))
	for i, c := range cities {
		out[i] = c.slug
	}
	return out
}

func cityBySlug(slug string) (city, bool) {
	for _, c := range cities {
		if c.slug == slug {
			return c, true
		}
	}
	return city{}, false
}

var datasetCache struct {
	sync.Mutex
	files map[string][]byte
}

// Dataset returns the JSON file of the simulated dataset of a city (one of
// Cities). The bytes are generated once and cached; callers must not modify
// them. An unknown city is a 404 EntityNotFound.
func Dataset(slug string) ([]byte, error) {
	c, ok := cityBySlug(slug)
	if !ok {
		return nil, apierr.NotFoundf("no dataset for city %q; available: san-francisco, new-york, madrid, london, singapore", slug)
	}
	datasetCache.Lock()
	defer datasetCache.Unlock()
	if b, ok := datasetCache.files[slug]; ok {
		return b, nil
	}
	file, err := generate(c)
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(file)
	if err != nil {
		return nil, fmt.Errorf("dataset %s: %w", slug, err)
	}
	if datasetCache.files == nil {
		datasetCache.files = make(map[string][]byte)
	}
	datasetCache.files[slug] = b
	return b, nil
}

// simulation state: where the user is and the clock.
type sim struct {
	rng      *rand.Rand
	loc      *time.Location
	zone     string
	now      time.Time
	end      time.Time
	points   []Point
	expected int
}

const (
	stayInterval   = 5 * time.Minute
	travelInterval = 30 * time.Second
	walkLeg        = 250.0 // metres walked at each end of a trip
)

func generate(c city) (*File, error) {
	loc, err := time.LoadLocation(c.zone)
	if err != nil {
		return nil, fmt.Errorf("dataset %s: %w", c.slug, err)
	}
	s := &sim{
		rng:  rand.New(rand.NewPCG(c.seed, c.seed^0x9e3779b97f4a7c15)),
		loc:  loc,
		zone: c.zone,
		now:  time.Date(2020, time.February, 1, 0, 0, 0, 0, loc),
		end:  time.Date(2020, time.March, 1, 0, 0, 0, 0, loc),
	}
	for day := s.now; day.Before(s.end); day = day.AddDate(0, 0, 1) {
		s.simulateDay(c, day)
	}
	s.stayUntil(c.home, s.end.Add(-time.Second))

	completeness := 0.0
	if s.expected > 0 {
		completeness = math.Round(float64(len(s.points))/float64(s.expected)*1e4) / 1e4
	}
	return &File{
		IDUsuario:               c.userID,
		TotalPoints:             int64(len(s.points)),
		MeasuresCompleteness:    completeness,
		POIs:                    []json.RawMessage{},
		AllClustersOnlyAccuracy: []json.RawMessage{},
		AllClusters:             []json.RawMessage{},
		Points:                  s.points,
	}, nil
}

// minutes returns a uniformly random duration in [lo, hi) minutes.
func (s *sim) minutes(lo, hi float64) time.Duration {
	return time.Duration((lo + s.rng.Float64()*(hi-lo)) * float64(time.Minute))
}

func (s *sim) simulateDay(c city, day time.Time) {
	at := func(h, m int) time.Time {
		return time.Date(day.Year(), day.Month(), day.Day(), h, m, 0, 0, s.loc)
	}
	switch day.Weekday() {
	case time.Saturday, time.Sunday:
		s.stayUntil(c.home, at(10, 0).Add(s.minutes(0, 90)))
		s.travel(c.home, c.leisure)
		s.stayUntil(c.leisure, s.now.Add(s.minutes(120, 240)))
		s.travel(c.leisure, c.home)
	default:
		s.stayUntil(c.home, at(7, 40).Add(s.minutes(0, 50)))
		s.travel(c.home, c.office)
		s.stayUntil(c.office, at(17, 15).Add(s.minutes(0, 75)))
		if wd := day.Weekday(); wd == time.Tuesday || wd == time.Thursday {
			s.travel(c.office, c.leisure)
			s.stayUntil(c.leisure, s.now.Add(s.minutes(60, 100)))
			s.travel(c.leisure, c.home)
		} else {
			s.travel(c.office, c.home)
		}
	}
	// Some nights the phone is switched off for a few hours.
	if s.rng.Float64() < 0.2 {
		off := at(23, 30).Add(s.minutes(0, 60))
		s.stayUntil(c.home, off)
		back := off.Add(s.minutes(120, 240))
		for s.now.Before(back) {
			s.expected++
			s.now = s.now.Add(stayInterval)
		}
	}
}

// stayUntil samples the user standing at p until the clock reaches until.
func (s *sim) stayUntil(p latLon, until time.Time) {
	if until.After(s.end) {
		until = s.end.Add(-time.Second)
	}
	for !s.now.After(until) {
		s.expected++
		if s.rng.Float64() >= 0.03 {
			acc := 12 + s.rng.Float64()*23
			if s.rng.Float64() < 0.02 {
				acc = 120 + s.rng.Float64()*280
			}
			lat, lon := s.jitter(p, acc/2)
			speed := 0.0
			if s.rng.Float64() < 0.3 {
				speed = s.rng.Float64() * 0.4
			}
			s.emit(lat, lon, acc, speed)
		}
		s.now = s.now.Add(stayInterval + time.Duration(s.rng.IntN(41)-20)*time.Second)
	}
}

// travel moves the user from a to b along an L-shaped route (north-south
// first, then east-west, as on a street grid), walking the first and last
// walkLeg metres and riding in between.
func (s *sim) travel(a, b latLon) {
	corner := latLon{b.lat, a.lon}
	leg1 := distance(a.lat, a.lon, corner.lat, corner.lon)
	leg2 := distance(corner.lat, corner.lon, b.lat, b.lon)
	total := leg1 + leg2
	position := func(d float64) latLon {
		if d <= leg1 {
			f := d / leg1
			return latLon{a.lat + (corner.lat-a.lat)*f, a.lon}
		}
		f := (d - leg1) / leg2
		return latLon{b.lat, corner.lon + (b.lon-corner.lon)*f}
	}
	ride := 7 + s.rng.Float64()*5 // m/s for this trip
	for d := 0.0; d < total; {
		s.now = s.now.Add(travelInterval)
		if !s.now.Before(s.end) {
			return
		}
		speed := 1.2 + s.rng.Float64()*0.4
		if d > walkLeg && d < total-walkLeg {
			speed = ride * (0.8 + s.rng.Float64()*0.4)
			if s.rng.Float64() < 0.1 { // a stop at lights or a station
				speed = 0
			}
		}
		d = math.Min(total, d+speed*travelInterval.Seconds())
		s.expected++
		if s.rng.Float64() < 0.03 {
			continue
		}
		acc := 5 + s.rng.Float64()*10
		p := position(d)
		lat, lon := s.jitter(p, acc/2)
		reported := math.Max(0, speed+s.rng.NormFloat64()*0.3)
		s.emit(lat, lon, acc, reported)
	}
	s.now = s.now.Add(travelInterval) // the stay begins after arrival
}

// jitter adds Gaussian noise of sigma metres in each axis.
func (s *sim) jitter(p latLon, sigma float64) (float64, float64) {
	dLat := s.rng.NormFloat64() * sigma / metresPerDegreeLat
	dLon := s.rng.NormFloat64() * sigma / (metresPerDegreeLat * math.Cos(p.lat*math.Pi/180))
	return p.lat + dLat, p.lon + dLon
}

func (s *sim) emit(lat, lon, acc, speed float64) {
	s.points = append(s.points, Point{
		Stamp:     s.now.In(s.loc).Format(StampLayout),
		Latitude:  round(lat, 6),
		Longitude: round(lon, 6),
		TimeZone:  s.zone,
		Accuracy:  round(acc, 1),
		Speed:     round(speed, 2),
	})
}

func round(x float64, decimals int) float64 {
	p := math.Pow10(decimals)
	return math.Round(x*p) / p
}
