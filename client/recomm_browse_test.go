package client_test

import (
	"strings"
	"testing"
	"time"

	"github.com/harkhq/hark/client"
	"github.com/harkhq/hark/server"
)

// Browsing the sample catalog by title: load it, list and search by title, read a user's history,
// get titled and explained recommendations, rename the display attribute, list the jobs.
func TestRecommBrowseSample(t *testing.T) {
	c, _ := newClient(t, server.Config{})
	ctx := ctxT(t)
	r := c.Recomm
	sum, err := r.LoadSample(ctx)
	must(t, err)
	if sum.Users != 200 || len(sum.Tables) != 3 || sum.Tables[0].TableID != "sandbox-movies" {
		t.Fatalf("sample = %+v", sum)
	}
	// the films are enough here; the other tables train meanwhile
	job, err := r.WaitTraining(ctx, "sandbox-movies", sum.Tables[0].TrainRequestID, 20*time.Millisecond, nil)
	must(t, err)
	if job.Status != client.StatusCompleted {
		t.Fatalf("training of sandbox-movies: %+v", job)
	}
	if _, err := r.LoadSample(ctx); !client.IsCode(err, "EntityAlreadyExists") {
		t.Errorf("second load = %v", err)
	}
	table, err := r.Table(ctx, "sandbox-food", false)
	must(t, err)
	if table.DisplayAttribute != "name" {
		t.Errorf("display attribute of sandbox-food = %q", table.DisplayAttribute)
	}
	ids, err := r.Items(ctx, "sandbox-movies", client.ListQuery{Limit: 3})
	must(t, err)
	if strings.Join(ids, ",") != "m01,m02,m03" {
		t.Errorf("items = %v", ids)
	}
	found, err := r.ItemsWithAttributes(ctx, "sandbox-movies", client.ListQuery{Search: "ORBIT"}, "title")
	must(t, err)
	if len(found) != 1 || found[0]["title"] != "Orbit of Silence" {
		t.Errorf("search = %v", found)
	}
	hist, err := r.UserHistory(ctx, "sandbox-movies", "sandbox-u001", 0)
	must(t, err)
	if len(hist) < 4 || hist[0].InteractionID != "rating" {
		t.Fatalf("history = %+v", hist)
	}
	for i := 1; i < len(hist); i++ {
		if hist[i].Timestamp > hist[i-1].Timestamp {
			t.Errorf("history not newest first: %+v", hist)
		}
	}
	recs, err := r.ItemsForUser(ctx, "sandbox-movies", "sandbox-u001", client.RecommendOptions{Limit: 3, Attributes: []string{"title"}, Explain: true})
	must(t, err)
	if len(recs) != 3 {
		t.Fatalf("recommendations = %+v", recs)
	}
	for _, rec := range recs {
		if title, _ := rec.Values["title"].(string); title == "" || len(rec.Because) == 0 {
			t.Errorf("recommendation without title or reasons: %+v", rec)
		}
	}
	more, err := r.ItemsForItem(ctx, "sandbox-movies", "m03", client.RecommendOptions{Limit: 2, Attributes: []string{"title"}})
	must(t, err)
	if len(more) != 2 || more[0].ItemID == "m03" || more[0].Values["title"] == nil {
		t.Errorf("more like m03 = %+v", more)
	}
	must(t, r.SetDisplayAttribute(ctx, "sandbox-food", "cuisines"))
	if table, _ = r.Table(ctx, "sandbox-food", false); table.DisplayAttribute != "cuisines" {
		t.Errorf("display attribute after the change = %q", table.DisplayAttribute)
	}
	jobs, err := r.Jobs(ctx, 0)
	must(t, err)
	if len(jobs) != 3 || jobs[2].TableID != "sandbox-movies" || jobs[2].Kind != "train" {
		t.Errorf("jobs = %+v", jobs)
	}
}
