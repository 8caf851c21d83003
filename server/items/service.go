package items

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/harkhq/hark/server/apierr"
	"github.com/harkhq/hark/server/items/astro"
)

// Query is one /items/... request, as the HTTP layer parsed it.
type Query struct {
	// Path is the part after /items/, e.g. "movies", "news/category/2091",
	// "news/local/more". Leading and trailing slashes are ignored.
	Path string
	// Lat and Lon come from Service-Request-Info; both are required.
	Lat, Lon *float64
	// Page and RowsPerPage are nil when the request does not set them
	// (see PagingFromValues).
	Page, RowsPerPage *int
	UserID            int64
	// Metric is the user's unit preference (weather "metric": 1 or 0).
	Metric bool
	// Profile is the user's interest weights by category key, e.g.
	// {"cuisine:italian": 1, "music:jazz": 0.25}; nil means no interests.
	Profile map[string]float64
	// Now is the request time; the zero value means time.Now().
	Now time.Time
	// BaseURL is scheme and host of harkd (a trailing /v2 is accepted),
	// used for the icon URLs in items.
	BaseURL string
}

// Config chooses the providers; a nil provider uses the sandbox.
type Config struct {
	Movies      MovieProvider
	Restaurants RestaurantProvider
	News        NewsProvider
	Weather     WeatherProvider
	Sports      SportsProvider
	Events      EventProvider
	TV          TVProvider
	// ProviderName is reported in restaurant items ("provider"); default
	// "hark sandbox".
	ProviderName string
}

// Service answers the domain item paths.
type Service struct {
	cfg          Config
	sandbox      *Sandbox
	cities       []*City
	providerName string
	sessions     *newsSessions
	moon         memo[[]astro.PhaseEvent] // the phases after the start of the current hour
}

// New loads the sandbox data and fills the providers cfg leaves nil.
func New(cfg Config) (*Service, error) {
	sb, err := NewSandbox()
	if err != nil {
		return nil, err
	}
	if _, err := drawnIcons(); err != nil {
		return nil, fmt.Errorf("draw item icons: %w", err)
	}
	if cfg.Movies == nil {
		cfg.Movies = sb
	}
	if cfg.Restaurants == nil {
		cfg.Restaurants = sb
	}
	if cfg.News == nil {
		cfg.News = sb
	}
	if cfg.Weather == nil {
		cfg.Weather = sb
	}
	if cfg.Sports == nil {
		cfg.Sports = sb
	}
	if cfg.Events == nil {
		cfg.Events = sb
	}
	if cfg.TV == nil {
		cfg.TV = sb
	}
	name := cfg.ProviderName
	if name == "" {
		name = "hark sandbox"
	}
	return &Service{cfg: cfg, sandbox: sb, cities: sb.cities, providerName: name, sessions: newNewsSessions()}, nil
}

// request is a validated Query.
type request struct {
	city     *City
	lat, lon float64
	profile  map[string]float64
	now      time.Time
	baseURL  string
	metric   bool
	userID   int64
}

// domain is a plain (non-news) item path.
type domain struct {
	typ, order string
	list       func(s *Service, ctx context.Context, q *request) ([]scored, error)
}

var domains = map[string]domain{
	"movies":               {"MOVIE", "preference,distance", (*Service).movies},
	"restaurants":          {"RESTAURANT", "preference,distance", (*Service).restaurants},
	"weather":              {"WEATHER", "none", (*Service).weather},
	"breakdowns":           {"BREAKDOWN", "time", (*Service).breakdowns},
	"sport/match":          {"SPORT_MATCH", "preference,distance", (*Service).matches},
	"sport/soccer/ranking": {"SOCCER_RANKING", "points", (*Service).ranking},
	"motor":                {"MOTOR", "preference,distance", tourList("motor")},
	"golf":                 {"GOLF", "preference,distance", tourList("golf")},
	"tennis":               {"TENNIS", "preference,distance", tourList("tennis")},
	"biking":               {"BIKING", "preference,distance", tourList("biking")},
	"nearevents":           {"EVENT", "preference,distance", (*Service).events},
	"tv":                   {"TV", "preference,start", (*Service).tv},
}

// List answers one /items/... path.
func (s *Service) List(ctx context.Context, q Query) (Envelope, error) {
	path := strings.Trim(q.Path, "/")
	dom, plain := domains[path]
	var news newsPath
	if !plain {
		var err error
		if news, err = s.parseNewsPath(path); err != nil {
			return Envelope{}, err
		}
	}
	lat, lon, err := validatePosition(q.Lat, q.Lon)
	if err != nil {
		return Envelope{}, err
	}
	now := q.Now
	if now.IsZero() {
		now = time.Now()
	}
	r := &request{city: s.CityNear(lat, lon), lat: lat, lon: lon, profile: q.Profile, now: now,
		baseURL: q.BaseURL, metric: q.Metric, userID: q.UserID}
	if !plain {
		return s.news(ctx, r, news, q.Page, q.RowsPerPage)
	}
	page, rows, err := resolvePaging(q.Page, q.RowsPerPage)
	if err != nil {
		return Envelope{}, err
	}
	all, err := dom.list(s, ctx, r)
	if err != nil {
		return Envelope{}, err
	}
	if dom.order != "time" && dom.order != "points" && dom.order != "none" {
		rank(all)
	}
	return envelope(lat, lon, dom.typ, dom.order, page, rows, pageOf(all, page, rows), "city="+r.city.Slug), nil
}

// Paths lists every path List accepts, for documentation and tests; news
// category paths are shown with the Local category.
func Paths() []string {
	out := sortedKeys(domains)
	for _, p := range []string{"news", "news/personal", "news/local", "news/popular", "news/category/2091"} {
		out = append(out, p, p+"/more")
	}
	return append(out, "news/categories")
}

// CityNear returns the sandbox city nearest to lat, lon.
func (s *Service) CityNear(lat, lon float64) *City {
	best, bestD := s.cities[0], -1.0
	for _, c := range s.cities {
		if d := distanceKm(lat, lon, c.Lat, c.Lon); bestD < 0 || d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// CityByName finds a city by any of its names in English or Spanish
// ("London", "Londres", "Nueva York", "Singapur", "new-york"), ignoring case
// and accents.
func (s *Service) CityByName(name string) (*City, bool) {
	f := foldName(name)
	if f == "" {
		return nil, false
	}
	for _, c := range s.cities {
		if foldName(c.Slug) == f || foldName(c.Name) == f {
			return c, true
		}
		for _, n := range c.Names {
			if foldName(n) == f {
				return c, true
			}
		}
	}
	return nil, false
}

func notFound(path string) error { return apierr.NotFoundf("no item list at /items/%s", path) }
