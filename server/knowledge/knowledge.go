// Package knowledge lets the dialogue engine answer from the domain items:
// it adapts the items service (and the user's interests and units) to
// dialogue.Knowledge, so "what's the weather in Madrid" is answered from
// Madrid's weather item and "restaurants open now" from the restaurant list.
package knowledge

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/harkhq/hark/server/dialogue"
	"github.com/harkhq/hark/server/items"
	"github.com/harkhq/hark/server/tracking"
)

// User tells what the answers need to know of the asker.
type User interface {
	Profile(ctx context.Context, userID int64) (map[string]float64, error)
	Metric(ctx context.Context, userID int64) bool
}

// Places lists the places tracking detected for a user (Home, Work and
// others), as tracking.Service does.
type Places interface {
	POIs(ctx context.Context, userID int64) ([]tracking.Place, error)
}

// Items answers dialogue questions from an items.Service.
type Items struct {
	Items *items.Service
	Users User
	// Places answers "take me home"; without it, home and work are
	// unknown.
	Places Places
	Now    func() time.Time
}

var _ dialogue.Knowledge = (*Items)(nil)

func (k *Items) now() time.Time {
	if k.Now != nil {
		return k.Now()
	}
	return time.Now()
}

// city resolves where a question is about: a named city, else the one
// nearest the user. With neither, dialogue.ErrNoData lets the engine ask.
func (k *Items) city(w dialogue.Where) (*items.City, error) {
	if w.City != "" {
		if c, ok := k.Items.CityByName(w.City); ok {
			return c, nil
		}
		return nil, fmt.Errorf("%w: no data for %s", dialogue.ErrNoData, w.City)
	}
	if w.Lat != nil && w.Lon != nil {
		return k.Items.CityNear(*w.Lat, *w.Lon), nil
	}
	return nil, fmt.Errorf("%w: no city named and no position", dialogue.ErrNoData)
}

// Interests gives the dialogue the user's survey weights ("music:jazz"),
// so "play something I like" follows the music survey.
func (k *Items) Interests(ctx context.Context, userID int64) map[string]float64 {
	return k.profile(ctx, userID)
}

func (k *Items) profile(ctx context.Context, userID int64) map[string]float64 {
	if k.Users == nil {
		return nil
	}
	p, err := k.Users.Profile(ctx, userID)
	if err != nil {
		return nil
	}
	return p
}

// Weather answers from the city's weather item, in the user's units.
func (k *Items) Weather(ctx context.Context, q dialogue.WeatherQuery) (dialogue.WeatherInfo, error) {
	c, err := k.city(q.Where)
	if err != nil {
		return dialogue.WeatherInfo{}, err
	}
	metric := k.Users == nil || k.Users.Metric(ctx, q.UserID)
	conv, unit := func(t float64) float64 { return math.Round(t) }, "C"
	if !metric {
		conv, unit = func(t float64) float64 { return math.Round(t*9/5 + 32) }, "F"
	}
	w, err := k.Items.WeatherAt(ctx, c, k.now())
	if err != nil {
		return dialogue.WeatherInfo{}, err
	}
	info := dialogue.WeatherInfo{City: c.Name, Unit: unit}
	if len(w.Hours) > 0 {
		info.Temp = conv(w.Hours[0].Temp)
		info.Condition = condition(w.Hours[0].Condition, q.Lang)
	}
	if len(w.Days) > 0 {
		info.TempMin, info.TempMax = conv(w.Days[0].TMin), conv(w.Days[0].TMax)
	}
	day := func(d items.DayWeather) dialogue.DayForecast {
		return dialogue.DayForecast{Date: d.Date, Condition: condition(d.Condition, q.Lang), TempMin: conv(d.TMin),
			TempMax: conv(d.TMax), Humidity: d.Humidity, WindKmh: d.WindKmh, UVMax: d.UVMax}
	}
	for _, d := range w.Days {
		info.Forecast = append(info.Forecast, day(d))
	}
	if !q.Day.IsZero() {
		f, err := k.Items.WeatherOn(ctx, c, q.Day)
		if err != nil {
			return dialogue.WeatherInfo{}, err
		}
		info.Forecast = []dialogue.DayForecast{day(f.Day)}
	}
	return info, nil
}

// spanishConditions words the sandbox's weather states in Spanish as what
// the sky does, so an answer reads "hace 7 °C y llueve"; the items
// themselves are English, like the contract's samples.
var spanishConditions = map[items.Condition]string{
	items.Sunny: "hace sol", items.PartlyCloudy: "está parcialmente nublado", items.Cloudy: "está nublado",
	items.Showers: "hay chubascos", items.Rain: "llueve", items.Thunderstorm: "hay tormenta", items.Snow: "nieva",
	items.Fog: "hay niebla", items.ClearNight: "está despejado",
}

func condition(c items.Condition, lang string) string {
	if strings.HasPrefix(lang, "es") {
		if s, ok := spanishConditions[c]; ok {
			return s
		}
	}
	return strings.ToLower(c.String())
}

// News answers with the top stories of a category, ordered by the user's
// interests as the news paths are.
func (k *Items) News(ctx context.Context, q dialogue.NewsQuery) ([]dialogue.Headline, error) {
	c, err := k.city(q.Where)
	if err != nil {
		return nil, err
	}
	category := items.CategoryPersonal
	if q.Category != "" {
		id, ok := k.Items.NewsTopicID(q.Category)
		if !ok {
			return nil, fmt.Errorf("%w: no news about %s", dialogue.ErrNoData, q.Category)
		}
		category = id
	}
	arts, err := k.Items.TopNews(ctx, c, category, k.profile(ctx, q.UserID), k.now(), 5)
	if err != nil {
		return nil, err
	}
	out := make([]dialogue.Headline, len(arts))
	for i, a := range arts {
		out[i] = dialogue.Headline{Title: a.Title, Source: a.Source.Name}
	}
	return out, nil
}

// Movies answers with today's showings.
func (k *Items) Movies(ctx context.Context, q dialogue.MovieQuery) ([]dialogue.Showtime, error) {
	c, err := k.city(q.Where)
	if err != nil {
		return nil, err
	}
	shows, err := k.Items.Showings(ctx, c, k.now(), q.Title)
	if err != nil {
		return nil, err
	}
	out := make([]dialogue.Showtime, 0, len(shows))
	for _, s := range shows {
		st := dialogue.Showtime{Title: s.Movie.Title, Theater: s.Theatre.Name, Rating: s.Movie.Rating}
		for _, t := range s.Times {
			st.Times = append(st.Times, t.In(c.Location).Format("15:04"))
		}
		out = append(out, st)
	}
	return out, nil
}

// Restaurants answers with the list the Items screen shows for the same
// position and user (the same ranking by interests and distance), narrowed
// to a cuisine or to the places open now when asked; a named city is
// looked at from its centre.
func (k *Items) Restaurants(ctx context.Context, q dialogue.RestaurantQuery) ([]dialogue.Restaurant, error) {
	c, err := k.city(q.Where)
	if err != nil {
		return nil, err
	}
	lat, lon := c.Lat, c.Lon
	if q.City == "" && q.Lat != nil && q.Lon != nil {
		lat, lon = *q.Lat, *q.Lon
	}
	rows := 100
	metric := k.Users == nil || k.Users.Metric(ctx, q.UserID)
	env, err := k.Items.List(ctx, items.Query{Path: "restaurants", Lat: &lat, Lon: &lon, RowsPerPage: &rows,
		UserID: q.UserID, Profile: k.profile(ctx, q.UserID), Metric: metric, Now: k.now()})
	if err != nil {
		return nil, err
	}
	out := make([]dialogue.Restaurant, 0, len(env.List))
	for _, el := range env.List {
		r, ok := el.(items.RestaurantItem)
		if !ok || q.OpenNow && !r.Open || q.Cuisine != "" && !slices.Contains(r.Categories, q.Cuisine) {
			continue
		}
		rating, _ := strconv.ParseFloat(r.Rating, 64)
		out = append(out, dialogue.Restaurant{Name: r.Name, Cuisine: strings.Join(r.Categories, ", "),
			Address: r.Address, Rating: rating, Open: r.Open})
	}
	return out, nil
}

// Sports answers with league results and tour events.
func (k *Items) Sports(ctx context.Context, q dialogue.SportsQuery) ([]dialogue.SportResult, error) {
	now := k.now()
	switch q.Sport {
	case "tennis", "golf", "motor", "cycling":
		sport := q.Sport
		if sport == "cycling" {
			sport = "biking"
		}
		evs, err := k.Items.TourEvents(ctx, sport, now)
		if err != nil {
			return nil, err
		}
		var out []dialogue.SportResult
		for _, e := range evs {
			if e.Status == "finished" {
				out = append(out, dialogue.SportResult{Sport: q.Sport, Competition: e.Series,
					Summary: tourSummary(e)})
			}
		}
		return out, nil
	}
	c, err := k.city(q.Where)
	if err != nil {
		return nil, err
	}
	matches, err := k.Items.Results(ctx, c, now)
	if err != nil {
		return nil, err
	}
	var out []dialogue.SportResult
	team := strings.ToLower(q.Team)
	for _, m := range matches {
		if m.Status != "finished" || (q.Sport != "" && m.Sport != q.Sport) {
			continue
		}
		if team != "" && !strings.Contains(strings.ToLower(m.Home.Name), team) && !strings.Contains(strings.ToLower(m.Away.Name), team) {
			continue
		}
		out = append(out, dialogue.SportResult{Sport: m.Sport, Competition: m.Competition, Home: m.Home.Name,
			Away: m.Away.Name, HomeScore: m.HomeScore, AwayScore: m.AwayScore})
	}
	return out, nil
}

func tourSummary(e items.TourEvent) string {
	if len(e.Results) == 0 {
		return e.Name
	}
	return fmt.Sprintf("%s: %s won", e.Name, e.Results[0].Name)
}

// Events answers with upcoming events, on a given day when asked.
func (k *Items) Events(ctx context.Context, q dialogue.EventQuery) ([]dialogue.Event, error) {
	c, err := k.city(q.Where)
	if err != nil {
		return nil, err
	}
	evs, err := k.Items.UpcomingEvents(ctx, c, k.now(), q.Category)
	if err != nil {
		return nil, err
	}
	var out []dialogue.Event
	for _, e := range evs {
		if !q.Day.IsZero() {
			y1, m1, d1 := e.Start.In(c.Location).Date()
			y2, m2, d2 := q.Day.In(c.Location).Date()
			if y1 != y2 || m1 != m2 || d1 != d2 {
				continue
			}
		}
		out = append(out, dialogue.Event{Title: e.Title, Venue: e.Venue.Name, Category: e.Category, Start: e.Start})
	}
	return out, nil
}

// TV answers with what is on now and next.
func (k *Items) TV(ctx context.Context, q dialogue.TVQuery) ([]dialogue.Program, error) {
	c, err := k.city(q.Where)
	if err != nil {
		return nil, err
	}
	now := q.Now
	if now.IsZero() {
		now = k.now()
	}
	progs, err := k.Items.OnTV(ctx, c, now)
	if err != nil {
		return nil, err
	}
	var out []dialogue.Program
	ch := strings.ToLower(q.Channel)
	for _, p := range progs {
		if ch != "" && !strings.Contains(strings.ToLower(p.Channel), ch) && p.ChannelNumber != q.Channel {
			continue
		}
		out = append(out, dialogue.Program{Channel: p.Channel, Title: p.Title, Start: p.Start})
	}
	return out, nil
}

// personalLabels maps the dialogue's personal places to tracking labels.
var personalLabels = map[string]string{"home": tracking.LabelHome, "work": tracking.LabelWork}

// personal finds the user's home or work among the places tracking
// detected; the one the user spent most time at wins.
func (k *Items) personal(ctx context.Context, q dialogue.LocateQuery) (dialogue.Location, error) {
	label, ok := personalLabels[q.Personal]
	if !ok || k.Places == nil || q.UserID == 0 {
		return dialogue.Location{}, fmt.Errorf("%w: no %s place", dialogue.ErrNoData, q.Personal)
	}
	pois, err := k.Places.POIs(ctx, q.UserID)
	if err != nil {
		return dialogue.Location{}, err
	}
	var best *tracking.Place
	for i, p := range pois {
		if p.Label == label && (best == nil || p.DwellMinutes > best.DwellMinutes) {
			best = &pois[i]
		}
	}
	if best == nil {
		return dialogue.Location{}, fmt.Errorf("%w: tracking found no %s place", dialogue.ErrNoData, label)
	}
	return dialogue.Location{Name: label, Lat: best.Lat, Lon: best.Lon}, nil
}

// Locate finds a city by name, or a restaurant, theatre or venue of the
// user's city, for NAVIGATE.
func (k *Items) Locate(ctx context.Context, q dialogue.LocateQuery) (dialogue.Location, error) {
	if q.Personal != "" {
		return k.personal(ctx, q)
	}
	if c, ok := k.Items.CityByName(q.Name); ok {
		return dialogue.Location{Name: c.Name, Lat: c.Lat, Lon: c.Lon}, nil
	}
	c, err := k.city(q.Near)
	if err != nil {
		return dialogue.Location{}, err
	}
	name := strings.ToLower(q.Name)
	rests, err := k.Items.OpenRestaurants(ctx, c, k.now(), "")
	if err == nil {
		for _, r := range rests {
			if strings.Contains(strings.ToLower(r.Name), name) {
				return dialogue.Location{Name: r.Name, Lat: r.Lat, Lon: r.Lon}, nil
			}
		}
	}
	for _, p := range append(append([]items.Place{}, c.Theatres...), c.Venues...) {
		if strings.Contains(strings.ToLower(p.Name), name) {
			return dialogue.Location{Name: p.Name, Lat: p.Lat, Lon: p.Lon}, nil
		}
	}
	return dialogue.Location{}, fmt.Errorf("%w: no place called %q", dialogue.ErrNoData, q.Name)
}
