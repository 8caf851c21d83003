package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harkhq/hark/client"
	"github.com/harkhq/hark/server"
	"github.com/harkhq/hark/server/servertest"
)

// grouplens writes a small MovieLens directory as GroupLens ships it: the year in the titles,
// genres separated by |, timestamps in seconds, a byte-order mark and CRLF lines in movies.csv,
// and a tags.csv.
func grouplens(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	var movies, ratings, tags strings.Builder
	movies.WriteString("\ufeffmovieId,title,genres\r\n")
	genres := []string{"Comedy|Romance", "Action|Sci-Fi", "Drama"}
	for m := 1; m <= 30; m++ {
		fmt.Fprintf(&movies, "%d,\"Film %d, The (%d)\",%s\r\n", m, m, 1990+m%20, genres[m%3])
	}
	movies.WriteString("31,Untitled,(no genres listed)\r\n")
	ratings.WriteString("userId,movieId,rating,timestamp\n")
	for u := 1; u <= 20; u++ {
		for k := 0; k < 8; k++ {
			m := 1 + (u%3+3*((u+k)%10))%30
			fmt.Fprintf(&ratings, "%d,%d,%.1f,%d\n", u, m, 3.5+float64(k%3)/2, 1200000000+u*100+k)
		}
	}
	tags.WriteString("userId,movieId,tag,timestamp\n1,2,space opera,1200000000\n2,2,\"lasers, lots\",1200000001\n")
	for name, body := range map[string]string{"movies.csv": movies.String(), "ratings.csv": ratings.String(), "tags.csv": tags.String()} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestRecommImportMovieLens(t *testing.T) {
	isolate(t)
	p := servertest.Start(t, server.Config{MinInteractions: 5})
	r := []string{"--base-url", p.BaseURL, "--api-key", p.PublicKey, "--private-key", p.PrivateKey}
	dir := grouplens(t)

	code, out, errOut := hark(t, "", append(r, "recomm", "import", "movielens", dir, "--table", "films", "--wait", "--json")...)
	if code != 0 {
		t.Fatalf("import movielens: %d %s %s", code, out, errOut)
	}
	var sum movieLensSummary
	if err := json.Unmarshal([]byte(out), &sum); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	counts := []int{20, 31, 160}
	for i, o := range sum.Imports {
		if o.Status != client.StatusCompleted || o.Added != counts[i] || o.NotAdded != 0 {
			t.Errorf("%s import = %+v, want %d added", o.Kind, o, counts[i])
		}
	}
	if !sum.Created || sum.Training == nil || sum.Training.Status != client.StatusCompleted {
		t.Errorf("summary = %+v", sum)
	}
	c, err := client.New(client.Config{BaseURL: p.BaseURL, PublicKey: p.PublicKey, PrivateKey: p.PrivateKey})
	if err != nil {
		t.Fatal(err)
	}
	item, err := c.Recomm.Item(t.Context(), "films", "2")
	if err != nil {
		t.Fatal(err)
	}
	if item["title"] != "Film 2, The" || item["year"] != 1992.0 || fmt.Sprint(item["genres"]) != "[Drama]" ||
		fmt.Sprint(item["tags"]) != "[space opera lasers lots]" {
		t.Errorf("movie 2 = %v", item)
	}

	code, out, errOut = hark(t, "", append(r, "recomm", "recommend", "--table", "films", "--user", "1", "--limit", "3", "--json")...)
	var recs []recommendation
	if code != 0 || json.Unmarshal([]byte(out), &recs) != nil || len(recs) != 3 {
		t.Fatalf("recommend: %d %s %s", code, out, errOut)
	}
	for _, rec := range recs {
		if rec.Title != "Film "+rec.ID+", The" || rec.Match <= 0 {
			t.Errorf("untitled recommendation %+v", rec)
		}
	}

	// the same directory again: the summary tells what exists already, with the first of them
	_, out, errOut = hark(t, "", append(r, "recomm", "import", "movielens", dir, "--table", "films", "--train", "", "--wait")...)
	if !strings.Contains(out, "0 added, 31 not added (EntityAlreadyExistsException 31)\n  1: EntityAlreadyExistsException") {
		t.Errorf("second import: %s %s", out, errOut)
	}

	code, out, _ = hark(t, "", append(r, "recomm", "items", "--table", "films", "--search", "film 1", "--limit", "3")...)
	if code != 0 || out != "1            Film 1, The\n10           Film 10, The\n11           Film 11, The\n" {
		t.Errorf("items --search: %d %q", code, out)
	}
	code, out, _ = hark(t, "", append(r, "recomm", "history", "--table", "films", "--user", "1", "--limit", "2")...)
	if lines := strings.Split(strings.TrimSpace(out), "\n"); code != 0 || len(lines) != 2 || !strings.Contains(lines[0], "rating") || !strings.Contains(lines[0], ", The (") {
		t.Errorf("history: %d %q", code, out)
	}
	code, _, errOut = hark(t, "", append(r, "recomm", "history", "--table", "films", "--user", "nobody")...)
	if code != 1 || !strings.Contains(errOut, `user \"nobody\" not found`) && !strings.Contains(errOut, `user "nobody" not found`) {
		t.Errorf("history of an unknown user: %d %q", code, errOut)
	}

	os.Remove(filepath.Join(dir, "ratings.csv"))
	code, _, errOut = hark(t, "", append(r, "recomm", "import", "movielens", dir, "--table", "films")...)
	if code != 1 || !strings.Contains(errOut, "has no ratings.csv (it has movies.csv, tags.csv)") {
		t.Errorf("a directory without ratings: %d %s", code, errOut)
	}

	code, out, _ = hark(t, "", append(r, "recomm", "import", "movielens", "--help")...)
	if code != 0 || !strings.Contains(out, "-train") || strings.Contains(out, "-kind") || strings.Contains(out, "-map") {
		t.Errorf("help of import movielens lists other flags: %d %s", code, out)
	}
}

func TestRecommCatalogCommands(t *testing.T) {
	isolate(t)
	p := servertest.Start(t, server.Config{MinInteractions: 5})
	r := append([]string{"--base-url", p.BaseURL, "--api-key", p.PublicKey, "--private-key", p.PrivateKey}, "recomm")
	run := func(wantCode int, args ...string) (string, string) {
		t.Helper()
		code, out, errOut := hark(t, "", append(r, args...)...)
		if code != wantCode {
			t.Fatalf("hark recomm %s: exit %d, want %d\n%s%s", strings.Join(args, " "), code, wantCode, out, errOut)
		}
		return out, errOut
	}
	_, errOut := run(1, "attr", "add", "--table", "shop", "title", "string")
	if !strings.Contains(errOut, `no table "shop"; there are no tables yet`) {
		t.Errorf("attr add to a missing table: %s", errOut)
	}
	out, _ := run(0, "table", "create", "shop", "--engines", "hybrid,items-to-item=popular", "--json")
	if !strings.Contains(out, `"tableId": "shop"`) || !strings.Contains(out, `"items-to-item": "popular"`) {
		t.Errorf("table create --json: %s", out)
	}
	run(0, "attr", "add", "--table", "shop", "title", "string")
	run(0, "attr", "add", "shop-genre", "string", "--categorical", "--table", "shop")
	_, errOut = run(1, "attr", "add", "--table", "shop", "weight", "float")
	if !strings.Contains(errOut, "is not one of int, double") {
		t.Errorf("unknown type: %s", errOut)
	}
	run(2, "attr", "add", "title", "string") // neither --table nor --users
	out, _ = run(0, "interaction", "add", "stars", "--table", "shop", "--type", "categorical", "--min", "1", "--max", "5", "--json")
	var def client.Interaction
	if json.Unmarshal([]byte(out), &def) != nil || def.MinValue == nil || *def.MinValue != 1 || *def.MaxValue != 5 {
		t.Errorf("interaction add: %s", out)
	}
	run(0, "interaction", "add", "view", "--table", "shop", "--type", "unary")

	dir := t.TempDir()
	items := "\ufeffid,name,kind\r\n1,\"Red, the shirt\",clothes\r\n2,Blue hat,clothes\r\n10,Green mug,home\r\n"
	os.WriteFile(filepath.Join(dir, "items.csv"), []byte(items), 0o644)
	_, errOut = run(1, "import", "--table", "shop", "--kind", "items", filepath.Join(dir, "items.csv"), "--map", "id=itemId,colour=title")
	if !strings.Contains(errOut, `has no column "colour" (its columns: id, name, kind)`) {
		t.Errorf("--map naming a missing column: %s", errOut)
	}
	_, errOut = run(1, "import", "--table", "shop", "--kind", "items", filepath.Join(dir, "items.csv"), "--map", "id=itemId,name=title")
	if !strings.Contains(errOut, `column "kind" is not itemId or an attribute of the table (they are: itemId, expiration, title, shop-genre)`) {
		t.Errorf("a column that is no attribute: %s", errOut)
	}
	out, _ = run(0, "import", "--table", "shop", "--kind", "items", filepath.Join(dir, "items.csv"), "--map", "id=itemId,name=title,kind=shop-genre", "--wait")
	if !strings.Contains(out, "completed, 3 added, 0 not added") {
		t.Errorf("import with --map: %s", out)
	}
	os.WriteFile(filepath.Join(dir, "users.csv"), []byte("userId\nann\nbob\n"), 0o644)
	run(0, "import", "--kind", "users", filepath.Join(dir, "users.csv"), "--wait")
	// ann rates item 1 twice (two records; training keeps the latest of a non-cumulative type),
	// bob rates out of range
	inter := "userId,itemId,timestamp,interactionName,value\nann,1,1000,stars,4\nann,1,2000,stars,2\nbob,2,1000,stars,9\nbob,10,1000,stars,0\n"
	os.WriteFile(filepath.Join(dir, "stars.csv"), []byte(inter), 0o644)
	out, _ = run(0, "import", "--table", "shop", "--kind", "interactions", filepath.Join(dir, "stars.csv"), "--wait")
	if !strings.Contains(out, "completed_with_errors, 2 added, 2 not added (InvalidArgumentException 2)") || !strings.Contains(out, "\n  ") {
		t.Errorf("ratings out of range: %s", out)
	}
	os.WriteFile(filepath.Join(dir, "bad.csv"), []byte("userId,itemId,timestamp,interactionName,value\nbob,2,1000,stars,9\n"), 0o644)
	out, errOut = run(1, "import", "--table", "shop", "--kind", "interactions", filepath.Join(dir, "bad.csv"), "--wait", "--json")
	var o importOutcome
	if json.Unmarshal([]byte(out), &o) != nil || o.Added != 0 || o.NotAdded != 1 || len(o.First) != 1 || !strings.Contains(errOut, "nothing was added") {
		t.Errorf("a file of bad rows: %s %s", out, errOut)
	}
	out, _ = run(0, "jobs", "--json")
	var jobs []client.Job
	if json.Unmarshal([]byte(out), &jobs) != nil || len(jobs) != 4 || jobs[0].Kind != "import-interactions" {
		t.Errorf("jobs: %s", out)
	}
	out, _ = run(0, "tables", "--json")
	if !strings.Contains(out, `"displayAttribute": "title"`) {
		t.Errorf("tables --json: %s", out)
	}
	_, errOut = run(1, "table", "display", "shop", "colour")
	if !strings.Contains(errOut, `"colour" is not an attribute of table "shop" (it has expiration, title, shop-genre)`) {
		t.Errorf("display by an unknown attribute: %s", errOut)
	}
	out, _ = run(0, "table", "display", "shop", "shop-genre")
	if out != "table shop names its items by shop-genre\n" {
		t.Errorf("table display: %q", out)
	}
	os.WriteFile(filepath.Join(dir, "views.csv"), []byte("userId,itemId,timestamp,interactionName,value\n"+
		"ann,1,1,view,\nann,2,2,view,\nann,10,3,view,\nbob,1,4,view,\nbob,2,5,view,\nbob,2,6,view,\n"), 0o644)
	run(0, "import", "--table", "shop", "--kind", "interactions", filepath.Join(dir, "views.csv"), "--wait")
	out, _ = run(0, "train", "--table", "shop", "--engine", "popular", "--wait")
	if !strings.Contains(out, "\n  no search: the tuning budget is 0\n") {
		t.Errorf("a training too small to tune says why: %q", out)
	}
	out, _ = run(0, "recommend", "--table", "shop", "--item", "1", "--json")
	if !strings.Contains(out, `"title": "clothes"`) {
		t.Errorf("more like item 1, titled by shop-genre: %s", out)
	}
	_, errOut = run(1, "recommend", "--table", "shop", "--user", "ann", "--filter", "colour==red", "--engine", "popular")
	if !strings.Contains(errOut, `unknown attribute "colour" (the attributes are expiration, shop-genre, title)`) {
		t.Errorf("a filter on an unknown attribute: %s", errOut)
	}
	out, _ = run(0, "attr", "add", "--help")
	if !strings.Contains(out, "-categorical") || strings.Contains(out, "-engines") {
		t.Errorf("attr add --help: %s", out)
	}
	run(0, "table", "rm", "shop")
	_, errOut = run(1, "table", "rm", "shop")
	if !strings.Contains(errOut, `no table "shop"`) {
		t.Errorf("rm of a missing table: %s", errOut)
	}
	run(2, "frobnicate")
}

// A local file is uploaded as it is read: rewriting the header reads no more than the first buffer.
func TestRewriteHeaderStreams(t *testing.T) {
	src := &countingReader{r: io.MultiReader(strings.NewReader("id,title\r\n"), endless{})}
	out, grew, err := rewriteHeader(src, "big.csv", map[string]string{"id": "itemId"}, []string{"itemId", "title"}, client.ImportItems)
	if err != nil || grew != 4 {
		t.Fatal(grew, err)
	}
	if src.n > 128<<10 {
		t.Fatalf("read %d bytes before the upload started", src.n)
	}
	head := make([]byte, 20)
	io.ReadFull(out, head)
	if string(head) != "itemId,title\r\nx,y\r\nx" {
		t.Errorf("rewritten start = %q", head)
	}
	// the whole stream passes through a fixed buffer: 64 MiB read, nothing kept
	n, err := io.CopyN(io.Discard, out, 64<<20)
	if err != nil || n != 64<<20 {
		t.Fatalf("copy = %d %v", n, err)
	}
}

type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

// endless is an unbounded CSV body.
type endless struct{}

func (endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = "x,y\r\n"[i%5]
	}
	return len(p), nil
}

// The line a finished training prints reads the server's tuning report.
func TestTuningLine(t *testing.T) {
	job := client.TrainJob{Tuning: []byte(`{"method":"successive-halving","seconds":38.4,"trials":47,
		"chosen":{"factors":64,"neighbourWeight":0.1,"defaults":false},
		"validation":{"chosen":{"ndcg@10":0.2325},"defaults":{"ndcg@10":0.2271}},"neighbours":{"weight":0.1}}`)}
	want := "search: 47 settings in 38 s, chose (factors 64, neighbourWeight 0.1); validation NDCG@10 0.2325, defaults 0.2271"
	if got := tuningLine(job); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	job.Tuning = []byte(`{"chosen":{"halfLife":"none","defaults":true},"trials":3,"seconds":1,"validation":{"chosen":{"ndcg@10":0.1},"defaults":{"ndcg@10":0.1}}}`)
	if got := tuningLine(job); !strings.Contains(got, "kept the defaults (halfLife none)") {
		t.Errorf("defaults kept: %q", got)
	}
	if got := tuningLine(client.TrainJob{}); got != "" {
		t.Errorf("no report: %q", got)
	}
}
