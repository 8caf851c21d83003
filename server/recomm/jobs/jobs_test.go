package jobs

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/harkhq/hark/server/apierr"
	"github.com/harkhq/hark/server/store/storetest"
)

// openDB opens a new test store (SQLite, or PostgreSQL with
// HARK_TEST_STORE=postgres) and returns it with the directory that names
// it (storetest.Open of the same directory reaches the same data).
func openDB(t *testing.T) (*sql.DB, string) {
	t.Helper()
	dir := t.TempDir()
	db, err := storetest.Open(t, dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db, dir
}

// waitStatus polls until the job reaches a final status, bounded by a
// minute: trainings under -race on a loaded machine take seconds.
func waitStatus(t *testing.T, q *Queue, ws int64, scope, kind, id string) Job {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		j, err := q.Get(context.Background(), ws, scope, kind, id)
		if err != nil {
			t.Fatal(err)
		}
		if j.Status != Queued && j.Status != Processing {
			return j
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("job %s did not finish", id)
	return Job{}
}

func TestOrderPerWorkspace(t *testing.T) {
	db := openStore(t)
	var mu sync.Mutex
	var order []string
	gate := make(chan struct{})
	runner := func(ctx context.Context, j Job) (string, any, error) {
		var name string
		json.Unmarshal(j.Request, &name)
		if name == "first" {
			<-gate
		}
		mu.Lock()
		order = append(order, name)
		mu.Unlock()
		return Completed, map[string]string{"name": name}, nil
	}
	q, err := Open(context.Background(), db, map[string]Runner{ImportItems: runner, ImportInteractions: runner}, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	ctx := context.Background()
	first, _ := q.Submit(ctx, 1, "t", ImportItems, "first")
	second, _ := q.Submit(ctx, 1, "t", ImportInteractions, "second")
	third, _ := q.Submit(ctx, 1, "t", ImportItems, "third")
	if first.Status != Queued {
		t.Errorf("accepted job status = %s", first.Status)
	}
	// the first job holds the workspace; the table is busy meanwhile
	deadline := time.Now().Add(30 * time.Second)
	for !q.Busy(1, "t") && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if !q.Busy(1, "t") || q.Busy(1, "other") || q.Busy(2, "t") {
		t.Error("Busy does not follow the processing import")
	}
	c, err := q.Cancel(ctx, 1, "t", ImportItems, third.ID)
	if err != nil || c.Status != Canceled {
		t.Fatalf("cancel queued = %+v, %v", c, err)
	}
	_, err = q.Cancel(ctx, 1, "t", ImportItems, first.ID)
	if e, ok := apierr.As(err); !ok || e.Status != 400 {
		t.Errorf("cancel processing = %v, want 400", err)
	}
	close(gate)
	waitStatus(t, q, 1, "t", ImportInteractions, second.ID)
	j := waitStatus(t, q, 1, "t", ImportItems, first.ID)
	if j.Status != Completed || string(j.Result) != `{"name":"first"}` {
		t.Errorf("first job = %+v", j)
	}
	mu.Lock()
	if fmt.Sprint(order) != "[first second]" {
		t.Errorf("run order = %v, want first then second, third canceled", order)
	}
	mu.Unlock()
	if q.Busy(1, "t") {
		t.Error("table still busy after its jobs ended")
	}
	for _, probe := range []struct {
		ws          int64
		scope, kind string
	}{{2, "t", ImportItems}, {1, "u", ImportItems}, {1, "t", Train}} {
		if _, err := q.Get(ctx, probe.ws, probe.scope, probe.kind, first.ID); err == nil {
			t.Errorf("job visible through %+v", probe)
		}
	}
}

func TestFailuresAndPanics(t *testing.T) {
	db := openStore(t)
	q, err := Open(context.Background(), db, map[string]Runner{
		Train: func(ctx context.Context, j Job) (string, any, error) {
			return "", nil, apierr.InvalidArgumentf("no interactions with 500 records")
		},
		Recommend: func(ctx context.Context, j Job) (string, any, error) { panic("boom") },
	}, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	ctx := context.Background()
	a, _ := q.Submit(ctx, 3, "t", Train, nil)
	b, _ := q.Submit(ctx, 3, "t", Recommend, nil)
	if j := waitStatus(t, q, 3, "t", Train, a.ID); j.Status != Error || string(j.Result) != `{"message":"no interactions with 500 records"}` {
		t.Errorf("failed job = %+v %s", j, j.Result)
	}
	if j := waitStatus(t, q, 3, "t", Recommend, b.ID); j.Status != Error {
		t.Errorf("panicking job = %+v", j)
	}
	if _, err := q.Submit(ctx, 3, "t", "nope", nil); err == nil {
		t.Error("job of unknown kind accepted")
	}
}
