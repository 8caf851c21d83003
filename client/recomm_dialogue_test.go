package client_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/harkhq/hark/client"
	"github.com/harkhq/hark/server"
)

// "recommend me a movie" answers from the recommendation service for the
// person asking, and says what the picks rest on: with no film table it
// says how to get one; then what is most watched; then the genres of their
// movie survey; then their own ratings.
func TestRecommendMeAMovie(t *testing.T) {
	c, _ := newClient(t, server.Config{})
	ctx := ctxT(t)
	tok, err := c.Auth.Register(ctx, "films@example.com", "correct horse", "Fil", "test")
	must(t, err)
	ask := func(q string) *client.DialogueResponse {
		t.Helper()
		resp, err := c.Dialogue.Text(ctx, q, 0)
		must(t, err)
		if len(resp.NextActions) != 0 {
			t.Errorf("%q: actions %+v", q, resp.NextActions)
		}
		return resp
	}
	if text := ask("recommend me a movie").Responses.Text; !strings.Contains(text, "press s to load the sample catalog") {
		t.Fatalf("without a film table: %q", text)
	}

	sum, err := c.Recomm.LoadSample(ctx)
	must(t, err)
	_, err = c.Recomm.WaitTraining(ctx, "sandbox-movies", sum.Tables[0].TrainRequestID, 20*time.Millisecond, nil)
	must(t, err)
	titles := map[string]string{} // title -> genres
	rows, err := c.Recomm.ItemsWithAttributes(ctx, "sandbox-movies", client.ListQuery{Limit: 100}, "title", "genres")
	must(t, err)
	for _, r := range rows {
		titles[r["title"].(string)] = strings.ToLower(strings.Trim(strings.Join(strings.Fields(strings.Trim(fmt.Sprint(r["genres"]), "[]")), ","), ","))
	}
	picked := func(resp *client.DialogueResponse) []string {
		var out []string
		for title := range titles {
			if strings.Contains(resp.Responses.Text, title) {
				out = append(out, title)
			}
		}
		return out
	}

	resp := ask("what should I watch tonight")
	if !strings.Contains(resp.Responses.Text, "Popular here") || len(picked(resp)) == 0 {
		t.Fatalf("no ratings, no survey: %q", resp.Responses.Text)
	}

	// The movie survey: comedy only.
	surveys, err := c.Surveys.List(ctx)
	must(t, err)
	for _, s := range surveys {
		sv, err := c.Surveys.Get(ctx, s.SurveyID)
		must(t, err)
		for _, it := range sv.Items {
			if strings.EqualFold(it.Text, "comedy") || strings.EqualFold(it.Text, "comedia") {
				_, err := c.Surveys.Save(ctx, sv.ID, []int{it.ID})
				must(t, err)
			}
		}
	}
	resp = ask("recommend me a movie")
	if !strings.Contains(resp.Responses.Text, "You like comedy") {
		t.Fatalf("with the survey: %q", resp.Responses.Text)
	}
	for _, title := range picked(resp) {
		if !strings.Contains(titles[title], "comedy") {
			t.Errorf("%q is not a comedy (%s): %q", title, titles[title], resp.Responses.Text)
		}
	}

	// Three ratings as the person (their username, as the Recommendations screen rates).
	must(t, c.Recomm.CreateUser(ctx, tok.Username, nil))
	five := 5.0
	for _, id := range []string{"m01", "m02", "m03"} {
		must(t, c.Recomm.AddRecord(ctx, "sandbox-movies", "rating", tok.Username, id, client.NewRecord{Value: &five}))
	}
	resp = ask("recommend me a movie")
	if !strings.Contains(resp.Responses.Text, "From your ratings") || !strings.Contains(resp.Responses.Text, "alt+r") || len(picked(resp)) == 0 {
		t.Fatalf("with ratings: %q", resp.Responses.Text)
	}

	// Spanish, same person.
	c.SetLanguage("es")
	resp = ask("recomiéndame una película")
	if !strings.Contains(resp.Responses.Text, "Por lo que has valorado") || len(picked(resp)) == 0 {
		t.Fatalf("in Spanish: %q", resp.Responses.Text)
	}
}
