package knowledge

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/harkhq/hark/server/dialogue"
	"github.com/harkhq/hark/server/items"
	"github.com/harkhq/hark/server/tracking"
)

type fixedUser struct{ metric bool }

func (fixedUser) Profile(context.Context, int64) (map[string]float64, error) { return nil, nil }
func (u fixedUser) Metric(context.Context, int64) bool                       { return u.metric }

func newKnowledge(t *testing.T, metric bool) *Items {
	svc, err := items.New(items.Config{})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	return &Items{Items: svc, Users: fixedUser{metric}, Now: func() time.Time { return now }}
}

func TestWeatherFollowsTheItemAndTheUnits(t *testing.T) {
	k := newKnowledge(t, true)
	ctx := context.Background()
	c, _ := k.Items.CityByName("Madrid")
	w, err := k.Items.WeatherAt(ctx, c, k.Now())
	if err != nil {
		t.Fatal(err)
	}
	info, err := k.Weather(ctx, dialogue.WeatherQuery{Where: dialogue.Where{City: "Madrid"}, Asker: dialogue.Asker{Lang: "en"}})
	if err != nil || info.City != "Madrid" || info.Unit != "C" || info.Temp != math.Round(w.Hours[0].Temp) {
		t.Fatalf("weather %+v %v (item %v)", info, err, w.Hours[0].Temp)
	}
	// the day's figures come from the item as they are (the wind in km/h
	// whatever the user's units: the answer converts)
	if d, f := w.Days[0], info.Forecast[0]; f.Humidity != d.Humidity || f.WindKmh != d.WindKmh || f.UVMax != d.UVMax || f.Humidity == 0 {
		t.Fatalf("today's figures %+v, item %+v", f, d)
	}
	es, _ := k.Weather(ctx, dialogue.WeatherQuery{Where: dialogue.Where{City: "Madrid"}, Asker: dialogue.Asker{Lang: "es"}})
	if es.Condition == info.Condition || es.Condition == "" {
		t.Fatalf("Spanish condition %q vs English %q", es.Condition, info.Condition)
	}
	f := newKnowledge(t, false)
	inF, _ := f.Weather(ctx, dialogue.WeatherQuery{Where: dialogue.Where{City: "Madrid"}})
	if inF.Unit != "F" || inF.Temp < info.Temp*9/5+31 || inF.Temp > info.Temp*9/5+33 || inF.Forecast[0].WindKmh != w.Days[0].WindKmh {
		t.Fatalf("imperial %+v vs metric %+v", inF, info)
	}
	if _, err := k.Weather(ctx, dialogue.WeatherQuery{Where: dialogue.Where{City: "Atlantis"}}); err == nil {
		t.Fatal("an unknown city answered")
	}
	if _, err := k.Weather(ctx, dialogue.WeatherQuery{}); err == nil {
		t.Fatal("no city and no position answered")
	}
}

func TestEveryDomainAnswers(t *testing.T) {
	k := newKnowledge(t, true)
	ctx := context.Background()
	lat, lon := 51.5074, -0.1278
	where := dialogue.Where{Lat: &lat, Lon: &lon}
	if h, err := k.News(ctx, dialogue.NewsQuery{Where: where}); err != nil || len(h) == 0 || h[0].Title == "" {
		t.Errorf("news %+v %v", h, err)
	}
	if m, err := k.Movies(ctx, dialogue.MovieQuery{Where: where}); err != nil || len(m) == 0 || len(m[0].Times) == 0 {
		t.Errorf("movies %+v %v", m, err)
	}
	if _, err := k.Restaurants(ctx, dialogue.RestaurantQuery{Where: where, OpenNow: true}); err != nil {
		t.Errorf("restaurants %v", err)
	}
	if s, err := k.Sports(ctx, dialogue.SportsQuery{Where: where, Sport: "soccer"}); err != nil || len(s) == 0 {
		t.Errorf("soccer %+v %v", s, err)
	}
	if _, err := k.Sports(ctx, dialogue.SportsQuery{Sport: "tennis"}); err != nil {
		t.Errorf("tennis %v", err)
	}
	if e, err := k.Events(ctx, dialogue.EventQuery{Where: where}); err != nil || len(e) == 0 {
		t.Errorf("events %+v %v", e, err)
	}
	if p, err := k.TV(ctx, dialogue.TVQuery{Where: where}); err != nil || len(p) == 0 {
		t.Errorf("tv %+v %v", p, err)
	}
	if l, err := k.Locate(ctx, dialogue.LocateQuery{Name: "New York"}); err != nil || l.Lat < 40 || l.Lat > 41 {
		t.Errorf("locate %+v %v", l, err)
	}
}

// TestSpanishWeatherAnswerReadsWell: the answer a Spanish speaker gets is
// a sentence ("En Madrid hace 7 °C y llueve"), in the user's units.
func TestSpanishWeatherAnswerReadsWell(t *testing.T) {
	for _, metric := range []bool{true, false} {
		k := newKnowledge(t, metric)
		e := dialogue.New(dialogue.Config{Knowledge: k, Clock: k.Now})
		r, err := e.Answer(context.Background(), dialogue.Request{Query: "¿qué tiempo hace en Madrid?", Lang: "es", UserID: 1})
		if err != nil {
			t.Fatal(err)
		}
		unit := map[bool]string{true: " °C y ", false: " °F y "}[metric]
		if !strings.HasPrefix(r.Responses.Text, "En Madrid hace ") || !strings.Contains(r.Responses.Text, unit) ||
			strings.Contains(r.Responses.Text, "está lluvia") || strings.Contains(r.Responses.Text, "está soleado") {
			t.Errorf("metric %v: %q", metric, r.Responses.Text)
		}
	}
}

type places []tracking.Place

func (p places) POIs(context.Context, int64) ([]tracking.Place, error) { return p, nil }

func TestHomeAndWorkFromTracking(t *testing.T) {
	k := newKnowledge(t, true)
	ctx := context.Background()
	q := dialogue.LocateQuery{Personal: "home", Asker: dialogue.Asker{UserID: 7}}
	if _, err := k.Locate(ctx, q); !errors.Is(err, dialogue.ErrNoData) {
		t.Fatalf("no places: %v", err)
	}
	k.Places = places{
		{Label: tracking.LabelOther, Lat: 1, Lon: 1, DwellMinutes: 900},
		{Label: tracking.LabelHome, Lat: 40.43, Lon: -3.70, DwellMinutes: 600},
		{Label: tracking.LabelHome, Lat: 40.44, Lon: -3.71, DwellMinutes: 30},
		{Label: tracking.LabelWork, Lat: 40.45, Lon: -3.69, DwellMinutes: 500},
	}
	if l, err := k.Locate(ctx, q); err != nil || l.Lat != 40.43 || l.Name != "Home" {
		t.Errorf("home: %+v %v", l, err)
	}
	q.Personal = "work"
	if l, err := k.Locate(ctx, q); err != nil || l.Lat != 40.45 {
		t.Errorf("work: %+v %v", l, err)
	}
	k.Places = places{{Label: tracking.LabelHome, Lat: 40.43, Lon: -3.70}}
	if _, err := k.Locate(ctx, q); !errors.Is(err, dialogue.ErrNoData) {
		t.Errorf("work without a work place: %v", err)
	}
}
