package items

import (
	"math"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/google/uuid"
	"github.com/harkhq/hark/server/apierr"
)

// Paging defaults and limits (DECISIONS §9).
const (
	DefaultRowsPerPage = 10
	MaxRowsPerPage     = 100
)

// Envelope is the answer of every /items/... path.
type Envelope struct {
	Criteria Criteria `json:"criteria"`
	List     []any    `json:"list"`
}

// Criteria echoes what the list was computed for.
type Criteria struct {
	PageCriteria   PageCriteria `json:"pageCriteria"`
	Lat            float64      `json:"lat"`
	Lon            float64      `json:"lon"`
	Type           string       `json:"type"`
	PropertyFilter []string     `json:"propertyFilter"`
}

// PageCriteria: Count is the number of elements in List.
type PageCriteria struct {
	Page        *int    `json:"page"`
	RowsPerPage *int    `json:"rowsPerPage"`
	Count       int     `json:"count"`
	Order       *string `json:"order"`
}

// Common holds the fields every list element has.
type Common struct {
	UUID         string `json:"uuid"`
	Type         string `json:"type"`
	ItemTitle    string `json:"itemTitle"`
	ItemSubTitle string `json:"itemSubTitle"`
	ItemText     string `json:"itemText"`
	DataID       string `json:"dataId"`
}

// common builds the shared fields; the uuid is derived from the dataId so
// the same item keeps its uuid across requests.
func common(typ, dataID, title, subtitle, text string) Common {
	return Common{UUID: uuid.NewSHA1(uuid.NameSpaceURL, []byte("hark:item:"+dataID)).String(), Type: typ,
		ItemTitle: title, ItemSubTitle: subtitle, ItemText: text, DataID: dataID}
}

// PagingFromValues reads page and rowsPerPage from query parameters; an
// absent parameter stays nil (default), a non-integer one is a 400.
func PagingFromValues(v url.Values) (page, rowsPerPage *int, err error) {
	read := func(name string) (*int, error) {
		s := v.Get(name)
		if s == "" {
			return nil, nil
		}
		n, err := strconv.Atoi(s)
		if err != nil {
			return nil, apierr.InvalidArgumentf("%s must be an integer, got %q", name, s)
		}
		return &n, nil
	}
	if page, err = read("page"); err != nil {
		return nil, nil, err
	}
	if rowsPerPage, err = read("rowsPerPage"); err != nil {
		return nil, nil, err
	}
	return page, rowsPerPage, nil
}

func resolvePaging(page, rows *int) (int, int, error) {
	p, r := 1, DefaultRowsPerPage
	if page != nil {
		p = *page
	}
	if rows != nil {
		r = *rows
	}
	if p < 1 {
		return 0, 0, apierr.InvalidArgumentf("page must be 1 or more, got %d", p)
	}
	if r < 1 || r > MaxRowsPerPage {
		return 0, 0, apierr.InvalidArgumentf("rowsPerPage must be between 1 and %d, got %d", MaxRowsPerPage, r)
	}
	return p, r, nil
}

func validatePosition(lat, lon *float64) (float64, float64, error) {
	if lat == nil || lon == nil {
		return 0, 0, apierr.InvalidArgumentf("lat and lon are required (Service-Request-Info)")
	}
	if math.IsNaN(*lat) || *lat < -90 || *lat > 90 {
		return 0, 0, apierr.InvalidArgumentf("lat %v is outside -90..90", *lat)
	}
	if math.IsNaN(*lon) || *lon < -180 || *lon > 180 {
		return 0, 0, apierr.InvalidArgumentf("lon %v is outside -180..180", *lon)
	}
	return *lat, *lon, nil
}

// scored is one candidate of a ranked list.
type scored struct {
	item any
	// build, when set, makes the item on demand: only the page served is
	// built, not every candidate.
	build func() any
	score float64 // higher first
	tie   float64 // higher first when scores are equal
	id    string  // ascending, last resort
}

func rank(list []scored) {
	sort.SliceStable(list, func(i, j int) bool {
		a, b := list[i], list[j]
		if a.score != b.score {
			return a.score > b.score
		}
		if a.tie != b.tie {
			return a.tie > b.tie
		}
		return a.id < b.id
	})
}

// affinity is the strongest profile weight among the item's categories.
func affinity(profile map[string]float64, categories ...string) float64 {
	best := 0.0
	for _, c := range categories {
		if w := profile[c]; w > best {
			best = math.Min(w, 1)
		}
	}
	return best
}

// preference is the package's ordering score (see the package doc).
func preference(aff, distanceKm, decayKm float64) float64 {
	return (1 + 2*aff) * math.Exp(-distanceKm/decayKm)
}

// Decay lengths of the ordering score, per domain.
const (
	decayRestaurant = 3.0
	decayLocal      = 5.0
	decayLeague     = 50.0
	decayTour       = 2000.0
)

func pageOf(all []scored, page, rows int) []any {
	out := []any{}
	start := (page - 1) * rows
	for i := start; i < len(all) && i < start+rows; i++ {
		if all[i].build != nil {
			out = append(out, all[i].build())
		} else {
			out = append(out, all[i].item)
		}
	}
	return out
}

func envelope(lat, lon float64, typ, order string, page, rows int, list []any, filters ...string) Envelope {
	if filters == nil {
		filters = []string{}
	}
	return Envelope{
		Criteria: Criteria{
			PageCriteria:   PageCriteria{Page: &page, RowsPerPage: &rows, Count: len(list), Order: &order},
			Lat:            lat,
			Lon:            lon,
			Type:           typ,
			PropertyFilter: filters,
		},
		List: list,
	}
}

// mediaURL is the address of an icon harkd serves; base is scheme and host,
// a trailing /v2 is accepted.
func mediaURL(base, name string) string {
	base = strings.TrimSuffix(strings.TrimSuffix(base, "/"), "/v2")
	return base + "/v2/media/icons/" + name + ".png"
}
