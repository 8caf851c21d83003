package jobs

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/harkhq/hark/server/recomm/catalog"
	"github.com/harkhq/hark/server/recomm/rsql"
)

type memStorage map[string]string

func (m memStorage) Open(ws int64, folder, name string) (io.ReadCloser, error) {
	body, ok := m[fmt.Sprintf("%d/%s/%s", ws, folder, name)]
	if !ok {
		return nil, os.ErrNotExist
	}
	return io.NopCloser(strings.NewReader(body)), nil
}

func TestImportJobs(t *testing.T) {
	db, _ := openDB(t)
	ctx := context.Background()
	cat, err := catalog.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/items.csv":
			io.WriteString(w, "itemId,year\nm1,1999\nm2,old\n")
		case "/users.json":
			io.WriteString(w, `[{"userId":"u1"}]`)
		case "/away":
			http.Redirect(w, r, "http://elsewhere.invalid/items.csv", http.StatusFound)
		case "/big":
			w.Write(bytes.Repeat([]byte("itemId\n"), 400))
		case "/hang":
			// Headers and a first line, then nothing: the fetch must give up.
			io.WriteString(w, "itemId\n")
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	host := strings.TrimPrefix(srv.URL, "http://")
	src := &Sources{FetchAllow: []string{host}, MaxBytes: 1000, Timeout: 2 * time.Second,
		Storage: memStorage{"9/inbox/r.csv": "userId,itemId,timestamp,interactionName,value\nu1,m1,5,view,\n"}}
	run := ImportRunner(cat, src)
	q, err := Open(ctx, db, map[string]Runner{ImportItems: run, ImportUsers: run, ImportInteractions: run}, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	if err := cat.CreateTable(ctx, 9, "t", nil, []catalog.Attribute{{ID: "year", Type: rsql.Int}}); err != nil {
		t.Fatal(err)
	}
	if err := cat.CreateInteraction(ctx, 9, "t", catalog.InteractionDef{ID: "view", Weight: 1, Type: catalog.Unary}); err != nil {
		t.Fatal(err)
	}
	submit := func(kind, scope, u, format string) Job {
		req := ImportRequest{URL: u, Format: format, Logging: true}
		if err := req.Check(src); err != nil {
			t.Fatalf("%s: %v", u, err)
		}
		j, err := q.Submit(ctx, 9, scope, kind, req)
		if err != nil {
			t.Fatal(err)
		}
		return j
	}
	items := submit(ImportItems, "t", srv.URL+"/items.csv", "csv")
	users := submit(ImportUsers, "", srv.URL+"/users.json", "json")
	inter := submit(ImportInteractions, "t", "storage://inbox/r.csv", "csv")
	j := waitStatus(t, q, 9, "t", ImportItems, items.ID)
	var res ImportResult
	json.Unmarshal(j.Result, &res)
	if j.Status != CompletedWithErrors || res.Added != 1 || len(res.NotAdded) != 1 || res.NotAdded[0].ErrorID != "m2" {
		t.Errorf("items job = %s %s", j.Status, j.Result)
	}
	if j := waitStatus(t, q, 9, "", ImportUsers, users.ID); j.Status != Completed {
		t.Errorf("users job = %s %s", j.Status, j.Result)
	}
	// accepted after the items and users, the interactions find them
	if j := waitStatus(t, q, 9, "t", ImportInteractions, inter.ID); j.Status != Completed {
		t.Errorf("interactions job = %s %s", j.Status, j.Result)
	}
	for _, u := range []string{srv.URL + "/away", srv.URL + "/big", srv.URL + "/missing", srv.URL + "/hang", "storage://inbox/none.csv"} {
		j := submit(ImportItems, "t", u, "csv")
		if j := waitStatus(t, q, 9, "t", ImportItems, j.ID); j.Status != Error {
			t.Errorf("%s: status %s, want error", u, j.Status)
		}
	}
	for _, bad := range []ImportRequest{
		{URL: "http://not-allowed.example/x.csv", Format: "csv"}, {URL: "ftp://" + host + "/x", Format: "csv"},
		{URL: "http://169.254.169.254/latest", Format: "csv"}, {URL: "storage://a/b/c.csv", Format: "csv"},
		{URL: "storage://a/", Format: "csv"}, {URL: "storage://../x.csv", Format: "csv"}, {URL: srv.URL + "/items.csv", Format: "xml"}, {URL: "", Format: "csv"},
		{URL: "http://user:pw@" + host + "/x", Format: "csv"}, {URL: "::", Format: "csv"},
	} {
		if err := bad.Check(src); err == nil {
			t.Errorf("request %+v accepted", bad)
		}
	}
	if err := (ImportRequest{URL: "storage:///root.csv", Format: "json"}).Check(src); err != nil {
		t.Errorf("storage root url refused: %v", err)
	}
	// a host alone allows its ports 80 and 443, not the test server's port
	u, _ := url.Parse(srv.URL)
	hostOnly := &Sources{FetchAllow: []string{u.Hostname()}}
	if err := hostOnly.CheckURL(srv.URL + "/x"); err == nil {
		t.Errorf("a host-only entry let port %s through", u.Port())
	}
	for _, ok := range []string{"http://" + u.Hostname() + "/x", "https://" + u.Hostname() + "/x"} {
		if err := hostOnly.CheckURL(ok); err != nil {
			t.Errorf("%s refused: %v", ok, err)
		}
	}
}

// An import whose source fails after thousands of rows (several chunks
// committed) ends in error and leaves the table as it was; the job's
// message never quotes what the URL answered, even when that is a page
// full of secrets.
func TestImportJobFailuresLeaveNoTrace(t *testing.T) {
	db, _ := openDB(t)
	ctx := context.Background()
	cat, err := catalog.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	const secret = "internal admin page: password=hunter2"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/cut.csv":
			// good rows in bursts, with pauses in which the importer
			// commits what it has, then the connection drops
			io.WriteString(w, "itemId,year\n")
			for burst := 0; burst < 3; burst++ {
				for i := 0; i < 500; i++ {
					fmt.Fprintf(w, "n%d-%d,%d\n", burst, i, 1900+i%100)
				}
				w.(http.Flusher).Flush()
				time.Sleep(100 * time.Millisecond)
			}
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				conn.Close()
			}
		case "/admin":
			io.WriteString(w, secret+"\nuser=root,token=abc\n")
		case "/admin-items":
			io.WriteString(w, "itemId,"+secret+"\nm1,x\n")
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	src := &Sources{FetchAllow: []string{strings.TrimPrefix(srv.URL, "http://")}, Timeout: 20 * time.Second}
	run := ImportRunner(cat, src)
	q, err := Open(ctx, db, map[string]Runner{ImportItems: run}, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	if err := cat.CreateTable(ctx, 9, "t", nil, []catalog.Attribute{{ID: "year", Type: rsql.Int, Indexed: true}}); err != nil {
		t.Fatal(err)
	}
	if err := cat.AddEntity(ctx, 9, "t", "kept", map[string]any{"year": float64(1999)}); err != nil {
		t.Fatal(err)
	}
	count := func() int {
		var n int
		if err := db.QueryRow(`SELECT count(*) FROM recomm_entities`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	before := count()
	for _, c := range []struct{ path, format string }{
		{"/cut.csv", "csv"}, {"/admin", "csv"}, {"/admin-items", "csv"}, {"/admin", "json"},
	} {
		j, err := q.Submit(ctx, 9, "t", ImportItems, ImportRequest{URL: srv.URL + c.path, Format: c.format, Logging: true})
		if err != nil {
			t.Fatal(err)
		}
		j = waitStatus(t, q, 9, "t", ImportItems, j.ID)
		var res ImportResult
		json.Unmarshal(j.Result, &res)
		t.Logf("%s as %s: %s", c.path, c.format, res.Message)
		if j.Status != Error || res.Added != 0 || res.Message == "" {
			t.Errorf("%s as %s: %s %s, want error with nothing added", c.path, c.format, j.Status, j.Result)
		}
		for _, leak := range []string{"password", "hunter2", "token", "admin"} {
			if strings.Contains(string(j.Result), leak) {
				t.Errorf("%s as %s: the job's result quotes the fetched content: %s", c.path, c.format, j.Result)
			}
		}
		if n := count(); n != before {
			t.Fatalf("%s as %s: %d entities after the failed import, %d before", c.path, c.format, n, before)
		}
	}
}

// An import whose lease is lost before it publishes (its process stalled
// while another took the job over) publishes nothing: its outcome is
// written in the transaction that would publish its rows, fenced by the
// claim, so the rows roll back with it and the new owner's state stands.
func TestImportWithLostLeasePublishesNothing(t *testing.T) {
	db, _ := openDB(t)
	ctx := context.Background()
	cat, err := catalog.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	if err := cat.CreateTable(ctx, 9, "t", nil, nil); err != nil {
		t.Fatal(err)
	}
	started, release := make(chan struct{}), make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "itemId\nm1\n")
		w.(http.Flusher).Flush()
		close(started)
		<-release
		io.WriteString(w, "m2\n")
	}))
	defer srv.Close()
	src := &Sources{FetchAllow: []string{strings.TrimPrefix(srv.URL, "http://")}, MaxBytes: 1000, Timeout: 20 * time.Second}
	run := ImportRunner(cat, src)
	// a lease long enough that no renewal comes before the import ends
	var logs lockedBuffer
	q, err := Open(ctx, db, map[string]Runner{ImportItems: run}, 1, WithLease(time.Minute),
		WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	j, err := q.Submit(ctx, 9, "t", ImportItems, ImportRequest{URL: srv.URL + "/items.csv", Format: "csv"})
	if err != nil {
		t.Fatal(err)
	}
	<-started
	// another process took the job over meanwhile
	if _, err := db.Exec(`UPDATE recomm_jobs SET owner = 'other', attempts = 2 WHERE id = $1`, j.ID); err != nil {
		t.Fatal(err)
	}
	close(release)
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(logs.String(), "its outcome is discarded") {
		if time.Now().After(deadline) {
			t.Fatalf("the import's end was not logged:\n%s", logs.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	var rows, journal int
	var owner, status string
	db.QueryRow(`SELECT count(*) FROM recomm_entities`).Scan(&rows)
	db.QueryRow(`SELECT count(*) FROM recomm_imports`).Scan(&journal)
	db.QueryRow(`SELECT owner, status FROM recomm_jobs WHERE id = $1`, j.ID).Scan(&owner, &status)
	if owner != "other" || status != Processing {
		t.Errorf("after the lost lease: job %s by %s", status, owner)
	}
	// The undo rolled back with its fenced write too: the journal keeps the
	// import for the new owner's Reclaimed hook. Rows committed while the
	// import waited for its source (idle commits, when the machine is slow)
	// stay until then.
	if journal != 1 {
		t.Errorf("%d imports in the journal, want 1", journal)
	}
	if err := cat.UndoJobImports(ctx, j.ID); err != nil { // what the new owner's Reclaimed does
		t.Fatal(err)
	}
	db.QueryRow(`SELECT count(*) FROM recomm_entities`).Scan(&rows)
	if rows != 0 {
		t.Errorf("%d rows of the discarded import left after the new owner's undo", rows)
	}
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
