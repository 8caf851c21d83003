package dialogue

import (
	"context"
	"strings"
	"testing"

	"github.com/harkhq/hark/server/geo"
)

// TestNavigatePlaces: categories go to the nearest real place of the
// gazetteer, names to that place, home and work to the user's places.
func TestNavigatePlaces(t *testing.T) {
	h := newHarness(t)
	at := func(lang, q string, lat, lon float64) Response {
		t.Helper()
		r, err := h.e.Answer(context.Background(), Request{Query: q, Lang: lang, TimeZone: h.loc, Now: h.now,
			Lat: &lat, Lon: &lon, UserID: 1})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	cases := []struct {
		lang, q  string
		lat, lon float64
		data     string
	}{
		// From Puerta del Sol, the Farmacia del Globo (570 m) beats the
		// Reina Madre (670 m).
		{"en", "take me to the nearest pharmacy", 40.4169, -3.7035,
			`{"destination":"Farmacia del Globo, Calle de Atocha 46","lat":40.4127,"lon":-3.6996}`},
		{"es", "llévame a la farmacia más cercana", 40.4169, -3.7035,
			`{"destination":"Farmacia del Globo, Calle de Atocha 46","lat":40.4127,"lon":-3.6996}`},
		// From lower Manhattan, Penn Station is nearer than Grand Central.
		{"en", "directions to the train station", 40.71, -74.0,
			`{"destination":"Pennsylvania Station","lat":40.7506,"lon":-73.9935}`},
		{"en", "navigate to the Prado", 51.5, -0.12,
			`{"destination":"Museo del Prado","lat":40.4138,"lon":-3.6921}`},
		{"en", "how do I get to Big Ben", 51.5, -0.12,
			`{"destination":"Big Ben","lat":51.5007,"lon":-0.1246}`},
		// A city named in the destination is where "nearest" counts from.
		{"en", "take me to the airport in Singapore", 40.71, -74.0,
			`{"destination":"Singapore Changi Airport","lat":1.3644,"lon":103.9915}`},
	}
	for _, c := range cases {
		r := at(c.lang, c.q, c.lat, c.lon)
		if a, d := actionJSON(t, r); a != "NAVIGATE" || d != c.data {
			t.Errorf("%q: got %s %s, want NAVIGATE %s (%s)", c.q, a, d, c.data, r.Responses.Text)
		}
	}
	if r := at("en", "take me to the nearest pharmacy", 40.4169, -3.7035); !strings.Contains(r.Responses.Text, "the nearest pharmacy") {
		t.Errorf("the answer should say the place is the nearest: %q", r.Responses.Text)
	}

	// Without a position, "nearest" asks where instead of guessing.
	r, _ := h.e.Answer(context.Background(), Request{Query: "take me to the nearest hospital", Now: h.now, UserID: 1})
	if len(r.NextActions) != 0 || !strings.Contains(r.Responses.Text, "nearest hospital") {
		t.Errorf("no position: %v %q", r.NextActions, r.Responses.Text)
	}

	// Home and work: unknown until tracking found them, and the answer
	// says how to get them, not "couldn't find".
	for _, q := range []string{"how do I get home", "drive to work"} {
		r := h.ask("en", q, 0)
		if len(r.NextActions) != 0 || !strings.Contains(r.Responses.Text, "Places") || strings.Contains(r.Responses.Text, "couldn't find") {
			t.Errorf("%q without places: %v %q", q, r.NextActions, r.Responses.Text)
		}
	}
	if r := h.ask("es", "llévame a casa", 0); !strings.Contains(r.Responses.Text, "Lugares") {
		t.Errorf("es without places: %q", r.Responses.Text)
	}
	h.k.personal = map[string]Location{"home": {Name: "Home", Lat: 40.43, Lon: -3.70}, "work": {Name: "Work", Lat: 40.45, Lon: -3.69}}
	for q, want := range map[string]string{
		"how do I get home":       `{"destination":"Home","lat":40.43,"lon":-3.7}`,
		"drive to work":           `{"destination":"Work","lat":40.45,"lon":-3.69}`,
		"take me to my office":    `{"destination":"Work","lat":40.45,"lon":-3.69}`,
		"cómo llego a mi trabajo": `{"destination":"Work","lat":40.45,"lon":-3.69}`,
	} {
		lang := "en"
		if strings.Contains(q, "ó") {
			lang = "es"
		}
		r := h.ask(lang, q, 0)
		if a, d := actionJSON(t, r); a != "NAVIGATE" || d != want {
			t.Errorf("%q: got %s %s, want NAVIGATE %s (%s)", q, a, d, want, r.Responses.Text)
		}
	}
}

// TestGazetteerData: every place lies in or near its city, and every
// category has a place in every city.
func TestGazetteerData(t *testing.T) {
	e := New(Config{})
	if len(e.cities) != 5 {
		t.Fatalf("%d cities, want the five sandbox cities", len(e.cities))
	}
	for _, c := range e.cities {
		cats := map[string]int{}
		for _, s := range c.spots {
			cats[s.Category]++
			if km := distanceTo(c, s); km > 60 {
				t.Errorf("%s: %s is %.0f km from the centre", c.Name, s.Name, km)
			}
		}
		for _, cat := range []string{"airport", "station", "hospital", "pharmacy", "museum", "park", "landmark"} {
			if cats[cat] == 0 {
				t.Errorf("%s has no %s", c.Name, cat)
			}
		}
	}
}

func distanceTo(c city, s spot) float64 { return geo.DistanceKm(c.Lat, c.Lon, s.Lat, s.Lon) }

// TestLanguagePerRequest: without a language the query says which; a
// query plainly in the other language is answered in it.
func TestLanguagePerRequest(t *testing.T) {
	h := newHarness(t)
	for _, c := range []struct{ lang, q, want, intent string }{
		{"", "¿qué hora es?", "es", "time"},
		{"", "pon una alarma a las siete", "es", "SET_ALARM"},
		{"", "what time is it", "en", "time"},
		{"", "set an alarm for seven", "en", "SET_ALARM"},
		{"en", "qué tiempo hace en Madrid", "es", "weather"},
		{"es", "what's the weather in London", "en", "weather"},
		// A query the named language reads stays in it.
		{"es", "hola", "es", "greeting"},
		{"en", "hello", "en", "greeting"},
	} {
		r, err := h.e.Answer(context.Background(), Request{Query: c.q, Lang: c.lang, TimeZone: h.loc, Now: h.now,
			Lat: &h.lat, Lon: &h.lon, UserID: 1})
		if err != nil {
			t.Fatal(err)
		}
		if r.Lang != c.want || r.Intent != c.intent {
			t.Errorf("%q (lang %q): answered %s %s (%q), want %s %s", c.q, c.lang, r.Lang, r.Intent, r.Responses.Text, c.want, c.intent)
		}
	}
}

// A kind of place named with a word that makes it another kind is not
// the gazetteer's category: "find a gas station" went to the nearest
// train station, and so did "la estación de servicio más cercana". The
// destination is the kind as said; the categories stay as they were.
func TestOtherKindsOfPlace(t *testing.T) {
	h := newHarness(t)
	for _, c := range []struct{ lang, q, want string }{
		{"en", "find a gas station", `{"destination":"Gas Station"`},
		{"en", "where is the nearest police station", `{"destination":"Police Station"`},
		{"es", "dónde está la estación de servicio más cercana", `{"destination":"Estación De Servicio"`},
		{"es", "llévame al parque de bomberos", `{"destination":"Parque De Bomberos"`},
		// the categories and named places as before
		{"en", "find a train station", `{"destination":"Pennsylvania Station"`},
		{"en", "take me to the london airport", `{"destination":"London City Airport"`},
		{"es", "llévame a la estación de tren", `{"destination":"Pennsylvania Station"`},
		{"es", "llévame al aeropuerto de madrid", `{"destination":"Adolfo Suárez Madrid-Barajas Airport"`},
		{"es", "llévame al museo del prado", `{"destination":"Museo del Prado"`},
	} {
		if action, data := actionJSON(t, h.ask(c.lang, c.q, 0)); action != "NAVIGATE" || !strings.HasPrefix(data, c.want) {
			t.Errorf("%q: %s %s, want NAVIGATE %s…", c.q, action, data, c.want)
		}
	}
}
