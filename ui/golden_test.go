package ui

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest"
)

// goldenScreen is one screen state drawn at every size.
type goldenScreen struct {
	name     string
	signedIn bool
	setup    func(f *fakePlatform)
	// steps drive the program; each wait names text that must be on screen
	// before the next step.
	steps func(t *testing.T, tm *teatest.TestModel)
}

func waitFor(t *testing.T, tm *teatest.TestModel, text string) {
	t.Helper()
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte(text)) },
		teatest.WithDuration(10*time.Second), teatest.WithCheckInterval(5*time.Millisecond))
}

func send(tm *teatest.TestModel, names ...string) {
	for _, n := range names {
		tm.Send(keyMsg(n))
	}
}

func storageFixture(f *fakePlatform) {
	mod := fixedNow.Add(-26 * time.Hour).UnixMilli()
	f.json("GET /v2/storage/folder/list", 200, []string{"reports", "photos"})
	f.json("GET /v2/storage/file/list", 200, []map[string]any{
		{"name": "readme.md", "size": 1234, "lastModified": mod},
		{"name": "movies.csv", "size": 5 << 20, "lastModified": mod + 3600e3},
	})
	f.json("GET /v2/storage/total-size", 200, 5<<20+1234+987654)
}

func itemsFixture(f *fakePlatform) {
	env := func(list ...map[string]any) map[string]any {
		return map[string]any{"criteria": map[string]any{"lat": 37.7749, "lon": -122.4194, "pageCriteria": map[string]any{"page": 1, "count": len(list)}}, "list": list}
	}
	f.json("GET /v2/items/movies", 200, env(
		map[string]any{"dataId": "m1", "type": "MOVIE", "itemTitle": "The Long Night", "movie": map[string]any{"title": "The Long Night", "averageRating": 7.8, "genres": []string{"Drama"}, "certification": map[string]any{"name": "PG-13"}},
			"theater": map[string]any{"name": "Castro Theatre", "address": "429 Castro St", "schedule": "17:30 20:15"}},
		map[string]any{"dataId": "m2", "type": "MOVIE", "itemTitle": "Harbour Lights", "movie": map[string]any{"title": "Harbour Lights", "averageRating": 6.4},
			"theater": map[string]any{"name": "Roxie", "schedule": "19:00"}}))
	f.json("GET /v2/items/restaurants", 200, env(
		map[string]any{"dataId": "r1", "type": "RESTAURANT", "name": "Tartine", "latitude": "37.7614", "longitude": "-122.4241", "open": true, "rating": "4.5", "openingHours": "08:00-19:00", "categories": []string{"Bakery"}},
		map[string]any{"dataId": "r2", "type": "RESTAURANT", "name": "Zuni Café", "latitude": "37.7736", "longitude": "-122.4218", "open": false, "rating": "4.3"}))
	var hours []map[string]any
	for h := range 24 {
		hours = append(hours, map[string]any{"hour": fmt.Sprintf("%02d:00", h), "temp": 10 + 8*math.Sin(float64(h-9)/24*2*math.Pi), "rain": math.Max(0, float64(h-15)*0.4)})
	}
	f.json("GET /v2/items/weather", 200, env(map[string]any{"type": "WEATHER", "metric": 1,
		"current":    map[string]any{"city": "San Francisco", "country": "US", "date": "2026-03-14", "tempCurrent": 14, "tempMin": 9, "tempMax": 18, "tempUnit": "°C", "textWeather": "Partly cloudy", "windSpeed": 12, "windSpeedUnit": "km/h", "rain": 0.4, "rainUnit": "mm"},
		"byHour":     hours,
		"byDay":      []map[string]any{{"weekDay3C": "Sat", "tempMin": 9, "tempMax": 18, "description": "Sunny"}, {"weekDay3C": "Sun", "tempMin": 11, "tempMax": 15, "description": "Showers"}, {"weekDay3C": "Mon", "tempMin": 7, "tempMax": 20, "description": "Clear"}},
		"solarInfo":  map[string]any{"sunRise": "07:18", "sunSet": "19:14"},
		"moonPhases": []map[string]any{{"date": "2026-03-19", "text": "New Moon", "value": "new"}, {"date": "2026-03-25", "text": "First Quarter", "value": "first quarter"}}}))
	f.json("GET /v2/surveys/", 200, []map[string]any{{"surveyId": 1, "title": "News topics"}, {"surveyId": 2, "title": "Cuisine"}})
	f.json("GET /v2/surveys/1", 200, map[string]any{"id": 1, "title": "News topics", "items": []map[string]any{
		{"id": 1, "texto": "Politics", "selected": true, "weight": 1}, {"id": 2, "texto": "Science", "selected": false, "weight": 0.35}, {"id": 3, "texto": "Sports", "weight": 0}}})
}

func recommFixture(f *fakePlatform) {
	f.json("GET /v2/recomm/tables", 200, []string{"films", "books"})
	f.json("GET /v2/recomm/films/attributes", 200, []map[string]any{{"attributeId": "genre", "type": "category", "indexed": true}, {"attributeId": "year", "type": "int"}})
	f.handle("GET /v2/recomm/films/items/f01/items", func(w http.ResponseWriter, r *http.Request) {
		recs := []map[string]any{{"itemId": "f10", "match": 100}, {"itemId": "f08", "match": 81.5}, {"itemId": "f06", "match": 60}}
		if r.URL.Query().Get("engine") == "hybrid" {
			recs = []map[string]any{{"itemId": "f03", "match": 92}, {"itemId": "f10", "match": 44}}
		}
		json.NewEncoder(w).Encode(recs)
	})
}

var goldenScreens = []goldenScreen{
	{name: "places", signedIn: true, setup: func(f *fakePlatform) {
		f.json("GET /v2/tracking/pois", 200, []map[string]any{
			{"id": 1, "label": "Home", "lat": 40.4168, "lon": -3.7038, "visits": 31, "dwellMinutes": 9000},
			{"id": 2, "label": "Work", "lat": 40.4530, "lon": -3.6883, "visits": 22, "dwellMinutes": 5200},
			{"id": 3, "label": "Other", "lat": 40.4381, "lon": -3.6796, "visits": 6, "dwellMinutes": 300}})
	}, steps: func(t *testing.T, tm *teatest.TestModel) {
		send(tm, "alt+p")
		waitFor(t, tm, "visits")
	}},
	{name: "recomm-attributes", signedIn: true, setup: recommFixture, steps: func(t *testing.T, tm *teatest.TestModel) {
		send(tm, "alt+r")
		waitFor(t, tm, "books")
		send(tm, "down", "enter")
		waitFor(t, tm, "genre")
	}},
	{name: "recomm-side-by-side", signedIn: true, setup: recommFixture, steps: func(t *testing.T, tm *teatest.TestModel) {
		send(tm, "alt+r")
		waitFor(t, tm, "books")
		send(tm, "down", "enter")
		waitFor(t, tm, "genre")
		send(tm, "a")
		tm.Type("item=f01 engine=popular vs=hybrid")
		send(tm, "enter")
		waitFor(t, tm, "f03")
	}},
	{name: "items-movies", signedIn: true, setup: itemsFixture, steps: func(t *testing.T, tm *teatest.TestModel) {
		send(tm, "alt+i")
		waitFor(t, tm, "Castro")
	}},
	{name: "items-restaurants", signedIn: true, setup: itemsFixture, steps: func(t *testing.T, tm *teatest.TestModel) {
		send(tm, "alt+i")
		waitFor(t, tm, "Castro")
		send(tm, "tab")
		waitFor(t, tm, "Tartine")
	}},
	{name: "items-weather", signedIn: true, setup: itemsFixture, steps: func(t *testing.T, tm *teatest.TestModel) {
		send(tm, "alt+i")
		waitFor(t, tm, "Castro")
		send(tm, "shift+tab", "shift+tab", "shift+tab", "shift+tab", "shift+tab", "shift+tab", "shift+tab", "shift+tab", "shift+tab", "shift+tab")
		waitFor(t, tm, "sunrise")
	}},
	{name: "surveys", signedIn: true, setup: itemsFixture, steps: func(t *testing.T, tm *teatest.TestModel) {
		send(tm, "alt+u")
		waitFor(t, tm, "Cuisine")
		send(tm, "enter")
		waitFor(t, tm, "Politics")
		send(tm, "down", " ")
		waitFor(t, tm, "not saved")
	}},
	{name: "signin", steps: func(t *testing.T, tm *teatest.TestModel) {
		waitFor(t, tm, "E-mail")
	}},
	{name: "signin-register-error", setup: func(f *fakePlatform) {
		f.json("POST /v2/auth/register", 409, map[string]string{"code": "Conflict", "description": "exists"})
	}, steps: func(t *testing.T, tm *teatest.TestModel) {
		send(tm, "ctrl+n")
		tm.Type("ann@example.com")
		send(tm, "tab")
		tm.Type("long enough")
		send(tm, "enter")
		waitFor(t, tm, "already exists")
	}},
	{name: "onboarding-ack", signedIn: true, setup: func(f *fakePlatform) { onboardingFlow(f, new([]map[string]string)) },
		steps: func(t *testing.T, tm *teatest.TestModel) {
			tm.Send(openScreenMsg{id: screenOnboarding})
			waitFor(t, tm, "I accept")
		}},
	{name: "onboarding-input-refused", signedIn: true, setup: func(f *fakePlatform) { onboardingFlow(f, new([]map[string]string)) },
		steps: func(t *testing.T, tm *teatest.TestModel) {
			tm.Send(openScreenMsg{id: screenOnboarding})
			waitFor(t, tm, "I accept")
			send(tm, "enter")
			waitFor(t, tm, "call you")
			tm.Type(strings.Repeat("z", 45))
			send(tm, "enter")
			waitFor(t, tm, "not accepted")
		}},
	{name: "onboarding-selection-permission-survey", signedIn: true, setup: func(f *fakePlatform) { onboardingFlow(f, new([]map[string]string)) },
		steps: func(t *testing.T, tm *teatest.TestModel) {
			tm.Send(openScreenMsg{id: screenOnboarding})
			waitFor(t, tm, "I accept")
			send(tm, "enter")
			waitFor(t, tm, "call you")
			tm.Type("Zed")
			send(tm, "enter")
			waitFor(t, tm, "Imperial")
			send(tm, "enter")
			waitFor(t, tm, "Notifications:")
			send(tm, "down", " ", "enter")
			waitFor(t, tm, "Science")
			send(tm, "down", "down", " ")
			waitFor(t, tm, "2 chosen")
		}},
	{name: "console", signedIn: true, setup: answerWith, steps: func(t *testing.T, tm *teatest.TestModel) {
		tm.Type("wake me at 7")
		send(tm, "enter")
		waitFor(t, tm, "SET_ALARM")
		tm.Type("and tomorrow?")
	}},
	{name: "storage", signedIn: true, setup: storageFixture, steps: func(t *testing.T, tm *teatest.TestModel) {
		send(tm, "alt+s")
		waitFor(t, tm, "movies.csv")
		send(tm, "down", "down", "down")
	}},
	{name: "storage-confirm-delete", signedIn: true, setup: storageFixture, steps: func(t *testing.T, tm *teatest.TestModel) {
		send(tm, "alt+s")
		waitFor(t, tm, "movies.csv")
		send(tm, "down", "down", " ", " ", "x")
		waitFor(t, tm, "[y/N]")
	}},
	{name: "storage-full-help", signedIn: true, setup: storageFixture, steps: func(t *testing.T, tm *teatest.TestModel) {
		send(tm, "alt+s")
		waitFor(t, tm, "movies.csv")
		send(tm, "?")
		waitFor(t, tm, "clear all")
	}},
}

// TestGolden draws every screen at 80x24 and 120x40 with the ASCII
// profile and compares with testdata (go test ./ui -run Golden -update).
func TestGolden(t *testing.T) {
	for _, sc := range goldenScreens {
		for _, size := range [][2]int{{80, 24}, {120, 40}} {
			t.Run(fmt.Sprintf("%s/%dx%d", sc.name, size[0], size[1]), func(t *testing.T) {
				f := newFakePlatform(t)
				if sc.setup != nil {
					sc.setup(f)
				}
				app := New(testOptions(f.client(t), sc.signedIn))
				tm := teatest.NewTestModel(t, app, teatest.WithInitialTermSize(size[0], size[1]))
				sc.steps(t, tm)
				// A final no-op round trip so every message sent is handled.
				tm.Send(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
				if err := tm.Quit(); err != nil {
					t.Fatal(err)
				}
				final := tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second)).(*App)
				final.hasToast = false // toasts come and go with time
				golden.RequireEqual(t, []byte(final.View()))
			})
		}
	}
}

// TestEveryScreenFitsANarrowTerminal draws every screen at 40x12 (narrower
// than the 80 columns it is designed for): nothing may spill over.
func TestEveryScreenFitsANarrowTerminal(t *testing.T) {
	f := newFakePlatform(t)
	storageFixture(f)
	itemsFixture(f)
	recommFixture(f)
	answerWith(f)
	a := newTestApp(t, testOptions(f.client(t), true), 40, 12)
	typeText(t, a, "a question long enough to wrap around twice at least")
	press(t, a, "enter")
	for _, k := range []string{"alt+c", "alt+s", "alt+i", "tab", "tab", "tab", "tab", "tab", "alt+u", "alt+r", "alt+p", "f1"} {
		press(t, a, k)
		v := a.View()
		lines := strings.Split(v, "\n")
		if len(lines) > 12+6 { // the full help may add rows; the body shrinks to one line
			t.Errorf("after %s: %d lines", k, len(lines))
		}
		for _, l := range lines {
			if w := cellWidth(l); w > 40 {
				t.Errorf("after %s (%s): a line of %d cells: %q", k, screenTitles[a.active], w, l)
				break
			}
		}
	}
}
