package items

import (
	"fmt"
	"io/fs"

	"github.com/harkhq/hark/assets"
)

// Sandbox is the curated offline source behind every provider interface.
// It is built once from assets/data/cities/ and is safe for concurrent use:
// everything it returns is computed from immutable seed data, the city and
// the time asked for.
type Sandbox struct {
	cities []*City
	movies movieCatalogue
	news   newsCatalogue
	tours  map[string]*tour
	tv     tvCatalogue
	memos  map[string]*cityMemos
}

// NewSandbox loads the embedded seed data.
func NewSandbox() (*Sandbox, error) { return loadSandbox(assets.Sub("cities")) }

func loadSandbox(fsys fs.FS) (*Sandbox, error) {
	cities, err := loadCities(fsys)
	if err != nil {
		return nil, err
	}
	sb := &Sandbox{cities: cities, memos: map[string]*cityMemos{}}
	for _, c := range cities {
		sb.memos[c.Slug] = &cityMemos{}
	}
	if err := readJSON(fsys, "movies.json", &sb.movies); err != nil {
		return nil, err
	}
	for _, c := range cities {
		if len(sb.movies.Certifications[c.CountryCode]) != 5 {
			return nil, fmt.Errorf("movies.json: no certification scale for %s", c.CountryCode)
		}
	}
	if err := readJSON(fsys, "news.json", &sb.news); err != nil {
		return nil, err
	}
	for _, t := range sb.news.Templates {
		if _, ok := sb.news.TopicIDs[t.Topic]; !ok {
			return nil, fmt.Errorf("news.json: template topic %q has no id", t.Topic)
		}
	}
	if err := readJSON(fsys, "sports.json", &sb.tours); err != nil {
		return nil, err
	}
	for _, sport := range tourSports {
		t := sb.tours[sport]
		if t == nil || len(t.Events) == 0 || len(t.Athletes) < 8 || t.Interval < 1 {
			return nil, fmt.Errorf("sports.json: %s needs events, 8 athletes and an interval", sport)
		}
	}
	if err := readJSON(fsys, "tv.json", &sb.tv); err != nil {
		return nil, err
	}
	for _, c := range cities {
		for _, ch := range c.Channels {
			grid := sb.tv.Grids[ch.Style]
			if len(grid) == 0 {
				return nil, fmt.Errorf("city %s channel %s: unknown grid %q", c.Slug, ch.Name, ch.Style)
			}
			for _, slot := range grid {
				if len(sb.tv.Programmes[slot.Genre]) == 0 {
					return nil, fmt.Errorf("tv.json: no programmes for genre %q", slot.Genre)
				}
			}
		}
	}
	return sb, nil
}

// memosOf returns the caches of city; a City the sandbox did not load
// (a live provider's) gets fresh ones each time, which only costs speed.
func (sb *Sandbox) memosOf(city *City) *cityMemos {
	if m, ok := sb.memos[city.Slug]; ok {
		return m
	}
	return &cityMemos{}
}
