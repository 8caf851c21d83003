// Package sample generates the sample catalog harkd offers on a fresh install: the sandbox's films,
// restaurants and news stories (assets/data/cities) as items of three tables with their real
// attributes, and a synthetic but structured history of 200 users whose tastes (favourite genres,
// cuisines and topics, a home city) decide what they rate and read. Everything is derived from the
// embedded data and a fixed seed, so every install generates the same catalog, offline.
package sample

import (
	"context"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/harkhq/hark/assets"
	"github.com/harkhq/hark/server/items"
)

// Table names of the sample catalog (prefixed, so that a person's own "movies" table stays free).
const (
	Movies      = "sandbox-movies"
	Restaurants = "sandbox-food"
	News        = "sandbox-news"
)

// Users is how many synthetic users the sample has; their ids are sandbox-u001 and on.
const Users = 200

// reference is the fixed "now" of the sample: news publication times and interaction timestamps
// count back from it.
var reference = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

// Attribute is one attribute definition of a sample table (type names as in the contract).
type Attribute struct {
	ID   string
	Type string
}

// Interaction is the one interaction type of a sample table.
type Interaction struct {
	ID       string
	Type     string // categorical or unary
	Min, Max float64
}

// Record is one synthetic interaction.
type Record struct {
	UserID, ItemID string
	Timestamp      int64 // epoch ms
	Value          float64
}

// Table is one generated table.
type Table struct {
	ID          string
	Attributes  []Attribute
	Items       []map[string]any // each with "itemId"
	Interaction Interaction
	Records     []Record
}

// Catalog is the whole sample.
type Catalog struct {
	Tables []Table
	Users  []string
	people []persona // the users' tastes, by position in Users
}

// persona is a synthetic user's taste.
type persona struct {
	city     string
	genres   []string
	cuisines []string
	topics   []string
	price    int // the most they like to pay, 1..4
}

// Generate builds the sample from the embedded sandbox data.
func Generate(ctx context.Context) (*Catalog, error) {
	svc, err := items.New(items.Config{})
	if err != nil {
		return nil, err
	}
	sb, err := items.NewSandbox()
	if err != nil {
		return nil, err
	}
	files, err := fs.Glob(assets.Sub("cities"), "*.json")
	if err != nil {
		return nil, err
	}
	var cities []*items.City
	for _, f := range files {
		if c, ok := svc.CityByName(strings.TrimSuffix(f, ".json")); ok && !slices.Contains(cities, c) {
			cities = append(cities, c)
		}
	}
	if len(cities) == 0 {
		return nil, fmt.Errorf("sample: no sandbox cities")
	}
	sort.Slice(cities, func(a, b int) bool { return cities[a].Slug < cities[b].Slug })

	var movies []items.Movie
	var restaurants []restaurantIn
	var articles []articleIn
	for _, c := range cities {
		shows, err := sb.Showings(ctx, c, reference)
		if err != nil {
			return nil, err
		}
		for _, s := range shows {
			if !slices.ContainsFunc(movies, func(m items.Movie) bool { return m.ID == s.Movie.ID }) {
				movies = append(movies, s.Movie)
			}
		}
		rs, err := sb.Restaurants(ctx, c)
		if err != nil {
			return nil, err
		}
		for _, r := range rs {
			restaurants = append(restaurants, restaurantIn{r, c.Slug})
		}
		as, err := sb.Articles(ctx, c, reference)
		if err != nil {
			return nil, err
		}
		for _, a := range as {
			articles = append(articles, articleIn{a, c.Slug})
		}
	}
	sort.Slice(movies, func(a, b int) bool { return movies[a].ID < movies[b].ID })

	rng := rand.New(rand.NewPCG(13, 2026))
	genres := distinct(func(yield func(string)) {
		for _, m := range movies {
			for _, g := range m.Genres {
				yield(g)
			}
		}
	})
	cuisines := distinct(func(yield func(string)) {
		for _, r := range restaurants {
			for _, c := range r.Cuisines {
				yield(c)
			}
		}
	})
	topics := distinct(func(yield func(string)) {
		for _, a := range articles {
			yield(a.Topic)
		}
	})
	cat := &Catalog{}
	people := make([]persona, Users)
	for u := range people {
		cat.Users = append(cat.Users, fmt.Sprintf("sandbox-u%03d", u+1))
		people[u] = persona{city: cities[rng.IntN(len(cities))].Slug, genres: pick(rng, genres, 2),
			cuisines: pick(rng, cuisines, 2), topics: pick(rng, topics, 2+rng.IntN(2)), price: 1 + rng.IntN(4)}
	}
	cat.people = people
	cat.Tables = []Table{
		movieTable(rng, movies, cat.Users, people),
		restaurantTable(rng, restaurants, cat.Users, people),
		newsTable(rng, articles, cat.Users, people),
	}
	return cat, nil
}

type restaurantIn struct {
	items.Restaurant
	city string
}

type articleIn struct {
	items.Article
	city string
}

func distinct(seq func(yield func(string))) []string {
	var out []string
	seq(func(s string) {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	})
	sort.Strings(out)
	return out
}

func pick(rng *rand.Rand, from []string, n int) []string {
	idx := rng.Perm(len(from))[:min(n, len(from))]
	out := make([]string, len(idx))
	for i, k := range idx {
		out[i] = from[k]
	}
	return out
}

func overlap(a, b []string) int {
	n := 0
	for _, x := range a {
		if slices.Contains(b, x) {
			n++
		}
	}
	return n
}

// choose draws n distinct indexes with probability proportional to weight.
func choose(rng *rand.Rand, weight []float64, n int) []int {
	w := slices.Clone(weight)
	var out []int
	for len(out) < n {
		total := 0.0
		for _, x := range w {
			total += x
		}
		if total <= 0 {
			break
		}
		r := rng.Float64() * total
		for i, x := range w {
			if r -= x; r < 0 || i == len(w)-1 && x > 0 {
				out = append(out, i)
				w[i] = 0
				break
			}
		}
	}
	return out
}

// timestamp spreads a user's interactions over the 180 days before the reference time.
func timestamp(rng *rand.Rand) int64 {
	return reference.Add(-time.Duration(rng.Int64N(int64(180 * 24 * time.Hour)))).Truncate(time.Second).UnixMilli()
}

func stars(x float64) float64 { return min(5, max(1, float64(int(x+0.5)))) }

func movieTable(rng *rand.Rand, movies []items.Movie, users []string, people []persona) Table {
	t := Table{ID: Movies, Attributes: []Attribute{{"title", "string"}, {"genres", "categoryList"}, {"runtime", "int"}, {"rating", "double"}},
		Interaction: Interaction{ID: "rating", Type: "categorical", Min: 1, Max: 5}}
	for _, m := range movies {
		t.Items = append(t.Items, map[string]any{"itemId": m.ID, "title": m.Title, "genres": m.Genres, "runtime": m.Runtime, "rating": m.Rating})
	}
	for u, p := range people {
		weight := make([]float64, len(movies))
		for i, m := range movies {
			weight[i] = 0.3 + 6*float64(overlap(m.Genres, p.genres))
		}
		for _, i := range choose(rng, weight, 4+rng.IntN(4)) {
			m := movies[i]
			v := 2 + 1.2*float64(overlap(m.Genres, p.genres)) + (m.Rating-7)/1.5 + rng.NormFloat64()*0.6
			t.Records = append(t.Records, Record{users[u], m.ID, timestamp(rng), stars(v)})
		}
	}
	return t
}

func restaurantTable(rng *rand.Rand, rs []restaurantIn, users []string, people []persona) Table {
	t := Table{ID: Restaurants, Attributes: []Attribute{{"name", "string"}, {"cuisines", "categoryList"}, {"price", "int"},
		{"rating", "double"}, {"city", "category"}, {"district", "category"}},
		Interaction: Interaction{ID: "rating", Type: "categorical", Min: 1, Max: 5}}
	for _, r := range rs {
		t.Items = append(t.Items, map[string]any{"itemId": r.ID, "name": r.Name, "cuisines": r.Cuisines, "price": r.Price,
			"rating": r.Rating, "city": r.city, "district": r.District})
	}
	for u, p := range people {
		weight := make([]float64, len(rs))
		for i, r := range rs {
			w := 1 + 5*float64(overlap(r.Cuisines, p.cuisines))
			if r.city != p.city {
				w *= 0.05 // mostly their own city, sometimes a trip
			}
			if r.Price > p.price {
				w *= 0.3
			}
			weight[i] = w
		}
		for _, i := range choose(rng, weight, 6+rng.IntN(6)) {
			r := rs[i]
			v := 2.2 + 1.3*float64(overlap(r.Cuisines, p.cuisines)) + (r.Rating-4)*1.2 + rng.NormFloat64()*0.6
			if r.Price > p.price {
				v--
			}
			t.Records = append(t.Records, Record{users[u], r.ID, timestamp(rng), stars(v)})
		}
	}
	return t
}

func newsTable(rng *rand.Rand, as []articleIn, users []string, people []persona) Table {
	t := Table{ID: News, Attributes: []Attribute{{"title", "string"}, {"text", "string"}, {"topic", "category"},
		{"city", "category"}, {"local", "boolean"}, {"source", "category"}},
		Interaction: Interaction{ID: "read", Type: "unary", Min: 1, Max: 1}}
	for _, a := range as {
		t.Items = append(t.Items, map[string]any{"itemId": a.ID, "title": a.Title, "text": a.Text, "topic": a.Topic,
			"city": a.city, "local": a.Local, "source": a.Source.Name})
	}
	for u, p := range people {
		weight := make([]float64, len(as))
		for i, a := range as {
			w := 0.3
			if slices.Contains(p.topics, a.Topic) {
				w = 6
			}
			if a.city != p.city {
				w *= 0.1
			} else if a.Local {
				w *= 2
			}
			weight[i] = w
		}
		for _, i := range choose(rng, weight, 8+rng.IntN(8)) {
			t.Records = append(t.Records, Record{users[u], as[i].ID, timestamp(rng), 1})
		}
	}
	return t
}
