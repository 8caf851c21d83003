package jobs

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
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
	u, _ := url.Parse(srv.URL)
	if err := (&Sources{FetchAllow: []string{u.Hostname()}}).CheckURL(srv.URL + "/x"); err != nil {
		t.Errorf("host without port on the allowlist refused: %v", err)
	}
}
