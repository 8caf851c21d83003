package main

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/harkhq/hark/client"
	"github.com/harkhq/hark/server/store/storetest"
)

// TestSharedPlatformOnPostgres runs two harkd on one PostgreSQL database and one --data directory,
// as two processes behind a load balancer (README, PostgreSQL as the store), and checks that a
// client may be sent to either at any step: a storage file written through one is read through the
// other, a conversation started on one continues on the other, a catalog change made on one is seen
// on the other at its next request, and a model trained by one is served by the other within a second
// of the training's end, the old model serving until then.
func TestSharedPlatformOnPostgres(t *testing.T) {
	t.Setenv("HARKD_STORE", storetest.PostgresURL(t))
	ctx := context.Background()
	data := t.TempDir()
	var logA, logB syncBuffer
	a := startHarkdLogging(t, &logA, append(serveArgs(data), "--min-interactions", "5")...)
	b := startHarkdLogging(t, &logB, append(serveArgs(data), "--min-interactions", "5")...)
	defer func() {
		if t.Failed() {
			t.Logf("log of A:\n%s\nlog of B:\n%s", logA.String(), logB.String())
		}
	}()
	ca, cb := a.client(t), b.client(t)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}

	t.Run("storage", func(t *testing.T) {
		body := []byte("shared between processes\n")
		_, err := ca.Storage.Upload(ctx, "", "shared.txt", bytes.NewReader(body), int64(len(body)), nil)
		must(err)
		var got bytes.Buffer
		if _, err := cb.Storage.Download(ctx, "", "shared.txt", &got, nil); err != nil || !bytes.Equal(got.Bytes(), body) {
			t.Fatalf("download on B: %q %v", got.String(), err)
		}
	})

	t.Run("conversation", func(t *testing.T) {
		tok, err := ca.Auth.Register(ctx, "cora@example.com", "correct horse", "Cora", "dev-1")
		must(err)
		ca.SetToken(tok.Token)
		cb.SetToken(tok.Token)
		first, err := ca.Dialogue.Text(ctx, "please set an alarm", 0)
		must(err)
		if len(first.NextActions) != 1 || first.NextActions[0].Action != "OPEN_ASR" {
			t.Fatalf("A's answer to a request without a time: %+v, want OPEN_ASR", first.NextActions)
		}
		second, err := cb.Dialogue.Text(ctx, "seven thirty", first.Context.Ref)
		must(err)
		if len(second.NextActions) != 1 || second.NextActions[0].Action != "SET_ALARM" {
			t.Fatalf("B's answer to the time in A's conversation: %q %+v, want SET_ALARM", second.Responses.Text, second.NextActions)
		}
	})

	t.Run("recommendations", func(t *testing.T) {
		ra, rb := ca.Recomm, cb.Recomm
		must(ra.CreateTable(ctx, client.NewTable{TableID: "films", Engines: client.Engines{client.SlotDefault: client.EngineHybrid}}))
		must(ra.CreateInteraction(ctx, "films", client.Interaction{InteractionID: "watch", Weight: 1, Type: client.InteractionBinary}))
		// B answers at once about what A created: no stale cache of the catalog.
		if tables, err := rb.Tables(ctx); err != nil || !slices.Contains(tables, "films") {
			t.Fatalf("tables on B right after A created one: %v %v", tables, err)
		}
		for i := range 12 {
			must(rb.CreateItem(ctx, "films", fmt.Sprintf("f%02d", i), nil))
		}
		for u := range 8 {
			must(ra.CreateUser(ctx, fmt.Sprintf("u%d", u), nil))
		}
		if items, err := ra.Items(ctx, "films", client.ListQuery{}); err != nil || len(items) != 12 {
			t.Fatalf("items on A after B created 12: %v %v", items, err)
		}
		// two taste groups: users 0-3 watch f00-f05, users 4-7 watch f06-f11, each leaving one out
		record := func(r *client.RecommService, user, item int) {
			must(r.AddRecord(ctx, "films", "watch", fmt.Sprintf("u%d", user), fmt.Sprintf("f%02d", item), client.NewRecord{Value: ptr(1)}))
		}
		for u := range 8 {
			base := u / 4 * 6
			for k := range 6 {
				if k != u%4 {
					record([]*client.RecommService{ra, rb}[u%2], u, base+k)
				}
			}
		}
		train := func() time.Time {
			job, err := ra.Train(ctx, "films", client.TrainRequest{Engine: client.EngineHybrid})
			must(err)
			if job, err = ra.WaitTraining(ctx, "films", job.RequestID, 10*time.Millisecond, nil); err != nil || job.Status != client.StatusCompleted {
				t.Fatalf("training on A: %+v %v", job, err)
			}
			return time.Now()
		}
		list := func(r *client.RecommService) string {
			recs, err := r.ItemsForUser(ctx, "films", "u0", client.RecommendOptions{Limit: 3})
			if err != nil {
				return "error: " + err.Error()
			}
			var s []string
			for _, rec := range recs {
				s = append(s, fmt.Sprintf("%s:%.4f", rec.ItemID, rec.Match))
			}
			return strings.Join(s, " ")
		}
		// served by B within a second of A's training's end; until then B answers with its old model
		converge := func() time.Duration {
			t.Helper()
			done := train()
			want := list(ra)
			for got := list(rb); got != want; got = list(rb) {
				if strings.HasPrefix(got, "error") || time.Since(done) > time.Second {
					t.Fatalf("B serves %q %v after A trained; A serves %q", got, time.Since(done), want)
				}
				time.Sleep(10 * time.Millisecond)
			}
			return time.Since(done)
		}
		d1 := converge()
		old := list(rb)
		// u0 now shares the second group's taste: the new model ranks f06-f11 first for u0
		for k := 6; k < 12; k++ {
			record(rb, 0, k)
			for u := 1; u < 4; u++ {
				record(ra, u, k)
			}
		}
		d2 := converge()
		if list(rb) == old {
			t.Fatalf("the second model did not change u0's recommendations (%q): the test proves nothing", old)
		}
		t.Logf("B served A's models %v and %v after the trainings ended", d1, d2)
	})
}
