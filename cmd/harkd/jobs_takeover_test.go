package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/harkhq/hark/server/store"
	"github.com/harkhq/hark/server/store/storetest"
	"github.com/harkhq/hark/server/tracking"
)

// TestJobTakeoverAfterSIGKILL runs two harkd on one PostgreSQL database and
// one --data directory with a 1 s job lease. A tracking upload is claimed
// by A, whose fetch of the dataset trickles; A is killed with SIGKILL in
// the middle of it. B takes the upload over once A's lease has run out,
// fetches the dataset again and completes the upload, once: the job never
// stays processing, is claimed twice in all, and stays completed.
func TestJobTakeoverAfterSIGKILL(t *testing.T) {
	url := storetest.PostgresURL(t)
	t.Setenv("HARKD_STORE", url)
	data, err := tracking.Dataset("london")
	if err != nil {
		t.Fatal(err)
	}
	var fetches atomic.Int32
	trickling := make(chan struct{})
	src := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if fetches.Add(1) > 1 {
			w.Write(data)
			return
		}
		// The first fetch (A's) trickles: a few bytes every 100 ms, which
		// would take hours for the whole file, until A's connection dies.
		w.Write(data[:1024])
		w.(http.Flusher).Flush()
		close(trickling)
		for i := 1024; i < len(data); i++ {
			select {
			case <-r.Context().Done():
				return
			case <-time.After(100 * time.Millisecond):
			}
			w.Write(data[i : i+1])
			w.(http.Flusher).Flush()
		}
	}))
	defer src.Close()
	const lease = time.Second
	dir := t.TempDir() // shared by both processes, as on a shared filesystem
	args := append(serveArgs(dir), "--job-lease", lease.String(), "--fetch-allow", strings.TrimPrefix(src.URL, "http://"))
	var logA, logB syncBuffer
	a := startHarkdLogging(t, &logA, args...)
	defer func() {
		if t.Failed() {
			t.Logf("log of A:\n%s\nlog of B:\n%s", logA.String(), logB.String())
		}
	}()
	ctx := context.Background()
	ca := a.client(t)
	if _, err := ca.Auth.Register(ctx, "ana@example.com", "correct horse", "Ana", "dev-1"); err != nil {
		t.Fatal(err)
	}
	job, err := ca.Tracking.Upload(ctx, src.URL+"/london.json")
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-trickling:
	case <-time.After(30 * time.Second):
		t.Fatal("A did not start fetching the dataset")
	}
	// B starts only now, so A alone could have claimed the upload.
	b := startHarkdLogging(t, &logB, args...)
	cb := b.client(t)
	if _, err := cb.Auth.Login(ctx, "ana@example.com", "correct horse", "dev-2"); err != nil {
		t.Fatal(err)
	}
	if j, err := cb.Tracking.Job(ctx, job.RequestID); err != nil || j.Status != "processing" {
		t.Fatalf("upload seen from B while A fetches: %+v %v", j, err)
	}
	// Still A's after more than a lease: A renews it while alive.
	time.Sleep(lease + lease/2)
	if fetches.Load() != 1 {
		t.Fatalf("%d fetches while A was alive, want 1", fetches.Load())
	}

	a.cmd.Process.Signal(syscall.SIGKILL)
	a.cmd.Wait()
	killed := time.Now()
	var seen []string
	var done time.Time
	for time.Since(killed) < 60*time.Second {
		j, err := cb.Tracking.Job(ctx, job.RequestID)
		if err != nil {
			t.Fatal(err)
		}
		if len(seen) == 0 || seen[len(seen)-1] != j.Status {
			seen = append(seen, j.Status)
		}
		if j.Done() {
			if j.Status != "completed" || j.Points == 0 || j.Places == 0 {
				t.Fatalf("upload after takeover: %+v", j)
			}
			done = time.Now()
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if done.IsZero() {
		t.Fatalf("upload still %v 60 s after A was killed", seen)
	}
	t.Logf("completed by B %v after SIGKILL of A (lease %v); states seen from B: %v",
		done.Sub(killed).Round(time.Millisecond), lease, seen)
	if places, err := cb.Tracking.POIs(ctx); err != nil || len(places) == 0 {
		t.Fatalf("places after takeover: %v %v", places, err)
	}

	db, err := store.OpenPostgres(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// Once completed, it stays so: no later claim runs it again.
	time.Sleep(2 * lease)
	var status string
	var attempts int
	if err := db.QueryRow(`SELECT status, attempts FROM tracking_jobs WHERE id = $1`, job.RequestID).Scan(&status, &attempts); err != nil {
		t.Fatal(err)
	}
	if status != "completed" || attempts != 2 || fetches.Load() != 2 {
		t.Fatalf("job %s after %d claims and %d fetches; want completed, 2 and 2", status, attempts, fetches.Load())
	}
	var processing int
	if err := db.QueryRow(`SELECT count(*) FROM tracking_jobs WHERE status = 'processing'`).Scan(&processing); err != nil || processing != 0 {
		t.Fatalf("%d jobs left processing (%v)", processing, err)
	}
	if !strings.Contains(logB.String(), "taking over an interrupted upload") {
		t.Errorf("B's log does not tell of the takeover:\n%s", logB.String())
	}
}
