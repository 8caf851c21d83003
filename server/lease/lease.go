// Package lease runs background jobs that are rows of a table in the
// store, so that several harkd processes sharing one PostgreSQL database
// (or the one process of an SQLite store) can all work a queue:
//
//   - a job is claimed by exactly one process: on PostgreSQL with SELECT …
//     FOR UPDATE SKIP LOCKED plus a transaction-scoped advisory lock on the
//     job's group, on SQLite with one UPDATE … RETURNING under SQLite's
//     write lock;
//   - the jobs of one group (a workspace, a user) start one at a time in
//     the order they were queued (the seq column);
//   - the claim is a lease: its owner renews it every third of its length,
//     and a job whose lease ran out (its process died or lost the
//     database) is queued again at its place in the order for any process
//     to take over;
//   - the owner's writes of a job's outcome are fenced (Claim.Fence): once
//     its lease is lost they change nothing, so a job never completes twice.
//
// Lease times come from the database's clock, not the processes', so
// processes on machines whose clocks differ agree on when a lease ends.
//
// The table must have these columns besides its own: seq (an integer
// growing with each insert), id TEXT, status TEXT (Queued, Processing, or
// the caller's final statuses), owner TEXT NULL, lease_until BIGINT NULL
// (milliseconds since the epoch, database clock), attempts INTEGER NOT NULL
// DEFAULT 0, and the group column (an integer).
package lease

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/harkhq/hark/server/store"
)

// Statuses the queue reads and writes; the caller owns every other status.
const (
	Queued     = "queued"
	Processing = "processing"
)

// ErrLeaseLost is the cause of a running job's context once its lease is
// lost (it expired, or the row left processing under it), and what a
// fenced write that changed nothing reports.
var ErrLeaseLost = errors.New("the job's lease was lost; another process may take it over")

// ErrClosed is the cause of a running job's context when its queue closes.
var ErrClosed = errors.New("the job queue is closing")

// DefaultLease is the lease length when Config.Lease is 0.
const DefaultLease = 30 * time.Second

// MinLease is the shortest lease a queue accepts; shorter ones are raised
// to it.
const MinLease = 100 * time.Millisecond

// MaxAttempts is how many times a job may be interrupted (its lease lost)
// before it ends in error: a job that kills or stalls every process that
// runs it must not take the platform down one process after another.
// Callers check Claim.Attempt > MaxAttempts and end the job with
// Interrupted instead of running it.
const MaxAttempts = 3

// Interrupted is the message of a job that was interrupted MaxAttempts times.
var Interrupted = fmt.Sprintf("interrupted %d times; see the harkd logs", MaxAttempts)

// Table names the job table and its columns of interest.
type Table struct {
	Name string
	// Group is the column whose jobs run one at a time, in seq order.
	Group string
	// Stamp, when set, is a column set to the claim time (Go clock, ms).
	Stamp string
	// Only, when set, is an SQL condition on a job row (alias j) that the
	// jobs this process claims must meet: the kinds it can run, where
	// processes of several versions share a table (or tests run queues of
	// different runners on one database). A group's oldest queued job that
	// fails it waits for a process that can run it, and holds back the
	// group's later jobs, so their order still holds.
	Only string
}

// Claim is a job this process holds.
type Claim struct {
	ID    string
	Group int64
	Owner string
	// Attempt counts the claims of the job, this one included: more than
	// 1 means earlier holders were interrupted before finishing it.
	Attempt int
}

// Fence returns the condition that lets a write of the job's row land
// only while this claim holds, with placeholders $n and $n+1, and their
// arguments. A write under it that changes no row means the lease was lost.
func (c Claim) Fence(n int) (string, []any) {
	return fmt.Sprintf("id = $%d AND owner = $%d AND status = '%s'", n, n+1, Processing), []any{c.ID, c.Owner}
}

// Fenced turns the outcome of a fenced write into ErrLeaseLost when it
// changed no row.
func Fenced(res sql.Result, err error) error {
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil {
		return err
	} else if n == 0 {
		return ErrLeaseLost
	}
	return nil
}

// Config sets up a Queue.
type Config struct {
	Table Table
	// Lease is how long a claim lasts without renewal (default 30 s). A
	// dead process's job waits up to this long before another takes it over.
	Lease time.Duration
	// Workers bounds the jobs this process runs at once (default 1).
	Workers int
	// Run does a claimed job and records its outcome with a fenced write.
	// Its context ends with cause ErrLeaseLost or ErrClosed.
	Run    func(ctx context.Context, c Claim)
	Logger *slog.Logger
}

// Queue claims and runs the jobs of one table for this process.
type Queue struct {
	db     *sql.DB
	cfg    Config
	engine store.Engine
	owner  string
	poll   time.Duration
	slots  chan struct{}
	wake   chan struct{}
	ctx    context.Context
	cancel context.CancelCauseFunc
	wg     sync.WaitGroup

	now string // SQL of the database clock in ms
}

// Start starts claiming jobs of cfg.Table. Call Close to stop.
func Start(db *sql.DB, cfg Config) *Queue {
	q := newQueue(db, cfg)
	q.wg.Add(1)
	go q.loop()
	return q
}

func newQueue(db *sql.DB, cfg Config) *Queue {
	if cfg.Lease <= 0 {
		cfg.Lease = DefaultLease
	}
	// Renewals come every third of the lease, polls every quarter; below
	// this floor they would be all the queue does.
	cfg.Lease = max(cfg.Lease, MinLease)
	if cfg.Workers <= 0 {
		cfg.Workers = 1
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	q := &Queue{db: db, cfg: cfg, engine: store.EngineOf(db), owner: uuid.NewString(),
		slots: make(chan struct{}, cfg.Workers), wake: make(chan struct{}, 1)}
	// Other processes learn of new jobs and dead owners by polling: once a
	// second, or more often for the short leases of tests.
	q.poll = min(time.Second, cfg.Lease/4)
	q.now = `CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)`
	if q.engine == store.Postgres {
		q.now = `(extract(epoch from clock_timestamp()) * 1000)::bigint`
	}
	q.ctx, q.cancel = context.WithCancelCause(context.Background())
	return q
}

// Owner is this queue's id, stored in the owner column of its jobs.
func (q *Queue) Owner() string { return q.owner }

// Lease is the lease length in use.
func (q *Queue) Lease() time.Duration { return q.cfg.Lease }

// Wake makes the queue look for work at once (after a local insert).
func (q *Queue) Wake() {
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// Close stops claiming, cancels the running jobs' contexts (cause
// ErrClosed) and waits for their Run to return.
func (q *Queue) Close() {
	q.cancel(ErrClosed)
	q.wg.Wait()
}

// Now is the database clock expression the queue compares leases with.
func (q *Queue) Now() string { return q.now }

func (q *Queue) loop() {
	defer q.wg.Done()
	tick := time.NewTicker(q.poll)
	defer tick.Stop()
	for {
		q.fill()
		select {
		case <-q.ctx.Done():
			return
		case <-q.wake:
		case <-tick.C:
			q.requeueExpired()
		}
	}
}

// fill claims jobs while a worker is free.
func (q *Queue) fill() {
	for {
		select {
		case q.slots <- struct{}{}:
		default:
			return
		}
		c, err := q.claim()
		if err != nil || c == nil {
			<-q.slots
			if err != nil && q.ctx.Err() == nil {
				q.cfg.Logger.Error("jobs: claim", "table", q.cfg.Table.Name, "err", err)
			}
			return
		}
		q.wg.Add(1)
		go func() {
			defer q.wg.Done()
			q.run(*c)
			<-q.slots
			q.Wake() // the group's next job may start now
		}()
	}
}

// requeueExpired puts the processing jobs whose lease ran out back in the
// queue at their place (their seq is unchanged). Any process does it: the
// owner is presumed dead, and should it still be running, its fenced
// writes no longer land.
func (q *Queue) requeueExpired() {
	t := q.cfg.Table
	// A read first: an UPDATE, even of no row, takes SQLite's write lock,
	// and every process runs this every second.
	var one int
	err := q.db.QueryRowContext(q.ctx, `SELECT 1 FROM `+t.Name+` WHERE status = $1 AND lease_until < `+q.now+` LIMIT 1`,
		Processing).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return
	}
	rows, err := q.db.QueryContext(q.ctx, `UPDATE `+t.Name+` SET status = $1, owner = NULL, lease_until = NULL
		WHERE status = $2 AND lease_until < `+q.now+` RETURNING id, attempts`, Queued, Processing)
	if err != nil {
		if q.ctx.Err() == nil {
			q.cfg.Logger.Error("jobs: requeue expired", "table", t.Name, "err", err)
		}
		return
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var id string
		var attempts int
		if rows.Scan(&id, &attempts) == nil {
			q.cfg.Logger.Warn("jobs: lease expired, job queued again for any process to take over",
				"table", t.Name, "job", id, "attempts", attempts)
			n++
		}
	}
	if n > 0 {
		q.Wake()
	}
}

// claim takes the oldest queued job of a group that has none processing,
// or returns nil when there is none.
func (q *Queue) claim() (*Claim, error) {
	t := q.cfg.Table
	set := `status = '` + Processing + `', owner = $1, lease_until = ` + q.now + ` + $2, attempts = attempts + 1`
	args := []any{q.owner, q.cfg.Lease.Milliseconds()}
	if t.Stamp != "" {
		set += `, ` + t.Stamp + ` = $3`
		args = append(args, time.Now().UnixMilli())
	}
	idle := `NOT EXISTS (SELECT 1 FROM ` + t.Name + ` p WHERE p.` + t.Group + ` = j.` + t.Group + ` AND p.status = '` + Processing + `')`
	head := `NOT EXISTS (SELECT 1 FROM ` + t.Name + ` o WHERE o.` + t.Group + ` = j.` + t.Group + ` AND o.status = '` + Queued + `' AND o.seq < j.seq)`
	if t.Only != "" {
		// Only a group's oldest job is a candidate, whatever its kind:
		// skipping one this process cannot run would reorder the group.
		idle += ` AND ` + head + ` AND (` + t.Only + `)`
	}
	if q.engine != store.Postgres {
		// Read first, as in requeueExpired, so that idle polls take no
		// write lock.
		var one int
		err := q.db.QueryRowContext(q.ctx, `SELECT 1 FROM `+t.Name+` j WHERE j.status = '`+Queued+`' AND `+idle+` LIMIT 1`).Scan(&one)
		if errors.Is(err, sql.ErrNoRows) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		// Then one statement under SQLite's write lock: nothing can change
		// between the choice of the job and its claim. The oldest queued
		// job of an idle group is its group's oldest, hence order holds
		// (with Only, idle also asks for the group's oldest).
		c := Claim{Owner: q.owner}
		err = q.db.QueryRowContext(q.ctx, `UPDATE `+t.Name+` SET `+set+` WHERE id = (
			SELECT j.id FROM `+t.Name+` j WHERE j.status = '`+Queued+`' AND `+idle+` ORDER BY j.seq LIMIT 1)
			RETURNING id, `+t.Group+`, attempts`, args...).Scan(&c.ID, &c.Group, &c.Attempt)
		if errors.Is(err, sql.ErrNoRows) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		return &c, nil
	}
	return q.claimPostgres(set, args, idle, head)
}

// claimPostgres claims in one transaction. SKIP LOCKED lets claimers pass
// over the rows another is claiming; since a skipped row may be its
// group's oldest, only each group's oldest queued job is a candidate (a
// later one would jump the queue). The advisory lock on the group then
// serialises the processes that would start a job of one group, and the
// UPDATE, a statement begun after the lock was granted, checks again
// against every commit made before: no group ever runs two jobs at once.
func (q *Queue) claimPostgres(set string, args []any, idle, head string) (*Claim, error) {
	t := q.cfg.Table
	tx, err := q.db.BeginTx(q.ctx, nil)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	rows, err := tx.QueryContext(q.ctx, `SELECT j.id, j.`+t.Group+` FROM `+t.Name+` j
		WHERE j.status = '`+Queued+`' AND `+idle+` AND `+head+`
		ORDER BY j.seq LIMIT 8 FOR UPDATE OF j SKIP LOCKED`)
	if err != nil {
		return nil, err
	}
	type candidate struct {
		id    string
		group int64
	}
	var cands []candidate
	for rows.Next() {
		var c candidate
		if err := rows.Scan(&c.id, &c.group); err != nil {
			rows.Close()
			return nil, err
		}
		cands = append(cands, c)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	n := len(args)
	for _, cand := range cands {
		var got bool
		if err := tx.QueryRowContext(q.ctx, `SELECT pg_try_advisory_xact_lock(hashtextextended($1, 0))`,
			fmt.Sprintf("harkd-jobs:%s:%d", t.Name, cand.group)).Scan(&got); err != nil {
			return nil, err
		}
		if !got {
			continue // another process is starting a job of this group
		}
		c := Claim{ID: cand.id, Group: cand.group, Owner: q.owner}
		err := tx.QueryRowContext(q.ctx, `UPDATE `+t.Name+` j SET `+set+`
			WHERE id = $`+fmt.Sprint(n+1)+` AND status = '`+Queued+`' AND `+idle+` AND `+head+`
			RETURNING attempts`, append(args, cand.id)...).Scan(&c.Attempt)
		if errors.Is(err, sql.ErrNoRows) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if err := tx.Commit(); err != nil {
			return nil, err
		}
		return &c, nil
	}
	return nil, nil
}

// run runs a claimed job while renewing its lease every third of it. A
// job claimed just as the queue closes is handed back untouched (queued,
// its attempt not counted) rather than left to wait for its lease.
func (q *Queue) run(c Claim) {
	if q.ctx.Err() != nil {
		t := q.cfg.Table
		fence, args := c.Fence(1)
		if err := Fenced(q.db.ExecContext(context.Background(), `UPDATE `+t.Name+`
			SET status = '`+Queued+`', owner = NULL, lease_until = NULL, attempts = attempts - 1 WHERE `+fence, args...)); err != nil {
			q.cfg.Logger.Warn("jobs: hand back a job claimed at close", "table", t.Name, "job", c.ID, "err", err)
		}
		return
	}
	ctx, cancel := context.WithCancelCause(q.ctx)
	defer cancel(nil)
	done := make(chan struct{})
	renewed := make(chan struct{})
	go func() {
		defer close(renewed)
		q.renew(ctx, cancel, c, done)
	}()
	defer func() { close(done); <-renewed }()
	q.cfg.Run(ctx, c)
}

func (q *Queue) renew(ctx context.Context, cancel context.CancelCauseFunc, c Claim, done <-chan struct{}) {
	t := q.cfg.Table
	tick := time.NewTicker(q.cfg.Lease / 3)
	defer tick.Stop()
	last := time.Now()
	fence, fargs := c.Fence(2)
	for {
		select {
		case <-done:
			return
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		err := Fenced(q.db.ExecContext(ctx, `UPDATE `+t.Name+` SET lease_until = `+q.now+` + $1 WHERE `+fence,
			append([]any{q.cfg.Lease.Milliseconds()}, fargs...)...))
		switch {
		case err == nil:
			last = time.Now()
		case errors.Is(err, ErrLeaseLost):
			// requeued after an expiry, or its status set under it (a
			// cancel): stop the work, whose outcome could not land anyway
			q.cfg.Logger.Warn("jobs: lease lost, stopping the job", "table", t.Name, "job", c.ID)
			cancel(ErrLeaseLost)
			return
		case ctx.Err() != nil:
			return
		default:
			q.cfg.Logger.Warn("jobs: lease renewal failed", "table", t.Name, "job", c.ID, "err", err)
			if time.Since(last) > q.cfg.Lease {
				// others may have taken the job over by now
				cancel(ErrLeaseLost)
				return
			}
		}
	}
}
