package tracking

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

var generatedFiles = struct {
	sync.Mutex
	files map[string]*File
}{files: map[string]*File{}}

// generated is a city's dataset generated afresh (not through Dataset's
// cache), once per test binary.
func generated(t *testing.T, c city) *File {
	t.Helper()
	generatedFiles.Lock()
	defer generatedFiles.Unlock()
	if f := generatedFiles.files[c.slug]; f != nil {
		return f
	}
	f, err := generate(c)
	if err != nil {
		t.Fatal(err)
	}
	generatedFiles.files[c.slug] = f
	return f
}

func TestDatasetDeterministicAndWellFormed(t *testing.T) {
	for _, c := range cities {
		t.Run(c.slug, func(t *testing.T) {
			b, err := Dataset(c.slug)
			if err != nil {
				t.Fatal(err)
			}
			fresh := generated(t, c)
			again, err := json.Marshal(fresh)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(b, again) {
				t.Fatal("two generations of the same city differ")
			}
			if len(b) > 4<<20 {
				t.Errorf("dataset is %d bytes, want at most 4 MiB", len(b))
			}

			// Exactly the documented fields, in a fixed order, points last.
			head := regexp.MustCompile(`^\{"idUsuario":(\d+),"totalPoints":(\d+),"measuresCompleteness":0\.\d+,` +
				`"pois":\[\],"allClustersOnlyAccuracy":\[\],"allClusters":\[\],"points":\[` +
				`\{"stamp":"2020-02-01 00:00:00","latitude":-?\d+\.\d+,"longitude":-?\d+\.\d+,"timeZone":"[A-Za-z_/]+","accuracy":\d+(\.\d)?,"speed":\d+(\.\d+)?\},`)
			m := head.FindSubmatch(b[:400])
			if m == nil {
				t.Fatalf("dataset does not start with the documented fields: %s", b[:400])
			}
			if string(m[1]) != strconv.FormatInt(c.userID, 10) || string(m[2]) != strconv.Itoa(len(fresh.Points)) {
				t.Errorf("idUsuario %s totalPoints %s, want %d and %d", m[1], m[2], c.userID, len(fresh.Points))
			}
			if !bytes.HasSuffix(b, []byte("}]}")) || !json.Valid(b) {
				t.Error("dataset is not valid JSON ending with the points list")
			}

			f := fresh
			if f.IDUsuario != c.userID || f.TotalPoints != int64(len(f.Points)) {
				t.Errorf("idUsuario %d totalPoints %d points %d", f.IDUsuario, f.TotalPoints, len(f.Points))
			}
			if f.MeasuresCompleteness < 0.8 || f.MeasuresCompleteness >= 1 {
				t.Errorf("measuresCompleteness %v, want in [0.8, 1)", f.MeasuresCompleteness)
			}
			loc, err := time.LoadLocation(c.zone)
			if err != nil {
				t.Fatal(err)
			}
			var prev time.Time
			moving := 0
			for i, p := range f.Points {
				at, err := time.ParseInLocation(StampLayout, p.Stamp, loc)
				if err != nil {
					t.Fatalf("point %d: %v", i, err)
				}
				if at.Year() != 2020 || at.Month() != time.February {
					t.Fatalf("point %d at %s, outside February 2020", i, p.Stamp)
				}
				if !at.After(prev) {
					t.Fatalf("point %d at %s not after %s", i, p.Stamp, prev)
				}
				prev = at
				if p.TimeZone != c.zone {
					t.Fatalf("point %d zone %q, want %q", i, p.TimeZone, c.zone)
				}
				if d := distance(p.Latitude, p.Longitude, c.home.lat, c.home.lon); d > 20000 {
					t.Fatalf("point %d is %.0f m from home, outside the city", i, d)
				}
				if p.Accuracy <= 0 || p.Accuracy > 400 || p.Speed < 0 || p.Speed > 20 {
					t.Fatalf("point %d accuracy %v speed %v", i, p.Accuracy, p.Speed)
				}
				if p.Speed > 3 {
					moving++
				}
			}
			if moving < 29*2*5 {
				t.Errorf("%d points at riding speed, want commutes on every day", moving)
			}
			if !strings.HasPrefix(f.Points[0].Stamp, "2020-02-01 00:0") {
				t.Errorf("first stamp %s", f.Points[0].Stamp)
			}
			t.Logf("%s: %d points, %d bytes, completeness %v", c.slug, len(f.Points), len(b), f.MeasuresCompleteness)
		})
	}
}

func TestDatasetUnknownCity(t *testing.T) {
	for _, slug := range []string{"", "paris", "../madrid", "Madrid"} {
		if _, err := Dataset(slug); err == nil {
			t.Errorf("Dataset(%q) succeeded", slug)
		}
	}
}

func TestPlacesFoundInEveryCity(t *testing.T) {
	for _, c := range cities {
		t.Run(c.slug, func(t *testing.T) {
			fixes, err := readPoints(generated(t, c).Points)
			if err != nil {
				t.Fatal(err)
			}
			places := detectPlaces(fixes)
			byLabel := map[string][]Place{}
			for _, p := range places {
				byLabel[p.Label] = append(byLabel[p.Label], p)
			}
			t.Logf("%+v", places)
			check := func(label string, want latLon) {
				t.Helper()
				if len(byLabel[label]) != 1 {
					t.Fatalf("%d places labelled %s, want 1: %+v", len(byLabel[label]), label, places)
				}
				p := byLabel[label][0]
				if d := distance(p.Lat, p.Lon, want.lat, want.lon); d > 150 {
					t.Errorf("%s found %.0f m from the simulated one", label, d)
				}
			}
			check(LabelHome, c.home)
			check(LabelWork, c.office)
			leisure := false
			for _, p := range byLabel[LabelOther] {
				if distance(p.Lat, p.Lon, c.leisure.lat, c.leisure.lon) <= 150 {
					leisure = true
				}
			}
			if !leisure {
				t.Errorf("the leisure place is not among the Other places: %+v", places)
			}
			if len(places) > 3 {
				t.Errorf("%d places, want the 3 simulated ones", len(places))
			}
		})
	}
}
