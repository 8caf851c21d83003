package dialogue

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"
)

// fakeKnowledge is an in-memory Knowledge for tests. It answers from small
// tables per city and records the last query of each kind, so tests can
// check what the engine asked for.
type fakeKnowledge struct {
	mu   sync.Mutex
	last map[string]map[string]string
	fail error // returned by every method when set
	// personal holds the user's home and work, as tracking would.
	personal map[string]Location
}

func newFakeKnowledge() *fakeKnowledge {
	return &fakeKnowledge{last: map[string]map[string]string{}}
}

func (k *fakeKnowledge) record(kind string, fields map[string]string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.last[kind] = fields
}

func (k *fakeKnowledge) lastQuery(kind string) map[string]string {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.last[kind]
}

func (k *fakeKnowledge) reset() {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.last = map[string]map[string]string{}
}

func dayString(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.Format("2006-01-02")
}

// cityOf resolves a Where like the sandbox does: a known city by name, else
// the nearest of two test cities by latitude.
func cityOf(w Where) (string, error) {
	switch w.City {
	case "San Francisco", "New York", "Madrid", "London", "Singapore":
		return w.City, nil
	case "":
		if w.Lat == nil {
			return "", fmt.Errorf("no place: %w", ErrNoData)
		}
		if *w.Lat > 45 {
			return "London", nil
		}
		return "New York", nil
	}
	return "", fmt.Errorf("unknown city %q: %w", w.City, ErrNoData)
}

var fakeTemps = map[string][3]float64{
	"San Francisco": {15, 11, 17}, "New York": {3, -2, 6}, "Madrid": {14, 6, 18}, "London": {9, 5, 11},
	"Singapore": {31, 26, 33},
}

func (k *fakeKnowledge) Weather(ctx context.Context, q WeatherQuery) (WeatherInfo, error) {
	k.record("weather", map[string]string{"city": q.City, "day": dayString(q.Day)})
	if k.fail != nil {
		return WeatherInfo{}, k.fail
	}
	city, err := cityOf(q.Where)
	if err != nil {
		return WeatherInfo{}, err
	}
	t := fakeTemps[city]
	info := WeatherInfo{City: city, Condition: "partly cloudy", Temp: t[0], TempMin: t[1], TempMax: t[2], Unit: "C"}
	base := time.Date(2026, 3, 4, 12, 0, 0, 0, time.UTC)
	for i := 0; i < 7; i++ {
		info.Forecast = append(info.Forecast, DayForecast{Date: base.AddDate(0, 0, i), Condition: "sunny",
			TempMin: t[1] + float64(i), TempMax: t[2] + float64(i), Humidity: 60 + i, WindKmh: 16 + float64(i), UVMax: 2 + i})
	}
	return info, nil
}

func (k *fakeKnowledge) News(ctx context.Context, q NewsQuery) ([]Headline, error) {
	k.record("news", map[string]string{"city": q.City, "category": q.Category})
	if k.fail != nil {
		return nil, k.fail
	}
	cat := q.Category
	if cat == "" {
		cat = "top"
	}
	return []Headline{{Title: "First " + cat + " story", Source: "Daily"}, {Title: "Second " + cat + " story", Source: "Wire"}}, nil
}

func (k *fakeKnowledge) Movies(ctx context.Context, q MovieQuery) ([]Showtime, error) {
	k.record("movies", map[string]string{"city": q.City, "title": q.Title})
	if k.fail != nil {
		return nil, k.fail
	}
	if _, err := cityOf(q.Where); err != nil {
		return nil, err
	}
	title := q.Title
	if title == "" {
		title = "Dune"
	}
	return []Showtime{{Title: title, Theater: "Grand Cinema", Times: []string{"18:30", "21:05"}, Rating: 4.2}}, nil
}

func (k *fakeKnowledge) Restaurants(ctx context.Context, q RestaurantQuery) ([]Restaurant, error) {
	k.record("restaurants", map[string]string{"city": q.City, "cuisine": q.Cuisine, "open": fmt.Sprint(q.OpenNow)})
	if k.fail != nil {
		return nil, k.fail
	}
	if _, err := cityOf(q.Where); err != nil {
		return nil, err
	}
	return []Restaurant{
		{Name: "Trattoria <Roma>", Cuisine: "italian", Address: "1 Main St", Rating: 4.5, Open: true},
		{Name: "Late Sushi", Cuisine: "japanese", Address: "2 Side St", Rating: 4.1, Open: false},
	}, nil
}

func (k *fakeKnowledge) Sports(ctx context.Context, q SportsQuery) ([]SportResult, error) {
	k.record("sports", map[string]string{"city": q.City, "sport": q.Sport, "team": q.Team})
	if k.fail != nil {
		return nil, k.fail
	}
	return []SportResult{
		{Sport: "soccer", Competition: "League", Home: "Real Madrid", Away: "Arsenal", HomeScore: 2, AwayScore: 1},
		{Sport: "tennis", Summary: "Alcaraz won the final"},
	}, nil
}

func (k *fakeKnowledge) Events(ctx context.Context, q EventQuery) ([]Event, error) {
	k.record("events", map[string]string{"city": q.City, "category": q.Category, "day": dayString(q.Day)})
	if k.fail != nil {
		return nil, k.fail
	}
	if _, err := cityOf(q.Where); err != nil {
		return nil, err
	}
	return []Event{{Title: "Jazz Night", Venue: "Blue Hall", Category: "concert",
		Start: time.Date(2026, 3, 4, 21, 0, 0, 0, time.UTC)}}, nil
}

func (k *fakeKnowledge) TV(ctx context.Context, q TVQuery) ([]Program, error) {
	k.record("tv", map[string]string{"city": q.City, "channel": q.Channel})
	if k.fail != nil {
		return nil, k.fail
	}
	return []Program{{Channel: "BBC One", Title: "Evening News", Start: q.Now.Add(45 * time.Minute)}}, nil
}

func (k *fakeKnowledge) Locate(ctx context.Context, q LocateQuery) (Location, error) {
	k.record("locate", map[string]string{"name": q.Name, "personal": q.Personal})
	if k.fail != nil {
		return Location{}, k.fail
	}
	if q.Personal != "" {
		k.mu.Lock()
		defer k.mu.Unlock()
		if loc, ok := k.personal[q.Personal]; ok {
			return loc, nil
		}
		return Location{}, ErrNoData
	}
	name := strings.TrimSpace(q.Name)
	for _, art := range []string{"the ", "el ", "la ", "al "} {
		name = strings.TrimPrefix(strings.ToLower(name), art)
	}
	if name == "" || name == "nowhere" {
		return Location{}, ErrNoData
	}
	words := strings.Fields(name)
	for i, w := range words {
		words[i] = strings.ToUpper(w[:1]) + w[1:]
	}
	return Location{Name: strings.Join(words, " "), Lat: 40.78, Lon: -73.97}, nil
}

var testTracks = []Track{
	{ID: "t1", Title: "So What", Artist: "Miles Davis", Album: "Kind of Blue", Genre: "jazz", Mood: "relaxed"},
	{ID: "t2", Title: "Blue in Green", Artist: "Miles Davis", Album: "Kind of Blue", Genre: "jazz", Mood: "melancholic"},
	{ID: "t3", Title: "Clair de Lune", Artist: "Claude Debussy", Album: "Suite bergamasque", Genre: "classical", Mood: "calm"},
	{ID: "t4", Title: "Bohemian Rhapsody", Artist: "Queen", Album: "A Night at the Opera", Genre: "rock", Mood: "energetic"},
	{ID: "t5", Title: "Neon Rain", Artist: "Synth Collective", Album: "Grid", Genre: "electronic", Mood: "energetic"},
	{ID: "t6", Title: "Drift", Artist: "Ambient Works", Album: "Fields", Genre: "ambient", Mood: "calm"},
	{ID: "t7", Title: "Summer Nights", Artist: "Pop Stars", Album: "Summer", Genre: "pop", Mood: "upbeat"},
	{ID: "t8", Title: "Nocturne", Artist: "Frederic Chopin", Album: "Nocturnes", Genre: "classical", Mood: "melancholic"},
	{ID: "t9", Title: "Another One", Artist: "Queen", Album: "The Game", Genre: "rock", Mood: "upbeat"},
	{ID: "t10", Title: "Dusty Road", Artist: "The Prairie Band", Album: "Open Range", Genre: "country", Mood: "upbeat"},
	{ID: "t11", Title: "Midnight Train Blues", Artist: "Delta Joe", Album: "Crossroads", Genre: "blues", Mood: "melancholic"},
	{ID: "t12", Title: "Island Sun", Artist: "Roots Collective", Album: "One Drop", Genre: "reggae", Mood: "relaxed"},
}

func testMusicURL(id string) string { return "http://music.test/" + id + ".mp3" }

func trackByTitle(title string) (Track, bool) {
	for _, t := range testTracks {
		if t.Title == title {
			return t, true
		}
	}
	return Track{}, false
}
