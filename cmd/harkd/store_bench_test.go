package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/harkhq/hark/client"
	"github.com/harkhq/hark/server"
	"github.com/harkhq/hark/server/httpapi"
	"github.com/harkhq/hark/server/recomm/catalog"
	"github.com/harkhq/hark/server/recomm/rsql"
	"github.com/harkhq/hark/server/store"
	"github.com/harkhq/hark/server/store/storetest"
)

// benchSeconds is how long each set-up of BenchmarkStoreEngines is loaded
// (HARK_BENCH_SECONDS, default 5).
func benchSeconds() time.Duration {
	if n, err := strconv.ParseFloat(os.Getenv("HARK_BENCH_SECONDS"), 64); err == nil && n > 0 {
		return time.Duration(n * float64(time.Second))
	}
	return 5 * time.Second
}

// engineLoad is a platform under load: its harkd processes (a client uses
// the one its number picks, as a round-robin balancer would) and a token.
type engineLoad struct {
	addrs []string
	token string
}

// BenchmarkStoreEngines puts the same load — 64 concurrent clients, each
// cycling through a text query (/query/text), an item list
// (/items/restaurants), a signed storage exists and a signed items-to-user
// recommendation (a hybrid model of 300 users, 200 items, 9,000 ratings) —
// on one harkd on SQLite, one on PostgreSQL and two on one PostgreSQL
// database and one --data directory (the clients split between them as a
// round-robin balancer would), one after the other in the same run, and
// reports requests/s, p50 and p99 of each, with the p99 of each kind.
// The second process starts after training and loads the model from the
// shared directory. The PostgreSQL cluster is storetest's, on the same
// machine, with fsync off (SQLite runs with synchronous=NORMAL in WAL
// mode, which does not sync each commit either).
func BenchmarkStoreEngines(b *testing.B) {
	setups := []struct {
		name  string
		procs int
		pg    bool
	}{{"sqlite", 1, false}, {"pg1", 1, true}, {"pg2", 2, true}}
	type result struct {
		reqs, p50, p99 float64
		kindP99        []float64
	}
	results := make([]result, len(setups))
	b.ResetTimer()
	for i, s := range setups {
		b.StopTimer()
		data := b.TempDir()
		spec := ""
		if s.pg {
			spec = storetest.PostgresURL(b)
		}
		b.Setenv("HARKD_STORE", spec)
		var load engineLoad
		args := append(serveArgs(data), "--processes", strconv.Itoa(s.procs), "--min-interactions", "5", "--tuning-budget", "0")
		hs := []*harkd{startHarkd(b, args...)}
		waitSteady(b, hs[0].cmd.Process.Pid)
		c := hs[0].client(b)
		ctx := context.Background()
		tok, err := c.Auth.Register(ctx, "bench@example.com", "correct horse", "Bench", "dev-1")
		if err != nil {
			b.Fatal(err)
		}
		load.token = tok.Token
		if _, err := c.Storage.Upload(ctx, "", "here.txt", bytes.NewReader([]byte("x")), 1, nil); err != nil {
			b.Fatal(err)
		}
		trainRecommendations(b, c, data)
		// The other processes start once the model is trained and find
		// it in the shared directory, as they would after a restart.
		for range s.procs - 1 {
			h := startHarkd(b, args...)
			waitSteady(b, h.cmd.Process.Pid)
			hs = append(hs, h)
		}
		for _, h := range hs {
			load.addrs = append(load.addrs, h.addr)
			// The first request for a table builds its candidates.
			if _, err := h.client(b).Recomm.ItemsForUser(ctx, "movies", "u1", client.RecommendOptions{Limit: 10}); err != nil {
				b.Fatalf("recommendations from %s: %v", h.addr, err)
			}
			waitSteady(b, h.cmd.Process.Pid)
		}
		b.StartTimer()
		lat, byKind, elapsed := runLoad(b, load, benchSeconds())
		b.StopTimer()
		results[i] = result{float64(len(lat)) / elapsed.Seconds(), percentile(lat, 0.50), percentile(lat, 0.99), nil}
		for _, k := range byKind {
			results[i].kindP99 = append(results[i].kindP99, percentile(k, 0.99))
		}
		for _, h := range hs {
			h.cmd.Process.Kill()
			h.cmd.Wait()
		}
	}
	for i, s := range setups {
		b.ReportMetric(results[i].reqs, s.name+"-req/s")
		b.ReportMetric(results[i].p50, s.name+"-p50-ms")
		b.ReportMetric(results[i].p99, s.name+"-p99-ms")
		for k, name := range loadKinds {
			b.ReportMetric(results[i].kindP99[k], s.name+"-"+name+"-p99-ms")
		}
	}
}

// loadKinds names the requests of runLoad, in its order.
var loadKinds = []string{"query", "items", "exists", "recommend"}

// benchUsers and benchItems size the recommendation table of the load.
const benchUsers, benchItems, benchRatings = 300, 200, 30

// trainRecommendations gives the workspace a table "movies" of benchItems
// items rated by benchUsers users (benchRatings each, a fixed pseudo-random
// draw), imported from CSV files through storage, and trains its hybrid
// engine.
func trainRecommendations(b *testing.B, c *client.Client, dir string) {
	ctx := context.Background()
	var items, users, ratings bytes.Buffer
	items.WriteString("itemId,title,year,genres\n")
	genres := []string{"Comedy", "Drama", "Horror", "Sci-Fi", "Crime"}
	for i := range benchItems {
		fmt.Fprintf(&items, "m%d,\"Movie %d\",%d,\"%s,%s\"\n", i, i, 1950+i%70, genres[i%5], genres[(i/5)%5])
	}
	users.WriteString("userId\n")
	ratings.WriteString("userId,itemId,timestamp,interactionName,value\n")
	rng := rand.New(rand.NewPCG(1, 2))
	for u := range benchUsers {
		fmt.Fprintf(&users, "u%d\n", u)
		for k, i := range rng.Perm(benchItems)[:benchRatings] {
			fmt.Fprintf(&ratings, "u%d,m%d,%d,rating,%.1f\n", u, i, 1_700_000_000_000+int64(u*benchRatings+k), 0.5+float64(rng.IntN(10))/2)
		}
	}
	r := c.Recomm
	must := func(err error) {
		if err != nil {
			b.Fatal(err)
		}
	}
	must(r.CreateTable(ctx, clientMovieTable()))
	must(r.CreateInteraction(ctx, "movies", movieRating()))
	for name, buf := range map[string]*bytes.Buffer{"movies.csv": &items, "users.csv": &users, "ratings.csv": &ratings} {
		_, err := c.Storage.Upload(ctx, "", name, bytes.NewReader(buf.Bytes()), int64(buf.Len()), nil)
		must(err)
	}
	importAndWait(b, c, "items", "movies", "storage:///movies.csv")
	importAndWait(b, c, "users", "", "storage:///users.csv")
	importAndWait(b, c, "interactions", "movies", "storage:///ratings.csv")
	job, err := r.Train(ctx, "movies", client.TrainRequest{Engine: client.EngineHybrid})
	must(err)
	if job, err = r.WaitTraining(ctx, "movies", job.RequestID, 50*time.Millisecond, nil); err != nil || job.Status != client.StatusCompleted {
		b.Fatalf("training: %+v %v", job, err)
	}
}

// percentile is the p-th (0-1) of sorted latencies, in milliseconds.
func percentile(sorted []time.Duration, p float64) float64 {
	return float64(sorted[int(p*float64(len(sorted)-1))].Microseconds()) / 1000
}

// runLoad runs 64 clients against load for d and returns the sorted
// latencies of all requests and of each kind, and the time taken. Any
// answer but 200 fails the benchmark.
func runLoad(b *testing.B, load engineLoad, d time.Duration) ([]time.Duration, [][]time.Duration, time.Duration) {
	const clients = 64
	tr := &http.Transport{MaxIdleConnsPerHost: clients, MaxIdleConns: 2 * clients}
	hc := &http.Client{Transport: tr, Timeout: 30 * time.Second}
	defer tr.CloseIdleConnections()
	queries := []string{"what time is it", "set a timer for five minutes", "what's the weather in Madrid",
		"turn on the lights", "play some jazz", "set an alarm for seven thirty am", "what's on tv", "tell me a joke"}
	var nonce atomic.Int64
	prefix := strconv.FormatInt(time.Now().UnixNano(), 36)
	kinds := []func(base string, i int) *http.Request{
		func(base string, i int) *http.Request {
			body, _ := json.Marshal(map[string]string{"q": queries[i%len(queries)]})
			req, _ := http.NewRequest("POST", base+"/v2/query/text", bytes.NewReader(body))
			req.Header.Set("Authorization", "Basic "+load.token)
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Service-Request-Info", `{"lat": 40.4168, "lon": -3.7038}`)
			return req
		},
		func(base string, i int) *http.Request {
			req, _ := http.NewRequest("GET", base+"/v2/items/restaurants?rowsPerPage=10", nil)
			req.Header.Set("Authorization", "Basic "+load.token)
			req.Header.Set("Service-Request-Info", `{"lat": 40.4168, "lon": -3.7038}`)
			return req
		},
		func(base string, i int) *http.Request {
			path := "/v2/storage/file/exists/here.txt"
			req, _ := http.NewRequest("GET", base+path, nil)
			ts := strconv.FormatInt(time.Now().UnixMilli(), 10)
			n := prefix + "-" + strconv.FormatInt(nonce.Add(1), 10)
			req.Header.Set(httpapi.HeaderAPIKey, "pk_crash")
			req.Header.Set(httpapi.HeaderTimestamp, ts)
			req.Header.Set(httpapi.HeaderNonce, n)
			req.Header.Set(httpapi.HeaderHMAC, base64.StdEncoding.EncodeToString(httpapi.Sign("sk_crash", path, ts, n)))
			return req
		},
		func(base string, i int) *http.Request {
			// signed like every recommendation request: path and query
			resource := fmt.Sprintf("/v2/recomm/movies/users/u%d/items?limit=10", i%benchUsers)
			req, _ := http.NewRequest("GET", base+resource, nil)
			ts := strconv.FormatInt(time.Now().UnixMilli(), 10)
			n := prefix + "-" + strconv.FormatInt(nonce.Add(1), 10)
			req.Header.Set(httpapi.HeaderAPIKey, "pk_crash")
			req.Header.Set(httpapi.HeaderTimestamp, ts)
			req.Header.Set(httpapi.HeaderNonce, n)
			req.Header.Set(httpapi.HeaderHMAC, base64.StdEncoding.EncodeToString(httpapi.Sign("sk_crash", resource, ts, n)))
			return req
		},
	}
	var mu sync.Mutex
	var all []time.Duration
	byKind := make([][]time.Duration, len(kinds))
	var failures []string
	var wg sync.WaitGroup
	start := time.Now()
	deadline := start.Add(d)
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			base := "http://" + load.addrs[c%len(load.addrs)]
			var mine []time.Duration
			mineByKind := make([][]time.Duration, len(kinds))
			var failed []string
			for i := c; time.Now().Before(deadline); i++ {
				req := kinds[i%len(kinds)](base, i/len(kinds))
				t0 := time.Now()
				resp, err := hc.Do(req)
				if err == nil {
					body, _ := io.ReadAll(resp.Body)
					resp.Body.Close()
					if resp.StatusCode != http.StatusOK && len(failed) < 3 {
						failed = append(failed, fmt.Sprintf("%s %s: %d %.200s", req.Method, req.URL.Path, resp.StatusCode, body))
					}
				} else if len(failed) < 3 {
					failed = append(failed, err.Error())
				}
				lat := time.Since(t0)
				mine = append(mine, lat)
				mineByKind[i%len(kinds)] = append(mineByKind[i%len(kinds)], lat)
			}
			mu.Lock()
			all = append(all, mine...)
			for k := range byKind {
				byKind[k] = append(byKind[k], mineByKind[k]...)
			}
			failures = append(failures, failed...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	if len(failures) > 0 {
		b.Fatalf("requests failed, e.g.: %q", failures)
	}
	for _, l := range append(byKind, all) {
		sort.Slice(l, func(i, j int) bool { return l[i] < l[j] })
	}
	return all, byKind, elapsed
}

// BenchmarkImportMovieLens measures the import rate of MovieLens's
// interactions (rows/s): through a real harkd on SQLite, from a file in
// its storage (sqlite-http-); and through the recommendation catalog
// itself on each engine, from the same file (sqlite-catalog-,
// pg-catalog-). There is no PostgreSQL figure over HTTP: in this tree
// harkd serve still opens the catalog in SQLite under --data whatever the
// store (the server's wiring of the PostgreSQL catalog is not merged), so
// it would measure SQLite again.
func BenchmarkImportMovieLens(b *testing.B) {
	dir := b.TempDir()
	items, users, ratings, rows := movieLensFiles(b, dir)
	var httpRate, pgHTTPRate, sqliteRate, pgRate float64
	for i := range b.N {
		b.Setenv("HARKD_STORE", "")
		httpRate = importRate(b, filepath.Join(dir, "data-"+strconv.Itoa(i)), items, users, ratings, rows)
		b.Setenv("HARKD_STORE", storetest.PostgresURL(b))
		pgHTTPRate = importRate(b, filepath.Join(dir, "data-pg-"+strconv.Itoa(i)), items, users, ratings, rows)
		b.Setenv("HARKD_STORE", "")
		sqliteRate = catalogImportRate(b, store.SQLite, items, users, ratings, rows)
		pgRate = catalogImportRate(b, store.Postgres, items, users, ratings, rows)
	}
	b.ReportMetric(httpRate, "sqlite-http-import-rows/s")
	b.ReportMetric(pgHTTPRate, "pg-http-import-rows/s")
	b.ReportMetric(sqliteRate, "sqlite-catalog-import-rows/s")
	b.ReportMetric(pgRate, "pg-catalog-import-rows/s")
}

// catalogImportRate imports the MovieLens files into a new catalog on
// engine and returns the rows per second of the interactions' import.
func catalogImportRate(b *testing.B, engine store.Engine, items, users, ratings string, rows int) float64 {
	b.StopTimer()
	defer b.StartTimer()
	ctx := context.Background()
	var db *sql.DB
	var err error
	if engine == store.Postgres {
		db, err = store.OpenPostgres(ctx, storetest.PostgresURL(b))
	} else {
		db, err = store.Open(b.TempDir())
	}
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	c, err := catalog.Open(ctx, db)
	if err != nil {
		b.Fatal(err)
	}
	const ws = 1
	must := func(err error) {
		if err != nil {
			b.Fatal(err)
		}
	}
	must(c.CreateTable(ctx, ws, "movies", nil, []catalog.Attribute{{ID: "title", Type: rsql.String},
		{ID: "year", Type: rsql.Int, Indexed: true}, {ID: "genres", Type: rsql.CategoryList, Indexed: true}}))
	must(c.CreateInteraction(ctx, ws, "movies", catalog.InteractionDef{ID: "rating", Weight: 1, Type: catalog.Continuous,
		Min: ptr(0.5), Max: ptr(5)}))
	load := func(path string, imp func(r io.Reader) (catalog.ImportResult, error), want int) {
		f, err := os.Open(path)
		must(err)
		defer f.Close()
		res, err := imp(f)
		must(err)
		if want > 0 && res.Added != want {
			b.Fatalf("%s: %d of %d rows added (%+v)", path, res.Added, want, res)
		}
	}
	opts := catalog.ImportOptions{Format: catalog.FormatCSV}
	load(items, func(r io.Reader) (catalog.ImportResult, error) { return c.ImportEntities(ctx, ws, "movies", r, opts) }, 0)
	load(users, func(r io.Reader) (catalog.ImportResult, error) {
		return c.ImportEntities(ctx, ws, catalog.Users, r, opts)
	}, 0)
	start := time.Now()
	b.StartTimer()
	load(ratings, func(r io.Reader) (catalog.ImportResult, error) {
		return c.ImportInteractions(ctx, ws, "movies", r, opts)
	}, rows)
	b.StopTimer()
	return float64(rows) / time.Since(start).Seconds()
}

// importRate loads the MovieLens files into a new harkd on data and
// returns the rows per second of the interactions' import.
func importRate(b *testing.B, data, items, users, ratings string, rows int) float64 {
	b.StopTimer()
	defer b.StartTimer()
	os.RemoveAll(data)
	h := startHarkd(b, serveArgs(data)...)
	defer func() { h.cmd.Process.Kill(); h.cmd.Wait() }()
	c := h.client(b)
	ctx := context.Background()
	r := c.Recomm
	must := func(err error) {
		if err != nil {
			b.Fatal(err)
		}
	}
	must(r.CreateTable(ctx, clientMovieTable()))
	must(r.CreateInteraction(ctx, "movies", movieRating()))
	for _, f := range []string{items, users, ratings} {
		file, err := os.Open(f)
		must(err)
		fi, _ := file.Stat()
		_, err = c.Storage.Upload(ctx, "", filepath.Base(f), file, fi.Size(), nil)
		file.Close()
		must(err)
	}
	importAndWait(b, c, "items", "movies", "storage:///movies.csv")
	importAndWait(b, c, "users", "", "storage:///users.csv")
	start := time.Now()
	b.StartTimer()
	importAndWait(b, c, "interactions", "movies", "storage:///ratings.csv")
	b.StopTimer()
	return float64(rows) / time.Since(start).Seconds()
}

// clientMovieTable is the movies table of BenchmarkRecommMovieLens.
func clientMovieTable() client.NewTable {
	return client.NewTable{TableID: "movies", Engines: client.Engines{client.SlotDefault: client.EngineHybrid},
		Attributes: []client.Attribute{{AttributeID: "title", Type: client.TypeString},
			{AttributeID: "year", Type: client.TypeInt, Indexed: true},
			{AttributeID: "genres", Type: client.TypeCategoryList, Indexed: true}}}
}

func movieRating() client.Interaction {
	return client.Interaction{InteractionID: "rating", Weight: 1,
		Type: client.InteractionContinuous, MinValue: ptr(0.5), MaxValue: ptr(5)}
}

// importAndWait runs one import (kind items, users or interactions) of the
// file at url and waits until it completes.
func importAndWait(b *testing.B, c *client.Client, kind, table, url string) {
	ctx := context.Background()
	req := client.ImportRequest{URL: url, Format: client.FormatCSV}
	var job client.ImportJob
	var err error
	var k client.ImportKind
	switch kind {
	case "items":
		k = client.ImportItems
		job, err = c.Recomm.ImportItems(ctx, table, req)
	case "users":
		k = client.ImportUsers
		job, err = c.Recomm.ImportUsers(ctx, req)
	default:
		k = client.ImportInteractions
		job, err = c.Recomm.ImportInteractions(ctx, table, req)
	}
	if err != nil {
		b.Fatalf("import %s: %v", kind, err)
	}
	job, err = c.Recomm.WaitImport(ctx, k, table, job.RequestID, 20*time.Millisecond, nil)
	if err != nil || job.Status != client.StatusCompleted {
		b.Fatalf("import %s: %+v %v", kind, job, err)
	}
}

// BenchmarkStoreCopy measures harkd store copy: an embedded platform's
// database with 200,000 spoken-answer rows (HARK_BENCH_ROWS), a table as
// wide as most of harkd's, copied into a new PostgreSQL database (rows/s,
// migration and sequence reset included).
func BenchmarkStoreCopy(b *testing.B) {
	rows := 200_000
	if n, err := strconv.Atoi(os.Getenv("HARK_BENCH_ROWS")); err == nil && n > 0 {
		rows = n
	}
	dir := b.TempDir()
	ctx := context.Background()
	if err := server.Migrate(ctx, "", dir); err != nil {
		b.Fatal(err)
	}
	db, err := store.Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	tx, err := db.Begin()
	if err != nil {
		b.Fatal(err)
	}
	for i := range rows {
		if _, err := tx.Exec(`INSERT INTO spoken(id, lang, speech, created_ms) VALUES($1, 'en', $2, $3)`,
			i+1, fmt.Sprintf("It is %d degrees and sunny in Madrid, with a light breeze from the north.", i%40), 1_700_000_000_000+int64(i)); err != nil {
			b.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	db.Close()
	var elapsed time.Duration
	b.ResetTimer()
	for range b.N {
		url := storetest.PostgresURL(b)
		start := time.Now()
		if err := run([]string{"store", "copy", "--from", "sqlite:" + dir, "--to", url}, io.Discard, io.Discard); err != nil {
			b.Fatal(err)
		}
		elapsed += time.Since(start)
	}
	b.ReportMetric(float64(rows*b.N)/elapsed.Seconds(), "rows/s")
}
