package lease

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"slices"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/harkhq/hark/server/store"
	"github.com/harkhq/hark/server/store/storetest"
)

var testTable = Table{Name: "lease_jobs", Group: "grp", Stamp: "started"}

// testSchema is a job table as the services declare theirs.
var testSchema = []store.Step{{
	SQLite: `CREATE TABLE lease_jobs (seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE,
		grp INTEGER NOT NULL, status TEXT NOT NULL, owner TEXT, lease_until INTEGER,
		attempts INTEGER NOT NULL DEFAULT 0, started INTEGER, result TEXT);
		CREATE INDEX lease_jobs_status ON lease_jobs(status, seq);
		CREATE INDEX lease_jobs_grp ON lease_jobs(grp, status, seq)`,
	Postgres: `CREATE TABLE lease_jobs (seq BIGSERIAL PRIMARY KEY, id TEXT NOT NULL UNIQUE,
		grp BIGINT NOT NULL, status TEXT NOT NULL, owner TEXT, lease_until BIGINT,
		attempts INTEGER NOT NULL DEFAULT 0, started BIGINT, result TEXT);
		CREATE INDEX lease_jobs_status ON lease_jobs(status, seq);
		CREATE INDEX lease_jobs_grp ON lease_jobs(grp, status, seq)`}}

func openDB(t testing.TB) *sql.DB {
	t.Helper()
	db, err := storetest.Open(t, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := store.MigrateSteps(context.Background(), db, "lease-test", testSchema); err != nil {
		t.Fatal(err)
	}
	return db
}

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func insert(t *testing.T, db *sql.DB, id string, grp int64) {
	t.Helper()
	if _, err := db.Exec(`INSERT INTO lease_jobs(id, grp, status) VALUES($1, $2, $3)`, id, grp, Queued); err != nil {
		t.Fatal(err)
	}
}

// complete is the fenced final write of a job.
func complete(db *sql.DB, c Claim, result string) error {
	fence, args := c.Fence(2)
	return Fenced(db.ExecContext(context.Background(), `UPDATE lease_jobs SET status = 'done', result = $1 WHERE `+fence,
		append([]any{result}, args...)...))
}

func waitFor(t *testing.T, what string, d time.Duration, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("waited %v for %s", d, what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func count(t *testing.T, db *sql.DB, where string, args ...any) int {
	t.Helper()
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM lease_jobs WHERE `+where, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// Three queues on one database, as three processes: every job runs once, no
// group ever runs two jobs at once, and each group's jobs start in the
// order they were queued.
func TestThreeQueuesRunEachJobOnceInGroupOrder(t *testing.T) {
	db := openDB(t)
	const groups, perGroup = 5, 12
	var mu sync.Mutex
	running := map[int64]string{}
	started := map[int64][]string{}
	runs := map[string]int{}
	var failures []string
	run := func(owner string) func(ctx context.Context, c Claim) {
		return func(ctx context.Context, c Claim) {
			mu.Lock()
			if other, busy := running[c.Group]; busy {
				failures = append(failures, fmt.Sprintf("%s started while %s of group %d runs", c.ID, other, c.Group))
			}
			running[c.Group] = c.ID
			started[c.Group] = append(started[c.Group], c.ID)
			runs[c.ID]++
			mu.Unlock()
			time.Sleep(time.Duration(1+rand.IntN(5)) * time.Millisecond)
			mu.Lock()
			delete(running, c.Group)
			mu.Unlock()
			if err := complete(db, c, owner); err != nil {
				mu.Lock()
				failures = append(failures, fmt.Sprintf("complete %s: %v", c.ID, err))
				mu.Unlock()
			}
		}
	}
	var queues []*Queue
	for i := range 3 {
		queues = append(queues, Start(db, Config{Table: testTable, Workers: 3, Lease: 2 * time.Second, Logger: quiet(),
			Run: run(fmt.Sprint("q", i))}))
	}
	defer func() {
		for _, q := range queues {
			q.Close()
		}
	}()
	want := map[int64][]string{}
	for i := range perGroup {
		for g := int64(1); g <= groups; g++ {
			id := fmt.Sprintf("g%d-%02d", g, i)
			insert(t, db, id, g)
			want[g] = append(want[g], id)
			queues[(i+int(g))%3].Wake()
		}
	}
	waitFor(t, "every job done", 60*time.Second, func() bool { return count(t, db, `status = 'done'`) == groups*perGroup })
	mu.Lock()
	defer mu.Unlock()
	for _, f := range failures {
		t.Error(f)
	}
	for id, n := range runs {
		if n != 1 {
			t.Errorf("job %s ran %d times", id, n)
		}
	}
	for g, ids := range want {
		if fmt.Sprint(started[g]) != fmt.Sprint(ids) {
			t.Errorf("group %d started %v, want %v", g, started[g], ids)
		}
	}
	var byQueue []string
	rows, _ := db.Query(`SELECT result, count(*) FROM lease_jobs GROUP BY result`)
	for rows.Next() {
		var r string
		var n int
		rows.Scan(&r, &n)
		byQueue = append(byQueue, fmt.Sprintf("%s:%d", r, n))
	}
	rows.Close()
	sort.Strings(byQueue)
	t.Logf("jobs per queue: %v", byQueue)
}

// A queue closed while its job runs, without recording an outcome, is a
// process that died: once the lease runs out another queue takes the job
// over, as its second attempt, and completes it once.
func TestExpiredLeaseIsTakenOver(t *testing.T) {
	db := openDB(t)
	const lease = 300 * time.Millisecond
	claimedA := make(chan Claim, 1)
	a := Start(db, Config{Table: testTable, Lease: lease, Logger: quiet(), Run: func(ctx context.Context, c Claim) {
		claimedA <- c
		<-ctx.Done() // dies without a word
	}})
	insert(t, db, "j1", 7)
	a.Wake()
	first := <-claimedA
	if first.Attempt != 1 || first.Owner != a.Owner() {
		t.Fatalf("first claim %+v", first)
	}
	claimedB := make(chan Claim, 1)
	b := Start(db, Config{Table: testTable, Lease: lease, Logger: quiet(), Run: func(ctx context.Context, c Claim) {
		claimedB <- c
		if err := complete(db, c, "b"); err != nil {
			t.Errorf("complete after takeover: %v", err)
		}
	}})
	defer b.Close()
	// B must not take over a job whose owner renews its lease
	time.Sleep(2 * lease)
	if len(claimedB) != 0 {
		t.Fatal("a live owner's job was taken over")
	}
	diedAt := time.Now()
	a.Close()
	var second Claim
	select {
	case second = <-claimedB:
	case <-time.After(20 * lease):
		t.Fatal("job not taken over after its lease expired")
	}
	t.Logf("taken over %v after its owner died (lease %v)", time.Since(diedAt).Round(time.Millisecond), lease)
	if second.ID != "j1" || second.Attempt != 2 || second.Owner != b.Owner() {
		t.Errorf("takeover claim %+v", second)
	}
	waitFor(t, "completion", 10*time.Second, func() bool { return count(t, db, `status = 'done' AND result = 'b'`) == 1 })
	// the dead owner's late write changes nothing
	if err := complete(db, first, "a"); !errors.Is(err, ErrLeaseLost) {
		t.Errorf("dead owner's write = %v, want ErrLeaseLost", err)
	}
	if n := count(t, db, `result = 'b' AND attempts = 2`); n != 1 {
		t.Errorf("job row after takeover: %d rows match", n)
	}
}

// An owner that is alive but lost its lease (its process stalled past it)
// sees its job's context end with ErrLeaseLost, and its outcome is not
// recorded over the new owner's.
func TestLostLeaseFencesTheOldOwner(t *testing.T) {
	db := openDB(t)
	const lease = 300 * time.Millisecond
	release := make(chan struct{})
	var released sync.Once
	outcomeA := make(chan error, 1)
	causeA := make(chan error, 1)
	a := Start(db, Config{Table: testTable, Lease: lease, Logger: quiet(), Run: func(ctx context.Context, c Claim) {
		<-ctx.Done()
		causeA <- context.Cause(ctx)
		<-release // a stalled process that still writes its result
		outcomeA <- complete(db, c, "a")
	}})
	defer a.Close()
	defer released.Do(func() { close(release) }) // before a.Close, which waits for A's Run, when the test fails
	insert(t, db, "j1", 1)
	a.Wake()
	waitFor(t, "claim by A", 5*time.Second, func() bool { return count(t, db, `status = 'processing'`) == 1 })
	b := Start(db, Config{Table: testTable, Lease: lease, Logger: quiet(), Run: func(ctx context.Context, c Claim) {
		if err := complete(db, c, "b"); err != nil {
			t.Errorf("new owner's complete: %v", err)
		}
	}})
	defer b.Close()
	// The lease runs out under A, as if A had not renewed it in time, until B takes the job
	// over: A is still renewing it, and a renewal that came before B's claim (on a busy
	// machine) had put it back, so that B never could and the test waited for nothing.
	waitFor(t, "takeover by B", 10*time.Second, func() bool {
		if _, err := db.Exec(`UPDATE lease_jobs SET lease_until = 0 WHERE owner = $1`, a.Owner()); err != nil {
			t.Fatal(err)
		}
		b.Wake()
		return count(t, db, `owner = $1 OR status = 'done'`, b.Owner()) == 1
	})
	select {
	case cause := <-causeA:
		if !errors.Is(cause, ErrLeaseLost) {
			t.Errorf("old owner's context ended with %v", cause)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("old owner was not stopped")
	}
	waitFor(t, "completion by B", 10*time.Second, func() bool { return count(t, db, `status = 'done'`) == 1 })
	released.Do(func() { close(release) })
	if err := <-outcomeA; !errors.Is(err, ErrLeaseLost) {
		t.Errorf("old owner's write = %v, want ErrLeaseLost", err)
	}
	if n := count(t, db, `status = 'done' AND result = 'b'`); n != 1 {
		t.Error("the old owner's outcome replaced the new owner's")
	}
}

// A row whose status changes under its owner (a cancel) stops the job at
// the next renewal.
func TestStatusChangeStopsTheOwner(t *testing.T) {
	db := openDB(t)
	causes := make(chan error, 1)
	q := Start(db, Config{Table: testTable, Lease: 300 * time.Millisecond, Logger: quiet(), Run: func(ctx context.Context, c Claim) {
		<-ctx.Done()
		causes <- context.Cause(ctx)
	}})
	defer q.Close()
	insert(t, db, "j1", 1)
	q.Wake()
	waitFor(t, "claim", 5*time.Second, func() bool { return count(t, db, `status = 'processing'`) == 1 })
	if _, err := db.Exec(`UPDATE lease_jobs SET status = 'canceled'`); err != nil {
		t.Fatal(err)
	}
	select {
	case cause := <-causes:
		if !errors.Is(cause, ErrLeaseLost) {
			t.Errorf("cause %v", cause)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("owner did not notice the cancel")
	}
}

// BenchmarkClaim measures a claim, an empty run and a fenced completion,
// one job after another on one queue: the latency from a local insert
// (and Wake) to the job's completion.
// BenchmarkClaim times a job from its insert to its completion, claimed by
// a queue of every kind and by one with Only (as the recommendation jobs'
// queue is), in the same run.
func BenchmarkClaim(b *testing.B) {
	for _, c := range []struct{ name, only string }{{"every-kind", ""}, {"only", "j.id LIKE 'b%'"}} {
		b.Run(c.name, func(b *testing.B) {
			db := openDB(b)
			done := make(chan struct{}, 1)
			tab := testTable
			tab.Only = c.only
			q := Start(db, Config{Table: tab, Logger: quiet(), Run: func(ctx context.Context, c Claim) {
				complete(db, c, "x")
				done <- struct{}{}
			}})
			defer q.Close()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := db.Exec(`INSERT INTO lease_jobs(id, grp, status) VALUES($1, $2, $3)`, fmt.Sprint("b", i), i%4, Queued); err != nil {
					b.Fatal(err)
				}
				q.Wake()
				<-done
			}
		})
	}
}

// BenchmarkIdlePoll measures what every process does each second when it
// has nothing to do: look for expired leases and for a claimable job, in a
// table of 20,000 finished jobs and one workspace whose 50 queued jobs wait
// behind its processing one.
func BenchmarkIdlePoll(b *testing.B) {
	db := openDB(b)
	ctx := context.Background()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		b.Fatal(err)
	}
	for i := range 20_000 {
		if _, err := tx.Exec(`INSERT INTO lease_jobs(id, grp, status) VALUES($1, $2, 'done')`, fmt.Sprint("old", i), i%100); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := tx.Exec(`INSERT INTO lease_jobs(id, grp, status, owner, lease_until) VALUES('busy', 1, 'processing', 'other', 9e15)`); err != nil {
		b.Fatal(err)
	}
	for i := range 50 {
		if _, err := tx.Exec(`INSERT INTO lease_jobs(id, grp, status) VALUES($1, 1, 'queued')`, fmt.Sprint("waiting", i)); err != nil {
			b.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	if store.EngineOf(db) == store.Postgres {
		db.Exec(`ANALYZE lease_jobs`)
	}
	q := newQueue(db, Config{Table: testTable, Logger: quiet()})
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		q.requeueExpired()
		if c, err := q.claim(); err != nil || c != nil {
			b.Fatalf("claim = %+v, %v", c, err)
		}
	}
}

// A job claimed just as its queue closes is handed back as it was: queued,
// its attempt not counted, owned by no one.
func TestClaimAtCloseIsHandedBack(t *testing.T) {
	db := openDB(t)
	insert(t, db, "j1", 1)
	q := newQueue(db, Config{Table: testTable, Logger: quiet(), Run: func(ctx context.Context, c Claim) {
		t.Error("a job ran after its queue closed")
	}})
	c, err := q.claim()
	if err != nil || c == nil {
		t.Fatalf("claim = %v, %v", c, err)
	}
	q.cancel(ErrClosed)
	q.run(*c)
	if n := count(t, db, `status = 'queued' AND owner IS NULL AND attempts = 0`); n != 1 {
		t.Error("the job claimed at close was not handed back")
	}
}

// A queue with Only claims just the jobs it can run, and never one behind
// its group's oldest: another queue's job at the head of a group holds the
// group back until that queue runs it.
func TestOnlyClaimsWhatItCanRunInGroupOrder(t *testing.T) {
	db := openDB(t)
	for _, j := range []struct {
		id  string
		grp int64
	}{{"b1", 1}, {"a1", 1}, {"b2", 1}, {"a2", 2}} {
		insert(t, db, j.id, j.grp)
	}
	var mu sync.Mutex
	var order []string
	run := func(kind string) func(ctx context.Context, c Claim) {
		return func(ctx context.Context, c Claim) {
			mu.Lock()
			order = append(order, kind+":"+c.ID)
			mu.Unlock()
			if err := complete(db, c, "ok"); err != nil {
				t.Error(err)
			}
		}
	}
	start := func(kind string) *Queue {
		tab := testTable
		tab.Only = "j.id LIKE '" + kind + "%'"
		q := Start(db, Config{Table: tab, Lease: time.Second, Workers: 2, Run: run(kind), Logger: quiet()})
		t.Cleanup(q.Close)
		return q
	}
	start("a")
	waitFor(t, "a2", 5*time.Second, func() bool { return count(t, db, `id = 'a2' AND status = 'done'`) == 1 })
	time.Sleep(100 * time.Millisecond) // a few more polls: a1 must stay behind b1
	if n := count(t, db, `status = 'done'`); n != 1 {
		t.Fatalf("%d jobs done with only the a queue, want a2 alone (order %v)", n, order)
	}
	start("b")
	waitFor(t, "every job", 5*time.Second, func() bool { return count(t, db, `status = 'done'`) == 4 })
	mu.Lock()
	defer mu.Unlock()
	if want := []string{"a:a2", "b:b1", "a:a1", "b:b2"}; !slices.Equal(order, want) {
		t.Fatalf("ran %v, want %v", order, want)
	}
}
