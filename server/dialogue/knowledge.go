package dialogue

import (
	"context"
	"errors"
	"time"
)

// Knowledge answers the information intents. harkd adapts its item
// providers to it; each method gets where the user asks about and returns
// what it knows there, best first.
type Knowledge interface {
	Weather(ctx context.Context, q WeatherQuery) (WeatherInfo, error)
	News(ctx context.Context, q NewsQuery) ([]Headline, error)
	Movies(ctx context.Context, q MovieQuery) ([]Showtime, error)
	Restaurants(ctx context.Context, q RestaurantQuery) ([]Restaurant, error)
	Sports(ctx context.Context, q SportsQuery) ([]SportResult, error)
	Events(ctx context.Context, q EventQuery) ([]Event, error)
	TV(ctx context.Context, q TVQuery) ([]Program, error)
	// Locate finds a named place (a city, a restaurant, "home") for
	// NAVIGATE.
	Locate(ctx context.Context, q LocateQuery) (Location, error)
}

// ErrNoData is what a Knowledge returns (possibly wrapped) when it has
// nothing for the place or the thing asked; the answer then says so
// politely. Any other error is logged and answered as a failure.
var ErrNoData = errors.New("dialogue: no data")

// Where is the place a question is about: a city named in the query
// (canonical name when it is one of the dataset cities, else as said), or
// else the user's position.
type Where struct {
	City     string
	Lat, Lon *float64
}

// Asker says who asks and in which language, for personal order.
type Asker struct {
	UserID    int64
	Workspace int64 // the workspace the user belongs to, for per-workspace services (recommendations)
	Lang      string
}

// Recommendations answers "recommend me a movie" for the asker from the
// recommendation service. A workspace without a film table answers
// ErrNoData, and the engine then says how to get one.
type Recommendations interface {
	Movies(ctx context.Context, a Asker, n int) (Picks, error)
}

// Picks are films chosen for the asker, with where the choice came from,
// so the answer says it truthfully.
type Picks struct {
	Titles []string
	// Basis is "ratings" (the asker's own ratings), "interests" (the genres
	// of their movie survey, Genres) or "popular" (what people here watch
	// most).
	Basis  string
	Genres []string
}

type WeatherQuery struct {
	Where
	Asker
	// Day is the day of a forecast at noon in the user's zone; zero for
	// the current weather.
	Day time.Time
}

type WeatherInfo struct {
	City      string
	Condition string  // "partly cloudy", as the source words it
	Temp      float64 // current
	TempMin   float64
	TempMax   float64
	Unit      string // "C" or "F"
	Forecast  []DayForecast
}

type DayForecast struct {
	Date      time.Time // any instant within the day, in the city's zone
	Condition string
	TempMin   float64
	TempMax   float64
	// The day's details, for a question that asks one ("what's the
	// humidity"): relative humidity in percent, the strongest wind in
	// km/h whatever the unit of temperatures, the highest UV index.
	Humidity int
	WindKmh  float64
	UVMax    int
}

type NewsQuery struct {
	Where
	Asker
	Category string // canonical: sports, technology, business ...; "" for personal
}

type Headline struct {
	Title, Source string
}

type MovieQuery struct {
	Where
	Asker
	Title string // "" for everything on
}

type Showtime struct {
	Title   string
	Theater string
	Times   []string // "18:30"
	Rating  float64  // 0 when unknown
}

type RestaurantQuery struct {
	Where
	Asker
	Cuisine string // canonical: italian, japanese ...; "" for any
	OpenNow bool   // the user asked for places open now
}

type Restaurant struct {
	Name, Cuisine, Address string
	Rating                 float64
	Open                   bool
}

type SportsQuery struct {
	Where
	Asker
	Sport string // canonical: soccer, basketball, tennis, golf, motor, cycling; "" for any
	Team  string // as said; "" for any
}

// SportResult is a match (Home/Away with scores) or, for sports without
// two sides, a Summary such as "Alcaraz won the Madrid Open".
type SportResult struct {
	Sport, Competition   string
	Home, Away           string
	HomeScore, AwayScore int
	Summary              string
}

type EventQuery struct {
	Where
	Asker
	Category string    // canonical: concert, theater, exhibition, festival, sports; "" for any
	Day      time.Time // zero for upcoming
}

type Event struct {
	Title, Venue, Category string
	Start                  time.Time
}

type TVQuery struct {
	Where
	Asker
	Channel string // "" for every channel
	Now     time.Time
}

type Program struct {
	Channel, Title string
	Start          time.Time
}

// LocateQuery names a place, or (Personal) one of the user's own
// places: "home" or "work", as tracking detected them. A Knowledge that
// knows none answers ErrNoData.
type LocateQuery struct {
	Name     string
	Personal string
	Near     Where
	Asker
}

type Location struct {
	Name     string
	Lat, Lon float64
}
