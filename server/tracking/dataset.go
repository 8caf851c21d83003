package tracking

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"time"
)

// File is the tracking dataset file of the interface document.
type File struct {
	IDUsuario               int64             `json:"idUsuario"`
	TotalPoints             int64             `json:"totalPoints"`
	MeasuresCompleteness    float64           `json:"measuresCompleteness"`
	POIs                    []json.RawMessage `json:"pois"`
	AllClustersOnlyAccuracy []json.RawMessage `json:"allClustersOnlyAccuracy"`
	AllClusters             []json.RawMessage `json:"allClusters"`
	Points                  []Point           `json:"points"`
}

// Point is one GPS fix. Stamp is local wall-clock time in TimeZone, laid
// out as StampLayout; accuracy is in metres and speed in metres per second.
type Point struct {
	Stamp     string  `json:"stamp"`
	Latitude  float64 `json:"latitude"`
	Longitude float64 `json:"longitude"`
	TimeZone  string  `json:"timeZone"`
	Accuracy  float64 `json:"accuracy"`
	Speed     float64 `json:"speed"`
}

// fix is a validated point with its instant resolved.
type fix struct {
	at       time.Time // in the point's own zone, so wall-clock windows work
	lat, lon float64
	accuracy float64
	speed    float64
	point    Point
}

// errNotDataset marks input that is not a tracking dataset; its message is
// meant for the user who uploaded it.
var errNotDataset = errors.New("not a tracking dataset")

// parseDataset reads and validates a dataset file and returns its fixes in
// time order. Every error wraps errNotDataset and says what is wrong.
func parseDataset(data []byte) ([]fix, error) {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", errNotDataset, fmt.Sprintf(format, args...))
	}
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return nil, bad("the content is not a JSON object")
	}
	var f struct {
		TotalPoints *int64  `json:"totalPoints"`
		Points      []Point `json:"points"`
	}
	if err := json.Unmarshal(trimmed, &f); err != nil {
		var syn *json.SyntaxError
		var typ *json.UnmarshalTypeError
		switch {
		case errors.As(err, &syn):
			return nil, bad("invalid JSON at byte %d", syn.Offset)
		case errors.As(err, &typ):
			return nil, bad("field %q has the wrong type (%s, want %s)", typ.Field, typ.Value, typ.Type)
		default:
			return nil, bad("invalid JSON")
		}
	}
	if f.Points == nil {
		return nil, bad("no points list")
	}
	if len(f.Points) == 0 {
		return nil, bad("the points list is empty")
	}
	if f.TotalPoints != nil && *f.TotalPoints != int64(len(f.Points)) {
		return nil, bad("totalPoints is %d but the file holds %d points", *f.TotalPoints, len(f.Points))
	}
	return readPoints(f.Points)
}

// readPoints validates points and returns them as fixes in time order.
func readPoints(points []Point) ([]fix, error) {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", errNotDataset, fmt.Sprintf(format, args...))
	}
	zones := map[string]*time.Location{}
	fixes := make([]fix, 0, len(points))
	for i, p := range points {
		loc, ok := zones[p.TimeZone]
		if !ok {
			var err error
			if p.TimeZone == "" {
				return nil, bad("point %d has no timeZone", i)
			}
			loc, err = time.LoadLocation(p.TimeZone)
			if err != nil {
				return nil, bad("point %d: unknown timeZone", i)
			}
			zones[p.TimeZone] = loc
		}
		at, err := time.ParseInLocation(StampLayout, p.Stamp, loc)
		if err != nil {
			return nil, bad("point %d: stamp is not YYYY-MM-DD hh:mm:ss", i)
		}
		switch {
		case !finite(p.Latitude) || p.Latitude < -90 || p.Latitude > 90:
			return nil, bad("point %d: latitude %v out of range", i, p.Latitude)
		case !finite(p.Longitude) || p.Longitude < -180 || p.Longitude > 180:
			return nil, bad("point %d: longitude %v out of range", i, p.Longitude)
		case !finite(p.Accuracy) || p.Accuracy < 0:
			return nil, bad("point %d: accuracy %v is negative", i, p.Accuracy)
		case !finite(p.Speed) || p.Speed < 0:
			return nil, bad("point %d: speed %v is negative", i, p.Speed)
		}
		fixes = append(fixes, fix{at: at, lat: p.Latitude, lon: p.Longitude, accuracy: p.Accuracy, speed: p.Speed, point: p})
	}
	sort.SliceStable(fixes, func(i, j int) bool { return fixes[i].at.Before(fixes[j].at) })
	return fixes, nil
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
