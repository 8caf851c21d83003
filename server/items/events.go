package items

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// Event is something to attend in the city.
type Event struct {
	ID         string
	Title      string
	Category   string // profile key: "music:jazz", "sport:soccer", ...
	Venue      Place
	Start, End time.Time
	Price      string
}

// EventProvider lists a city's events from now on.
type EventProvider interface {
	Events(ctx context.Context, city *City, now time.Time) ([]Event, error)
}

// eventHorizon is how far ahead near events are listed.
const eventHorizon = 14 * 24 * time.Hour

// Events gives every seed event a date in the next fortnight: event i
// happens every 7 to 13 days (its own period) from an offset of its own,
// so the calendar changes from day to day but repeats for the same day.
func (sb *Sandbox) Events(ctx context.Context, city *City, now time.Time) ([]Event, error) {
	today := localMidnight(now, city.Location)
	epochDay := int(today.Unix()/86400) + 3 // days since 1970, shifted so week boundaries fall apart
	var out []Event
	for i, e := range city.EventRows {
		period := 7 + int(seed("period", city.Slug, i)%7)
		offset := int(seed("offset", city.Slug, i) % uint64(period))
		next := (offset - epochDay%period + period) % period // days until the next occurrence
		hm, _ := time.Parse("15:04", e.Start)
		for k := -1; k <= 1; k++ {
			day := today.AddDate(0, 0, next+k*period)
			start := time.Date(day.Year(), day.Month(), day.Day(), hm.Hour(), hm.Minute(), 0, 0, city.Location)
			end := start.Add(time.Duration(e.Minutes) * time.Minute)
			if !end.After(now) || start.Sub(now) > eventHorizon {
				continue
			}
			out = append(out, Event{ID: fmt.Sprintf("%s-e%02d-%s", city.Slug, i+1, start.Format("20060102")), Title: e.Title,
				Category: e.Category, Venue: city.Venues[e.Venue], Start: start, End: end, Price: e.Price})
		}
	}
	return out, nil
}

// EventItem is an element of /items/nearevents. type is the event's
// kind (CONCERT, SPORT, SHOW); criteria.type is EVENT.
type EventItem struct {
	Common
	Title    string  `json:"title"`
	Category string  `json:"category"`
	Venue    string  `json:"venue"`
	Address  string  `json:"address"`
	Lat      float64 `json:"lat"`
	Lon      float64 `json:"lon"`
	Start    string  `json:"start"` // RFC 3339 with the city's offset
	End      string  `json:"end"`
	Price    string  `json:"price"`
	Image    string  `json:"image"`
}

func eventKind(category string) string {
	switch {
	case strings.HasPrefix(category, "music:"):
		return "CONCERT"
	case strings.HasPrefix(category, "sport:"):
		return "SPORT"
	default:
		return "SHOW"
	}
}

func (s *Service) events(ctx context.Context, r *request) ([]scored, error) {
	evs, err := s.cfg.Events.Events(ctx, r.city, r.now)
	if err != nil {
		return nil, fmt.Errorf("events of %s: %w", r.city.Slug, err)
	}
	out := make([]scored, 0, len(evs))
	for _, e := range evs {
		icon := strings.Replace(e.Category, ":", "-", 1)
		item := EventItem{
			Common: common(eventKind(e.Category), e.ID, e.Title, e.Venue.Name,
				fmt.Sprintf("%s · %s · %s", e.Start.Format("Mon 2 Jan 15:04"), e.Venue.Address, e.Price)),
			Title: e.Title, Category: e.Category, Venue: e.Venue.Name, Address: e.Venue.Address, Lat: e.Venue.Lat,
			Lon: e.Venue.Lon, Start: e.Start.Format(time.RFC3339), End: e.End.Format(time.RFC3339), Price: e.Price,
			Image: mediaURL(r.baseURL, icon),
		}
		d := distanceKm(r.lat, r.lon, e.Venue.Lat, e.Venue.Lon)
		out = append(out, scored{item: item, score: preference(affinity(r.profile, e.Category), d, decayLocal),
			tie: -e.Start.Sub(r.now).Hours(), id: e.ID})
	}
	return out, nil
}
