package items

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"time"
)

// Programme is one broadcast.
type Programme struct {
	ID            string
	Channel       string
	ChannelNumber string
	Title         string
	Genre         string // grid genre: news, drama, sport, ...
	Category      string // profile key: "movie:comedy", "sport:soccer", ...
	Start, End    time.Time
}

// TVProvider lists the programmes of a city's channels for the local day
// of now and the next.
type TVProvider interface {
	Programmes(ctx context.Context, city *City, now time.Time) ([]Programme, error)
}

type tvCatalogue struct {
	// Grids maps a channel style to its daily slots [hour, genre]; hours
	// after a smaller one run past midnight.
	Grids map[string][]tvSlot `json:"grids"`
	// Programmes maps a genre to its shows [title, category].
	Programmes map[string][][2]string `json:"programmes"`
}

type tvSlot struct {
	Hour  int
	Genre string
}

func (s *tvSlot) UnmarshalJSON(b []byte) error {
	var row [2]any
	if err := json.Unmarshal(b, &row); err != nil {
		return err
	}
	h, ok1 := row[0].(float64)
	g, ok2 := row[1].(string)
	if !ok1 || !ok2 || h < 0 || h > 23 {
		return fmt.Errorf("tv slot %s: want [hour 0..23, genre]", b)
	}
	s.Hour, s.Genre = int(h), g
	return nil
}

// Programmes fills each channel's grid with shows of the slot's genre,
// chosen by date, channel and slot.
func (sb *Sandbox) Programmes(ctx context.Context, city *City, now time.Time) ([]Programme, error) {
	today := localMidnight(now, city.Location)
	return sb.memosOf(city).programmes.get(today.Format("2006-01-02"), func() []Programme { return sb.buildProgrammes(city, today) }), nil
}

func (sb *Sandbox) buildProgrammes(city *City, today time.Time) []Programme {
	var out []Programme
	for _, ch := range city.Channels {
		grid := sb.tv.Grids[ch.Style]
		var starts []time.Time
		for d := 0; d < 3; d++ { // yesterday's late slots may still be on air
			day := today.AddDate(0, 0, d-1)
			prev := -1
			for _, slot := range grid {
				at := day
				if slot.Hour < prev {
					at = at.AddDate(0, 0, 1)
				}
				starts = append(starts, time.Date(at.Year(), at.Month(), at.Day(), slot.Hour, 0, 0, 0, city.Location))
				prev = slot.Hour
			}
		}
		for i := 0; i+1 < len(starts); i++ {
			slot := grid[i%len(grid)]
			pool := sb.tv.Programmes[slot.Genre]
			pick := pool[seed("tv", city.Slug, ch.Name, starts[i].Unix())%uint64(len(pool))]
			title := pick[0]
			if slot.Genre == "sport" && strings.HasPrefix(title, "Live Football") {
				title = "Live Football: " + city.Soccer.Name
			}
			out = append(out, Programme{ID: fmt.Sprintf("%s-tv-%s-%d", city.Slug, ch.Number, starts[i].Unix()),
				Channel: ch.Name, ChannelNumber: ch.Number, Title: title, Genre: slot.Genre, Category: pick[1],
				Start: starts[i], End: starts[i+1]})
		}
	}
	return out
}

// TVItem is an element of /items/tv.
type TVItem struct {
	Common
	Channel       string `json:"channel"`
	ChannelNumber string `json:"channelNumber"`
	Title         string `json:"title"`
	Genre         string `json:"genre"`
	Category      string `json:"category"`
	Start         string `json:"start"` // RFC 3339 with the city's offset
	End           string `json:"end"`
	OnNow         bool   `json:"onNow"`
	Image         string `json:"image"`
}

// tvWindow is how far ahead /items/tv looks.
const tvWindow = 6 * time.Hour

// tv lists what is on now and in the next six hours, ordered by
// (1 + 2·affinity) · exp(−h / 3), h the hours until the programme starts
// (0 when it is on now).
func (s *Service) tv(ctx context.Context, r *request) ([]scored, error) {
	ps, err := s.cfg.TV.Programmes(ctx, r.city, r.now)
	if err != nil {
		return nil, fmt.Errorf("tv of %s: %w", r.city.Slug, err)
	}
	var out []scored
	for _, p := range ps {
		if !p.End.After(r.now) || p.Start.Sub(r.now) > tvWindow {
			continue
		}
		onNow := !p.Start.After(r.now)
		h := math.Max(0, p.Start.Sub(r.now).Hours())
		state := p.Start.Format("15:04") + "-" + p.End.Format("15:04")
		if onNow {
			state = "On now, until " + p.End.Format("15:04")
		}
		item := TVItem{
			Common:  common("TV", p.ID, p.Title, p.Channel+" ("+p.ChannelNumber+")", state),
			Channel: p.Channel, ChannelNumber: p.ChannelNumber, Title: p.Title, Genre: p.Genre, Category: p.Category,
			Start: p.Start.Format(time.RFC3339), End: p.End.Format(time.RFC3339), OnNow: onNow,
			Image: mediaURL(r.baseURL, strings.Replace(p.Category, ":", "-", 1)),
		}
		out = append(out, scored{item: item, score: (1 + 2*affinity(r.profile, p.Category)) * math.Exp(-h/3),
			tie: -h, id: p.ID})
	}
	return out, nil
}
