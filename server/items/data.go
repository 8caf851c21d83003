package items

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"
	_ "time/tzdata" // the cities' zones must resolve on hosts without zoneinfo

	"golang.org/x/text/unicode/norm"
)

// Normal is one month of a city's climate normals.
type Normal struct {
	TMax     float64 `json:"tmax"`     // mean daily maximum, °C
	TMin     float64 `json:"tmin"`     // mean daily minimum, °C
	RainMm   float64 `json:"rainMm"`   // monthly precipitation
	RainDays float64 `json:"rainDays"` // days with at least 1 mm
	WindKmh  float64 `json:"windKmh"`
	UV       int     `json:"uv"`       // typical maximum UV index
	Humidity int     `json:"humidity"` // mean relative humidity, %
}

// District is a neighbourhood of a city with some of its streets.
type District struct {
	Name    string   `json:"name"`
	Lat     float64  `json:"lat"`
	Lon     float64  `json:"lon"`
	Streets []string `json:"streets"`
}

// Place is a named point with an address (theatre, venue).
type Place struct {
	Name    string  `json:"name"`
	Lat     float64 `json:"lat"`
	Lon     float64 `json:"lon"`
	Address string  `json:"address"`
}

// Team is a club of a league with its home ground.
type Team struct {
	Name     string
	Strength float64
	Stadium  string
	Lat, Lon float64
}

func (t *Team) UnmarshalJSON(b []byte) error {
	var row []any
	if err := json.Unmarshal(b, &row); err != nil || len(row) != 5 {
		return fmt.Errorf("team %s: want [name, strength, stadium, lat, lon]", b)
	}
	var ok [5]bool
	t.Name, ok[0] = row[0].(string)
	t.Strength, ok[1] = row[1].(float64)
	t.Stadium, ok[2] = row[2].(string)
	t.Lat, ok[3] = row[3].(float64)
	t.Lon, ok[4] = row[4].(float64)
	for _, k := range ok {
		if !k {
			return fmt.Errorf("team %s: wrong field types", b)
		}
	}
	return nil
}

// League is a season-long round-robin competition.
type League struct {
	Name             string `json:"league"`
	Sport            string `json:"-"`
	SeasonStartMonth int    `json:"seasonStartMonth"`
	SeasonStartDay   int    `json:"seasonStartDay"`
	Teams            []Team `json:"-"`
	// TeamsRaw is either the team list or the slug of a city whose league
	// of the same sport has the teams (two cities share the NBA teams).
	TeamsRaw json.RawMessage `json:"teams"`
}

// City is one sandbox city with its seed data.
type City struct {
	Slug           string            `json:"slug"`
	Name           string            `json:"name"`
	Names          []string          `json:"names"`
	Country        string            `json:"country"`
	CountryCode    string            `json:"countryCode"`
	Region         string            `json:"region"`
	Lat            float64           `json:"lat"`
	Lon            float64           `json:"lon"`
	TimeZone       string            `json:"timeZone"`
	Currency       string            `json:"currency"`
	AddressFormat  string            `json:"addressFormat"`
	Climate        [12]Normal        `json:"climate"`
	Districts      []District        `json:"districts"`
	HoursProfiles  map[string]string `json:"hoursProfiles"`
	RestaurantRows []restaurantSeed  `json:"restaurants"`
	Theatres       []Place           `json:"theatres"`
	NewsSources    []NewsSource      `json:"newsSources"`
	Places         newsPlaces        `json:"places"`
	Venues         []Place           `json:"venues"`
	EventRows      []eventSeed       `json:"events"`
	Channels       []Channel         `json:"tv"`
	Soccer         *League           `json:"soccer"`
	Basketball     *League           `json:"basketball"`

	Location *time.Location `json:"-"`
	hours    map[string]Hours
}

// NewsSource is a sandbox outlet of a city.
type NewsSource struct {
	ID     int    `json:"id"`
	Name   string `json:"name"`
	Domain string `json:"domain"`
}

type newsPlaces struct {
	Landmark   []string `json:"landmark"`
	Park       []string `json:"park"`
	Transit    string   `json:"transit"`
	Council    string   `json:"council"`
	Team       string   `json:"team"`
	University string   `json:"university"`
	Airport    string   `json:"airport"`
	River      string   `json:"river"`
	Street     []string `json:"street"`
}

// Channel is a TV channel of a city; Style names its daily grid.
type Channel struct {
	Name   string `json:"name"`
	Number string `json:"number"`
	Style  string `json:"style"`
}

// restaurantSeed is [name, "cuisine,cuisine", price 1..4, district index, hours profile, rating].
type restaurantSeed struct {
	Name     string
	Cuisines []string
	Price    int
	District int
	Hours    string
	Rating   float64
}

func (r *restaurantSeed) UnmarshalJSON(b []byte) error {
	var row []any
	if err := json.Unmarshal(b, &row); err != nil || len(row) != 6 {
		return fmt.Errorf("restaurant %s: want 6 fields", b)
	}
	name, ok1 := row[0].(string)
	cuisines, ok2 := row[1].(string)
	price, ok3 := row[2].(float64)
	district, ok4 := row[3].(float64)
	hours, ok5 := row[4].(string)
	rating, ok6 := row[5].(float64)
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6) {
		return fmt.Errorf("restaurant %s: wrong field types", b)
	}
	*r = restaurantSeed{Name: name, Cuisines: strings.Split(cuisines, ","), Price: int(price),
		District: int(district), Hours: hours, Rating: rating}
	return nil
}

// eventSeed is [title, category, venue index, "HH:MM", minutes, price].
type eventSeed struct {
	Title    string
	Category string
	Venue    int
	Start    string
	Minutes  int
	Price    string
}

func (e *eventSeed) UnmarshalJSON(b []byte) error {
	var row []any
	if err := json.Unmarshal(b, &row); err != nil || len(row) != 6 {
		return fmt.Errorf("event %s: want 6 fields", b)
	}
	title, ok1 := row[0].(string)
	cat, ok2 := row[1].(string)
	venue, ok3 := row[2].(float64)
	start, ok4 := row[3].(string)
	mins, ok5 := row[4].(float64)
	price, ok6 := row[5].(string)
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6) {
		return fmt.Errorf("event %s: wrong field types", b)
	}
	*e = eventSeed{title, cat, int(venue), start, int(mins), price}
	return nil
}

var citySlugs = []string{"san-francisco", "new-york", "madrid", "london", "singapore"}

func loadCities(fsys fs.FS) ([]*City, error) {
	var cities []*City
	bySlug := map[string]*City{}
	for _, slug := range citySlugs {
		var c City
		if err := readJSON(fsys, slug+".json", &c); err != nil {
			return nil, err
		}
		loc, err := time.LoadLocation(c.TimeZone)
		if err != nil {
			return nil, fmt.Errorf("city %s: %w", slug, err)
		}
		c.Location = loc
		c.hours = map[string]Hours{}
		for name, spec := range c.HoursProfiles {
			h, err := ParseHours(spec)
			if err != nil {
				return nil, fmt.Errorf("city %s hours %q: %w", slug, name, err)
			}
			c.hours[name] = h
		}
		for _, r := range c.RestaurantRows {
			if _, ok := c.hours[r.Hours]; !ok || r.District < 0 || r.District >= len(c.Districts) || r.Price < 1 || r.Price > 4 {
				return nil, fmt.Errorf("city %s: restaurant %q has a bad hours profile, district or price", slug, r.Name)
			}
		}
		for _, e := range c.EventRows {
			if e.Venue < 0 || e.Venue >= len(c.Venues) {
				return nil, fmt.Errorf("city %s: event %q names venue %d", slug, e.Title, e.Venue)
			}
			if _, err := time.Parse("15:04", e.Start); err != nil {
				return nil, fmt.Errorf("city %s: event %q: %w", slug, e.Title, err)
			}
		}
		if c.Soccer == nil || len(c.NewsSources) == 0 || len(c.Districts) < 2 || len(c.Theatres) == 0 {
			return nil, fmt.Errorf("city %s: soccer league, news sources, districts or theatres missing", slug)
		}
		c.Soccer.Sport = "soccer"
		if c.Basketball != nil {
			c.Basketball.Sport = "basketball"
		}
		cities = append(cities, &c)
		bySlug[slug] = &c
	}
	// Resolve league team lists, which may name another city's league.
	for _, c := range cities {
		for _, lg := range []*League{c.Soccer, c.Basketball} {
			if lg == nil {
				continue
			}
			var other string
			if json.Unmarshal(lg.TeamsRaw, &other) == nil {
				src := bySlug[other]
				if src == nil {
					return nil, fmt.Errorf("city %s: league %s borrows teams of unknown city %q", c.Slug, lg.Name, other)
				}
				srcLeague := src.Soccer
				if lg.Sport == "basketball" {
					srcLeague = src.Basketball
				}
				lg.TeamsRaw = srcLeague.TeamsRaw
			}
			if err := json.Unmarshal(lg.TeamsRaw, &lg.Teams); err != nil {
				return nil, fmt.Errorf("city %s league %s: %w", c.Slug, lg.Name, err)
			}
			if len(lg.Teams) < 4 || len(lg.Teams)%2 != 0 {
				return nil, fmt.Errorf("city %s league %s: want an even number of teams, at least 4", c.Slug, lg.Name)
			}
		}
	}
	return cities, nil
}

func readJSON(fsys fs.FS, name string, v any) error {
	raw, err := fs.ReadFile(fsys, name)
	if err != nil {
		return fmt.Errorf("read %s: %w", name, err)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("parse %s: %w", name, err)
	}
	return nil
}

// distanceKm is the great-circle (haversine) distance.
func distanceKm(lat1, lon1, lat2, lon2 float64) float64 {
	const r = 6371.0
	p1, p2 := lat1*math.Pi/180, lat2*math.Pi/180
	dp, dl := p2-p1, (lon2-lon1)*math.Pi/180
	a := math.Sin(dp/2)*math.Sin(dp/2) + math.Cos(p1)*math.Cos(p2)*math.Sin(dl/2)*math.Sin(dl/2)
	return 2 * r * math.Asin(math.Min(1, math.Sqrt(a)))
}

// foldName lowercases and strips accents and punctuation so "Nueva York",
// "nueva-york" and "NUEVA YORK" compare equal.
func foldName(s string) string {
	var b strings.Builder
	for _, r := range norm.NFD.String(strings.ToLower(s)) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			b.WriteRune(r)
		case r == ' ' || r == '-' || r == '_' || r == '.':
			if b.Len() > 0 && !strings.HasSuffix(b.String(), " ") {
				b.WriteByte(' ')
			}
		}
	}
	return strings.TrimSpace(b.String())
}

// seed hashes its parts into a deterministic 64-bit value (FNV-1a over
// the parts, then a finaliser that spreads FNV's weak low bits).
func seed(parts ...any) uint64 {
	x := uint64(14695981039346656037)
	add := func(b []byte) {
		for _, c := range b {
			x ^= uint64(c)
			x *= 1099511628211
		}
		x ^= 0xff
		x *= 1099511628211
	}
	var buf [24]byte
	for _, p := range parts {
		switch v := p.(type) {
		case string:
			for i := 0; i < len(v); i++ {
				x ^= uint64(v[i])
				x *= 1099511628211
			}
			x ^= 0xff
			x *= 1099511628211
		case int:
			add(strconv.AppendInt(buf[:0], int64(v), 10))
		case int64:
			add(strconv.AppendInt(buf[:0], v, 10))
		case uint64:
			add(strconv.AppendUint(buf[:0], v, 10))
		default:
			add([]byte(fmt.Sprint(v)))
		}
	}
	x ^= x >> 33
	x *= 0xff51afd7ed558ccd
	x ^= x >> 33
	x *= 0xc4ceb9fe1a85ec53
	x ^= x >> 33
	return x
}

// unit maps a seed to [0, 1).
func unit(parts ...any) float64 { return float64(seed(parts...)>>11) / (1 << 53) }

func sortedKeys[M ~map[string]V, V any](m M) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
