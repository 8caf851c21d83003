package dialogue

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"time"

	"github.com/harkhq/hark/assets"
)

// city is one of the dataset cities: its zone answers "what time is it in
// London" and its centre is where NAVIGATE goes when asked for the city.
type city struct {
	Name string  `json:"name"`
	Zone string  `json:"zone"`
	Lat  float64 `json:"lat"`
	Lon  float64 `json:"lon"`
	loc  *time.Location
}

func loadCities() ([]city, error) {
	raw, err := fs.ReadFile(assets.Sub("dialogue"), "cities.json")
	if err != nil {
		return nil, fmt.Errorf("dialogue cities: %w", err)
	}
	var cs []city
	if err := json.Unmarshal(raw, &cs); err != nil {
		return nil, fmt.Errorf("dialogue cities: %w", err)
	}
	for i := range cs {
		// A machine without zone data still answers, in the user's zone.
		if loc, err := time.LoadLocation(cs[i].Zone); err == nil {
			cs[i].loc = loc
		}
	}
	return cs, nil
}

func (e *Engine) cityNamed(name string) (city, bool) {
	for _, c := range e.cities {
		if c.Name == name {
			return c, true
		}
	}
	return city{}, false
}
