package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/harkhq/hark/client"
	"github.com/harkhq/hark/client/recommimport"
	"github.com/harkhq/hark/server"
	"github.com/harkhq/hark/server/recomm/evaluate"
	"github.com/harkhq/hark/server/servertest"
)

// BenchmarkRecommImportMovieLens loads MovieLens latest-small end to end (create the table, import
// users, movies and ratings, train hybrid) with one `hark recomm import movielens --wait`, and the
// same steps through the API one by one (files already in the contract's CSV layout, uploaded to
// storage, each job awaited), each on a fresh platform in the same run. It reports both wall times
// and their ratio.
func BenchmarkRecommImportMovieLens(b *testing.B) {
	dir := filepath.Join("..", "..", evaluate.MovieLensDir)
	if _, err := os.Stat(filepath.Join(dir, "ratings.csv")); err != nil {
		b.Skipf("MovieLens data not found at %s: %v", dir, err)
	}
	isolate(b)
	ml, err := recommimport.Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	files := map[string][]byte{}
	for _, step := range ml.Steps() {
		name, fill := map[client.ImportKind]string{client.ImportUsers: "users.csv", client.ImportItems: "movies.csv", client.ImportInteractions: "ratings.csv"}[step.Kind], step.Fill
		var buf bytes.Buffer
		w := csv.NewWriter(&buf)
		if err := fill(w); err != nil {
			b.Fatal(err)
		}
		w.Flush()
		files[name] = buf.Bytes()
	}
	var command, api time.Duration
	for b.Loop() {
		p := servertest.Start(b, server.Config{})
		args := []string{"--base-url", p.BaseURL, "--api-key", p.PublicKey, "--private-key", p.PrivateKey,
			"recomm", "import", "movielens", dir, "--table", "movies", "--wait", "--json"}
		start := time.Now()
		if code, out, errOut := hark(b, "", args...); code != 0 {
			b.Fatalf("import movielens: %d %s %s", code, out, errOut)
		}
		command += time.Since(start)

		p = servertest.Start(b, server.Config{})
		c, err := client.New(client.Config{BaseURL: p.BaseURL, PublicKey: p.PublicKey, PrivateKey: p.PrivateKey})
		if err != nil {
			b.Fatal(err)
		}
		start = time.Now()
		apiSteps(b, c, files)
		api += time.Since(start)
	}
	n := float64(b.N)
	b.ReportMetric(command.Seconds()/n, "command-s")
	b.ReportMetric(api.Seconds()/n, "api-steps-s")
	b.ReportMetric(command.Seconds()/api.Seconds(), "command/api")
}

// apiSteps is what a program does through the API to get the same table.
func apiSteps(b *testing.B, c *client.Client, files map[string][]byte) {
	ctx := context.Background()
	r := c.Recomm
	must := func(err error) {
		if err != nil {
			b.Fatal(err)
		}
	}
	must(r.CreateTable(ctx, client.NewTable{TableID: "movies", Engines: client.Engines{client.SlotDefault: client.EngineHybrid},
		Attributes: []client.Attribute{{AttributeID: "title", Type: client.TypeString}, {AttributeID: "year", Type: client.TypeInt, Indexed: true},
			{AttributeID: "genres", Type: client.TypeCategoryList}}}))
	lo, hi := 0.5, 5.0
	must(r.CreateInteraction(ctx, "movies", client.Interaction{InteractionID: "rating", Weight: 1, Type: client.InteractionContinuous, MinValue: &lo, MaxValue: &hi}))
	must(c.Storage.CreateFolder(ctx, "in"))
	for _, step := range []struct {
		file string
		kind client.ImportKind
	}{{"users.csv", client.ImportUsers}, {"movies.csv", client.ImportItems}, {"ratings.csv", client.ImportInteractions}} {
		_, err := c.Storage.Upload(ctx, "in", step.file, bytes.NewReader(files[step.file]), int64(len(files[step.file])), nil)
		must(err)
		req := client.ImportRequest{URL: "storage://in/" + step.file, Format: client.FormatCSV}
		var job client.ImportJob
		switch step.kind {
		case client.ImportUsers:
			job, err = r.ImportUsers(ctx, req)
		case client.ImportItems:
			job, err = r.ImportItems(ctx, "movies", req)
		default:
			job, err = r.ImportInteractions(ctx, "movies", req)
		}
		must(err)
		job, err = r.WaitImport(ctx, step.kind, "movies", job.RequestID, 100*time.Millisecond, nil)
		must(err)
		if job.Status != client.StatusCompleted {
			b.Fatalf("%s import %s", step.kind, job.Status)
		}
	}
	job, err := r.Train(ctx, "movies", client.TrainRequest{Engine: client.EngineHybrid})
	must(err)
	job, err = r.WaitTraining(ctx, "movies", job.RequestID, 100*time.Millisecond, nil)
	must(err)
	if job.Status != client.StatusCompleted {
		b.Fatal(fmt.Errorf("training %s", job.Status))
	}
}
