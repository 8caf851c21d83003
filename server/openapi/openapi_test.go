package openapi

import (
	"encoding/json"
	"testing"
)

func TestDocumentDescribesTheUnshownShapes(t *testing.T) {
	var d struct {
		Paths      map[string]map[string]any
		Components struct {
			Schemas map[string]struct {
				Properties map[string]any
			}
		}
	}
	if err := json.Unmarshal(Document(), &d); err != nil {
		t.Fatal(err)
	}
	for name, field := range map[string]string{"MatchItem": "homeTeam", "TVItem": "channel", "EventItem": "venue",
		"TrackingJob": "requestId", "Place": "dwellMinutes", "WeatherItem": "solarInfo", "MovieItem": "theater",
		"DialogueAnswer": "nextActions", "Error": "code"} {
		s, ok := d.Components.Schemas[name]
		if !ok {
			t.Errorf("no schema %s", name)
			continue
		}
		if _, ok := s.Properties[field]; !ok {
			t.Errorf("schema %s lacks %s: %v", name, field, s.Properties)
		}
	}
	if _, ok := d.Paths["/items/sport/match"]["get"]; !ok {
		t.Error("no GET /items/sport/match")
	}
	if _, ok := d.Paths["/storage/clear/{token}"]["delete"]; !ok {
		t.Error("no DELETE /storage/clear/{token}")
	}
}
