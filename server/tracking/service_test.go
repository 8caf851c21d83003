package tracking

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/harkhq/hark/server/apierr"
	"github.com/harkhq/hark/server/store/storetest"
)

func openDB(t testing.TB) *sql.DB {
	t.Helper()
	db, err := storetest.Open(t, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func newService(t testing.TB, db *sql.DB, cfg Config) *Service {
	t.Helper()
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	s, err := New(db, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func hostOf(t *testing.T, srv *httptest.Server) string {
	t.Helper()
	u, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	return u.Host
}

// waitJob polls until the job leaves queued/processing (at most 20 s).
func waitJob(t *testing.T, s *Service, userID int64, id string) Job {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		j, err := s.Job(context.Background(), userID, id)
		if err != nil {
			t.Fatal(err)
		}
		if j.Status == StatusCompleted || j.Status == StatusError {
			return j
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("job %s did not finish", id)
	return Job{}
}

func wantAPIError(t *testing.T, err error, status int, code string) {
	t.Helper()
	ae, ok := apierr.As(err)
	if !ok || ae.Status != status || ae.Code != code {
		t.Fatalf("err = %v, want %d %s", err, status, code)
	}
}

func TestUploadEndToEnd(t *testing.T) {
	data, err := Dataset("london")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/v2/datasets/london.json":
			w.Write(data)
		case "/small.json":
			w.Write([]byte(smallDataset))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	db := openDB(t)
	s := newService(t, db, Config{FetchAllow: []string{hostOf(t, srv)}, Timeout: 10 * time.Second})
	ctx := context.Background()

	if pois, err := s.POIs(ctx, 42); err != nil || pois == nil || len(pois) != 0 {
		t.Fatalf("POIs before upload = %v, %v; want an empty list", pois, err)
	}
	job, err := s.Upload(ctx, 42, srv.URL+"/v2/datasets/london.json")
	if err != nil {
		t.Fatal(err)
	}
	if job.Status != StatusQueued || job.RequestID == "" {
		t.Fatalf("upload answered %+v", job)
	}
	done := waitJob(t, s, 42, job.RequestID)
	if done.Status != StatusCompleted || done.Description != "" {
		t.Fatalf("job = %+v", done)
	}
	wantPoints := strings.Count(string(data), `"stamp"`)
	if done.Points != wantPoints || done.Places != 3 {
		t.Errorf("job counts points %d places %d, want %d and 3", done.Points, done.Places, wantPoints)
	}
	var stored int
	if err := db.QueryRow(`SELECT sum(count) FROM tracking_points WHERE user_id = 42`).Scan(&stored); err != nil || stored != wantPoints {
		t.Errorf("stored %d points (%v), want %d", stored, err, wantPoints)
	}
	day, err := s.Points(ctx, 42, "2020-02-14")
	if err != nil || len(day) < 200 || day[0].Stamp[:10] != "2020-02-14" || day[len(day)-1].Stamp[:10] != "2020-02-14" {
		t.Errorf("points of 2020-02-14: %d (%v)", len(day), err)
	}
	if _, err := s.Points(ctx, 42, "14/02/2020"); err == nil {
		t.Error("a malformed day was accepted")
	}
	pois, err := s.POIs(ctx, 42)
	if err != nil {
		t.Fatal(err)
	}
	london, _ := cityBySlug("london")
	labels := map[string]Place{}
	for _, p := range pois {
		labels[p.Label] = p
	}
	if d := distance(labels[LabelHome].Lat, labels[LabelHome].Lon, london.home.lat, london.home.lon); d > 150 {
		t.Errorf("Home %.0f m away: %+v", d, pois)
	}
	if d := distance(labels[LabelWork].Lat, labels[LabelWork].Lon, london.office.lat, london.office.lon); d > 150 {
		t.Errorf("Work %.0f m away: %+v", d, pois)
	}

	// The job and the places belong to user 42 only.
	if _, err := s.Job(ctx, 7, job.RequestID); err == nil {
		t.Error("another user read the job")
	} else {
		wantAPIError(t, err, 404, apierr.EntityNotFound)
	}
	if other, _ := s.POIs(ctx, 7); len(other) != 0 {
		t.Errorf("another user sees places %+v", other)
	}

	// A second upload replaces the points and places instead of adding to them.
	job2, err := s.Upload(ctx, 42, srv.URL+"/small.json")
	if err != nil {
		t.Fatal(err)
	}
	if j := waitJob(t, s, 42, job2.RequestID); j.Status != StatusCompleted || j.Points != 2 || j.Places != 0 {
		t.Fatalf("second job %+v", j)
	}
	if err := db.QueryRow(`SELECT sum(count) FROM tracking_points WHERE user_id = 42`).Scan(&stored); err != nil || stored != 2 {
		t.Errorf("after a second upload %d points, want 2", stored)
	}
	if pois, err := s.POIs(ctx, 42); err != nil || len(pois) != 0 {
		t.Errorf("after a second upload places %+v, %v; want none", pois, err)
	}
}

func TestUploadRefusedAtSubmission(t *testing.T) {
	s := newService(t, openDB(t), Config{FetchAllow: []string{"data.example.org", "127.0.0.1:9", "169.254.169.254", "[fe80::1]:80"}})
	for _, raw := range []string{
		"",
		"::not a url",
		"ftp://data.example.org/x.json",
		"file:///etc/passwd",
		"http:///x.json",
		"http://user:secret@data.example.org/x.json",
		"http://evil.example.com/x.json",
		"http://127.0.0.1:10/x.json",          // listed with another port
		"http://DATA.example.org:8080/x.json", // a host alone allows 80 and 443 only
		"http://169.254.169.254/latest/meta-data",
		"http://[fe80::1]/x.json",
		"http://[::ffff:169.254.1.1]/x.json",
	} {
		_, err := s.Upload(context.Background(), 1, raw)
		if err == nil {
			t.Errorf("Upload(%q) accepted", raw)
			continue
		}
		wantAPIError(t, err, 400, apierr.InvalidArgument)
	}
	var n int
	if err := s.db.QueryRow(`SELECT count(*) FROM tracking_jobs`).Scan(&n); err != nil || n != 0 {
		t.Errorf("%d jobs recorded for refused uploads (%v)", n, err)
	}
	for _, ok := range []string{"https://data.example.org/x.json", "http://DATA.example.org:80/x.json", "http://127.0.0.1:9/x.json"} {
		if _, err := s.fetch.check(ok); err != nil {
			t.Errorf("check(%q) = %v, want allowed", ok, err)
		}
	}
}

func TestUploadFailures(t *testing.T) {
	// The forbidden host is reached by name: "localhost" is not listed, the
	// address 127.0.0.1:port is.
	forbidden := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		data, _ := Dataset("madrid")
		w.Write(data)
	}))
	defer forbidden.Close()
	_, forbiddenPort, _ := strings.Cut(hostOf(t, forbidden), ":")

	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/redirect":
			http.Redirect(w, r, "http://localhost:"+forbiddenPort+"/madrid.json", http.StatusFound)
		case "/html":
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, "<html><body>not here</body></html>")
		case "/broken":
			fmt.Fprint(w, `{"points": [{"stamp": "2020-02-01 00:00:00", "latitude": 40.4`)
		case "/huge":
			w.Header().Set("Content-Length", "5000")
			w.Write([]byte(strings.Repeat(" ", 5000)))
		case "/huge-chunked":
			for range 50 {
				w.Write([]byte(strings.Repeat(" ", 100)))
				w.(http.Flusher).Flush()
			}
		case "/slow":
			w.Write([]byte(`{"points": [`))
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
			case <-time.After(10 * time.Second):
			}
		case "/missing":
			http.NotFound(w, r)
		default:
			t.Errorf("unexpected path %s", r.URL.Path)
		}
	}))
	defer srv.Close()
	s := newService(t, openDB(t), Config{
		FetchAllow: []string{hostOf(t, srv), hostOf(t, forbidden)},
		MaxBytes:   1000,
		Timeout:    300 * time.Millisecond,
		Workers:    2,
	})
	cases := map[string]string{
		"/redirect":     "a redirect was refused: its target is not on the dataset allowlist",
		"/html":         "not a tracking dataset: the content is not a JSON object",
		"/broken":       "not a tracking dataset: invalid JSON",
		"/huge":         "over the limit of 1000",
		"/huge-chunked": "over the limit of 1000",
		"/slow":         "took longer than the limit of 300ms",
		"/missing":      "answered status 404",
	}
	ids := map[string]string{}
	for path := range cases {
		j, err := s.Upload(context.Background(), 5, srv.URL+path)
		if err != nil {
			t.Fatalf("Upload(%s): %v", path, err)
		}
		ids[path] = j.RequestID
	}
	for path, want := range cases {
		j := waitJob(t, s, 5, ids[path])
		if j.Status != StatusError || !strings.Contains(j.Description, want) {
			t.Errorf("%s: job %+v, want error containing %q", path, j, want)
		}
	}
	if pois, _ := s.POIs(context.Background(), 5); len(pois) != 0 {
		t.Errorf("failed uploads left places %+v", pois)
	}
}

// Uploads survive a restart: the queued one runs, and the one a crash left
// processing is taken over once its lease ran out (before the lease
// queue, both ended in error at start).
func TestUnfinishedJobsResumeAfterRestart(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(smallDataset))
	}))
	defer srv.Close()
	db := openDB(t)
	cfg := Config{FetchAllow: []string{hostOf(t, srv)}, Timeout: 10 * time.Second}
	s := newService(t, db, cfg)
	s.Close()
	for i, row := range []struct{ id, status, owner string }{{"q", StatusQueued, ""}, {"p", StatusProcessing, "gone"}, {"c", StatusCompleted, ""}} {
		if _, err := db.Exec(`INSERT INTO tracking_jobs(id, user_id, url, status, points, created_ms, updated_ms, owner, lease_until, attempts)
			VALUES($1, $2, $3, $4, 9, 0, 0, NULLIF($5, ''), 0, $6)`, row.id, 3+i, srv.URL+"/x.json", row.status, row.owner, min(i, 1)); err != nil {
			t.Fatal(err)
		}
	}
	s2 := newService(t, db, cfg)
	for i, id := range []string{"q", "p"} {
		if j := waitJob(t, s2, int64(3+i), id); j.Status != StatusCompleted || j.Points == 9 {
			t.Errorf("job left %s is %+v after restart, want completed anew", id, j)
		}
	}
	if j, _ := s2.Job(context.Background(), 5, "c"); j.Status != StatusCompleted || j.Points != 9 {
		t.Errorf("completed job changed: %+v", j)
	}
}

// A process that loses its lease mid-fetch (stalled, or cut from the
// database) stops, records nothing, and another process completes the
// upload once; the user's points are the new run's.
func TestUploadTakenOverAfterLostLease(t *testing.T) {
	release := make(chan struct{})
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			w.Write([]byte(smallDataset[:10])) // A's fetch trickles and stalls
			w.(http.Flusher).Flush()
			select {
			case <-release:
			case <-r.Context().Done():
			}
			return
		}
		w.Write([]byte(smallDataset))
	}))
	defer srv.Close()
	defer close(release)
	db := openDB(t)
	cfg := Config{FetchAllow: []string{hostOf(t, srv)}, Timeout: 20 * time.Second, Lease: 300 * time.Millisecond}
	a := newService(t, db, cfg)
	j, err := a.Upload(context.Background(), 8, srv.URL+"/x.json")
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for calls.Load() == 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	b := newService(t, db, cfg)
	// A's lease runs out until the job is taken over: A, alive, renews it, and on a busy machine a
	// renewal could put a one-time expiry back before anyone took the job.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if _, err := db.Exec(`UPDATE tracking_jobs SET lease_until = 0 WHERE id = $1 AND attempts = 1`, j.RequestID); err != nil {
			t.Fatal(err)
		}
		var attempts int
		if err := db.QueryRow(`SELECT attempts FROM tracking_jobs WHERE id = $1`, j.RequestID).Scan(&attempts); err != nil {
			t.Fatal(err)
		}
		if attempts > 1 || time.Now().After(deadline) {
			break
		}
	}
	got := waitJob(t, a, 8, j.RequestID)
	if got.Status != StatusCompleted || got.Points == 0 {
		t.Fatalf("upload after takeover = %+v", got)
	}
	var attempts int
	var owner string
	if err := db.QueryRow(`SELECT attempts, owner FROM tracking_jobs WHERE id = $1`, j.RequestID).Scan(&attempts, &owner); err != nil {
		t.Fatal(err)
	}
	if attempts != 2 || calls.Load() != 2 {
		t.Errorf("attempts %d, fetches %d; want 2 and 2", attempts, calls.Load())
	}
	t.Logf("completed by %s (A is %s, B is %s)", owner, a.lq.Owner(), b.lq.Owner())
}

func TestUploadQueueIsBounded(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		case <-time.After(10 * time.Second):
		}
		http.NotFound(w, r)
	}))
	defer srv.Close()
	s := newService(t, openDB(t), Config{FetchAllow: []string{hostOf(t, srv)}, Workers: 1, QueueSize: 1, Timeout: 10 * time.Second})
	defer close(release)
	var refused error
	for i := 0; i < 5 && refused == nil; i++ {
		_, refused = s.Upload(context.Background(), 1, srv.URL+"/x")
	}
	if refused == nil {
		t.Fatal("five uploads accepted with one worker and a queue of one")
	}
	wantAPIError(t, refused, 503, apierr.Unavailable)
}
