package dialogue

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"math"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/harkhq/hark/assets"
	"github.com/harkhq/hark/server/geo"
)

// city is one of the dataset cities, read from its file in
// assets/data/cities (the one place the cities are described): its zone
// answers "what time is it in London", its centre is where NAVIGATE goes
// when asked for the city, and its gazetteer holds the places people ask
// directions to.
type city struct {
	Slug  string   `json:"slug"`
	Name  string   `json:"name"`
	Names []string `json:"names"`
	Lat   float64  `json:"lat"`
	Lon   float64  `json:"lon"`
	Zone  string   `json:"timeZone"`
	TV    []struct {
		Name string `json:"name"`
	} `json:"tv"`
	Soccer     league `json:"soccer"`
	Basketball league `json:"basketball"`
	loc        *time.Location
	spots      []spot
}

// league is what the dialogue reads of a city's league: its teams, so a
// recogniser can hear their names (the items package serves the games).
// A league shared with another city names that city instead of listing
// its teams, and that city lists them.
type league struct {
	Teams json.RawMessage `json:"teams"`
}

// teams are the names of the league's teams, none when it lists none.
func (l league) teams() []string {
	var rows [][]any
	if json.Unmarshal(l.Teams, &rows) != nil {
		return nil
	}
	var names []string
	for _, r := range rows {
		if len(r) > 0 {
			if name, ok := r[0].(string); ok {
				names = append(names, name)
			}
		}
	}
	return names
}

// spot is one real place of the gazetteer.
type spot struct {
	Category string   `json:"category"`
	Name     string   `json:"name"`
	Aliases  []string `json:"aliases"`
	Lat      float64  `json:"lat"`
	Lon      float64  `json:"lon"`
	city     string
	forms    []string // folded name and aliases, without articles
}

type gazetteerFile struct {
	Categories []string          `json:"categories"`
	Cities     map[string][]spot `json:"cities"`
}

// loadCities reads every city file (a JSON file with a slug and a time
// zone) and the gazetteer beside them.
func loadCities() ([]city, error) {
	fsys := assets.Sub("cities")
	names, err := fs.Glob(fsys, "*.json")
	if err != nil {
		return nil, fmt.Errorf("dialogue cities: %w", err)
	}
	sort.Strings(names)
	var cs []city
	for _, name := range names {
		if name == "gazetteer.json" {
			continue
		}
		raw, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, fmt.Errorf("dialogue cities: %w", err)
		}
		var c city
		if err := json.Unmarshal(raw, &c); err != nil {
			// The catalogues beside the cities (movies, news ...) are not
			// objects with a slug; a city file always is.
			continue
		}
		if c.Slug == "" || c.Zone == "" {
			continue
		}
		if c.Slug != strings.TrimSuffix(path.Base(name), ".json") {
			return nil, fmt.Errorf("dialogue cities: %s holds slug %q", name, c.Slug)
		}
		// A machine without zone data still answers, in the user's zone.
		if loc, err := time.LoadLocation(c.Zone); err == nil {
			c.loc = loc
		}
		cs = append(cs, c)
	}
	if len(cs) == 0 {
		return nil, fmt.Errorf("dialogue cities: no city file in assets/data/cities")
	}
	raw, err := fs.ReadFile(fsys, "gazetteer.json")
	if err != nil {
		return nil, fmt.Errorf("dialogue gazetteer: %w", err)
	}
	var g gazetteerFile
	if err := json.Unmarshal(raw, &g); err != nil {
		return nil, fmt.Errorf("dialogue gazetteer: %w", err)
	}
	known := map[string]bool{}
	for _, cat := range g.Categories {
		known[cat] = true
	}
	for slug, spots := range g.Cities {
		i := sort.Search(len(cs), func(i int) bool { return cs[i].Slug >= slug })
		if i == len(cs) || cs[i].Slug != slug {
			return nil, fmt.Errorf("dialogue gazetteer: unknown city %q", slug)
		}
		for _, s := range spots {
			if !known[s.Category] || s.Name == "" || s.Lat < -90 || s.Lat > 90 || s.Lon < -180 || s.Lon > 180 {
				return nil, fmt.Errorf("dialogue gazetteer: %s: bad place %+v", slug, s)
			}
			s.city = cs[i].Name
			for _, n := range append([]string{s.Name}, s.Aliases...) {
				if f := placeForm(n); f != "" {
					s.forms = append(s.forms, f)
				}
			}
			cs[i].spots = append(cs[i].spots, s)
		}
	}
	return cs, nil
}

// placeArticles are left out when place names are compared ("the Prado",
// "el Retiro").
var placeArticles = map[string]bool{"the": true, "el": true, "la": true, "los": true, "las": true, "del": true,
	"de": true, "of": true, "a": true, "al": true}

// placeForm is a place name as compared: folded words without articles
// and punctuation.
func placeForm(s string) string {
	var words []string
	for _, t := range tokenize(strings.NewReplacer(",", " ", "(", " ", ")", " ", "/", " ", "'s", "s").Replace(s)) {
		if !placeArticles[t.norm] {
			words = append(words, strings.Trim(t.norm, ".'-"))
		}
	}
	return strings.Join(words, " ")
}

// isChannel reports whether words name a TV channel of a dataset city
// ("La 1", "BBC One").
func (e *Engine) isChannel(words string) bool {
	form := joinNorm(tokenize(words))
	for _, c := range e.cities {
		for _, ch := range c.TV {
			if joinNorm(tokenize(ch.Name)) == form {
				return true
			}
		}
	}
	return false
}

// isChannelName reports whether words are a channel the language file
// names ("la Sexta"), for channels no dataset city lists.
func (m *langModel) isChannelName(words string) bool {
	form := joinNorm(tokenize(words))
	for _, alt := range m.grammar["channel"] {
		if !strings.ContainsAny(alt, "{[(") && fold(alt) == form {
			return true
		}
	}
	return false
}

func (e *Engine) cityNamed(name string) (city, bool) {
	for _, c := range e.cities {
		if c.Name == name {
			return c, true
		}
	}
	return city{}, false
}

// spotNamed finds a gazetteer place whose name or alias is said in words
// (articles aside), nearest to (lat, lon) when several cities have one.
func (e *Engine) spotNamed(words string, lat, lon float64) (spot, bool) {
	form := placeForm(words)
	if form == "" {
		return spot{}, false
	}
	var best spot
	bestKm := -1.0
	for _, c := range e.cities {
		for _, s := range c.spots {
			for _, f := range s.forms {
				if f != form {
					continue
				}
				if km := geo.DistanceKm(lat, lon, s.Lat, s.Lon); bestKm < 0 || km < bestKm {
					best, bestKm = s, km
				}
			}
		}
	}
	return best, bestKm >= 0
}

// nearestSpot is the place of a category nearest to (lat, lon), in any
// city.
func (e *Engine) nearestSpot(category string, lat, lon float64) (spot, float64, bool) {
	var best spot
	bestKm := -1.0
	for _, c := range e.cities {
		for _, s := range c.spots {
			if s.Category != category {
				continue
			}
			if km := geo.DistanceKm(lat, lon, s.Lat, s.Lon); bestKm < 0 || km < bestKm {
				best, bestKm = s, km
			}
		}
	}
	return best, bestKm, bestKm >= 0
}

// citySlotValues gives the city slot its phrases from the city files:
// every name a city goes by, folded, to its canonical name.
func citySlotValues(cs []city) map[string]string {
	out := map[string]string{}
	for _, c := range cs {
		for _, n := range append([]string{c.Name}, c.Names...) {
			if f := joinNorm(tokenize(n)); f != "" {
				out[f] = c.Name
			}
		}
	}
	return out
}

// inCityKm is how far from a city's centre a position is still in it.
const inCityKm = 40

// whereAmI names the city of the gazetteer the shared position is in, or
// the nearest one and how far it is.
func (t *turn) whereAmI() reply {
	if t.req.Lat == nil || t.req.Lon == nil || len(t.e.cities) == 0 {
		return t.reply("where_am_i_unknown", nil)
	}
	var best city
	bestKm := -1.0
	for _, c := range t.e.cities {
		if km := geo.DistanceKm(*t.req.Lat, *t.req.Lon, c.Lat, c.Lon); bestKm < 0 || km < bestKm {
			best, bestKm = c, km
		}
	}
	name := same(t.m.displayName("city", best.Name))
	if bestKm <= inCityKm {
		return t.reply("where_am_i", map[string]phr{"city": name})
	}
	km := strconv.Itoa(int(math.Round(bestKm)))
	return t.reply("where_am_i_far", map[string]phr{"city": name, "km": {km, sayNumber(t.lang, int(math.Round(bestKm)))}})
}
