package jobs

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/harkhq/hark/server/recomm/catalog"
	"github.com/harkhq/hark/server/recomm/engines"
	"github.com/harkhq/hark/server/recomm/recommend"
	"github.com/harkhq/hark/server/recomm/rsql"
	"github.com/harkhq/hark/server/store/storetest"
)

// movieLensCatalog loads the MovieLens sample (movies with genres and
// year, users, ratings as a continuous interaction) into a new catalog.
func movieLensCatalog(b *testing.B) (*catalog.Catalog, *Trainer, *recommend.Recommender) {
	dir := "../../../../shared/data/movielens-small/"
	ratings, err := os.Open(dir + "ratings.csv")
	if err != nil {
		b.Skipf("movielens data not available: %v", err)
	}
	defer ratings.Close()
	movies, err := os.Open(dir + "movies.csv")
	if err != nil {
		b.Skip(err)
	}
	defer movies.Close()
	db, err := storetest.Open(b, b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	ctx := context.Background()
	cat, err := catalog.Open(ctx, db)
	if err != nil {
		b.Fatal(err)
	}
	if err := cat.CreateTable(ctx, 1, "movies", nil, []catalog.Attribute{
		{ID: "title", Type: rsql.String}, {ID: "year", Type: rsql.Int, Indexed: true},
		{ID: "genres", Type: rsql.CategoryList, Indexed: true}}); err != nil {
		b.Fatal(err)
	}
	if err := cat.CreateInteraction(ctx, 1, "movies", catalog.InteractionDef{ID: "rating", Weight: 1,
		Type: catalog.Continuous, Min: ptr(0.5), Max: ptr(5)}); err != nil {
		b.Fatal(err)
	}
	var items, users, recs bytes.Buffer
	iw := csv.NewWriter(&items)
	iw.Write([]string{"itemId", "title", "year", "genres"})
	mr := csv.NewReader(bufio.NewReader(movies))
	mr.Read()
	for {
		rec, err := mr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			b.Fatal(err)
		}
		iw.Write([]string{rec[0], rec[1], rec[2], strings.ReplaceAll(rec[3], "|", ",")})
	}
	iw.Flush()
	users.WriteString("userId\n")
	recs.WriteString("userId,itemId,timestamp,interactionName,value\n")
	rr := csv.NewReader(bufio.NewReader(ratings))
	rr.Read()
	seen := map[string]bool{}
	for {
		rec, err := rr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			b.Fatal(err)
		}
		if !seen[rec[0]] {
			seen[rec[0]] = true
			users.WriteString(rec[0] + "\n")
		}
		fmt.Fprintf(&recs, "%s,%s,%s000,rating,%s\n", rec[0], rec[1], rec[3], rec[2])
	}
	opts := catalog.ImportOptions{Format: catalog.FormatCSV}
	if _, err := cat.ImportEntities(ctx, 1, "movies", &items, opts); err != nil {
		b.Fatal(err)
	}
	if _, err := cat.ImportEntities(ctx, 1, catalog.Users, &users, opts); err != nil {
		b.Fatal(err)
	}
	if _, err := cat.ImportInteractions(ctx, 1, "movies", &recs, opts); err != nil {
		b.Fatal(err)
	}
	models, _ := recommend.OpenModels(filepath.Join(b.TempDir(), "models"))
	tr := &Trainer{Catalog: cat, Models: models, DB: db}
	return cat, tr, &recommend.Recommender{Catalog: cat, Models: models}
}

func ptr(f float64) *float64 { return &f }

// BenchmarkRecommendMovieLens measures one items-for-user request with a
// filter and a sort on MovieLens (671 users, 9,066 movies, 100,004
// ratings), with the popular engine so the figure is the service's own
// cost: snapshot, the user's history, in-memory filtering and sorting.
func BenchmarkRecommendMovieLens(b *testing.B) {
	cat, tr, rec := movieLensCatalog(b)
	ctx := context.Background()
	status, res, err := tr.Run(ctx, Job{WS: 1, Scope: "movies", Kind: Train, Request: []byte(`{"engine":"popular"}`)})
	if err != nil || status != Completed {
		b.Fatal(status, res, err)
	}
	users, _ := cat.Snapshot(ctx, 1, catalog.Users)
	q := recommend.Query{Slot: catalog.SlotItemsToUser, Engine: "popular", Filter: "genres==Comedy;year=ge=1990",
		Sort: "year==DESC", Limit: 20}
	cpu0 := cpuTime()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		q.SubjectID = users.IDs[i%len(users.IDs)]
		out, err := rec.Recommend(ctx, 1, "movies", q)
		if err != nil || len(out) == 0 {
			b.Fatalf("recommend %s: %v %v", q.SubjectID, out, err)
		}
	}
	// the machine is shared: CPU time per request is the stable figure
	b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/1000/float64(b.N), "cpu-ms/op")
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkRatingToRecommendations measures what a person sees after rating a film: recording the
// rating (folded into the isvd model at once; the model is saved in the background) and the next items-for-user
// answer from that model, on MovieLens. A new user each time, so every answer depends on the
// ratings just given.
func BenchmarkRatingToRecommendations(b *testing.B) {
	cat, tr, rec := movieLensCatalog(b)
	cat.Recorded = rec.Learn
	b.Cleanup(rec.Models.WaitSaves) // before the temporary directory goes
	ctx := context.Background()
	status, res, err := tr.Run(ctx, Job{WS: 1, Scope: "movies", Kind: Train, Request: []byte(`{"engine":"isvd"}`)})
	if err != nil || status != Completed {
		b.Fatal(status, res, err)
	}
	items, _ := cat.Snapshot(ctx, 1, "movies")
	i := 0
	for b.Loop() {
		user := fmt.Sprintf("rater%d", i)
		if err := cat.AddEntity(ctx, 1, catalog.Users, user, nil); err != nil {
			b.Fatal(err)
		}
		if err := cat.AddRecord(ctx, 1, "movies", "rating", user, items.IDs[(i*37)%len(items.IDs)], nil, ptr(5)); err != nil {
			b.Fatal(err)
		}
		out, err := rec.Recommend(ctx, 1, "movies", recommend.Query{Slot: catalog.SlotItemsToUser, SubjectID: user, Engine: "isvd", Limit: 10})
		if err != nil || len(out) == 0 {
			b.Fatalf("recommend %s: %v %v", user, out, err)
		}
		i++
	}
}

// BenchmarkItemsForUserHybrid measures items-for-user requests on MovieLens with the hybrid engine,
// in process (no HTTP), unfiltered and filtered on the indexed genres and year, each ranking every
// item (full, today's path) and from the precomputed candidates, in the same run.
func BenchmarkItemsForUserHybrid(b *testing.B) {
	cat, tr, rec := movieLensCatalog(b)
	ctx := context.Background()
	full := &recommend.Recommender{Catalog: cat, Models: rec.Models, Candidates: -1}
	status, res, err := tr.Run(ctx, Job{WS: 1, Scope: "movies", Kind: Train, Request: []byte(`{"engine":"hybrid"}`)})
	if err != nil || status != Completed {
		b.Fatal(status, res, err)
	}
	start := time.Now()
	rec.Recommend(ctx, 1, "movies", recommend.Query{Slot: catalog.SlotItemsToUser, SubjectID: "1", Limit: 1})
	rec.WaitCandidates()
	build := time.Since(start)
	users, _ := cat.Snapshot(ctx, 1, catalog.Users)
	for _, filter := range []string{"", "genres==Comedy;year=ge=1990"} {
		for _, r := range []*recommend.Recommender{full, rec} {
			name := "unfiltered"
			if filter != "" {
				name = "filtered"
			}
			if r == full {
				name += "/full"
			} else {
				name += "/candidates"
			}
			served0, fellBack0 := rec.CandidateStats()
			b.Run(name, func(b *testing.B) {
				q := recommend.Query{Slot: catalog.SlotItemsToUser, Filter: filter, Limit: 20}
				i := 0
				cpu0 := cpuTime()
				for b.Loop() {
					q.SubjectID = users.IDs[i%len(users.IDs)]
					i++
					out, err := r.Recommend(ctx, 1, "movies", q)
					if err != nil || len(out) == 0 {
						b.Fatalf("recommend %s: %v %v", q.SubjectID, out, err)
					}
				}
				b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/1000/float64(b.N), "cpu-ms/op")
				if r == rec {
					served, fellBack := rec.CandidateStats()
					served, fellBack = served-served0, fellBack-fellBack0
					b.ReportMetric(100*float64(served)/float64(served+fellBack), "from-candidates-%")
					u, entries := rec.CandidateEntries()
					b.ReportMetric(float64(entries), "candidates")
					// an entry is an engines.Scored: id string header, score, match
					b.ReportMetric(float64(entries)*float64(unsafe.Sizeof(engines.Scored{}))/(1<<20), "candidates-MiB")
					b.ReportMetric(float64(u), "users")
					b.ReportMetric(build.Seconds(), "build-s")
				}
			})
		}
	}
}
