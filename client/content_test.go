package client_test

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/harkhq/hark/client"
	"github.com/harkhq/hark/server"
)

// signedIn returns a client logged in as a new user.
func signedIn(t *testing.T) *client.Client {
	t.Helper()
	c, _ := newClient(t, server.Config{})
	if _, _, err := c.Auth.Anonymous(ctxT(t), "tester", "test-device", "Tess"); err != nil {
		t.Fatal(err)
	}
	return c
}

func at(c *client.Client, lat, lon float64) {
	c.SetRequestInfo(client.RequestInfo{Lat: &lat, Lon: &lon})
}

func TestSurveys(t *testing.T) {
	c := signedIn(t)
	ctx := ctxT(t)
	list, err := c.Surveys.List(ctx)
	if err != nil || len(list) < 5 {
		t.Fatalf("surveys: %+v %v", list, err)
	}
	s, err := c.Surveys.Get(ctx, list[0].SurveyID)
	if err != nil || len(s.Items) < 8 || s.Title != list[0].Title {
		t.Fatalf("survey: %+v %v", s, err)
	}
	// The icon URL is served as a PNG.
	resp, err := http.Get(s.Items[0].Image)
	if err != nil {
		t.Fatal(err)
	}
	png, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "image/png" || !strings.HasPrefix(string(png), "\x89PNG") {
		t.Fatalf("icon %s: %d %s", s.Items[0].Image, resp.StatusCode, resp.Header.Get("Content-Type"))
	}

	pick := []int{s.Items[1].ID, s.Items[3].ID}
	saved, err := c.Surveys.Save(ctx, s.ID, pick)
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range saved.Items {
		want := it.ID == pick[0] || it.ID == pick[1]
		if it.Selected != want || (want && it.Weight != 1) || (!want && it.Weight != 0) {
			t.Fatalf("after save, item %d: selected %v weight %v", it.ID, it.Selected, it.Weight)
		}
	}
	_, err = c.Surveys.Save(ctx, s.ID, []int{s.Items[0].ID, 999999})
	wantCode(t, err, 400, "InvalidArgument")
	again, _ := c.Surveys.Get(ctx, s.ID)
	for _, it := range again.Items {
		if it.Selected != (it.ID == pick[0] || it.ID == pick[1]) {
			t.Fatal("a refused save changed the selection")
		}
	}
	_, err = c.Surveys.Get(ctx, 987654)
	wantCode(t, err, 404, "EntityNotFound")
	_, err = c.Surveys.Save(ctx, 987654, nil)
	wantCode(t, err, 404, "EntityNotFound")
}

func TestItemsNewsMore(t *testing.T) {
	c := signedIn(t)
	ctx := ctxT(t)
	at(c, 40.4168, -3.7038)
	first, err := c.Items.List(ctx, "news", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	next, err := c.Items.More(ctx, "news")
	if err != nil || len(next.List) == 0 {
		t.Fatalf("more: %v", err)
	}
	if string(next.List[0]) == string(first.List[0]) {
		t.Errorf("the next news page starts with the first page's story")
	}
}

func TestItemsEveryPath(t *testing.T) {
	c := signedIn(t)
	ctx := ctxT(t)
	at(c, 40.4168, -3.7038) // Madrid
	paths := []string{"movies", "restaurants", "news", "news/personal", "news/local", "news/popular",
		"news/category/2090", "news/category/2091", "news/category/2092", "news/categories", "news/more",
		"weather", "breakdowns", "sport/match", "sport/soccer/ranking", "motor", "golf", "tennis", "biking",
		"nearevents", "tv"}
	for _, p := range paths {
		l, err := c.Items.List(ctx, p, 0, 0)
		if err != nil {
			t.Errorf("%s: %v", p, err)
			continue
		}
		if len(l.List) == 0 || l.Criteria.PageCriteria.Count != len(l.List) || l.Criteria.Lat != 40.4168 || l.Criteria.Type == "" {
			t.Errorf("%s: envelope %+v with %d elements", p, l.Criteria, len(l.List))
			continue
		}
		if p == "news/categories" {
			var cat client.NewsCategory
			if err := l.Decode(0, &cat); err != nil || cat.Name == "" || cat.ID == 0 {
				t.Errorf("news category %+v %v", cat, err)
			}
			if byPath, err := c.Items.List(ctx, cat.Path(), 0, 0); err != nil || len(byPath.List) == 0 {
				t.Errorf("category %s by its path: %v", cat.Path(), err)
			}
			continue
		}
		items, err := l.Items()
		if err != nil || items[0].UUID == "" || items[0].Type == "" {
			t.Errorf("%s: common fields %+v %v", p, items, err)
		}
	}
	w, err := c.Items.List(ctx, "weather", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	var weather client.WeatherItem
	if err := w.Decode(0, &weather); err != nil || weather.Current.City != "Madrid" || len(weather.ByHour) == 0 ||
		len(weather.ByDay) == 0 || weather.SolarInfo.SunRise == "" || len(weather.MoonPhases) == 0 {
		t.Fatalf("weather %+v %v", weather, err)
	}
	r, err := c.Items.List(ctx, "restaurants", 2, 5)
	if err != nil || len(r.List) != 5 || *r.Criteria.PageCriteria.Page != 2 || *r.Criteria.PageCriteria.RowsPerPage != 5 {
		t.Fatalf("restaurants page 2: %+v %v", r, err)
	}
	var rest client.RestaurantItem
	if err := r.Decode(0, &rest); err != nil || rest.Name == "" || rest.Latitude == "" {
		t.Fatalf("restaurant %+v %v", rest, err)
	}
}

func TestItemsBadInput(t *testing.T) {
	c := signedIn(t)
	ctx := ctxT(t)
	_, err := c.Items.List(ctx, "movies", 0, 0)
	wantCode(t, err, 400, "InvalidArgument")
	at(c, 91, 0)
	_, err = c.Items.List(ctx, "movies", 0, 0)
	wantCode(t, err, 400, "InvalidArgument")
	at(c, 51.5, -0.12)
	_, err = c.Items.List(ctx, "movies", 0, 101)
	wantCode(t, err, 400, "InvalidArgument")
	_, err = c.Items.List(ctx, "news/category/123456", 0, 0)
	wantCode(t, err, 404, "EntityNotFound")
	_, err = c.Items.List(ctx, "no-such-domain", 0, 0)
	wantCode(t, err, 404, "EntityNotFound")

	req, _ := http.NewRequest("GET", c.Config().BaseURL+"/items/movies", nil)
	req.Header.Set("Authorization", "Basic "+c.Token())
	req.Header.Set("Service-Request-Info", `{"lat": 51.5, "lon": `)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 400 {
		t.Fatalf("malformed Service-Request-Info answered %d", resp.StatusCode)
	}
}

func TestTrackingUploadFindsPlaces(t *testing.T) {
	c := signedIn(t)
	ctx := ctxT(t)
	job, err := c.Tracking.Upload(ctx, c.Tracking.DatasetURL("london"))
	if err != nil || job.Status != "queued" || job.RequestID == "" {
		t.Fatalf("upload: %+v %v", job, err)
	}
	job, err = c.Tracking.Wait(ctx, job.RequestID, 50*time.Millisecond, nil)
	if err != nil || job.Status != "completed" || job.Points == 0 {
		t.Fatalf("job: %+v %v", job, err)
	}
	places, err := c.Tracking.POIs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	labels := map[string]bool{}
	for _, p := range places {
		labels[p.Label] = true
	}
	if !labels["Home"] || !labels["Work"] {
		t.Fatalf("places %+v lack Home or Work", places)
	}

	_, err = c.Tracking.Upload(ctx, "http://example.com/data.json")
	wantCode(t, err, 400, "InvalidArgument")
	_, err = c.Tracking.Job(ctx, "no-such-job")
	wantCode(t, err, 404, "EntityNotFound")
	resp, err := http.Get(c.Config().BaseURL + "/datasets/atlantis.json")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 404 {
		t.Fatal(fmt.Sprint("unknown dataset answered ", resp.StatusCode))
	}
}
