package jobs

// Tests of the queue across processes, on the engine HARK_TEST_STORE names.
// Their runners are their own: the catalog is not needed to prove claims,
// order, takeovers and fencing.

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/harkhq/hark/server/lease"
	"github.com/harkhq/hark/server/store/storetest"
)

func openStore(t *testing.T) *sql.DB {
	t.Helper()
	db, err := storetest.Open(t, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func quietLog() Option { return WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))) }

func openQueue(t *testing.T, db *sql.DB, runners map[string]Runner, concurrency int, opts ...Option) *Queue {
	t.Helper()
	q, err := Open(context.Background(), db, runners, concurrency, append([]Option{quietLog()}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return q
}

func statusOf(t *testing.T, db *sql.DB, id string) (status string, attempts int) {
	t.Helper()
	if err := db.QueryRow(`SELECT status, attempts FROM recomm_jobs WHERE id = $1`, id).Scan(&status, &attempts); err != nil {
		t.Fatal(err)
	}
	return status, attempts
}

func eventually(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("waited 30 s for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Two queues on one database (two processes): many jobs of several
// workspaces submitted through both run once each, one at a time per
// workspace, in the order each workspace submitted them.
func TestTwoProcessesShareTheQueue(t *testing.T) {
	db := openStore(t)
	var mu sync.Mutex
	running := map[int64]bool{}
	order := map[int64][]string{}
	runs := map[string]int{}
	var overlaps []string
	runner := func(ctx context.Context, j Job) (string, any, error) {
		var name string
		json.Unmarshal(j.Request, &name)
		mu.Lock()
		if running[j.WS] {
			overlaps = append(overlaps, name)
		}
		running[j.WS] = true
		order[j.WS] = append(order[j.WS], name)
		runs[j.ID]++
		mu.Unlock()
		time.Sleep(2 * time.Millisecond)
		mu.Lock()
		running[j.WS] = false
		mu.Unlock()
		return Completed, nil, nil
	}
	runners := map[string]Runner{ImportItems: runner, Train: runner}
	a := openQueue(t, db, runners, 2)
	defer a.Close()
	b := openQueue(t, db, runners, 2)
	defer b.Close()
	const workspaces, each = 4, 10
	want := map[int64][]string{}
	var ids []string
	for i := range each {
		for ws := int64(1); ws <= workspaces; ws++ {
			q, kind := a, ImportItems
			if (i+int(ws))%2 == 0 {
				q, kind = b, Train
			}
			name := fmt.Sprintf("w%d-%d", ws, i)
			j, err := q.Submit(context.Background(), ws, "t", kind, name)
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, j.ID)
			want[ws] = append(want[ws], name)
		}
	}
	for _, id := range ids {
		eventually(t, "job "+id, func() bool { s, _ := statusOf(t, db, id); return s == Completed })
	}
	mu.Lock()
	defer mu.Unlock()
	if len(overlaps) > 0 {
		t.Errorf("jobs started while their workspace ran another: %v", overlaps)
	}
	for id, n := range runs {
		if n != 1 {
			t.Errorf("job %s ran %d times", id, n)
		}
	}
	for ws := range want {
		if fmt.Sprint(order[ws]) != fmt.Sprint(want[ws]) {
			t.Errorf("workspace %d ran %v, want %v", ws, order[ws], want[ws])
		}
	}
}

// A process that dies while its job runs (its queue stops renewing the
// lease and records nothing) loses the job to another process once the
// lease runs out: the other undoes the interrupted run (Reclaimed), runs
// the job and completes it; the dead process's late outcome is discarded.
func TestTakeoverAfterLeaseExpiry(t *testing.T) {
	db := openStore(t)
	const leaseTime = 300 * time.Millisecond
	claimed := make(chan struct{})
	afterDeath := make(chan struct{})
	a := openQueue(t, db, map[string]Runner{ImportItems: func(ctx context.Context, j Job) (string, any, error) {
		close(claimed)
		<-ctx.Done()
		<-afterDeath // a process frozen in the middle of its job
		return Completed, map[string]string{"by": "a"}, nil
	}}, 1, WithLease(leaseTime))
	j, err := a.Submit(context.Background(), 9, "t", ImportItems, "x")
	if err != nil {
		t.Fatal(err)
	}
	<-claimed
	var reclaimed atomic.Int32
	b := openQueue(t, db, map[string]Runner{ImportItems: func(ctx context.Context, j Job) (string, any, error) {
		return Completed, map[string]string{"by": "b"}, nil
	}}, 1, WithLease(leaseTime), WithReclaimed(func(ctx context.Context, rj Job) error {
		if rj.ID != j.ID {
			t.Errorf("reclaimed %s, want %s", rj.ID, j.ID)
		}
		reclaimed.Add(1)
		return nil
	}))
	defer b.Close()
	if !b.Busy(9, "t") {
		t.Error("the import processing in A does not make the table busy for B")
	}
	time.Sleep(2 * leaseTime)
	if s, _ := statusOf(t, db, j.ID); s != Processing {
		t.Fatalf("a job whose owner renews its lease is %s", s)
	}
	closed := make(chan struct{})
	go func() { a.Close(); close(closed) }() // A stops renewing: it is dead
	var got Job
	eventually(t, "takeover", func() bool {
		got, _ = b.Get(context.Background(), 9, "t", ImportItems, j.ID)
		return got.Status == Completed
	})
	if string(got.Result) != `{"by":"b"}` || reclaimed.Load() != 1 {
		t.Errorf("after takeover: result %s, reclaimed %d times", got.Result, reclaimed.Load())
	}
	if b.Busy(9, "t") {
		t.Error("table still busy after the takeover completed")
	}
	close(afterDeath)
	<-closed
	if got, _ := b.Get(context.Background(), 9, "t", ImportItems, j.ID); string(got.Result) != `{"by":"b"}` {
		t.Errorf("the dead process's outcome replaced the new one: %s", got.Result)
	}
	if _, attempts := statusOf(t, db, j.ID); attempts != 2 {
		t.Errorf("attempts = %d, want 2", attempts)
	}
}

// A job interrupted lease.MaxAttempts times ends in error instead of
// running again, after the hook undid its last attempt.
func TestJobInterruptedThreeTimesEndsInError(t *testing.T) {
	db := openStore(t)
	var runs, reclaims atomic.Int32
	q := openQueue(t, db, map[string]Runner{Train: func(ctx context.Context, j Job) (string, any, error) {
		runs.Add(1)
		<-ctx.Done()
		return "", nil, context.Cause(ctx)
	}}, 1, WithLease(300*time.Millisecond), WithReclaimed(func(ctx context.Context, j Job) error {
		reclaims.Add(1)
		return nil
	}))
	defer q.Close()
	j, err := q.Submit(context.Background(), 4, "t", Train, nil)
	if err != nil {
		t.Fatal(err)
	}
	for attempt := 1; attempt <= lease.MaxAttempts; attempt++ {
		eventually(t, fmt.Sprintf("attempt %d", attempt), func() bool {
			s, n := statusOf(t, db, j.ID)
			return s == Processing && n == attempt && runs.Load() == int32(attempt)
		})
		// The process running it stalls past its lease: expired until the queue takes the
		// attempt back (its renewal, on a busy machine, could come first and put it back).
		eventually(t, fmt.Sprintf("attempt %d taken back", attempt), func() bool {
			if _, err := db.Exec(`UPDATE recomm_jobs SET lease_until = 0 WHERE id = $1 AND status = $2 AND attempts = $3`,
				j.ID, Processing, attempt); err != nil {
				t.Fatal(err)
			}
			s, n := statusOf(t, db, j.ID)
			return s != Processing || n > attempt
		})
	}
	got := waitStatus(t, q, 4, "t", Train, j.ID)
	if got.Status != Error || string(got.Result) != `{"message":"interrupted 3 times; see the harkd logs"}` {
		t.Errorf("job = %s %s", got.Status, got.Result)
	}
	if runs.Load() != 3 || reclaims.Load() != 3 {
		t.Errorf("runs %d, reclaims %d; want 3 and 3", runs.Load(), reclaims.Load())
	}
}

// A cancel through one process stops a job queued through another, and the
// busy state of a table comes from the database, not from the process.
func TestCancelThroughAnotherProcess(t *testing.T) {
	db := openStore(t)
	gate := make(chan struct{})
	var ran sync.Map
	runner := func(ctx context.Context, j Job) (string, any, error) {
		var name string
		json.Unmarshal(j.Request, &name)
		ran.Store(name, true)
		if name == "first" {
			<-gate
		}
		return Completed, nil, nil
	}
	a := openQueue(t, db, map[string]Runner{ImportItems: runner}, 1)
	defer a.Close()
	b := openQueue(t, db, map[string]Runner{ImportItems: runner}, 1)
	defer b.Close()
	ctx := context.Background()
	first, _ := a.Submit(ctx, 2, "t", ImportItems, "first")
	second, _ := a.Submit(ctx, 2, "t", ImportItems, "second")
	eventually(t, "first running", func() bool { s, _ := statusOf(t, db, first.ID); return s == Processing })
	for _, q := range []*Queue{a, b} {
		if !q.Busy(2, "t") || q.Busy(2, "u") {
			t.Error("Busy does not follow the processing import")
		}
	}
	c, err := b.Cancel(ctx, 2, "t", ImportItems, second.ID)
	if err != nil || c.Status != Canceled {
		t.Fatalf("cancel through b = %+v, %v", c, err)
	}
	close(gate)
	waitStatus(t, a, 2, "t", ImportItems, first.ID)
	time.Sleep(200 * time.Millisecond)
	if _, ok := ran.Load("second"); ok {
		t.Error("a job canceled through another process ran")
	}
	if s, _ := statusOf(t, db, second.ID); s != Canceled {
		t.Errorf("canceled job is %s", s)
	}
}

// A restart (on SQLite, the one process) resumes the queued jobs and takes
// over the job a crash left processing once its lease has run out.
func TestRestartResumesInterruptedJobs(t *testing.T) {
	db := openStore(t)
	ctx := context.Background()
	block := make(chan struct{})
	running := make(chan struct{}, 2)
	slow := func(ctx context.Context, j Job) (string, any, error) {
		running <- struct{}{}
		select {
		case <-block:
		case <-ctx.Done():
			return "", nil, ctx.Err()
		}
		return Completed, nil, nil
	}
	q := openQueue(t, db, map[string]Runner{Train: slow}, 1)
	a, _ := q.Submit(ctx, 5, "t", Train, nil)
	b, _ := q.Submit(ctx, 5, "t", Train, nil)
	<-running
	q.Close() // a graceful stop ends the running job in error; b stays queued
	if s, _ := statusOf(t, db, a.ID); s != Error {
		t.Fatalf("job running at Close = %s", s)
	}
	if s, _ := statusOf(t, db, b.ID); s != Queued {
		t.Fatalf("queued job after close = %s", s)
	}
	// a crash: a's row left processing by a process that is gone
	if _, err := db.Exec(`UPDATE recomm_jobs SET status = 'processing', owner = 'gone', lease_until = 0 WHERE id = $1`, a.ID); err != nil {
		t.Fatal(err)
	}
	close(block)
	var reclaimed atomic.Int32
	q2 := openQueue(t, db, map[string]Runner{Train: slow}, 1, WithReclaimed(func(ctx context.Context, j Job) error {
		reclaimed.Add(1)
		return nil
	}))
	defer q2.Close()
	if j := waitStatus(t, q2, 5, "t", Train, a.ID); j.Status != Completed || reclaimed.Load() != 1 {
		t.Errorf("job a crash left processing = %s after %d undo", j.Status, reclaimed.Load())
	}
	if j := waitStatus(t, q2, 5, "t", Train, b.ID); j.Status != Completed {
		t.Errorf("queued job after restart = %s", j.Status)
	}
}

// A failing hook ends the job in error with the reason rather than running
// it over a half-done earlier attempt.
func TestReclaimFailureEndsTheJob(t *testing.T) {
	db := openStore(t)
	var ran atomic.Bool
	q := openQueue(t, db, map[string]Runner{Train: func(ctx context.Context, j Job) (string, any, error) {
		ran.Store(true)
		return Completed, nil, nil
	}}, 1, WithReclaimed(func(ctx context.Context, j Job) error { return errors.New("journal unreadable") }))
	defer q.Close()
	if _, err := db.Exec(`INSERT INTO recomm_jobs(id, ws, scope, kind, status, request, created, owner, lease_until, attempts)
		VALUES('j1', 1, 't', 'train', 'processing', 'null', 0, 'gone', 0, 1)`); err != nil {
		t.Fatal(err)
	}
	j := waitStatus(t, q, 1, "t", Train, "j1")
	if j.Status != Error || string(j.Result) != `{"message":"undo the interrupted attempt: journal unreadable"}` || ran.Load() {
		t.Errorf("job = %s %s, ran %v", j.Status, j.Result, ran.Load())
	}
}
