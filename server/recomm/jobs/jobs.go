// Package jobs runs the recommendation service's background work: batch
// imports, trainings and batch recommendations. Each workspace has one
// queue and its jobs start in the order they were accepted (DECISIONS §12),
// so interactions imported right after their items and users find them.
// Jobs are rows in the store, claimed by one harkd process at a time under
// a lease (server/lease): with several processes on one PostgreSQL
// database each job runs in one of them, and a job whose process died is
// taken over by another once its lease runs out (after the Reclaimed hook
// undid its half-done imports); after lease.MaxAttempts interruptions it
// ends in error. On SQLite a restart resumes the queued jobs, and the job
// a crash left processing once its lease runs out.
package jobs

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/harkhq/hark/server/apierr"
	"github.com/harkhq/hark/server/lease"
	"github.com/harkhq/hark/server/store"
)

// Kinds of job.
const (
	ImportItems        = "import-items"
	ImportUsers        = "import-users"
	ImportInteractions = "import-interactions"
	Train              = "train"
	Recommend          = "recommend"
)

// Statuses of a job (the union of the document's three status lists).
const (
	Queued              = "queued"
	Processing          = "processing"
	Completed           = "completed"
	CompletedWithErrors = "completed_with_errors"
	Error               = "error"
	Canceled            = "canceled"
	TrainingTimeOut     = "training_time_out"
)

// migrations are the job tables' steps. The recommendation service's
// tables live in the main store on PostgreSQL (issue 15), so each step has
// a form per engine; the SQLite forms are the steps as first released.
var migrations = []store.Step{{SQLite: `
CREATE TABLE recomm_jobs (
	seq      INTEGER PRIMARY KEY AUTOINCREMENT,
	id       TEXT NOT NULL UNIQUE,
	ws       INTEGER NOT NULL,
	scope    TEXT NOT NULL,
	kind     TEXT NOT NULL,
	status   TEXT NOT NULL,
	request  TEXT NOT NULL,
	result   TEXT,
	created  INTEGER NOT NULL,
	started  INTEGER,
	finished INTEGER
);
CREATE INDEX recomm_jobs_queue ON recomm_jobs (ws, status, seq);`, Postgres: `
CREATE TABLE recomm_jobs (
	seq      BIGSERIAL PRIMARY KEY,
	id       TEXT NOT NULL UNIQUE,
	ws       BIGINT NOT NULL,
	scope    TEXT NOT NULL,
	kind     TEXT NOT NULL,
	status   TEXT NOT NULL,
	request  TEXT NOT NULL,
	result   TEXT,
	created  BIGINT NOT NULL,
	started  BIGINT,
	finished BIGINT
);
CREATE INDEX recomm_jobs_queue ON recomm_jobs (ws, status, seq);`}, {SQLite: `
CREATE TABLE recomm_usage (
	ws          INTEGER PRIMARY KEY,
	training_ms INTEGER NOT NULL DEFAULT 0,
	requests    INTEGER NOT NULL DEFAULT 0
);`, Postgres: `
CREATE TABLE recomm_usage (
	ws          BIGINT PRIMARY KEY,
	training_ms BIGINT NOT NULL DEFAULT 0,
	requests    BIGINT NOT NULL DEFAULT 0
);`}, {SQLite: `
-- leases (server/lease): the process holding a processing job, until when,
-- and how many times the job was claimed. A job a crash left processing
-- before this step counts as claimed once and its lease as run out, so it
-- is taken over (and its half-done imports undone) like any other.
ALTER TABLE recomm_jobs ADD COLUMN owner TEXT;
ALTER TABLE recomm_jobs ADD COLUMN lease_until INTEGER;
ALTER TABLE recomm_jobs ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0;
UPDATE recomm_jobs SET attempts = 1, lease_until = 0 WHERE status = 'processing';
CREATE INDEX recomm_jobs_status ON recomm_jobs (status, seq);`, Postgres: `
ALTER TABLE recomm_jobs ADD COLUMN owner TEXT;
ALTER TABLE recomm_jobs ADD COLUMN lease_until BIGINT;
ALTER TABLE recomm_jobs ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0;
UPDATE recomm_jobs SET attempts = 1, lease_until = 0 WHERE status = 'processing';
CREATE INDEX recomm_jobs_status ON recomm_jobs (status, seq);`}}

// Job is one accepted request.
type Job struct {
	ID      string
	WS      int64
	Scope   string // table id, or "" for users
	Kind    string
	Status  string
	Request json.RawMessage
	// Result is what the runner returned (not-added lists, counts), JSON.
	Result   json.RawMessage
	Created  time.Time
	Started  time.Time
	Finished time.Time

	// claim is the lease under which this process runs the job; finish
	// writes only while it holds.
	claim lease.Claim
}

// Runner does the work of one kind of job. It returns the final status
// (Completed, CompletedWithErrors, Error, TrainingTimeOut) and a result
// stored as JSON. An error return ends the job in Error with the error's
// text as its result message.
type Runner func(ctx context.Context, j Job) (status string, result any, err error)

// Queue runs jobs. Every harkd process on one store has its own Queue on
// the same table; server/lease makes sure each job runs in one of them.
type Queue struct {
	db      *sql.DB
	runners map[string]Runner
	lq      *lease.Queue
	log     *slog.Logger

	// Reclaimed, when set, is called before a job whose earlier run was
	// interrupted (its process died, or lost its lease) runs again, to
	// undo what that run left half done (the lead wires it to
	// catalog.UndoJobImports). An error ends the job in error. It is read
	// when such a job is claimed, possibly at once by Open: pass it with
	// the option WithReclaimed rather than setting it after Open when jobs
	// may already be waiting.
	Reclaimed func(ctx context.Context, j Job) error
}

// Option configures Open.
type Option func(*options)

type options struct {
	lease     time.Duration
	reclaimed func(ctx context.Context, j Job) error
	logger    *slog.Logger
}

// WithLease sets the lease of a claimed job (default 30 s): how long a job
// whose process died waits before another process takes it over.
func WithLease(d time.Duration) Option { return func(o *options) { o.lease = d } }

// WithReclaimed sets Queue.Reclaimed before any job can be claimed.
func WithReclaimed(fn func(ctx context.Context, j Job) error) Option {
	return func(o *options) { o.reclaimed = fn }
}

// WithLogger sets the queue's logger (default slog.Default()).
func WithLogger(l *slog.Logger) Option { return func(o *options) { o.logger = l } }

// Open migrates the job tables and starts claiming jobs: the queued ones,
// and those whose process died (their lease expired) in their place in the
// order. concurrency bounds the jobs this process runs at once (0 means 1).
func Open(ctx context.Context, db *sql.DB, runners map[string]Runner, concurrency int, opts ...Option) (*Queue, error) {
	if err := Migrate(ctx, db); err != nil {
		return nil, err
	}
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	if o.logger == nil {
		o.logger = slog.Default()
	}
	q := &Queue{db: db, runners: runners, log: o.logger, Reclaimed: o.reclaimed}
	// This queue claims only the kinds it has a runner for.
	kinds := slices.Sorted(maps.Keys(runners))
	for i, k := range kinds {
		kinds[i] = "'" + strings.ReplaceAll(k, "'", "''") + "'"
	}
	only := "j.kind IN (" + strings.Join(kinds, ", ") + ")"
	if len(kinds) == 0 {
		only = "FALSE"
	}
	q.lq = lease.Start(db, lease.Config{Table: lease.Table{Name: "recomm_jobs", Group: "ws", Stamp: "started", Only: only},
		Lease: o.lease, Workers: concurrency, Run: q.run, Logger: o.logger})
	return q, nil
}

// Migrate applies the job tables' migrations without starting a queue, for
// harkd migrate.
func Migrate(ctx context.Context, db *sql.DB) error {
	return store.MigrateSteps(ctx, db, "recomm-jobs", migrations)
}

// Close stops claiming jobs; running jobs see their context cancelled and
// end in error.
func (q *Queue) Close() {
	q.lq.Close()
}

// Submit accepts a job: it is stored queued and starts after the jobs its
// workspace accepted before it, in whichever process claims it first.
func (q *Queue) Submit(ctx context.Context, ws int64, scope, kind string, request any) (Job, error) {
	if _, ok := q.runners[kind]; !ok {
		return Job{}, fmt.Errorf("jobs: no runner for %q", kind)
	}
	req, err := json.Marshal(request)
	if err != nil {
		return Job{}, fmt.Errorf("jobs: encode request: %w", err)
	}
	j := Job{ID: uuid.NewString(), WS: ws, Scope: scope, Kind: kind, Status: Queued, Request: req, Created: time.Now()}
	if _, err := q.db.ExecContext(ctx, `INSERT INTO recomm_jobs(id, ws, scope, kind, status, request, created)
		VALUES($1, $2, $3, $4, $5, $6, $7)`, j.ID, ws, scope, kind, Queued, string(req), j.Created.UnixMilli()); err != nil {
		return Job{}, fmt.Errorf("jobs: submit: %w", err)
	}
	q.lq.Wake()
	return j, nil
}

// Get returns a job of a workspace, scope and kind; anything else is 404.
func (q *Queue) Get(ctx context.Context, ws int64, scope, kind, id string) (Job, error) {
	j, err := q.load(ctx, id)
	if err == sql.ErrNoRows || (err == nil && (j.WS != ws || j.Scope != scope || !sameKind(j.Kind, kind))) {
		return Job{}, apierr.NotFoundf("request %q not found", id)
	}
	return j, err
}

// sameKind lets "" match every kind.
func sameKind(have, want string) bool { return want == "" || have == want }

// Cancel cancels a queued job; a job that already started cannot be. The
// row is the only state: a job queued through another process is
// canceled as well, and no process claims it afterwards.
func (q *Queue) Cancel(ctx context.Context, ws int64, scope, kind, id string) (Job, error) {
	j, err := q.Get(ctx, ws, scope, kind, id)
	if err != nil {
		return Job{}, err
	}
	res, err := q.db.ExecContext(ctx, `UPDATE recomm_jobs SET status = $1, finished = $2 WHERE id = $3 AND status = $4`,
		Canceled, time.Now().UnixMilli(), id, Queued)
	if err != nil {
		return Job{}, err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		j, _ = q.load(ctx, id)
		return Job{}, apierr.BadRequestf("request %q is %s; only a queued request can be canceled", id, j.Status)
	}
	return q.load(ctx, id)
}

// Busy reports whether an import or a training of the scope is processing
// in any process (schema changes of the scope then answer 423; a batch
// recommendation does not lock its table). A job whose lease ran out does not count: its process
// is gone, and the job is queued again at the next poll.
//
// An import publishes its rows and its final status in one transaction a
// moment before its runner returns: once a client can read "completed",
// the table is no longer locked.
func (q *Queue) Busy(ws int64, scope string) bool {
	var one int
	err := q.db.QueryRowContext(context.Background(), `SELECT 1 FROM recomm_jobs
		WHERE ws = $1 AND status = $2 AND scope = $3 AND kind <> $4 AND lease_until > `+q.lq.Now()+` LIMIT 1`,
		ws, Processing, scope, Recommend).Scan(&one)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		// a schema change must not slip under a running import because
		// the database hiccuped
		q.log.Error("recomm jobs: busy", "ws", ws, "scope", scope, "err", err)
		return true
	}
	return err == nil
}

// DeleteScope forgets the finished and queued jobs of a deleted table.
func (q *Queue) DeleteScope(ctx context.Context, ws int64, scope string) error {
	_, err := q.db.ExecContext(ctx, `DELETE FROM recomm_jobs WHERE ws = $1 AND scope = $2 AND status <> $3`, ws, scope, Processing)
	return err
}

func (q *Queue) load(ctx context.Context, id string) (Job, error) {
	var j Job
	var req string
	var result sql.NullString
	var created int64
	var started, finished sql.NullInt64
	err := q.db.QueryRowContext(ctx, `SELECT id, ws, scope, kind, status, request, result, created, started, finished
		FROM recomm_jobs WHERE id = $1`, id).Scan(&j.ID, &j.WS, &j.Scope, &j.Kind, &j.Status, &req, &result, &created, &started, &finished)
	if err != nil {
		return Job{}, err
	}
	j.Request = json.RawMessage(req)
	if result.Valid {
		j.Result = json.RawMessage(result.String)
	}
	j.Created = time.UnixMilli(created)
	if started.Valid {
		j.Started = time.UnixMilli(started.Int64)
	}
	if finished.Valid {
		j.Finished = time.UnixMilli(finished.Int64)
	}
	return j, nil
}

// List returns a workspace's most recent jobs, newest first, at most limit.
func (q *Queue) List(ctx context.Context, ws int64, limit int) ([]Job, error) {
	rows, err := q.db.QueryContext(ctx, `SELECT id FROM recomm_jobs WHERE ws = $1 ORDER BY seq DESC LIMIT $2`, ws, limit)
	if err != nil {
		return nil, err
	}
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return nil, err
		}
		ids = append(ids, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	out := make([]Job, 0, len(ids))
	for _, id := range ids {
		j, err := q.load(ctx, id)
		if err == sql.ErrNoRows {
			continue // deleted with its table meanwhile
		}
		if err != nil {
			return nil, err
		}
		out = append(out, j)
	}
	return out, nil
}

// run runs a job this process claimed and records its outcome, fenced by
// the claim: once the lease is lost, the outcome is discarded (and
// logged), never recorded over another process's run of the job.
func (q *Queue) run(ctx context.Context, c lease.Claim) {
	j, err := q.load(context.WithoutCancel(ctx), c.ID)
	if err != nil {
		q.log.Error("recomm jobs: load claimed job", "id", c.ID, "err", err)
		return // its lease runs out and another attempt reads it again
	}
	j.Status = Processing
	j.claim = c
	status, result, err := q.attempt(ctx, j)
	if err != nil {
		status = Error
		msg := err.Error()
		if e, ok := apierr.As(err); ok {
			msg = e.Description
		}
		result = map[string]string{"message": msg}
		q.log.Warn("recomm job failed", "id", j.ID, "kind", j.Kind, "ws", j.WS, "attempt", c.Attempt, "err", err)
	}
	// the final write must land even when the queue is closing
	err = finish(context.WithoutCancel(ctx), q.db, j, status, result)
	if errors.Is(err, lease.ErrLeaseLost) && q.settledByRunner(j) {
		err = nil // an import recorded its outcome with its rows
	}
	switch {
	case errors.Is(err, lease.ErrLeaseLost):
		q.log.Warn("recomm jobs: lease lost before the job finished; its outcome is discarded", "id", j.ID,
			"kind", j.Kind, "ws", j.WS, "status", status)
	case err != nil:
		q.log.Error("recomm jobs: finish", "id", j.ID, "err", err)
	}
}

// attempt undoes what an interrupted earlier attempt left, gives up after
// lease.MaxAttempts interruptions, or runs the job.
func (q *Queue) attempt(ctx context.Context, j Job) (string, any, error) {
	if j.claim.Attempt > 1 {
		q.log.Warn("recomm jobs: taking over an interrupted job", "id", j.ID, "kind", j.Kind, "ws", j.WS,
			"attempt", j.claim.Attempt)
		if q.Reclaimed != nil {
			if err := q.Reclaimed(ctx, j); err != nil {
				return "", nil, fmt.Errorf("undo the interrupted attempt: %w", err)
			}
		}
	}
	if j.claim.Attempt > lease.MaxAttempts {
		return "", nil, errors.New(lease.Interrupted)
	}
	return q.safeRun(ctx, j)
}

// settledByRunner reports whether the runner itself recorded the job's
// outcome under this claim (imports do, in the transaction that publishes
// their rows), which makes the queue's own fenced finish change nothing.
func (q *Queue) settledByRunner(j Job) bool {
	var owner sql.NullString
	var status string
	err := q.db.QueryRowContext(context.Background(), `SELECT owner, status FROM recomm_jobs WHERE id = $1`, j.ID).Scan(&owner, &status)
	return err == nil && owner.String == j.claim.Owner && status != Processing && status != Queued
}

// finish stores a job's final status and result, only while the job's
// claim holds (lease.ErrLeaseLost otherwise); a runner may call it in the
// transaction that makes its work visible, so that a crash cannot separate
// the two and a lost lease undoes both.
func finish(ctx context.Context, db interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}, j Job, status string, result any) error {
	enc, err := json.Marshal(result)
	if err != nil {
		status, enc = Error, []byte(`{"message":"result could not be stored"}`)
	}
	fence, args := j.claim.Fence(4)
	return lease.Fenced(db.ExecContext(ctx, `UPDATE recomm_jobs SET status = $1, result = $2, finished = $3 WHERE `+fence,
		append([]any{status, string(enc), time.Now().UnixMilli()}, args...)...))
}

// safeRun turns a runner panic into a job error instead of a dead server,
// and logs where it happened: the job's error says only what.
func (q *Queue) safeRun(ctx context.Context, j Job) (status string, result any, err error) {
	defer func() {
		if r := recover(); r != nil {
			q.log.Error("recomm job panicked", "id", j.ID, "kind", j.Kind, "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
			status, result, err = Error, nil, fmt.Errorf("internal error: %v", r)
		}
	}()
	return q.runners[j.Kind](ctx, j)
}
