package tracking

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

const smallDataset = `{"idUsuario": 1, "totalPoints": 2, "measuresCompleteness": 1, "pois": [], "allClustersOnlyAccuracy": [], "allClusters": [],
 "points": [
  {"stamp": "2020-02-01 08:05:00", "latitude": 40.4345, "longitude": -3.7038, "timeZone": "Europe/Madrid", "accuracy": 12.5, "speed": 0},
  {"stamp": "2020-02-01 08:00:00", "latitude": 40.4346, "longitude": -3.7037, "timeZone": "Europe/Madrid", "accuracy": 10, "speed": 0.2}
 ]}`

func TestParseDataset(t *testing.T) {
	fixes, err := parseDataset([]byte(smallDataset))
	if err != nil {
		t.Fatal(err)
	}
	if len(fixes) != 2 || fixes[0].point.Stamp != "2020-02-01 08:00:00" {
		t.Fatalf("fixes not in time order: %+v", fixes)
	}
	if _, off := fixes[0].at.Zone(); off != 3600 {
		t.Errorf("stamp read with offset %d, want Madrid's 3600", off)
	}

	bad := map[string]string{
		``:               "not a JSON object",
		`[]`:             "not a JSON object",
		`{"points": 3}`:  "wrong type",
		`{}`:             "no points list",
		`{"points": []}`: "empty",
		`{"points": [{"stamp": "2020-02-01T08:00:00", "latitude": 1, "longitude": 1, "timeZone": "UTC"}]}`:                   "stamp",
		`{"points": [{"stamp": "2020-02-01 08:00:00", "latitude": 91, "longitude": 1, "timeZone": "UTC"}]}`:                  "latitude",
		`{"points": [{"stamp": "2020-02-01 08:00:00", "latitude": 1, "longitude": -181, "timeZone": "UTC"}]}`:                "longitude",
		`{"points": [{"stamp": "2020-02-01 08:00:00", "latitude": 1, "longitude": 1, "timeZone": "Mars/Olympus"}]}`:          "unknown timeZone",
		`{"points": [{"stamp": "2020-02-01 08:00:00", "latitude": 1, "longitude": 1}]}`:                                      "no timeZone",
		`{"points": [{"stamp": "2020-02-01 08:00:00", "latitude": 1, "longitude": 1, "timeZone": "UTC", "accuracy": -1}]}`:   "accuracy",
		`{"points": [{"stamp": "2020-02-01 08:00:00", "latitude": 1, "longitude": 1, "timeZone": "UTC", "speed": -1}]}`:      "speed",
		`{"totalPoints": 5, "points": [{"stamp": "2020-02-01 08:00:00", "latitude": 1, "longitude": 1, "timeZone": "UTC"}]}`: "totalPoints is 5",
		strings.Repeat("{", 20): "invalid JSON",
	}
	for in, want := range bad {
		_, err := parseDataset([]byte(in))
		if err == nil || !errors.Is(err, errNotDataset) || !strings.Contains(err.Error(), want) {
			t.Errorf("parseDataset(%.40q) = %v, want an error about %q", in, err, want)
		}
	}
}

func FuzzParseDataset(f *testing.F) {
	f.Add([]byte(smallDataset))
	f.Add([]byte(`{"points": [{"stamp": "2020-02-29 23:59:59", "latitude": -90, "longitude": 180, "timeZone": "Asia/Singapore", "accuracy": 0, "speed": 0}]}`))
	f.Add([]byte(`{"points": null}`))
	f.Add([]byte(`{"points": [{"stamp": 1}]}`))
	f.Add([]byte(`{"points": [{"timeZone": "../../etc/passwd"}]}`))
	f.Add([]byte("\xff\xfe{"))
	f.Fuzz(func(t *testing.T, data []byte) {
		fixes, err := parseDataset(data)
		if err != nil {
			if !errors.Is(err, errNotDataset) {
				t.Fatalf("error %v does not mark the input as not a dataset", err)
			}
			return
		}
		if len(fixes) == 0 {
			t.Fatal("accepted a dataset without points")
		}
		for i, fx := range fixes {
			if fx.lat < -90 || fx.lat > 90 || fx.lon < -180 || fx.lon > 180 || fx.accuracy < 0 || fx.speed < 0 {
				t.Fatalf("accepted out-of-range fix %+v", fx.point)
			}
			if i > 0 && fx.at.Before(fixes[i-1].at) {
				t.Fatal("fixes out of time order")
			}
		}
		// What was accepted reads back the same once written out again.
		pts := make([]Point, len(fixes))
		for i, fx := range fixes {
			pts[i] = fx.point
		}
		again, err := json.Marshal(File{Points: pts, TotalPoints: int64(len(pts))})
		if err != nil {
			t.Fatal(err)
		}
		back, err := parseDataset(again)
		if err != nil || len(back) != len(fixes) {
			t.Fatalf("re-reading the accepted points: %v", err)
		}
		detectPlaces(fixes)
	})
}
