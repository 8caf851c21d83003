// Package jobs runs the recommendation service's background work: batch
// imports, trainings and batch recommendations. Each workspace has one
// queue and its jobs start in the order they were accepted (DECISIONS §12),
// so interactions imported right after their items and users find them.
// Jobs are rows in SQLite: a restart resumes queued jobs, and a job left
// processing by a crash ends in error.
package jobs

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/harkhq/hark/server/apierr"
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

// locking reports whether a processing job of this kind makes schema
// changes of its scope answer 423.
func locking(kind string) bool { return kind != Recommend }

var migrations = []string{`
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
CREATE INDEX recomm_jobs_queue ON recomm_jobs (ws, status, seq);`, `
CREATE TABLE recomm_usage (
	ws          INTEGER PRIMARY KEY,
	training_ms INTEGER NOT NULL DEFAULT 0,
	requests    INTEGER NOT NULL DEFAULT 0
);`}

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
}

// Runner does the work of one kind of job. It returns the final status
// (Completed, CompletedWithErrors, Error, TrainingTimeOut) and a result
// stored as JSON. An error return ends the job in Error with the error's
// text as its result message.
type Runner func(ctx context.Context, j Job) (status string, result any, err error)

// Queue runs jobs.
type Queue struct {
	db      *sql.DB
	runners map[string]Runner
	slots   chan struct{} // bounds jobs running at once across workspaces

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu      sync.Mutex
	workers map[int64]bool   // workspaces with a worker
	busy    map[scopeKey]int // processing locking jobs per scope
}

type scopeKey struct {
	ws    int64
	scope string
}

// Open migrates the job table, ends jobs a crash left processing in error,
// and starts workers for the workspaces with queued jobs. concurrency
// bounds jobs running at once (0 means 1).
func Open(ctx context.Context, db *sql.DB, runners map[string]Runner, concurrency int) (*Queue, error) {
	if err := store.Migrate(ctx, db, "recomm-jobs", migrations); err != nil {
		return nil, err
	}
	if _, err := db.ExecContext(ctx, `UPDATE recomm_jobs SET status = ?, finished = ?, result = ?
		WHERE status = ?`, Error, time.Now().UnixMilli(), `{"message":"interrupted by a restart"}`, Processing); err != nil {
		return nil, fmt.Errorf("recover jobs: %w", err)
	}
	if concurrency <= 0 {
		concurrency = 1
	}
	qctx, cancel := context.WithCancel(context.Background())
	q := &Queue{db: db, runners: runners, slots: make(chan struct{}, concurrency), ctx: qctx, cancel: cancel,
		workers: map[int64]bool{}, busy: map[scopeKey]int{}}
	rows, err := db.QueryContext(ctx, `SELECT DISTINCT ws FROM recomm_jobs WHERE status = ?`, Queued)
	if err != nil {
		return nil, err
	}
	var pending []int64
	for rows.Next() {
		var ws int64
		if err := rows.Scan(&ws); err != nil {
			rows.Close()
			return nil, err
		}
		pending = append(pending, ws)
	}
	rows.Close()
	for _, ws := range pending {
		q.wake(ws)
	}
	return q, nil
}

// Close stops the workers; running jobs see their context cancelled and
// end in error.
func (q *Queue) Close() {
	q.cancel()
	q.wg.Wait()
}

// Submit accepts a job: it is stored queued and starts after the jobs its
// workspace accepted before it.
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
		VALUES(?, ?, ?, ?, ?, ?, ?)`, j.ID, ws, scope, kind, Queued, string(req), j.Created.UnixMilli()); err != nil {
		return Job{}, fmt.Errorf("jobs: submit: %w", err)
	}
	q.wake(ws)
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

// Cancel cancels a queued job; a job that already started cannot be.
func (q *Queue) Cancel(ctx context.Context, ws int64, scope, kind, id string) (Job, error) {
	j, err := q.Get(ctx, ws, scope, kind, id)
	if err != nil {
		return Job{}, err
	}
	res, err := q.db.ExecContext(ctx, `UPDATE recomm_jobs SET status = ?, finished = ? WHERE id = ? AND status = ?`,
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

// Busy reports whether an import or a training of the scope is processing.
func (q *Queue) Busy(ws int64, scope string) bool {
	q.mu.Lock()
	n := q.busy[scopeKey{ws, scope}]
	q.mu.Unlock()
	if n == 0 {
		return false
	}
	// An import publishes its rows and its final status in one transaction a moment before its
	// runner returns: once a client can read "completed", the table is no longer locked.
	var one int
	err := q.db.QueryRowContext(q.ctx, `SELECT 1 FROM recomm_jobs WHERE ws = ? AND scope = ? AND status = ? AND kind <> ? LIMIT 1`,
		ws, scope, Processing, Recommend).Scan(&one)
	return !errors.Is(err, sql.ErrNoRows)
}

// DeleteScope forgets the finished and queued jobs of a deleted table.
func (q *Queue) DeleteScope(ctx context.Context, ws int64, scope string) error {
	_, err := q.db.ExecContext(ctx, `DELETE FROM recomm_jobs WHERE ws = ? AND scope = ? AND status <> ?`, ws, scope, Processing)
	return err
}

func (q *Queue) load(ctx context.Context, id string) (Job, error) {
	var j Job
	var req string
	var result sql.NullString
	var created int64
	var started, finished sql.NullInt64
	err := q.db.QueryRowContext(ctx, `SELECT id, ws, scope, kind, status, request, result, created, started, finished
		FROM recomm_jobs WHERE id = ?`, id).Scan(&j.ID, &j.WS, &j.Scope, &j.Kind, &j.Status, &req, &result, &created, &started, &finished)
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
	rows, err := q.db.QueryContext(ctx, `SELECT id FROM recomm_jobs WHERE ws = ? ORDER BY seq DESC LIMIT ?`, ws, limit)
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

// wake makes sure the workspace has a worker.
func (q *Queue) wake(ws int64) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.workers[ws] || q.ctx.Err() != nil {
		return
	}
	q.workers[ws] = true
	q.wg.Add(1)
	go q.work(ws)
}

// work runs the workspace's queued jobs in order, then exits.
func (q *Queue) work(ws int64) {
	defer q.wg.Done()
	for {
		j, ok := q.claim(ws)
		if !ok {
			return
		}
		q.run(j)
	}
}

// claim takes the oldest queued job of ws and marks it processing, or
// retires the worker when there is none (under the lock, so a Submit
// racing with the exit starts a new worker).
func (q *Queue) claim(ws int64) (Job, bool) {
	select {
	case q.slots <- struct{}{}:
	case <-q.ctx.Done():
		q.retire(ws)
		return Job{}, false
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	giveUp := func(err error) (Job, bool) {
		if err != nil && !errors.Is(err, sql.ErrNoRows) && q.ctx.Err() == nil {
			slog.Error("recomm jobs: claim", "ws", ws, "err", err)
		}
		<-q.slots
		delete(q.workers, ws)
		return Job{}, false
	}
	for {
		var id string
		err := q.db.QueryRowContext(q.ctx, `SELECT id FROM recomm_jobs WHERE ws = ? AND status = ? ORDER BY seq LIMIT 1`,
			ws, Queued).Scan(&id)
		if err != nil {
			return giveUp(err)
		}
		res, err := q.db.ExecContext(q.ctx, `UPDATE recomm_jobs SET status = ?, started = ? WHERE id = ? AND status = ?`,
			Processing, time.Now().UnixMilli(), id, Queued)
		if err != nil {
			return giveUp(err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			continue // canceled between the two statements: take the next one
		}
		j, err := q.load(q.ctx, id)
		if err != nil {
			return giveUp(err)
		}
		if locking(j.Kind) {
			q.busy[scopeKey{ws, j.Scope}]++
		}
		return j, true
	}
}

func (q *Queue) retire(ws int64) {
	q.mu.Lock()
	delete(q.workers, ws)
	q.mu.Unlock()
}

func (q *Queue) run(j Job) {
	defer func() { <-q.slots }()
	status, result, err := q.safeRun(j)
	if err != nil {
		status = Error
		msg := err.Error()
		if e, ok := apierr.As(err); ok {
			msg = e.Description
		}
		result = map[string]string{"message": msg}
		slog.Warn("recomm job failed", "id", j.ID, "kind", j.Kind, "ws", j.WS, "err", err)
	}
	// the final write must land even when the queue is closing
	if err := finish(context.Background(), q.db, j.ID, status, result); err != nil {
		slog.Error("recomm jobs: finish", "id", j.ID, "err", err)
	}
	q.mu.Lock()
	if locking(j.Kind) {
		k := scopeKey{j.WS, j.Scope}
		if q.busy[k]--; q.busy[k] <= 0 {
			delete(q.busy, k)
		}
	}
	q.mu.Unlock()
}

// finish stores a job's final status and result; a runner may call it in
// the transaction that makes its work visible, so that a crash cannot
// separate the two.
func finish(ctx context.Context, db interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}, id, status string, result any) error {
	enc, err := json.Marshal(result)
	if err != nil {
		status, enc = Error, []byte(`{"message":"result could not be stored"}`)
	}
	_, err = db.ExecContext(ctx, `UPDATE recomm_jobs SET status = ?, result = ?, finished = ? WHERE id = ?`,
		status, string(enc), time.Now().UnixMilli(), id)
	return err
}

// safeRun turns a runner panic into a job error instead of a dead server.
func (q *Queue) safeRun(j Job) (status string, result any, err error) {
	defer func() {
		if r := recover(); r != nil {
			status, result, err = Error, nil, fmt.Errorf("internal error: %v", r)
		}
	}()
	return q.runners[j.Kind](q.ctx, j)
}
