package items

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/harkhq/hark/server/items/astro"
)

// Accessors for the dialogue engine: plain domain values for one city,
// without paging or JSON shapes.

// Forecast is the weather of one local date of a city, in metric units.
type Forecast struct {
	City *City
	Day  DayWeather
	Sun  astro.SunTimes
}

// WeatherOn returns the weather of city on the local date of day (today,
// tomorrow, any date).
func (s *Service) WeatherOn(ctx context.Context, city *City, day time.Time) (Forecast, error) {
	days, err := s.cfg.Weather.Days(ctx, city, day, 1)
	if err != nil {
		return Forecast{}, fmt.Errorf("weather of %s: %w", city.Slug, err)
	}
	if len(days) == 0 {
		return Forecast{}, fmt.Errorf("weather of %s: provider returned no day", city.Slug)
	}
	return Forecast{City: city, Day: days[0], Sun: astro.Sun(day.In(city.Location), city.Lat, city.Lon)}, nil
}

// NewsTopicID returns the category id of a news topic ("technology",
// "news:technology").
func (s *Service) NewsTopicID(topic string) (int, bool) {
	id, ok := s.sandbox.news.TopicIDs[strings.TrimPrefix(strings.ToLower(topic), "news:")]
	return id, ok
}

// TopNews returns the first n stories of a news category (2090, 2091, 2092
// or a topic id) in city, ordered as the news paths order them.
func (s *Service) TopNews(ctx context.Context, city *City, category int, profile map[string]float64, now time.Time, n int) ([]Article, error) {
	np, err := s.parseNewsPath(fmt.Sprintf("news/category/%d", category))
	if err != nil {
		return nil, err
	}
	r := &request{city: city, lat: city.Lat, lon: city.Lon, profile: profile, now: now}
	ranked, err := s.rankNews(ctx, r, np)
	if err != nil {
		return nil, err
	}
	arts, err := s.cfg.News.Articles(ctx, city, now)
	if err != nil {
		return nil, err
	}
	byID := map[string]Article{}
	for _, a := range arts {
		byID[a.ID] = a
	}
	var out []Article
	for _, sc := range ranked {
		if len(out) == n {
			break
		}
		out = append(out, byID[sc.id])
	}
	return out, nil
}

// Showings returns today's showings in city; a non-empty title keeps only
// films whose title contains it (case and accents ignored). Sorted by the
// first show time.
func (s *Service) Showings(ctx context.Context, city *City, now time.Time, title string) ([]Showing, error) {
	all, err := s.cfg.Movies.Showings(ctx, city, now)
	if err != nil {
		return nil, err
	}
	want := foldName(title)
	var out []Showing
	for _, sh := range all {
		if want == "" || strings.Contains(foldName(sh.Movie.Title), want) {
			out = append(out, sh)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if len(out[i].Times) == 0 || len(out[j].Times) == 0 {
			return len(out[i].Times) > len(out[j].Times)
		}
		return out[i].Times[0].Before(out[j].Times[0])
	})
	return out, nil
}

// OpenRestaurants returns the restaurants of city open at now, best rated
// first; a non-empty cuisine ("italian") keeps only that cuisine.
func (s *Service) OpenRestaurants(ctx context.Context, city *City, now time.Time, cuisine string) ([]Restaurant, error) {
	all, err := s.cfg.Restaurants.Restaurants(ctx, city)
	if err != nil {
		return nil, err
	}
	cuisine = strings.TrimPrefix(strings.ToLower(cuisine), "cuisine:")
	var out []Restaurant
	for _, r := range all {
		if !r.Hours.OpenAt(now, city.Location) {
			continue
		}
		if cuisine != "" && !contains(r.Cuisines, cuisine) {
			continue
		}
		out = append(out, r)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Rating > out[j].Rating })
	return out, nil
}

func contains(list []string, v string) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

// Results returns the city's league matches: the last round played and
// the next one.
func (s *Service) Results(ctx context.Context, city *City, now time.Time) ([]Match, error) {
	return s.cfg.Sports.Matches(ctx, city, now)
}

// Standings returns the table of the city's soccer league.
func (s *Service) Standings(ctx context.Context, city *City, now time.Time) (Standings, error) {
	return s.cfg.Sports.Standings(ctx, city, now)
}

// TourEvents returns the motor, golf, tennis or biking events around now.
func (s *Service) TourEvents(ctx context.Context, sport string, now time.Time) ([]TourEvent, error) {
	if !contains(tourSports, sport) {
		return nil, fmt.Errorf("unknown tour sport %q (want motor, golf, tennis or biking)", sport)
	}
	return s.cfg.Sports.Tour(ctx, sport, now)
}

// UpcomingEvents returns the city's events of the next two weeks by start
// time; a non-empty category ("music:jazz" or "music") filters them.
func (s *Service) UpcomingEvents(ctx context.Context, city *City, now time.Time, category string) ([]Event, error) {
	all, err := s.cfg.Events.Events(ctx, city, now)
	if err != nil {
		return nil, err
	}
	var out []Event
	for _, e := range all {
		if category == "" || e.Category == category || strings.HasPrefix(e.Category, category+":") {
			out = append(out, e)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Start.Before(out[j].Start) })
	return out, nil
}

// OnTV returns what the city's channels broadcast at now, by channel.
func (s *Service) OnTV(ctx context.Context, city *City, now time.Time) ([]Programme, error) {
	all, err := s.cfg.TV.Programmes(ctx, city, now)
	if err != nil {
		return nil, err
	}
	var out []Programme
	for _, p := range all {
		if !p.Start.After(now) && p.End.After(now) {
			out = append(out, p)
		}
	}
	return out, nil
}
