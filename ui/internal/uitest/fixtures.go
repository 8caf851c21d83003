package uitest

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"time"
)

// The fixtures: fixed answers of the fake platform that the screens' tests
// and the golden screens share.

func StorageFixture(f *FakePlatform) {
	mod := FixedNow.Add(-26 * time.Hour).UnixMilli()
	f.JSON("GET /v2/storage/folder/list", 200, []string{"reports", "photos"})
	f.JSON("GET /v2/storage/file/list", 200, []map[string]any{
		{"name": "readme.md", "size": 1234, "lastModified": mod},
		{"name": "movies.csv", "size": 5 << 20, "lastModified": mod + 3600e3},
	})
	f.JSON("GET /v2/storage/total-size", 200, 5<<20+1234+987654)
}

func ItemsFixture(f *FakePlatform) {
	env := func(list ...map[string]any) map[string]any {
		return map[string]any{"criteria": map[string]any{"lat": 37.7749, "lon": -122.4194, "pageCriteria": map[string]any{"page": 1, "count": len(list)}}, "list": list}
	}
	f.JSON("GET /v2/items/movies", 200, env(
		map[string]any{"dataId": "m1", "type": "MOVIE", "itemTitle": "The Long Night", "movie": map[string]any{"title": "The Long Night", "averageRating": 7.8, "genres": []string{"Drama"}, "certification": map[string]any{"name": "PG-13"}},
			"theater": map[string]any{"name": "Castro Theatre", "address": "429 Castro St", "schedule": "17:30 20:15"}},
		map[string]any{"dataId": "m2", "type": "MOVIE", "itemTitle": "Harbour Lights", "movie": map[string]any{"title": "Harbour Lights", "averageRating": 6.4},
			"theater": map[string]any{"name": "Roxie", "schedule": "19:00"}}))
	f.JSON("GET /v2/items/restaurants", 200, env(
		map[string]any{"dataId": "r1", "type": "RESTAURANT", "name": "Tartine", "latitude": "37.7614", "longitude": "-122.4241", "open": true, "rating": "4.5", "openingHours": "08:00-19:00", "categories": []string{"Bakery"}},
		map[string]any{"dataId": "r2", "type": "RESTAURANT", "name": "Zuni Café", "latitude": "37.7736", "longitude": "-122.4218", "open": false, "rating": "4.3"}))
	var hours []map[string]any
	for h := range 24 {
		hours = append(hours, map[string]any{"hour": fmt.Sprintf("%02d:00", h), "temp": 10 + 8*math.Sin(float64(h-9)/24*2*math.Pi), "rain": math.Max(0, float64(h-15)*0.4)})
	}
	f.JSON("GET /v2/items/weather", 200, env(map[string]any{"type": "WEATHER", "metric": 1,
		"current":    map[string]any{"city": "San Francisco", "country": "US", "date": "2026-03-14", "tempCurrent": 14, "tempMin": 9, "tempMax": 18, "tempUnit": "°C", "textWeather": "Partly cloudy", "windSpeed": 12, "windSpeedUnit": "km/h", "rain": 0.4, "rainUnit": "mm"},
		"byHour":     hours,
		"byDay":      []map[string]any{{"weekDay3C": "Sat", "tempMin": 9, "tempMax": 18, "description": "Sunny"}, {"weekDay3C": "Sun", "tempMin": 11, "tempMax": 15, "description": "Showers"}, {"weekDay3C": "Mon", "tempMin": 7, "tempMax": 20, "description": "Clear"}},
		"solarInfo":  map[string]any{"sunRise": "07:18", "sunSet": "19:14"},
		"moonPhases": []map[string]any{{"date": "2026-03-19", "text": "New Moon", "value": "new"}, {"date": "2026-03-25", "text": "First Quarter", "value": "first quarter"}}}))
	f.JSON("GET /v2/surveys/", 200, []map[string]any{{"surveyId": 1, "title": "News topics"}, {"surveyId": 2, "title": "Cuisine"}})
	f.JSON("GET /v2/surveys/1", 200, map[string]any{"id": 1, "title": "News topics", "items": []map[string]any{
		{"id": 1, "texto": "Politics", "selected": true, "weight": 1}, {"id": 2, "texto": "Science", "selected": false, "weight": 0.35}, {"id": 3, "texto": "Sports", "weight": 0}}})
}

func RecommFixture(f *FakePlatform) {
	f.JSON("GET /v2/recomm/tables", 200, []string{"films", "books"})
	f.JSON("GET /v2/recomm/tables/films", 200, map[string]any{"tableId": "films", "engines": map[string]string{"default": "hybrid"}, "displayAttribute": "title"})
	f.JSON("GET /v2/recomm/films/interactions", 200, []map[string]any{{"interactionId": "rating", "type": "continuous", "weight": 1, "minValue": 0.5, "maxValue": 5}})
	f.JSON("GET /v2/recomm/films/attributes", 200, []map[string]any{{"attributeId": "genre", "type": "category", "indexed": true}, {"attributeId": "year", "type": "int"}})
	titles := map[string]string{"1": "Toy Story", "2": "Jumanji", "10": "GoldenEye", "32": "Twelve Monkeys", "110": "Braveheart"}
	f.JSON("GET /v2/recomm/films/items", 200, []map[string]any{{"itemId": "1", "title": titles["1"]}, {"itemId": "2", "title": titles["2"]},
		{"itemId": "10", "title": titles["10"]}, {"itemId": "32", "title": titles["32"]}, {"itemId": "110", "title": titles["110"]}})
	f.JSON("GET /v2/recomm/films/items/1", 200, map[string]any{"itemId": "1", "title": "Toy Story", "year": 1995, "genre": "Animation", "tags": []string{"pixar", "toys"}})
	f.JSON("GET /v2/recomm/films/items/1/items", 200, []map[string]any{{"itemId": "2", "match": 91, "title": titles["2"]}, {"itemId": "32", "match": 64.5, "title": titles["32"]}})
	f.JSON("GET /v2/recomm/users", 200, []map[string]any{{"userId": "7"}, {"userId": "12"}})
	f.JSON("GET /v2/recomm/users/7", 200, map[string]any{"userId": "7"})
	f.JSON("GET /v2/recomm/films/history/users/7", 200, []map[string]any{{"itemId": "1", "interactionId": "rating", "timestamp": 2000, "value": 4.5},
		{"itemId": "110", "interactionId": "rating", "timestamp": 1000, "value": 3}})
	f.Handle("GET /v2/recomm/films/users/7/items", func(w http.ResponseWriter, r *http.Request) {
		recs := []map[string]any{{"itemId": "10", "match": 100, "title": titles["10"], "because": []map[string]any{{"itemId": "110", "match": 80}}},
			{"itemId": "32", "match": 81.5, "title": titles["32"]}, {"itemId": "2", "match": 60, "title": titles["2"]}}
		if r.URL.Query().Get("engine") == "popular" {
			recs = []map[string]any{{"itemId": "2", "match": 92, "title": titles["2"]}, {"itemId": "10", "match": 44, "title": titles["10"]}}
		}
		json.NewEncoder(w).Encode(recs)
	})
}

// RecommEmptyFixture is a workspace without recommendation tables.
func RecommEmptyFixture(f *FakePlatform) { f.JSON("GET /v2/recomm/tables", 200, []string{}) }

// OnboardingFlow serves a flow of every step type; answers are recorded
// and the WAIT_INPUT step refuses "bad" the way the server does.
func OnboardingFlow(f *FakePlatform, answers *[]map[string]string) {
	step := func(id, typ string, payload map[string]any) map[string]any {
		return map[string]any{"id": id, "type": typ, "payload": payload}
	}
	batches := map[string][]map[string]any{
		"start": {
			step("1", "SHOW_MESSAGE", map[string]any{"message": "Hi, I'm hark."}),
			step("2", "WAIT_ACK", map[string]any{"message": "Accept the terms?", "ack": "I accept", "colorAck": "#2E7D32", "textColorAck": "#FFFFFF"}),
		},
		"2": {step("3", "WAIT_INPUT", map[string]any{"message": "What should I call you?", "parameter": "name", "preference": "USERNAME",
			"validation": map[string]any{"retries": 2, "regExps": []string{`^\S(.{0,38}\S)?$`}}})},
		"3": {
			step("4", "SHOW_MESSAGE", map[string]any{"message": "Nice to meet you, %%USERNAME%%!"}),
			step("5", "WAIT_SELECTION", map[string]any{"message": "Which units?", "parameter": "units",
				"options": []map[string]any{{"key": "metric", "text": "Metric"}, {"key": "imperial", "text": "Imperial"}}}),
		},
		"5": {step("6", "WAIT_PERMISSION", map[string]any{"message": "Permissions, %%USERNAME%%?", "permissions": []string{"LOCATION", "NOTIFICATIONS"}})},
		"6": {step("7", "SHOW_SURVEY", map[string]any{"message": "Topics?", "surveyId": 3, "parameter": "survey", "minOptions": 2,
			"items": []map[string]any{{"id": 11, "text": "Sports"}, {"id": 12, "text": "Science", "selected": true}, {"id": 13, "text": "Arts"}}})},
		"7": {step("8", "END", map[string]any{})},
	}
	f.JSON("GET /v2/onboarding/start", 200, batches["start"])
	for id := range batches {
		if id == "start" {
			continue
		}
		f.Handle("POST /v2/onboarding/"+id+"/response", func(w http.ResponseWriter, r *http.Request) {
			var body struct{ Data string }
			json.NewDecoder(r.Body).Decode(&body)
			var data map[string]string
			json.Unmarshal([]byte(body.Data), &data)
			if data["name"] == "refused" {
				w.WriteHeader(400)
				w.Write([]byte(`{"code":"BadRequest","description":"that name is taken by the house"}`))
				return
			}
			*answers = append(*answers, data)
			json.NewEncoder(w).Encode(batches[id])
		})
	}
}

// AnswerWith makes the fake dialogue answer every query with ref 77, an
// HTML answer and one action, echoing the query, in English
// (Content-Language); with Service-Explain: 1 it adds an explanation of the
// server's shape.
func AnswerWith(f *FakePlatform) {
	f.Handle("POST /v2/query/text", func(w http.ResponseWriter, r *http.Request) {
		var in struct{ Q string }
		json.NewDecoder(r.Body).Decode(&in)
		body := map[string]any{
			"context":     map[string]any{"id": "c1", "ref": 77},
			"responses":   map[string]any{"html": "<p>You said <b>" + in.Q + "</b> &amp; I heard.</p><ul><li>one</li><li>two</li></ul>", "text": "plain"},
			"nextActions": []map[string]any{{"action": "SET_ALARM", "data": map[string]any{"time": "07:00", "label": "wake"}}},
		}
		if r.Header.Get("Service-Explain") == "1" {
			body["explain"] = map[string]any{"lang": "en", "langFrom": "detected", "intent": "SET_ALARM",
				"pattern": "wake me at {time}", "cost": 0.5,
				"slots":       []map[string]any{{"name": "time", "words": "7", "value": "07:00"}},
				"corrections": []map[string]any{{"typed": "wak", "read": "wake"}}}
		}
		w.Header().Set("Content-Language", "en")
		json.NewEncoder(w).Encode(body)
	})
}

func PlacesFixture(f *FakePlatform) {
	f.JSON("GET /v2/tracking/pois", 200, []map[string]any{
		{"id": 1, "label": "Home", "lat": 40.4168, "lon": -3.7038, "visits": 31, "dwellMinutes": 9000},
		{"id": 2, "label": "Work", "lat": 40.4530, "lon": -3.6883, "visits": 22, "dwellMinutes": 5200},
		{"id": 3, "label": "Other", "lat": 40.4381, "lon": -3.6796, "visits": 6, "dwellMinutes": 300}})
}
