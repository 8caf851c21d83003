package items

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"
)

// Restaurant is a place to eat.
type Restaurant struct {
	ID       string
	Name     string
	Cuisines []string // survey keys: "italian", "seafood", ...
	Price    int      // 1..4
	Address  string
	District string
	Lat, Lon float64
	Rating   float64 // 0..5
	Hours    Hours   // local time of the city
}

// RestaurantProvider lists a city's restaurants.
type RestaurantProvider interface {
	Restaurants(ctx context.Context, city *City) ([]Restaurant, error)
}

// Restaurants places each seed restaurant on one of its district's
// streets, a few hundred metres from the district centre.
func (sb *Sandbox) Restaurants(ctx context.Context, city *City) ([]Restaurant, error) {
	return sb.memosOf(city).restaurants.get("", func() []Restaurant { return sb.buildRestaurants(city) }), nil
}

func (sb *Sandbox) buildRestaurants(city *City) []Restaurant {
	out := make([]Restaurant, len(city.RestaurantRows))
	for i, r := range city.RestaurantRows {
		dist := city.Districts[r.District]
		angle := unit("angle", city.Slug, r.Name) * 2 * math.Pi
		km := 0.15 + 0.55*unit("radius", city.Slug, r.Name)
		lat := dist.Lat + km/111.2*math.Sin(angle)
		lon := dist.Lon + km/(111.2*math.Cos(dist.Lat*math.Pi/180))*math.Cos(angle)
		street := dist.Streets[seed("street", city.Slug, r.Name)%uint64(len(dist.Streets))]
		number := 1 + seed("number", city.Slug, r.Name)%160
		addr := strings.NewReplacer("{number}", fmt.Sprint(number), "{street}", street).Replace(city.AddressFormat)
		out[i] = Restaurant{ID: fmt.Sprintf("%s-r%02d", city.Slug, i+1), Name: r.Name, Cuisines: r.Cuisines, Price: r.Price,
			Address: addr, District: dist.Name, Lat: round(lat, 5), Lon: round(lon, 5), Rating: r.Rating, Hours: city.hours[r.Hours]}
	}
	return out
}

func round(v float64, digits int) float64 {
	p := math.Pow(10, float64(digits))
	return math.Round(v*p) / p
}

// RestaurantItem is an element of /items/restaurants. The contract writes
// itemSubtitle for restaurants and itemSubTitle for every element; both are
// sent, with the same value.
type RestaurantItem struct {
	Common
	ItemSubtitle string   `json:"itemSubtitle"`
	Name         string   `json:"name"`
	URLImage     string   `json:"urlImage"`
	Address      string   `json:"address"`
	Rating       string   `json:"rating"`
	Latitude     string   `json:"latitude"`
	Longitude    string   `json:"longitude"`
	Open         bool     `json:"open"`
	Categories   []string `json:"categories"`
	Price        string   `json:"price"`
	OpeningHours string   `json:"openingHours"` // today's intervals, local time
	Provider     string   `json:"provider"`
}

func restaurantItem(city *City, r Restaurant, now time.Time, baseURL, provider string) RestaurantItem {
	price := strings.Repeat(city.Currency, r.Price)
	open := r.Hours.OpenAt(now, city.Location)
	state := "Closed now"
	if open {
		state = "Open now"
	}
	sub := strings.Join(r.Cuisines, ", ") + " · " + price
	return RestaurantItem{
		Common:       common("RESTAURANT", r.ID, r.Name, sub, fmt.Sprintf("%s · %s · %s", r.Address, r.District, state)),
		ItemSubtitle: sub,
		Name:         r.Name,
		URLImage:     mediaURL(baseURL, "cuisine-"+r.Cuisines[0]),
		Address:      r.Address,
		Rating:       fmt.Sprintf("%.1f", r.Rating),
		Latitude:     fmt.Sprintf("%.5f", r.Lat),
		Longitude:    fmt.Sprintf("%.5f", r.Lon),
		Open:         open,
		Categories:   r.Cuisines,
		Price:        price,
		OpeningHours: r.Hours.Today(now, city.Location),
		Provider:     provider,
	}
}

func (s *Service) restaurants(ctx context.Context, q *request) ([]scored, error) {
	rs, err := s.cfg.Restaurants.Restaurants(ctx, q.city)
	if err != nil {
		return nil, fmt.Errorf("restaurants of %s: %w", q.city.Slug, err)
	}
	out := make([]scored, 0, len(rs))
	for _, r := range rs {
		cats := make([]string, len(r.Cuisines))
		for i, c := range r.Cuisines {
			cats[i] = "cuisine:" + c
		}
		d := distanceKm(q.lat, q.lon, r.Lat, r.Lon)
		out = append(out, scored{build: func() any { return restaurantItem(q.city, r, q.now, q.baseURL, s.providerName) },
			score: preference(affinity(q.profile, cats...), d, decayRestaurant), tie: r.Rating, id: r.ID})
	}
	return out, nil
}
