package client_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/harkhq/hark/client"
	"github.com/harkhq/hark/server"
)

// smallCatalog makes a table with 12 items, 8 users and 40 views.
func smallCatalog(t *testing.T, c *client.Client) {
	t.Helper()
	ctx := ctxT(t)
	r := c.Recomm
	must(t, r.CreateTable(ctx, client.NewTable{TableID: "shop", Engines: client.Engines{client.SlotDefault: client.EnginePopular}}))
	must(t, r.CreateInteraction(ctx, "shop", client.Interaction{InteractionID: "buy", Weight: 1, Type: client.InteractionUnary}))
	var b strings.Builder
	b.WriteString("userId,itemId,timestamp,interactionName,value\n")
	for u := 0; u < 8; u++ {
		for k := 0; k < 5; k++ {
			fmt.Fprintf(&b, "\"u%d\",\"i%d\",%d,\"buy\",1\n", u, (u+k*3)%12, 1_600_000_000_000+int64(u*10+k))
		}
	}
	items := "itemId\n"
	for i := 0; i < 12; i++ {
		items += fmt.Sprintf("\"i%d\"\n", i)
	}
	users := "userId\n"
	for u := 0; u < 8; u++ {
		users += fmt.Sprintf("\"u%d\"\n", u)
	}
	upload(t, c, "", "items.csv", items)
	upload(t, c, "", "users.csv", users)
	upload(t, c, "", "buys.csv", b.String())
	for _, step := range []struct {
		kind client.ImportKind
		run  func() (client.ImportJob, error)
	}{
		{client.ImportItems, func() (client.ImportJob, error) {
			return r.ImportItems(ctx, "shop", client.ImportRequest{URL: "storage:///items.csv", Format: client.FormatCSV})
		}},
		{client.ImportUsers, func() (client.ImportJob, error) {
			return r.ImportUsers(ctx, client.ImportRequest{URL: "storage:///users.csv", Format: client.FormatCSV})
		}},
		{client.ImportInteractions, func() (client.ImportJob, error) {
			return r.ImportInteractions(ctx, "shop", client.ImportRequest{URL: "storage:///buys.csv", Format: client.FormatCSV})
		}},
	} {
		job, err := step.run()
		must(t, err)
		table := "shop"
		if step.kind == client.ImportUsers {
			table = ""
		}
		job, err = r.WaitImport(ctx, step.kind, table, job.RequestID, 10*time.Millisecond, nil)
		if err != nil || job.Status != client.StatusCompleted {
			t.Fatalf("import %v: %+v %v", step.kind, job, err)
		}
	}
}

// A spent training budget answers 403 TrainingTimeOut.
func TestRecommTrainingBudget(t *testing.T) {
	c, _ := newClient(t, server.Config{MinInteractions: 5, TrainingBudget: time.Nanosecond})
	ctx := ctxT(t)
	smallCatalog(t, c)
	job, err := c.Recomm.Train(ctx, "shop", client.TrainRequest{Engine: client.EnginePopular})
	if err == nil {
		// The first training may start inside the budget and use it up.
		job, err = c.Recomm.WaitTraining(ctx, "shop", job.RequestID, 10*time.Millisecond, nil)
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.Recomm.Train(ctx, "shop", client.TrainRequest{Engine: client.EnginePopular})
	}
	wantCode(t, err, 403, "TrainingTimeOut")
}

// A batch over the remaining quota answers 403 QuotaExceeded.
func TestRecommQuota(t *testing.T) {
	c, _ := newClient(t, server.Config{MinInteractions: 5, RecommendationQuota: 20})
	ctx := ctxT(t)
	smallCatalog(t, c)
	job, err := c.Recomm.Train(ctx, "shop", client.TrainRequest{Engine: client.EnginePopular})
	must(t, err)
	if job, err = c.Recomm.WaitTraining(ctx, "shop", job.RequestID, 10*time.Millisecond, nil); err != nil || job.Status != client.StatusCompleted {
		t.Fatalf("training %+v %v", job, err)
	}
	_, err = c.Recomm.BatchItemsForUsers(ctx, "shop", client.BatchRequest{Configuration: client.BatchOptions{Limit: 5}})
	wantCode(t, err, 403, "QuotaExceeded")
	small, err := c.Recomm.BatchItemsForUsers(ctx, "shop", client.BatchRequest{Configuration: client.BatchOptions{Limit: 2}})
	if err != nil || small.RecommendationsCount != 16 {
		t.Fatalf("a batch inside the quota: %+v %v", small, err)
	}
	_, err = c.Recomm.BatchItemsForUsers(ctx, "shop", client.BatchRequest{Configuration: client.BatchOptions{Limit: 1}})
	wantCode(t, err, 403, "QuotaExceeded")
}
