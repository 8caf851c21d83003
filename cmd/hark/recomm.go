package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/harkhq/hark/client"
)

const recommUsage = `usage:
  hark recomm tables
  hark recomm import --table T --kind items|users|interactions --url URL|storage://FOLDER/FILE [--format csv|json] [--wait]
  hark recomm train --table T --engine hybrid|content_based|fm|isvd|popular [--wait]
  hark recomm recommend --table T (--user U | --item I) [--want items|users] [--engine E] [--filter RSQL] [--diversity 0..1] [--limit N]
`

func cmdRecomm(ctx context.Context, p *platform, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, recommUsage)
		return exitError{2}
	}
	r := p.Client.Recomm
	fs := flag.NewFlagSet("recomm "+args[0], flag.ContinueOnError)
	fs.SetOutput(stderr)
	table := fs.String("table", "", "table id")
	kind := fs.String("kind", "items", "what an import loads: items, users or interactions")
	url := fs.String("url", "", "import source")
	format := fs.String("format", client.FormatCSV, "import format: csv or json")
	wait := fs.Bool("wait", false, "wait until the job ends, printing its status changes")
	engine := fs.String("engine", "", "engine")
	user := fs.String("user", "", "recommend for this user")
	item := fs.String("item", "", "recommend for this item")
	want := fs.String("want", "items", "recommend items or users")
	filter := fs.String("filter", "", "RSQL filter on the recommended entities")
	diversity := fs.Float64("diversity", 0, "diversity, 0 to 1")
	limit := fs.Int("limit", 10, "how many")
	if err := fs.Parse(args[1:]); err != nil {
		return exitError{2}
	}
	needTable := func() error {
		if *table == "" {
			fmt.Fprintln(stderr, "hark recomm "+args[0]+": --table is required")
			return exitError{2}
		}
		return nil
	}
	switch args[0] {
	case "tables":
		ids, err := r.Tables(ctx)
		if err != nil {
			return err
		}
		for _, id := range ids {
			fmt.Fprintln(stdout, id)
		}
		return nil
	case "import":
		if err := needTable(); err != nil {
			return err
		}
		if *url == "" {
			fmt.Fprintln(stderr, "hark recomm import: --url is required")
			return exitError{2}
		}
		k, err := importKind(*kind)
		if err != nil {
			return err
		}
		req := client.ImportRequest{URL: *url, Format: *format}
		var job client.ImportJob
		switch k {
		case client.ImportItems:
			job, err = r.ImportItems(ctx, *table, req)
		case client.ImportUsers:
			job, err = r.ImportUsers(ctx, req)
		default:
			job, err = r.ImportInteractions(ctx, *table, req)
		}
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "import %s %s\n", job.RequestID, job.Status)
		if !*wait {
			return nil
		}
		last := job.Status
		job, err = r.WaitImport(ctx, k, *table, job.RequestID, 200*time.Millisecond, func(j client.ImportJob) {
			if j.Status != last {
				last = j.Status
				fmt.Fprintf(stdout, "import %s %s\n", j.RequestID, j.Status)
			}
		})
		if err != nil {
			return err
		}
		if job.Status != last {
			fmt.Fprintf(stdout, "import %s %s\n", job.RequestID, job.Status)
		}
		if n := len(job.NotAdded()); n > 0 {
			fmt.Fprintf(stdout, "%d not added, first: %s %s %s\n", n, job.NotAdded()[0].ErrorID, job.NotAdded()[0].Code, job.NotAdded()[0].Message)
		}
		if job.Status == client.StatusError {
			return fmt.Errorf("import failed: %s", job.Message)
		}
		return nil
	case "train":
		if err := needTable(); err != nil {
			return err
		}
		if *engine == "" {
			*engine = client.EngineHybrid
		}
		job, err := r.Train(ctx, *table, client.TrainRequest{Engine: *engine})
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "training %s %s\n", job.RequestID, job.Status)
		if !*wait {
			return nil
		}
		last := job.Status
		job, err = r.WaitTraining(ctx, *table, job.RequestID, 200*time.Millisecond, func(j client.TrainJob) {
			if j.Status != last {
				last = j.Status
				fmt.Fprintf(stdout, "training %s %s\n", j.RequestID, j.Status)
			}
		})
		if err != nil {
			return err
		}
		if job.Status != last {
			fmt.Fprintf(stdout, "training %s %s\n", job.RequestID, job.Status)
		}
		if job.Status != client.StatusCompleted {
			return fmt.Errorf("training ended %s: %s", job.Status, job.Message)
		}
		return nil
	case "recommend":
		if err := needTable(); err != nil {
			return err
		}
		if (*user == "") == (*item == "") {
			fmt.Fprintln(stderr, "hark recomm recommend: give exactly one of --user and --item")
			return exitError{2}
		}
		opt := client.RecommendOptions{Engine: *engine, Filter: *filter, Diversity: *diversity, Limit: *limit}
		recs, err := recommend(ctx, r, *table, *user, *item, *want, opt)
		if err != nil {
			return err
		}
		for _, rec := range recs {
			fmt.Fprintf(stdout, "%s\t%.1f\n", rec.ID(), rec.Match)
		}
		return nil
	}
	fmt.Fprint(stderr, recommUsage)
	return exitError{2}
}

func importKind(s string) (client.ImportKind, error) {
	switch strings.ToLower(s) {
	case "items":
		return client.ImportItems, nil
	case "users":
		return client.ImportUsers, nil
	case "interactions":
		return client.ImportInteractions, nil
	}
	return 0, fmt.Errorf("--kind %q: use items, users or interactions", s)
}

// recommend picks the path from the subject (user or item) and what is wanted.
func recommend(ctx context.Context, r *client.RecommService, table, user, item, want string, opt client.RecommendOptions) ([]client.Recommendation, error) {
	switch {
	case user != "" && want == "items":
		return r.ItemsForUser(ctx, table, user, opt)
	case user != "" && want == "users":
		return r.UsersForUser(ctx, table, user, opt)
	case item != "" && want == "items":
		return r.ItemsForItem(ctx, table, item, opt)
	case item != "" && want == "users":
		return r.UsersForItem(ctx, table, item, opt)
	}
	return nil, fmt.Errorf("--want %q: use items or users", want)
}
