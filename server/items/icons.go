package items

import (
	"sync"

	"github.com/harkhq/hark/server/items/pictogram"
)

// itemIcons are the icons only items use (weather states and clothing);
// survey-category icons (cuisine-italian, movie-comedy, news-technology,
// music-jazz, sport-soccer) are served by surveys.Icon.
var itemIcons = map[string][2]string{
	"weather-sun": {"sun", "#f59e0b"}, "weather-partly": {"partly", "#0ea5e9"}, "weather-cloud": {"cloud", "#64748b"},
	"weather-rain": {"rain", "#2563eb"}, "weather-storm": {"storm", "#7c3aed"}, "weather-snow": {"snow", "#0891b2"},
	"weather-fog": {"fog", "#94a3b8"}, "weather-moon": {"moon", "#4338ca"},
	"clothes-tshirt": {"tshirt", "#ea580c"}, "clothes-sweater": {"sweater", "#b45309"},
	"clothes-coat": {"coat", "#1e3a8a"}, "clothes-umbrella": {"umbrella", "#be123c"},
}

var drawnIcons = sync.OnceValues(func() (map[string][]byte, error) {
	out := make(map[string][]byte, len(itemIcons))
	for name, spec := range itemIcons {
		png, err := pictogram.Draw(spec[0], spec[1])
		if err != nil {
			return nil, err
		}
		out[name] = png
	}
	return out, nil
})

// Icon returns the PNG of a weather or clothing icon named name (without
// ".png"), as served at <baseURL>/v2/media/icons/<name>.png.
func Icon(name string) ([]byte, bool) {
	all, err := drawnIcons()
	if err != nil {
		return nil, false
	}
	b, ok := all[name]
	return b, ok
}
