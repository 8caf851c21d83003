package tracking

import (
	"math"
	"sort"
	"time"
)

// Labels of a place.
const (
	LabelHome  = "Home"
	LabelWork  = "Work"
	LabelOther = "Other"
)

// Place is somewhere the user stays, as GET /tracking/pois lists it.
type Place struct {
	ID           int     `json:"id"`
	Label        string  `json:"label"`
	Lat          float64 `json:"lat"`
	Lon          float64 `json:"lon"`
	Visits       int     `json:"visits"`
	DwellMinutes int     `json:"dwellMinutes"`
	Radius       float64 `json:"radius"` // metres
}

// Parameters of place detection (see the package documentation).
const (
	maxStayAccuracy = 100.0 // metres; worse fixes are ignored
	stayRadius      = 200.0 // metres
	minStay         = 15 * time.Minute
	clusterEps      = 120.0 // metres
	siteSize        = 30.0  // metres
	thinInterval    = 10 * time.Second
	clusterMinStays = 2
	minHomeNight    = 6 * time.Hour
	minWorkHours    = 8 * time.Hour
	minWorkDays     = 2
)

type stay struct {
	lat, lon      float64
	arrive, leave time.Time
}

func (s stay) dwell() time.Duration { return s.leave.Sub(s.arrive) }

// stays finds the stay points of time-ordered fixes. Detection keeps at
// most one fix per thinInterval, which bounds the scan from each anchor to
// minStay/thinInterval fixes whatever the input holds.
func stays(fixes []fix) []stay {
	good := make([]fix, 0, len(fixes))
	for _, f := range fixes {
		if f.accuracy > maxStayAccuracy {
			continue
		}
		if n := len(good); n > 0 && f.at.Sub(good[n-1].at) < thinInterval {
			continue
		}
		good = append(good, f)
	}
	var out []stay
	for i := 0; i < len(good); {
		within := func(j int) bool {
			return distance(good[i].lat, good[i].lon, good[j].lat, good[j].lon) <= stayRadius
		}
		j := i + 1
		for j < len(good) && within(j) && good[j].at.Sub(good[i].at) < minStay {
			j++
		}
		if j == len(good) || !within(j) {
			i++ // left the radius (or the data ended) before minStay
			continue
		}
		for j < len(good) && within(j) {
			j++
		}
		// good[i:j] all lie within stayRadius of the anchor for at least minStay.
		var lat, lon float64
		for _, f := range good[i:j] {
			lat += f.lat
			lon += f.lon
		}
		n := float64(j - i)
		out = append(out, stay{lat: lat / n, lon: lon / n, arrive: good[i].at, leave: good[j-1].at})
		i = j
	}
	return out
}

// site is a grid cell of siteSize metres holding stay points; clustering
// works on sites so that its cost stays linear in the number of stays even
// when thousands of them pile up at one spot.
type site struct {
	row, col int
	lat, lon float64 // mean position of its stays
	members  []int   // indexes of its stays
}

// clusterStays groups stay points with DBSCAN over sites (a site counts as
// many points as it holds stays) and returns the member stay indexes of
// each cluster; noise is left out.
func clusterStays(ss []stay) [][]int {
	cell := siteSize / metresPerDegreeLat
	byKey := map[[2]int]*site{}
	var sites []*site
	for i, s := range ss {
		key := [2]int{int(math.Floor(s.lat / cell)), int(math.Floor(s.lon / cell))}
		st := byKey[key]
		if st == nil {
			st = &site{row: key[0], col: key[1]}
			byKey[key] = st
			sites = append(sites, st)
		}
		st.members = append(st.members, i)
	}
	for _, st := range sites {
		for _, m := range st.members {
			st.lat += ss[m].lat
			st.lon += ss[m].lon
		}
		st.lat /= float64(len(st.members))
		st.lon /= float64(len(st.members))
	}
	index := map[*site]int{}
	for i, st := range sites {
		index[st] = i
	}
	rows := int(math.Ceil(clusterEps / siteSize))
	neighbours := func(st *site) (out []int, weight int) {
		// A degree of longitude shrinks with latitude; past 87 degrees the
		// search is clipped, which only matters at the poles.
		cols := int(math.Ceil(clusterEps / (siteSize * math.Max(math.Cos(st.lat*math.Pi/180), 0.05))))
		for r := st.row - rows; r <= st.row+rows; r++ {
			for c := st.col - cols; c <= st.col+cols; c++ {
				other := byKey[[2]int{r, c}]
				if other == nil || distance(st.lat, st.lon, other.lat, other.lon) > clusterEps {
					continue
				}
				out = append(out, index[other])
				weight += len(other.members)
			}
		}
		return out, weight
	}

	const unvisited, noise = 0, -1
	labels := make([]int, len(sites))
	var clusters [][]int
	for i, st := range sites {
		if labels[i] != unvisited {
			continue
		}
		seeds, weight := neighbours(st)
		if weight < clusterMinStays {
			labels[i] = noise
			continue
		}
		id := len(clusters) + 1
		var members []int
		for k := 0; k < len(seeds); k++ {
			j := seeds[k]
			if labels[j] == noise {
				labels[j] = id // a border site
				members = append(members, sites[j].members...)
			}
			if labels[j] != unvisited {
				continue
			}
			labels[j] = id
			members = append(members, sites[j].members...)
			if more, w := neighbours(sites[j]); w >= clusterMinStays {
				seeds = append(seeds, more...)
			}
		}
		sort.Ints(members)
		clusters = append(clusters, members)
	}
	return clusters
}

// detectPlaces finds and labels the places of time-ordered fixes.
func detectPlaces(fixes []fix) []Place {
	ss := stays(fixes)
	type candidate struct {
		place    Place
		dwell    time.Duration
		night    time.Duration
		work     time.Duration
		workDays int
	}
	var cands []candidate
	for _, members := range clusterStays(ss) {
		var c candidate
		var wLat, wLon, wSum float64
		days := map[string]bool{}
		for _, m := range members {
			s := ss[m]
			w := math.Max(s.dwell().Seconds(), 1)
			wLat += s.lat * w
			wLon += s.lon * w
			wSum += w
			c.dwell += s.dwell()
			c.night += nightOverlap(s.arrive, s.leave)
			for day, d := range workOverlap(s.arrive, s.leave) {
				c.work += d
				if d > 0 {
					days[day] = true
				}
			}
		}
		c.workDays = len(days)
		lat, lon := wLat/wSum, wLon/wSum
		radius := 0.0
		for _, m := range members {
			radius = math.Max(radius, distance(lat, lon, ss[m].lat, ss[m].lon))
		}
		c.place = Place{
			Label:        LabelOther,
			Lat:          round(lat, 6),
			Lon:          round(lon, 6),
			Visits:       len(members),
			DwellMinutes: int(c.dwell / time.Minute),
			Radius:       round(radius, 1),
		}
		cands = append(cands, c)
	}
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].dwell > cands[j].dwell })

	home := -1
	for i, c := range cands {
		if c.night >= minHomeNight && (home < 0 || c.night > cands[home].night) {
			home = i
		}
	}
	if home >= 0 {
		cands[home].place.Label = LabelHome
	}
	work := -1
	for i, c := range cands {
		if i == home || c.work < minWorkHours || c.workDays < minWorkDays {
			continue
		}
		if work < 0 || c.work > cands[work].work {
			work = i
		}
	}
	if work >= 0 {
		cands[work].place.Label = LabelWork
	}
	places := make([]Place, len(cands))
	for i, c := range cands {
		c.place.ID = i + 1
		places[i] = c.place
	}
	return places
}

// overlap is the length of the intersection of [a1, a2] and [b1, b2].
func overlap(a1, a2, b1, b2 time.Time) time.Duration {
	start, end := a1, a2
	if b1.After(start) {
		start = b1
	}
	if b2.Before(end) {
		end = b2
	}
	if end.After(start) {
		return end.Sub(start)
	}
	return 0
}

// dayStarts calls fn with midnight of every local day from the day before
// from to the day of to; from and to share a zone.
func dayStarts(from, to time.Time, fn func(midnight time.Time)) {
	loc := from.Location()
	d := time.Date(from.Year(), from.Month(), from.Day()-1, 0, 0, 0, 0, loc)
	for !d.After(to) {
		fn(d)
		d = time.Date(d.Year(), d.Month(), d.Day()+1, 0, 0, 0, 0, loc)
	}
}

// nightOverlap is how much of [from, to] falls between 22:00 and 06:00 local.
func nightOverlap(from, to time.Time) time.Duration {
	var total time.Duration
	dayStarts(from, to, func(m time.Time) {
		start := time.Date(m.Year(), m.Month(), m.Day(), 22, 0, 0, 0, m.Location())
		end := time.Date(m.Year(), m.Month(), m.Day()+1, 6, 0, 0, 0, m.Location())
		total += overlap(from, to, start, end)
	})
	return total
}

// workOverlap is how much of [from, to] falls in working hours (09:00-17:00
// local, Monday to Friday), per day.
func workOverlap(from, to time.Time) map[string]time.Duration {
	out := map[string]time.Duration{}
	dayStarts(from, to, func(m time.Time) {
		if wd := m.Weekday(); wd == time.Saturday || wd == time.Sunday {
			return
		}
		start := time.Date(m.Year(), m.Month(), m.Day(), 9, 0, 0, 0, m.Location())
		end := time.Date(m.Year(), m.Month(), m.Day(), 17, 0, 0, 0, m.Location())
		if d := overlap(from, to, start, end); d > 0 {
			out[m.Format("2006-01-02")] += d
		}
	})
	return out
}

const (
	earthRadius        = 6371008.8 // metres, mean
	metresPerDegreeLat = earthRadius * math.Pi / 180
)

// distance is the great-circle distance in metres (haversine).
func distance(lat1, lon1, lat2, lon2 float64) float64 {
	rad := math.Pi / 180
	dLat := (lat2 - lat1) * rad
	dLon := (lon2 - lon1) * rad
	a := math.Sin(dLat/2)*math.Sin(dLat/2) +
		math.Cos(lat1*rad)*math.Cos(lat2*rad)*math.Sin(dLon/2)*math.Sin(dLon/2)
	return 2 * earthRadius * math.Asin(math.Min(1, math.Sqrt(a)))
}
