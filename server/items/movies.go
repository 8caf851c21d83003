package items

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// Certification is a film's age rating in the city's country.
type Certification struct {
	Name        string `json:"name"`
	MinAge      int    `json:"minAge"`
	ForChildren bool   `json:"forChildren"`
}

// Movie is a film on release.
type Movie struct {
	ID            string
	Title         string
	Genres        []string // survey keys: "comedy", "scifi", ...
	Runtime       int      // minutes
	Rating        float64  // 0..10
	Certification Certification
}

// Showing is a film at one theatre on one day.
type Showing struct {
	Movie     Movie
	TheatreID string
	Theatre   Place
	Times     []time.Time
}

// MovieProvider lists what the city's theatres show on day.
type MovieProvider interface {
	Showings(ctx context.Context, city *City, day time.Time) ([]Showing, error)
}

type movieCatalogue struct {
	Movies []struct {
		Title     string   `json:"title"`
		Genres    []string `json:"genres"`
		Runtime   int      `json:"runtime"`
		CertLevel int      `json:"certLevel"`
		Rating    float64  `json:"rating"`
	} `json:"movies"`
	// Certifications maps a country code to its five-step scale, mildest
	// first, each [name, minimum age].
	Certifications map[string][5][2]any `json:"certifications"`
}

func (mc *movieCatalogue) certification(country string, level int) Certification {
	step := mc.Certifications[country][level]
	name, _ := step[0].(string)
	age, _ := step[1].(float64)
	return Certification{Name: name, MinAge: int(age), ForChildren: level <= 1}
}

// Showings puts each film in about 60% of the theatres, a choice that
// changes weekly as programmes do, with three to six shows a day spaced by
// the running time plus cleaning.
func (sb *Sandbox) Showings(ctx context.Context, city *City, day time.Time) ([]Showing, error) {
	key := day.In(city.Location).Format("2006-01-02")
	return sb.memosOf(city).showings.get(key, func() []Showing { return sb.buildShowings(city, day) }), nil
}

func (sb *Sandbox) buildShowings(city *City, day time.Time) []Showing {
	local := day.In(city.Location)
	y, m, d := local.Date()
	_, week := local.ISOWeek()
	var out []Showing
	for mi, mv := range sb.movies.Movies {
		movie := Movie{ID: fmt.Sprintf("m%02d", mi+1), Title: mv.Title, Genres: mv.Genres, Runtime: mv.Runtime,
			Rating: mv.Rating, Certification: sb.movies.certification(city.CountryCode, mv.CertLevel)}
		for ti, th := range city.Theatres {
			if unit("showing", city.Slug, mi, ti, week) >= 0.6 {
				continue
			}
			first := 11*60 + int(seed("first", city.Slug, mi, ti, y, int(m), d)%10)*15
			gap := (mv.Runtime+20+int(seed("gap", mi, ti)%4)*5+4)/5*5 + 5
			var times []time.Time
			for at := first; at <= 22*60+45 && len(times) < 6; at += gap {
				times = append(times, time.Date(y, m, d, at/60, at%60, 0, 0, city.Location))
			}
			out = append(out, Showing{Movie: movie, TheatreID: fmt.Sprintf("t%d", ti+1), Theatre: th, Times: times})
		}
	}
	return out
}

// MovieItem is an element of /items/movies: one film at one theatre.
type MovieItem struct {
	Common
	Movie   MovieInfo   `json:"movie"`
	Theater TheaterInfo `json:"theater"`
}

type MovieInfo struct {
	Title         string        `json:"title"`
	AverageRating float64       `json:"averageRating"`
	Certification Certification `json:"certification"`
	Poster        string        `json:"poster"`
	Genres        []string      `json:"genres"`
	Runtime       int           `json:"runtime"`
}

type TheaterInfo struct {
	Name     string  `json:"name"`
	Address  string  `json:"address"`
	Schedule string  `json:"schedule"` // today's start times, "HH:MM, HH:MM, ..."
	Lat      float64 `json:"lat"`
	Lon      float64 `json:"lon"`
}

func scheduleText(times []time.Time) string {
	parts := make([]string, len(times))
	for i, t := range times {
		parts[i] = t.Format("15:04")
	}
	return strings.Join(parts, ", ")
}

func (s *Service) movies(ctx context.Context, q *request) ([]scored, error) {
	shows, err := s.cfg.Movies.Showings(ctx, q.city, q.now)
	if err != nil {
		return nil, fmt.Errorf("movies of %s: %w", q.city.Slug, err)
	}
	out := make([]scored, 0, len(shows))
	for _, sh := range shows {
		cats := make([]string, len(sh.Movie.Genres))
		for i, g := range sh.Movie.Genres {
			cats[i] = "movie:" + g
		}
		id := q.city.Slug + "-" + sh.Movie.ID + "-" + sh.TheatreID
		build := func() any {
			poster := ""
			if len(sh.Movie.Genres) > 0 {
				poster = mediaURL(q.baseURL, "movie-"+sh.Movie.Genres[0])
			}
			sched := scheduleText(sh.Times)
			item := MovieItem{
				Common: common("MOVIE", id, sh.Movie.Title, sh.Theatre.Name,
					fmt.Sprintf("Today %s · %d min · %s", sched, sh.Movie.Runtime, sh.Movie.Certification.Name)),
				Movie: MovieInfo{Title: sh.Movie.Title, AverageRating: sh.Movie.Rating, Certification: sh.Movie.Certification,
					Poster: poster, Genres: sh.Movie.Genres, Runtime: sh.Movie.Runtime},
				Theater: TheaterInfo{Name: sh.Theatre.Name, Address: sh.Theatre.Address, Schedule: sched,
					Lat: sh.Theatre.Lat, Lon: sh.Theatre.Lon},
			}
			return item
		}
		d := distanceKm(q.lat, q.lon, sh.Theatre.Lat, sh.Theatre.Lon)
		out = append(out, scored{build: build, score: preference(affinity(q.profile, cats...), d, decayLocal),
			tie: sh.Movie.Rating, id: id})
	}
	return out, nil
}
