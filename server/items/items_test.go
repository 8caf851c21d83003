package items

import (
	"context"
	"encoding/json"
	"math"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/harkhq/hark/server/apierr"
	"github.com/harkhq/hark/server/surveys"
)

var testService *Service

func service(t testing.TB) *Service {
	t.Helper()
	if testService == nil {
		s, err := New(Config{})
		if err != nil {
			t.Fatal(err)
		}
		testService = s
	}
	return testService
}

func ptr[T any](v T) *T { return &v }

// Centres of the five cities, as a client in each would send them.
var centres = map[string][2]float64{
	"san-francisco": {37.7749, -122.4194},
	"new-york":      {40.7128, -74.0060},
	"madrid":        {40.4168, -3.7038},
	"london":        {51.5074, -0.1278},
	"singapore":     {1.3521, 103.8198},
}

// saturday is 2020-02-15 19:30 UTC, inside the February 2020 of the datasets.
var saturday = time.Date(2020, 2, 15, 19, 30, 0, 0, time.UTC)

func query(city, path string) Query {
	c := centres[city]
	return Query{Path: path, Lat: ptr(c[0]), Lon: ptr(c[1]), Now: saturday, BaseURL: "http://harkd:8080", Metric: true, UserID: 1}
}

func list(t *testing.T, q Query) Envelope {
	t.Helper()
	env, err := service(t).List(context.Background(), q)
	if err != nil {
		t.Fatalf("%s: %v", q.Path, err)
	}
	return env
}

// asMaps round-trips the list through JSON, as a client sees it.
func asMaps(t *testing.T, env Envelope) []map[string]any {
	t.Helper()
	b, err := json.Marshal(env)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		List []map[string]any `json:"list"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	return doc.List
}

func wantError(t *testing.T, err error, status int, code string) {
	t.Helper()
	e, ok := apierr.As(err)
	if !ok || e.Status != status || e.Code != code {
		t.Fatalf("error %v, want %d %s", err, status, code)
	}
}

func TestEnvelopeJSON(t *testing.T) {
	env := list(t, query("madrid", "restaurants"))
	b, _ := json.Marshal(env)
	var doc map[string]any
	json.Unmarshal(b, &doc)
	crit := doc["criteria"].(map[string]any)
	pc := crit["pageCriteria"].(map[string]any)
	for _, k := range []string{"page", "rowsPerPage", "count", "order"} {
		if _, ok := pc[k]; !ok {
			t.Errorf("pageCriteria lacks %s: %s", k, b[:200])
		}
	}
	for _, k := range []string{"lat", "lon", "type", "propertyFilter"} {
		if _, ok := crit[k]; !ok {
			t.Errorf("criteria lacks %s", k)
		}
	}
	if crit["type"] != "RESTAURANT" || pc["page"] != 1.0 || pc["rowsPerPage"] != 10.0 || pc["count"] != 10.0 {
		t.Errorf("criteria %v", crit)
	}
	if crit["lat"] != 40.4168 || crit["lon"] != -3.7038 {
		t.Errorf("lat/lon not echoed: %v %v", crit["lat"], crit["lon"])
	}
	if _, ok := crit["propertyFilter"].([]any); !ok {
		t.Errorf("propertyFilter is not a list: %v", crit["propertyFilter"])
	}
	item := asMaps(t, env)[0]
	for _, k := range []string{"uuid", "type", "itemTitle", "itemSubTitle", "itemSubtitle", "itemText", "dataId",
		"name", "urlImage", "address", "rating", "latitude", "longitude", "open", "categories", "price"} {
		if _, ok := item[k]; !ok {
			t.Errorf("restaurant lacks %s", k)
		}
	}
	for _, k := range []string{"rating", "latitude", "longitude"} {
		if _, ok := item[k].(string); !ok {
			t.Errorf("restaurant %s is not a string: %T", k, item[k])
		}
	}
	if _, ok := item["open"].(bool); !ok {
		t.Error("open is not a boolean")
	}
}

func TestPaging(t *testing.T) {
	q := query("london", "restaurants")
	q.RowsPerPage = ptr(7)
	seen := map[string]bool{}
	total := 0
	for page := 1; page <= 10; page++ {
		q.Page = ptr(page)
		env := list(t, q)
		if *env.Criteria.PageCriteria.Page != page || *env.Criteria.PageCriteria.RowsPerPage != 7 {
			t.Fatalf("criteria %+v", env.Criteria.PageCriteria)
		}
		if env.Criteria.PageCriteria.Count != len(env.List) || len(env.List) > 7 {
			t.Fatalf("page %d: count %d, %d elements", page, env.Criteria.PageCriteria.Count, len(env.List))
		}
		if len(env.List) == 0 {
			break
		}
		for _, it := range env.List {
			id := it.(RestaurantItem).DataID
			if seen[id] {
				t.Fatalf("%s on two pages", id)
			}
			seen[id] = true
		}
		total += len(env.List)
	}
	if total != 26 {
		t.Fatalf("paged through %d restaurants, London has 26", total)
	}
	// Past the end: an empty list, not an error; a JSON array, not null.
	q.Page = ptr(99)
	env := list(t, q)
	if b, _ := json.Marshal(env); !strings.Contains(string(b), `"list":[]`) {
		t.Fatalf("empty page JSON %s", b)
	}
	// The maximum is accepted.
	q.Page, q.RowsPerPage = nil, ptr(100)
	if env := list(t, q); len(env.List) != 26 {
		t.Fatalf("rowsPerPage 100 gave %d", len(env.List))
	}
}

// expectations of every path: criteria.type and the element types allowed.
var pathTypes = map[string][]string{
	"movies":                  {"MOVIE"},
	"restaurants":             {"RESTAURANT"},
	"news":                    {"NEWS"},
	"news/more":               {"NEWS"},
	"news/personal":           {"NEWS"},
	"news/personal/more":      {"NEWS"},
	"news/local":              {"NEWS"},
	"news/local/more":         {"NEWS"},
	"news/popular":            {"NEWS"},
	"news/popular/more":       {"NEWS"},
	"news/category/2091":      {"NEWS"},
	"news/category/2091/more": {"NEWS"},
	"news/categories":         {"NEWS_CATEGORY"},
	"weather":                 {"WEATHER"},
	"breakdowns":              {"BREAKDOWN"},
	"sport/match":             {"SPORT_MATCH", "SOCCER", "BASKETBALL"},
	"sport/soccer/ranking":    {"SOCCER_RANKING"},
	"motor":                   {"MOTOR"},
	"golf":                    {"GOLF"},
	"tennis":                  {"TENNIS"},
	"biking":                  {"BIKING"},
	"nearevents":              {"EVENT", "CONCERT", "SPORT", "SHOW"},
	"tv":                      {"TV"},
}

func TestEveryPathInEveryCity(t *testing.T) {
	if len(Paths()) != len(pathTypes) {
		t.Fatalf("Paths() has %d entries, the test knows %d", len(Paths()), len(pathTypes))
	}
	for city := range centres {
		for _, p := range Paths() {
			env := list(t, query(city, p))
			want := pathTypes[p]
			if env.Criteria.Type != want[0] {
				t.Errorf("%s %s: criteria.type %s", city, p, env.Criteria.Type)
			}
			if len(env.List) == 0 {
				t.Errorf("%s %s: empty list", city, p)
				continue
			}
			if !reflect.DeepEqual(env.Criteria.PropertyFilter[0], "city="+city) {
				t.Errorf("%s %s: nearest city %v", city, p, env.Criteria.PropertyFilter)
			}
			for _, m := range asMaps(t, env) {
				if p == "news/categories" {
					if m["name"] == "" || m["id"] == nil {
						t.Errorf("category %v", m)
					}
					continue
				}
				for _, k := range []string{"uuid", "type", "itemTitle", "dataId"} {
					if s, _ := m[k].(string); s == "" {
						t.Errorf("%s %s: element without %s: %v", city, p, k, m)
					}
				}
				if typ := m["type"].(string); !contains(want, typ) {
					t.Errorf("%s %s: element type %s", city, p, typ)
				}
			}
		}
	}
}

func TestItemsAreBelievable(t *testing.T) {
	for city, c := range centres {
		rows := func(path string) []map[string]any {
			q := query(city, path)
			q.RowsPerPage = ptr(100)
			return asMaps(t, list(t, q))
		}
		rs := rows("restaurants")
		if len(rs) < 20 {
			t.Errorf("%s: %d restaurants", city, len(rs))
		}
		for _, r := range rs {
			lat, _ := stringFloat(r["latitude"])
			lon, _ := stringFloat(r["longitude"])
			if d := distanceKm(c[0], c[1], lat, lon); d > 15 {
				t.Errorf("%s: %s is %.1f km from the centre", city, r["name"], d)
			}
		}
		ms := rows("movies")
		films := map[any]bool{}
		for _, m := range ms {
			films[m["movie"].(map[string]any)["title"]] = true
			th := m["theater"].(map[string]any)
			if d := distanceKm(c[0], c[1], th["lat"].(float64), th["lon"].(float64)); d > 15 {
				t.Errorf("%s: theatre %s is %.1f km away", city, th["name"], d)
			}
			if !strings.Contains(th["schedule"].(string), ":") {
				t.Errorf("%s: schedule %q", city, th["schedule"])
			}
		}
		if len(films) < 10 || len(ms) < 25 {
			t.Errorf("%s: %d films in %d showings", city, len(films), len(ms))
		}
		if ns := rows("news/popular"); len(ns) < 30 {
			t.Errorf("%s: %d news", city, len(ns))
		}
	}
}

func stringFloat(v any) (float64, error) {
	var f float64
	err := json.Unmarshal([]byte(v.(string)), &f)
	return f, err
}

func TestBadInput(t *testing.T) {
	s := service(t)
	ctx := context.Background()
	base := query("madrid", "restaurants")
	cases := []struct {
		name   string
		edit   func(q *Query)
		status int
		code   string
	}{
		{"missing lat", func(q *Query) { q.Lat = nil }, 400, apierr.InvalidArgument},
		{"missing lon", func(q *Query) { q.Lon = nil }, 400, apierr.InvalidArgument},
		{"lat 90.5", func(q *Query) { q.Lat = ptr(90.5) }, 400, apierr.InvalidArgument},
		{"lat -91", func(q *Query) { q.Lat = ptr(-91.0) }, 400, apierr.InvalidArgument},
		{"lon 180.1", func(q *Query) { q.Lon = ptr(180.1) }, 400, apierr.InvalidArgument},
		{"lat NaN", func(q *Query) { q.Lat = ptr(math.NaN()) }, 400, apierr.InvalidArgument},
		{"lon +Inf", func(q *Query) { q.Lon = ptr(math.Inf(1)) }, 400, apierr.InvalidArgument},
		{"rowsPerPage 101", func(q *Query) { q.RowsPerPage = ptr(101) }, 400, apierr.InvalidArgument},
		{"rowsPerPage 0", func(q *Query) { q.RowsPerPage = ptr(0) }, 400, apierr.InvalidArgument},
		{"page 0", func(q *Query) { q.Page = ptr(0) }, 400, apierr.InvalidArgument},
		{"page -3", func(q *Query) { q.Page = ptr(-3) }, 400, apierr.InvalidArgument},
		{"news rowsPerPage 101", func(q *Query) { q.Path = "news"; q.RowsPerPage = ptr(101) }, 400, apierr.InvalidArgument},
		{"news missing lat", func(q *Query) { q.Path = "news/more"; q.Lat = nil }, 400, apierr.InvalidArgument},
		{"unknown path", func(q *Query) { q.Path = "pets" }, 404, apierr.EntityNotFound},
		{"unknown subpath", func(q *Query) { q.Path = "movies/42" }, 404, apierr.EntityNotFound},
		{"unknown news category", func(q *Query) { q.Path = "news/category/9999" }, 404, apierr.EntityNotFound},
		{"non-numeric news category", func(q *Query) { q.Path = "news/category/abc" }, 404, apierr.EntityNotFound},
		{"unknown category more", func(q *Query) { q.Path = "news/category/1/more" }, 404, apierr.EntityNotFound},
		{"categories more", func(q *Query) { q.Path = "news/categories/more" }, 404, apierr.EntityNotFound},
		{"newsy", func(q *Query) { q.Path = "newsy" }, 404, apierr.EntityNotFound},
		{"news more more", func(q *Query) { q.Path = "news/more/more" }, 404, apierr.EntityNotFound},
	}
	for _, c := range cases {
		q := base
		c.edit(&q)
		_, err := s.List(ctx, q)
		e, ok := apierr.As(err)
		if !ok || e.Status != c.status || e.Code != c.code {
			t.Errorf("%s: %v, want %d %s", c.name, err, c.status, c.code)
		}
	}
	// Edges that are valid.
	for _, edit := range []func(q *Query){
		func(q *Query) { q.Lat, q.Lon = ptr(90.0), ptr(-180.0) },
		func(q *Query) { q.Path = "/restaurants/" },
		func(q *Query) { q.Path = "news/personal/" },
	} {
		q := base
		edit(&q)
		if _, err := s.List(ctx, q); err != nil {
			t.Errorf("%+v: %v", q.Path, err)
		}
	}
}

func TestPagingFromValues(t *testing.T) {
	p, r, err := PagingFromValues(url.Values{"page": {"3"}, "rowsPerPage": {"25"}})
	if err != nil || *p != 3 || *r != 25 {
		t.Fatalf("%v %v %v", p, r, err)
	}
	p, r, err = PagingFromValues(url.Values{})
	if err != nil || p != nil || r != nil {
		t.Fatal("absent parameters must stay nil")
	}
	for _, v := range []url.Values{{"page": {"x"}}, {"rowsPerPage": {"1e3"}}, {"page": {"99999999999999999999"}}} {
		_, _, err := PagingFromValues(v)
		wantError(t, err, http.StatusBadRequest, apierr.InvalidArgument)
	}
}

func TestCityNearAndByName(t *testing.T) {
	s := service(t)
	for slug, c := range centres {
		if got := s.CityNear(c[0]+0.05, c[1]-0.05).Slug; got != slug {
			t.Errorf("near %s: %s", slug, got)
		}
	}
	if got := s.CityNear(48.85, 2.35).Slug; got != "london" { // Paris is nearest to London
		t.Errorf("Paris maps to %s", got)
	}
	for name, slug := range map[string]string{"London": "london", "Londres": "london", "nueva york": "new-york",
		"NUEVA-YORK": "new-york", "NYC": "new-york", "Singapur": "singapore", "san francisco": "san-francisco",
		"Madrid": "madrid", "madrid españa": "madrid"} {
		c, ok := s.CityByName(name)
		if !ok || c.Slug != slug {
			t.Errorf("CityByName(%q) = %v %v", name, c, ok)
		}
	}
	for _, name := range []string{"", "Paris", "   ", "Lon"} {
		if c, ok := s.CityByName(name); ok {
			t.Errorf("CityByName(%q) = %s", name, c.Slug)
		}
	}
}

func restaurantNamed(t *testing.T, city, name string, now time.Time) RestaurantItem {
	t.Helper()
	q := query(city, "restaurants")
	q.Now, q.RowsPerPage = now, ptr(100)
	for _, it := range list(t, q).List {
		if r := it.(RestaurantItem); r.Name == name {
			return r
		}
	}
	t.Fatalf("no %s in %s", name, city)
	return RestaurantItem{}
}

// The open flag reads opening hours in the city's zone, not the server's
// or UTC: each instant below is chosen so the two readings disagree.
func TestOpenFlagAcrossTimeZones(t *testing.T) {
	cases := []struct {
		city, name string
		at         time.Time
		open       bool
		why        string
	}{
		// Green Fork Kitchen: Sa-Su 08:00-16:00 in San Francisco.
		{"san-francisco", "Green Fork Kitchen", time.Date(2020, 2, 15, 17, 0, 0, 0, time.UTC), true, "09:00 PST Saturday"},
		{"san-francisco", "Green Fork Kitchen", time.Date(2020, 2, 15, 10, 0, 0, 0, time.UTC), false, "02:00 PST Saturday"},
		// Newton Satay Street: Mo-Su 17:00-03:00 in Singapore.
		{"singapore", "Newton Satay Street", time.Date(2020, 2, 15, 20, 0, 0, 0, time.UTC), false, "04:00 SGT Sunday"},
		{"singapore", "Newton Satay Street", time.Date(2020, 2, 15, 18, 30, 0, 0, time.UTC), true, "02:30 SGT Sunday, Saturday's late shift"},
		{"singapore", "Newton Satay Street", time.Date(2020, 2, 15, 5, 0, 0, 0, time.UTC), false, "13:00 SGT Saturday"},
		// Casa Lucía: Mo-Su 13:30-16:30, 20:30-00:00 in Madrid (CET, UTC+1).
		{"madrid", "Casa Lucía", time.Date(2020, 2, 15, 13, 0, 0, 0, time.UTC), true, "14:00 CET"},
		{"madrid", "Casa Lucía", time.Date(2020, 2, 15, 19, 45, 0, 0, time.UTC), true, "20:45 CET"},
		{"madrid", "Casa Lucía", time.Date(2020, 2, 15, 23, 15, 0, 0, time.UTC), false, "00:15 CET"},
		// Madrid in summer is UTC+2: 14:45 UTC is 16:45 CEST, closed.
		{"madrid", "Casa Lucía", time.Date(2020, 6, 20, 14, 45, 0, 0, time.UTC), false, "16:45 CEST"},
		// Dinner at Ledbury Place, London, Tu-Sa 17:30-23:00; 22:30 BST in June is 21:30 UTC.
		{"london", "Ledbury Place", time.Date(2020, 6, 20, 21, 30, 0, 0, time.UTC), true, "22:30 BST Saturday"},
		{"london", "Ledbury Place", time.Date(2020, 6, 21, 21, 30, 0, 0, time.UTC), false, "Sunday"},
		// Joe's Corner Slice, New York: Fr-Sa 12:00-03:00; 07:30 UTC Sunday is 02:30 EST.
		{"new-york", "Joe's Corner Slice", time.Date(2020, 2, 16, 7, 30, 0, 0, time.UTC), true, "02:30 EST Sunday"},
		{"new-york", "Joe's Corner Slice", time.Date(2020, 2, 16, 8, 30, 0, 0, time.UTC), false, "03:30 EST Sunday"},
	}
	for _, c := range cases {
		if got := restaurantNamed(t, c.city, c.name, c.at).Open; got != c.open {
			t.Errorf("%s at %s (%s): open %v, want %v", c.name, c.at.Format(time.RFC3339), c.why, got, c.open)
		}
	}
	// The dialogue accessor agrees.
	s := service(t)
	sg, _ := s.CityByName("Singapore")
	open, err := s.OpenRestaurants(context.Background(), sg, time.Date(2020, 2, 15, 18, 30, 0, 0, time.UTC), "")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range open {
		names = append(names, r.Name)
		if !r.Hours.OpenAt(time.Date(2020, 2, 15, 18, 30, 0, 0, time.UTC), sg.Location) {
			t.Errorf("%s listed open but is closed", r.Name)
		}
	}
	if !contains(names, "Newton Satay Street") || len(names) >= 26 {
		t.Errorf("open at 02:30 SGT: %v", names)
	}
}

func TestProfileChangesOrder(t *testing.T) {
	first := func(path string, profile map[string]float64) map[string]any {
		q := query("madrid", path)
		q.Profile = profile
		return asMaps(t, list(t, q))[0]
	}
	plain := first("restaurants", nil)
	liked := first("restaurants", map[string]float64{"cuisine:japanese": 1})
	if plain["dataId"] == liked["dataId"] {
		t.Fatal("a profile did not change the restaurant order")
	}
	if !contains(anyStrings(liked["categories"]), "japanese") {
		t.Errorf("first restaurant for a Japanese fan: %v", liked["name"])
	}
	// Without a profile, the nearest restaurants come first.
	q := query("madrid", "restaurants")
	var last float64
	for i, m := range asMaps(t, list(t, q)) {
		lat, _ := stringFloat(m["latitude"])
		lon, _ := stringFloat(m["longitude"])
		d := distanceKm(40.4168, -3.7038, lat, lon)
		if i > 0 && d < last-1e-9 {
			t.Fatalf("restaurant %d is nearer than %d with an empty profile", i, i-1)
		}
		last = d
	}
	// Movies and events follow the profile too.
	if m := first("movies", map[string]float64{"movie:documentary": 1}); !contains(anyStrings(m["movie"].(map[string]any)["genres"]), "documentary") {
		t.Errorf("first movie for a documentary fan: %v", m["movie"])
	}
	if e := first("nearevents", map[string]float64{"music:jazz": 1}); e["category"] != "music:jazz" {
		t.Errorf("first event for a jazz fan: %v", e["title"])
	}
	// News: a science fan sees science earlier than someone with no interests.
	pos := func(profile map[string]float64) int {
		q := query("madrid", "news")
		q.Profile, q.RowsPerPage = profile, ptr(100)
		for i, m := range asMaps(t, list(t, q)) {
			if contains(anyStrings(m["tags"]), "science") {
				return i
			}
		}
		return -1
	}
	if a, b := pos(nil), pos(map[string]float64{"news:science": 1}); b < 0 || b >= a {
		t.Errorf("first science story at %d without profile, %d with", a, b)
	}
}

func anyStrings(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}

func TestNewsSessions(t *testing.T) {
	s, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	ids := func(env Envelope) []string {
		var out []string
		for _, it := range env.List {
			out = append(out, it.(NewsItem).DataID)
		}
		return out
	}
	get := func(path string, user int64, rows *int) Envelope {
		q := query("london", path)
		q.UserID, q.RowsPerPage = user, rows
		env, err := s.List(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		return env
	}
	full := ids(get("news", 1, ptr(100)))
	if len(full) < 30 {
		t.Fatalf("%d news", len(full))
	}
	// A new session of 5 per page, then /more walks it.
	got := ids(get("news", 1, ptr(5)))
	for page := 2; page <= 4; page++ {
		env := get("news/more", 1, ptr(50)) // paging parameters are ignored on /more
		if *env.Criteria.PageCriteria.Page != page || *env.Criteria.PageCriteria.RowsPerPage != 5 {
			t.Fatalf("more: criteria %+v", env.Criteria.PageCriteria)
		}
		got = append(got, ids(env)...)
	}
	if !reflect.DeepEqual(got, full[:20]) {
		t.Fatalf("sessions pages %v, ranking %v", got, full[:20])
	}
	// /more of the same category under another spelling continues it.
	if env := get("news/category/2090/more", 1, nil); *env.Criteria.PageCriteria.Page != 5 || ids(env)[0] != full[20] {
		t.Fatalf("category/2090/more: page %d", *env.Criteria.PageCriteria.Page)
	}
	// Another user has no session: /more starts at page 1 with the default size.
	if env := get("news/more", 2, nil); *env.Criteria.PageCriteria.Page != 1 || len(env.List) != 10 {
		t.Fatalf("fresh user more: %+v", env.Criteria.PageCriteria)
	}
	// A different category's /more starts that category's session; the
	// user's personal session is replaced.
	local := get("news/local/more", 1, nil)
	if *local.Criteria.PageCriteria.Page != 1 || local.Criteria.PropertyFilter[1] != "category=2091" {
		t.Fatalf("local more %+v", local.Criteria)
	}
	if env := get("news/local/more", 1, nil); *env.Criteria.PageCriteria.Page != 2 {
		t.Fatalf("second local more: page %d", *env.Criteria.PageCriteria.Page)
	}
	// Any news path without /more starts again.
	get("news/local", 1, ptr(3))
	if env := get("news/local/more", 1, nil); *env.Criteria.PageCriteria.Page != 2 || len(env.List) > 3 {
		t.Fatalf("restarted local more: %+v", env.Criteria.PageCriteria)
	}
	// Past the end: empty pages, never an error.
	for i := 0; i < 20; i++ {
		get("news/local/more", 1, nil)
	}
	if env := get("news/local/more", 1, nil); len(env.List) != 0 {
		t.Fatalf("exhausted session returned %d", len(env.List))
	}
	// Local news are local stories of the nearest city only.
	for _, it := range get("news/local", 3, ptr(100)).List {
		if n := it.(NewsItem); !contains(n.Tags, "london") || len(n.Tags) < 3 {
			t.Errorf("local story tags %v", n.Tags)
		}
	}
}

func TestNewsCategories(t *testing.T) {
	q := query("singapore", "news/categories")
	env := list(t, q)
	if len(env.List) != 3 {
		t.Fatalf("no interests: %d categories", len(env.List))
	}
	for i, id := range []int{2090, 2091, 2092} {
		if c := env.List[i].(NewsCategory); c.ID != id {
			t.Errorf("category %d is %+v", i, c)
		}
	}
	q.Profile = map[string]float64{"news:technology": 0.5, "news:health": 1, "music:jazz": 1}
	env = list(t, q)
	if len(env.List) != 5 || env.List[3].(NewsCategory).Name != "Health" || env.List[4].(NewsCategory).Name != "Technology" {
		t.Fatalf("categories %+v", env.List)
	}
	id := env.List[4].(NewsCategory).ID
	q2 := query("singapore", "news/category/"+itoa(id))
	q2.RowsPerPage = ptr(100)
	tech := list(t, q2)
	if len(tech.List) == 0 {
		t.Fatal("no technology news")
	}
	for _, it := range tech.List {
		if n := it.(NewsItem); n.Topics[0] != "Technology" || n.NewsSource.Topics[0].IDTopic != id {
			t.Errorf("technology category holds %v", n.Topics)
		}
	}
	// Popular is ordered by reads, personal by preference: different orders.
	pop := list(t, query("singapore", "news/popular"))
	per := list(t, query("singapore", "news/personal"))
	if pop.List[0].(NewsItem).DataID == per.List[0].(NewsItem).DataID && pop.List[1].(NewsItem).DataID == per.List[1].(NewsItem).DataID {
		t.Error("popular and personal orders are the same")
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func TestWeather(t *testing.T) {
	s := service(t)
	metric := list(t, query("new-york", "weather")).List[0].(WeatherItem)
	qi := query("new-york", "weather")
	qi.Metric = false
	imperial := list(t, qi).List[0].(WeatherItem)
	if metric.Metric != 1 || imperial.Metric != 0 {
		t.Fatalf("metric flags %d %d", metric.Metric, imperial.Metric)
	}
	if metric.Current.TempUnit != "°C" || imperial.Current.TempUnit != "°F" || imperial.Current.WindSpeedUnit != "mph" ||
		metric.Current.WindSpeedUnit != "km/h" || imperial.Current.RainUnit != "in" || metric.Current.RainUnit != "mm" {
		t.Fatalf("units %+v / %+v", metric.Current, imperial.Current)
	}
	if f := metric.Current.TempCurrent*9/5 + 32; math.Abs(f-imperial.Current.TempCurrent) > 0.11 {
		t.Errorf("%.1f °C is not %.1f °F", metric.Current.TempCurrent, imperial.Current.TempCurrent)
	}
	if mph := metric.Current.WindSpeed / 1.609344; math.Abs(mph-imperial.Current.WindSpeed) > 0.11 {
		t.Errorf("%.1f km/h is not %.1f mph", metric.Current.WindSpeed, imperial.Current.WindSpeed)
	}
	if len(metric.ByHour) != 24 || len(metric.ByDay) != 7 || len(metric.MoonPhases) != 4 {
		t.Fatalf("%d hours, %d days, %d moon phases", len(metric.ByHour), len(metric.ByDay), len(metric.MoonPhases))
	}
	// 19:30 UTC is 14:30 EST on Saturday.
	if metric.Current.Hour != "14:30" || metric.ByHour[0].Hour != "14:00" || metric.ByDay[0].WeekDay != "Saturday" ||
		metric.ByDay[1].WeekDay3C != "Sun" || metric.Current.Date != "2020-02-15" {
		t.Errorf("local time: %s %s %s", metric.Current.Hour, metric.ByHour[0].Hour, metric.ByDay[0].WeekDay)
	}
	for _, d := range metric.ByDay {
		if d.TempMax < d.TempMin || d.TempMaxNegative != (d.TempMax < 0) || d.TempMinPlural == (d.TempMin == 1 || d.TempMin == -1) {
			t.Errorf("day %+v", d)
		}
	}
	// Sunrise and sunset for New York on 2020-02-15 (06:50:34 and 17:30:20
	// by the NOAA algorithm; the almanac lists 06:50 and 17:30).
	if metric.SolarInfo.SunRise != "06:51" || metric.SolarInfo.SunSet != "17:30" {
		t.Errorf("solar info %+v", metric.SolarInfo)
	}
	// The next principal phase after 2020-02-15 is the last quarter that
	// evening (22:17 UTC, 17:17 in New York), then the new moon of the 23rd.
	if p := metric.MoonPhases[0]; p.Value != "LAST_QUARTER" || p.Date != "2020-02-15" {
		t.Errorf("moon %+v", p)
	}
	if p := metric.MoonPhases[1]; p.Value != "NEW_MOON" || p.Date != "2020-02-23" {
		t.Errorf("moon %+v", p)
	}
	// Same day, same weather; the simulated month follows the normals.
	again := list(t, query("new-york", "weather")).List[0].(WeatherItem)
	if !reflect.DeepEqual(metric, again) {
		t.Error("weather is not deterministic")
	}
	for slug := range centres {
		city, _ := s.CityByName(slug)
		var sumMax float64
		wet := 0
		for d := 1; d <= 29; d++ {
			f, err := s.WeatherOn(context.Background(), city, time.Date(2020, 2, d, 12, 0, 0, 0, city.Location))
			if err != nil {
				t.Fatal(err)
			}
			sumMax += f.Day.TMax
			if f.Day.Condition.wet() {
				wet++
			}
		}
		if mean, normal := sumMax/29, city.Climate[1].TMax; math.Abs(mean-normal) > 2.5 {
			t.Errorf("%s: February mean max %.1f, normal %.1f", slug, mean, normal)
		}
		if want := city.Climate[1].RainDays; math.Abs(float64(wet)-want) > 7 {
			t.Errorf("%s: %d wet days in February, normal %.0f", slug, wet, want)
		}
	}
}

func TestBreakdowns(t *testing.T) {
	env := list(t, query("london", "breakdowns"))
	if len(env.List) != 4 {
		t.Fatalf("%d parts", len(env.List))
	}
	for i, name := range []string{"night", "morning", "afternoon", "evening"} {
		b := env.List[i].(BreakdownItem)
		if b.Period != name || b.Date != "2020-02-15" || b.TempMin > b.TempMax || b.Clothing.Text == "" ||
			!strings.HasPrefix(b.Clothing.ClothesURL, "http://harkd:8080/v2/media/icons/clothes-") {
			t.Errorf("part %d: %+v", i, b)
		}
		if b.Clothing.Umbrella != (b.RainProbability >= 40) {
			t.Errorf("%s: umbrella %v with %d%% rain", name, b.Clothing.Umbrella, b.RainProbability)
		}
	}
	if text, icon, _ := clothesFor(30, false); icon != "clothes-tshirt" || text == "" {
		t.Error("hot day clothing")
	}
	if _, icon, umbrella := clothesFor(3, true); icon != "clothes-umbrella" || !umbrella {
		t.Error("cold wet day clothing")
	}
}

func TestSports(t *testing.T) {
	s := service(t)
	ctx := context.Background()
	for slug := range centres {
		city, _ := s.CityByName(slug)
		st, err := s.Standings(ctx, city, saturday)
		if err != nil {
			t.Fatal(err)
		}
		points, wins, draws, played := 0, 0, 0, 0
		for i, r := range st.Rows {
			if r.Won+r.Drawn+r.Lost != r.Played || r.Points != 3*r.Won+r.Drawn {
				t.Errorf("%s row %+v", slug, r)
			}
			if i > 0 && r.Points > st.Rows[i-1].Points {
				t.Errorf("%s: table not sorted at %d", slug, i)
			}
			points, wins, draws, played = points+r.Points, wins+r.Won, draws+r.Drawn, played+r.Played
		}
		if wins != played/2-draws/2 || played == 0 {
			t.Errorf("%s: %d wins, %d draws in %d team games", slug, wins, draws, played)
		}
		ms, _ := s.Results(ctx, city, saturday)
		finished, scheduled := 0, 0
		for _, m := range ms {
			switch m.Status {
			case "finished":
				finished++
				if m.Kickoff.After(saturday) {
					t.Errorf("finished match in the future: %+v", m)
				}
			case "scheduled":
				scheduled++
				if !m.Kickoff.After(saturday) {
					t.Errorf("scheduled match in the past: %+v", m)
				}
			}
			if wd := m.Kickoff.In(city.Location).Weekday(); wd != time.Saturday && wd != time.Sunday {
				t.Errorf("%s match on %s", m.Competition, wd)
			}
		}
		if finished == 0 || scheduled == 0 {
			t.Errorf("%s: %d finished, %d scheduled matches", slug, finished, scheduled)
		}
	}
	// JSON: a scheduled match has null scores.
	for _, m := range asMaps(t, list(t, query("madrid", "sport/match"))) {
		if (m["status"] == "scheduled") != (m["homeScore"] == nil) {
			t.Errorf("match %v %v", m["status"], m["homeScore"])
		}
	}
	// Tour results are complete and ordered.
	for _, sport := range tourSports {
		evs, err := s.TourEvents(ctx, sport, saturday)
		if err != nil || len(evs) == 0 {
			t.Fatalf("%s: %v %d", sport, err, len(evs))
		}
		for _, e := range evs {
			if (e.Status == "finished") != (len(e.Results) > 0) {
				t.Errorf("%s %s: status %s with %d results", sport, e.Name, e.Status, len(e.Results))
			}
			for i, r := range e.Results {
				if r.Position != i+1 || r.Name == "" || r.Mark == "" {
					t.Errorf("%s result %+v", sport, r)
				}
			}
		}
	}
	if _, err := s.TourEvents(ctx, "curling", saturday); err == nil {
		t.Error("unknown tour sport accepted")
	}
	// Without a profile, nearer venues come first.
	last := -1.0
	for _, it := range list(t, query("madrid", "golf")).List {
		g := it.(GolfItem)
		d := distanceKm(40.4168, -3.7038, g.Lat, g.Lon)
		if d < last {
			t.Errorf("golf %s at %.0f km after one at %.0f km", g.Event, d, last)
		}
		last = d
	}
}

func TestEventsAndTV(t *testing.T) {
	for slug := range centres {
		q := query(slug, "nearevents")
		q.RowsPerPage = ptr(100)
		for _, it := range list(t, q).List {
			e := it.(EventItem)
			start, _ := time.Parse(time.RFC3339, e.Start)
			end, _ := time.Parse(time.RFC3339, e.End)
			if !end.After(saturday) || start.Sub(saturday) > eventHorizon || !end.After(start) {
				t.Errorf("%s event %s %s-%s", slug, e.Title, e.Start, e.End)
			}
		}
		q = query(slug, "tv")
		q.RowsPerPage = ptr(100)
		onNow := map[string]bool{}
		for _, it := range list(t, q).List {
			p := it.(TVItem)
			if p.OnNow {
				onNow[p.Channel] = true
			}
		}
		if len(onNow) != 5 {
			t.Errorf("%s: %d channels on air", slug, len(onNow))
		}
	}
}

// Every image URL an item carries names an icon harkd serves.
func TestImageURLsAreServed(t *testing.T) {
	const prefix = "http://harkd:8080/v2/media/icons/"
	var check func(v any)
	check = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, val := range x {
				if s, ok := val.(string); ok && (k == "image" || k == "imagen" || k == "urlImage" || k == "poster" || k == "clothesUrl" || k == "url" && strings.Contains(s, "/media/")) {
					name, ok := strings.CutPrefix(s, prefix)
					name = strings.TrimSuffix(name, ".png")
					_, inSurveys := surveys.Icon(name)
					_, inItems := Icon(name)
					if !ok || !(inSurveys || inItems) {
						t.Errorf("%s %q is not served", k, s)
					}
				}
				check(val)
			}
		case []any:
			for _, e := range x {
				check(e)
			}
		}
	}
	// The paths whose elements carry images; the others are covered by
	// TestEveryPathInEveryCity.
	for slug := range centres {
		for _, p := range []string{"restaurants", "movies", "news/popular", "weather", "breakdowns", "nearevents", "tv"} {
			q := query(slug, p)
			q.RowsPerPage = ptr(100)
			for _, m := range asMaps(t, list(t, q)) {
				check(m)
			}
		}
	}
}

func TestDialogueAccessors(t *testing.T) {
	s := service(t)
	ctx := context.Background()
	london, _ := s.CityByName("Londres")
	arts, err := s.TopNews(ctx, london, CategoryPopular, nil, saturday, 3)
	if err != nil || len(arts) != 3 || arts[0].Reads < arts[1].Reads {
		t.Fatalf("top news: %v %+v", err, arts)
	}
	id, ok := s.NewsTopicID("news:science")
	if !ok {
		t.Fatal("no science id")
	}
	sci, _ := s.TopNews(ctx, london, id, nil, saturday, 10)
	for _, a := range sci {
		if a.Topic != "science" {
			t.Errorf("science news holds %s", a.Topic)
		}
	}
	if _, err := s.TopNews(ctx, london, 12345, nil, saturday, 3); err == nil {
		t.Error("unknown category accepted")
	}
	shows, _ := s.Showings(ctx, london, saturday, "orbit of")
	if len(shows) == 0 {
		t.Fatal("no showings of Orbit of Silence")
	}
	for _, sh := range shows {
		if sh.Movie.Title != "Orbit of Silence" || sh.Movie.Certification.Name != "12A" {
			t.Errorf("showing %+v", sh.Movie)
		}
	}
	ev, _ := s.UpcomingEvents(ctx, london, saturday, "music")
	for i, e := range ev {
		if !strings.HasPrefix(e.Category, "music:") || (i > 0 && e.Start.Before(ev[i-1].Start)) {
			t.Errorf("event %+v", e)
		}
	}
	tv, _ := s.OnTV(ctx, london, saturday)
	if len(tv) != 5 {
		t.Errorf("%d programmes on now", len(tv))
	}
	f, _ := s.WeatherOn(ctx, london, time.Date(2020, 6, 21, 12, 0, 0, 0, london.Location))
	if f.Sun.Sunrise.Format("15:04") != "04:43" {
		t.Errorf("London solstice sunrise %s", f.Sun.Sunrise.Format("15:04"))
	}
}

// A provider replaces the sandbox: the service uses it.
type oneRestaurant struct{}

func (oneRestaurant) Restaurants(ctx context.Context, city *City) ([]Restaurant, error) {
	h, _ := ParseHours("Mo-Su 00:00-24:00")
	return []Restaurant{{ID: "live-1", Name: "Live Diner", Cuisines: []string{"american"}, Price: 2,
		Address: "1 Test St", Lat: city.Lat, Lon: city.Lon, Rating: 4, Hours: h}}, nil
}

func TestProviderReplacesSandbox(t *testing.T) {
	s, err := New(Config{Restaurants: oneRestaurant{}, ProviderName: "live"})
	if err != nil {
		t.Fatal(err)
	}
	env, err := s.List(context.Background(), query("madrid", "restaurants"))
	if err != nil {
		t.Fatal(err)
	}
	if len(env.List) != 1 || env.List[0].(RestaurantItem).Name != "Live Diner" || !env.List[0].(RestaurantItem).Open ||
		env.List[0].(RestaurantItem).Provider != "live" {
		t.Fatalf("list %+v", env.List)
	}
}

func FuzzListPath(f *testing.F) {
	for _, p := range append(Paths(), "news/category/", "news//more", "../weather", "news/category/-1/more") {
		f.Add(p, 1, 10)
	}
	s, err := New(Config{})
	if err != nil {
		f.Fatal(err)
	}
	lat, lon := 51.5, -0.12
	f.Fuzz(func(t *testing.T, path string, page, rows int) {
		env, err := s.List(context.Background(), Query{Path: path, Lat: &lat, Lon: &lon, Page: &page, RowsPerPage: &rows, Now: saturday})
		if err != nil {
			if _, ok := apierr.As(err); !ok {
				t.Fatalf("%q: non-API error %v", path, err)
			}
			return
		}
		// A /more page takes no parameters (the contract): its size is the
		// news session's, set by the request that started it.
		limit := rows
		if strings.HasSuffix(strings.Trim(path, "/"), "more") {
			limit = MaxRowsPerPage
		}
		if len(env.List) > limit {
			t.Fatalf("%q: %d elements for rowsPerPage %d", path, len(env.List), rows)
		}
	})
}

func BenchmarkListRestaurants(b *testing.B) { benchmarkList(b, "restaurants") }
func BenchmarkListMovies(b *testing.B)      { benchmarkList(b, "movies") }
func BenchmarkListNews(b *testing.B)        { benchmarkList(b, "news") }
func BenchmarkListWeather(b *testing.B)     { benchmarkList(b, "weather") }
func BenchmarkListRanking(b *testing.B)     { benchmarkList(b, "sport/soccer/ranking") }
func BenchmarkListTV(b *testing.B)          { benchmarkList(b, "tv") }

func benchmarkList(b *testing.B, path string) {
	s := service(b)
	q := query("london", path)
	q.Profile = map[string]float64{"cuisine:italian": 1, "news:technology": 0.5, "movie:comedy": 1}
	ctx := context.Background()
	for b.Loop() {
		env, err := s.List(ctx, q)
		if err != nil || len(env.List) == 0 {
			b.Fatal(err)
		}
		// The HTTP layer encodes the envelope; include it in the cost.
		if _, err := json.Marshal(env); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBaselineEncode only encodes a ready restaurant page: the floor
// any List benchmark above includes, to read them as ratios.
func BenchmarkBaselineEncode(b *testing.B) {
	s := service(b)
	env, err := s.List(context.Background(), query("london", "restaurants"))
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := json.Marshal(env); err != nil {
			b.Fatal(err)
		}
	}
}
