package places

import (
	"github.com/harkhq/hark/ui/common"
	"github.com/harkhq/hark/ui/internal/uitest"
	"strings"
	"testing"

	"github.com/harkhq/hark/client"
)

func TestPlacesUploadWatchAndMap(t *testing.T) {
	a, p := newScreen(t, uitest.SignedInClient(t), 120, 40)
	if !strings.Contains(a.View(), "No places yet") {
		t.Fatalf("empty places:\n%s", a.View())
	}
	press(t, a, "down")
	press(t, a, "down") // madrid
	press(t, a, "enter")
	if p.job == nil || p.job.Status != "completed" {
		t.Fatalf("upload job: %+v %s\n%s", p.job, p.errText, a.View())
	}
	if len(p.pois) == 0 {
		t.Fatalf("no places detected:\n%s", a.View())
	}
	v := a.View()
	if !strings.Contains(v, "1 "+p.pois[0].Label) || !strings.ContainsAny(v, "⠁⠂⠄⡀⠈⠐⠠⢀⣿") {
		t.Fatalf("map without labels or dots:\n%s", v)
	}
}

func TestBrailleMapPlacesPointsApart(t *testing.T) {
	pois := []client.Place{{Label: "Home", Lat: 40.40, Lon: -3.70}, {Label: "Work", Lat: 40.45, Lon: -3.65}}
	m := placesMap(pois, 40, 10)
	lines := strings.Split(m, "\n")
	if len(lines) != 10 {
		t.Fatalf("%d lines", len(lines))
	}
	home, work := -1, -1
	for i, l := range lines {
		if strings.Contains(l, "Home") {
			home = i
		}
		if strings.Contains(l, "Work") {
			work = i
		}
	}
	// North is up: Work (further north) is drawn above Home.
	if home < 0 || work < 0 || work >= home {
		t.Fatalf("home row %d, work row %d:\n%s", home, work, m)
	}
	if c := placesMap(pois[:1], 20, 5); !strings.Contains(c, "1 Home") {
		t.Fatalf("a single place:\n%s", c)
	}
}

func TestPlacesViewAtSizes(t *testing.T) {
	pois := []client.Place{{Label: "Home", Lat: 40.4168, Lon: -3.7038, Visits: 31, DwellMinutes: 9000},
		{Label: "Work", Lat: 40.4530, Lon: -3.6883, Visits: 22, DwellMinutes: 5200},
		{Label: "Other", Lat: 40.4381, Lon: -3.6796, Visits: 6, DwellMinutes: 300}}
	for _, size := range [][2]int{{80, 24}, {120, 40}, {40, 12}} {
		f := uitest.NewFakePlatform(t)
		f.JSON("GET /v2/tracking/pois", 200, pois)
		a, _ := newScreen(t, f.Client(t), size[0], size[1])
		v := a.View()
		for _, l := range strings.Split(v, "\n") {
			if common.CellWidth(l) > size[0] {
				t.Fatalf("%dx%d: line wider than the screen: %q", size[0], size[1], l)
			}
		}
		if !strings.Contains(v, "Home") {
			t.Fatalf("%dx%d: no Home:\n%s", size[0], size[1], v)
		}
	}
}
