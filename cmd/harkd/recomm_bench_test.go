package main

import (
	"bufio"
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/harkhq/hark/client"
)

const movieLens = "../../../shared/data/movielens-small/"

// movieLensFiles converts MovieLens into the import formats of the
// recommendation document, in dir.
func movieLensFiles(b *testing.B, dir string) (items, users, ratings string, rows int) {
	open := func(name string) *csv.Reader {
		f, err := os.Open(movieLens + name)
		if err != nil {
			b.Skipf("MovieLens not found (%v)", err)
		}
		b.Cleanup(func() { f.Close() })
		r := csv.NewReader(bufio.NewReader(f))
		r.Read() // header
		return r
	}
	create := func(name, header string) (*os.File, *bufio.Writer) {
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			b.Fatal(err)
		}
		w := bufio.NewWriter(f)
		w.WriteString(header + "\n")
		return f, w
	}
	mf, mw := create("movies.csv", "itemId,title,year,genres")
	movies := open("movies.csv")
	for rec, err := movies.Read(); err != io.EOF; rec, err = movies.Read() {
		fmt.Fprintf(mw, "%s,%q,%s,%q\n", rec[0], strings.ReplaceAll(rec[1], `"`, `'`), rec[2], strings.ReplaceAll(rec[3], "|", ","))
	}
	mw.Flush()
	mf.Close()
	uf, uw := create("users.csv", "userId")
	rf, rw := create("ratings.csv", "userId,itemId,timestamp,interactionName,value")
	seen := map[string]bool{}
	r := open("ratings.csv")
	for rec, err := r.Read(); err != io.EOF; rec, err = r.Read() {
		if !seen[rec[0]] {
			seen[rec[0]] = true
			fmt.Fprintf(uw, "%s\n", rec[0])
		}
		fmt.Fprintf(rw, "%s,%s,%s000,rating,%s\n", rec[0], rec[1], rec[3], rec[2])
		rows++
	}
	uw.Flush()
	uf.Close()
	rw.Flush()
	rf.Close()
	return filepath.Join(dir, "movies.csv"), filepath.Join(dir, "users.csv"), filepath.Join(dir, "ratings.csv"), rows
}

// BenchmarkRecommMovieLens loads MovieLens into a real harkd through the
// client (storage upload, imports), trains the hybrid engine, and
// measures the interaction import rate, the training time, the latency of
// unfiltered and filtered items-to-user requests over HTTP, and harkd's
// memory. Latencies are measured twice in the same run: ranking every item
// per request (a second harkd on the same data with --recomm-candidates 0,
// today's path, "full-") and from the precomputed candidates ("cand-").
func BenchmarkRecommMovieLens(b *testing.B) {
	dir := b.TempDir()
	items, users, ratings, rows := movieLensFiles(b, dir)
	data := filepath.Join(dir, "data")
	h := startHarkd(b, append(serveArgs(data), "--min-interactions", "5")...)
	c := h.client(b)
	ctx := context.Background()
	waitSteady(b, h.cmd.Process.Pid)
	rssEmpty := rss(b, h.cmd.Process.Pid, "VmRSS:")
	r := c.Recomm
	must := func(err error) {
		if err != nil {
			b.Fatal(err)
		}
	}
	must(r.CreateTable(ctx, client.NewTable{TableID: "movies", Engines: client.Engines{client.SlotDefault: client.EngineHybrid},
		Attributes: []client.Attribute{{AttributeID: "title", Type: client.TypeString},
			{AttributeID: "year", Type: client.TypeInt, Indexed: true},
			{AttributeID: "genres", Type: client.TypeCategoryList, Indexed: true}}}))
	must(r.CreateInteraction(ctx, "movies", client.Interaction{InteractionID: "rating", Weight: 1,
		Type: client.InteractionContinuous, MinValue: ptr(0.5), MaxValue: ptr(5)}))
	for _, f := range []string{items, users, ratings} {
		file, _ := os.Open(f)
		fi, _ := file.Stat()
		_, err := c.Storage.Upload(ctx, "", filepath.Base(f), file, fi.Size(), nil)
		file.Close()
		must(err)
	}
	wait := func(kind client.ImportKind, table string, job client.ImportJob, err error) {
		must(err)
		job, err = r.WaitImport(ctx, kind, table, job.RequestID, 20*time.Millisecond, nil)
		if err != nil || job.Status != client.StatusCompleted {
			b.Fatalf("import: %+v %v", job, err)
		}
	}
	job, err := r.ImportItems(ctx, "movies", client.ImportRequest{URL: "storage:///movies.csv", Format: client.FormatCSV})
	wait(client.ImportItems, "movies", job, err)
	job, err = r.ImportUsers(ctx, client.ImportRequest{URL: "storage:///users.csv", Format: client.FormatCSV})
	wait(client.ImportUsers, "", job, err)
	start := time.Now()
	job, err = r.ImportInteractions(ctx, "movies", client.ImportRequest{URL: "storage:///ratings.csv", Format: client.FormatCSV})
	wait(client.ImportInteractions, "movies", job, err)
	importTime := time.Since(start)
	start = time.Now()
	tjob, err := r.Train(ctx, "movies", client.TrainRequest{Engine: client.EngineHybrid})
	must(err)
	if tjob, err = r.WaitTraining(ctx, "movies", tjob.RequestID, 50*time.Millisecond, nil); err != nil || tjob.Status != client.StatusCompleted {
		b.Fatalf("training: %+v %v", tjob, err)
	}
	trainTime := time.Since(start)

	// the first request starts the candidates' build; wait until it has run (its memory settles)
	if _, err := r.ItemsForUser(ctx, "movies", "1", client.RecommendOptions{Limit: 20}); err != nil {
		b.Fatal(err)
	}
	buildStart := time.Now()
	waitSteady(b, h.cmd.Process.Pid)
	buildTime := time.Since(buildStart)

	// the baseline: a harkd on the same data that ranks every item per request
	base := startHarkd(b, append(serveArgs(data), "--min-interactions", "5", "--recomm-candidates", "0")...)
	bc := base.client(b).Recomm
	waitSteady(b, base.cmd.Process.Pid)

	n := max(b.N, 671) // every user at least once
	// harkd's CPU time per request is the figure the machine's other work disturbs least
	measure := func(r *client.RecommService, pid int, filter string) (p50, p99, cpu float64) {
		cpu0 := procCPU(b, pid)
		lat := make([]time.Duration, 0, n)
		for i := 0; i < n; i++ {
			t0 := time.Now()
			recs, err := r.ItemsForUser(ctx, "movies", fmt.Sprint(1+i%671), client.RecommendOptions{Filter: filter, Limit: 20})
			lat = append(lat, time.Since(t0))
			if err != nil || len(recs) == 0 {
				b.Fatalf("recommend: %v %v", recs, err)
			}
		}
		sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
		return float64(lat[len(lat)/2].Microseconds()) / 1000, float64(lat[len(lat)*99/100].Microseconds()) / 1000,
			(procCPU(b, pid) - cpu0).Seconds() * 1000 / float64(n)
	}
	b.ResetTimer()
	// alternate the two servers, so that both see the same share of the machine's noise
	var fig [2][2][3][]float64 // [full, cand][unfiltered, filtered][p50, p99, cpu]
	pids := []int{base.cmd.Process.Pid, h.cmd.Process.Pid}
	for round := 0; round < 3; round++ {
		for s, srv := range []*client.RecommService{bc, r} {
			for f, filter := range []string{"", "genres==Comedy;year=ge=1990"} {
				p50, p99, cpu := measure(srv, pids[s], filter)
				fig[s][f][0] = append(fig[s][f][0], p50)
				fig[s][f][1] = append(fig[s][f][1], p99)
				fig[s][f][2] = append(fig[s][f][2], cpu)
			}
		}
	}
	b.StopTimer()
	median := func(v []float64) float64 { sort.Float64s(v); return v[len(v)/2] }
	for s, server := range []string{"full", "cand"} {
		for f, kind := range []string{"unfiltered", "filtered"} {
			b.ReportMetric(median(fig[s][f][0]), server+"-"+kind+"-p50-ms")
			b.ReportMetric(median(fig[s][f][1]), server+"-"+kind+"-p99-ms")
			b.ReportMetric(median(fig[s][f][2]), server+"-"+kind+"-cpu-ms/op")
		}
	}
	b.ReportMetric(buildTime.Seconds(), "candidates-build-s")
	b.ReportMetric(float64(rows)/importTime.Seconds(), "import-rows/s")
	b.ReportMetric(trainTime.Seconds(), "hybrid-train-s")
	b.ReportMetric(float64(rssEmpty)/(1<<20), "harkd-RSS-empty-MiB")
	b.ReportMetric(float64(rss(b, h.cmd.Process.Pid, "VmRSS:"))/(1<<20), "harkd-RSS-loaded-MiB")
}

func ptr(f float64) *float64 { return &f }

// procCPU is the user and system CPU time a process has used.
func procCPU(b *testing.B, pid int) time.Duration {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		b.Fatal(err)
	}
	// the fields after the command name, which is in parentheses: utime and stime are 14th and 15th
	f := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+2:]))
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * time.Second / 100 // clock ticks (USER_HZ 100 on Linux)
}
