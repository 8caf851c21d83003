package tracking

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"github.com/harkhq/hark/server/apierr"
	"github.com/harkhq/hark/server/lease"
	"github.com/harkhq/hark/server/store"
)

// Job statuses.
const (
	StatusQueued     = "queued"
	StatusProcessing = "processing"
	StatusCompleted  = "completed"
	StatusError      = "error"
)

// Job is an upload request as GET /tracking/uploadDataset/{requestId}
// reports it. Points and Places are counted once completed (0 before);
// Description says what went wrong once in error.
type Job struct {
	RequestID   string `json:"requestId"`
	Status      string `json:"status"`
	Description string `json:"description,omitempty"`
	Points      int    `json:"points"`
	Places      int    `json:"places"`
}

// Config sets the limits of uploads. Zero values take the defaults.
type Config struct {
	// FetchAllow lists the hosts ("host" for any port, or "host:port")
	// datasets may be fetched from.
	FetchAllow []string
	// MaxBytes bounds the size of a dataset file (default 64 MiB).
	MaxBytes int64
	// Timeout bounds a whole fetch, body included (default 60 s).
	Timeout time.Duration
	// HTTPClient replaces the default client (whose dialer refuses
	// link-local addresses); its CheckRedirect is replaced by the
	// allowlist check.
	HTTPClient *http.Client
	// Workers is the number of uploads this process works on at once
	// (default 1), and QueueSize how many more may wait, counted over every
	// process sharing the store (default 16).
	Workers   int
	QueueSize int
	// Lease is how long a process's claim on an upload lasts without
	// renewal (default 30 s, see server/lease): the upload of a process
	// that died is taken over by another (or by the same after a restart)
	// once it runs out.
	Lease time.Duration
	// Logger receives job failures (default slog.Default()).
	Logger *slog.Logger
}

// Service loads uploaded datasets into users' histories. Uploads are rows
// of tracking_jobs claimed under a lease (server/lease), so every harkd
// process on one store works the same queue, one upload of a user at a
// time, in the order the user sent them.
type Service struct {
	db        *sql.DB
	fetch     *fetcher
	log       *slog.Logger
	queueSize int
	lq        *lease.Queue
	closed    atomic.Bool
}

type queued struct {
	id     string
	userID int64
	url    string
}

var migrations = []store.Step{
	{SQLite: `CREATE TABLE tracking_jobs (
		id          TEXT PRIMARY KEY,
		user_id     INTEGER NOT NULL,
		url         TEXT NOT NULL,
		status      TEXT NOT NULL,
		description TEXT NOT NULL DEFAULT '',
		points      INTEGER NOT NULL DEFAULT 0,
		places      INTEGER NOT NULL DEFAULT 0,
		created_ms  INTEGER NOT NULL,
		updated_ms  INTEGER NOT NULL
	);
	CREATE INDEX tracking_jobs_status ON tracking_jobs(status);
	-- Points are read a day at a time, never one by one: one row per local
	-- day keeps a month's upload to a few dozen rows.
	CREATE TABLE tracking_points (
		user_id INTEGER NOT NULL,
		day     TEXT NOT NULL,    -- YYYY-MM-DD of the stamps, local time
		count   INTEGER NOT NULL,
		points  BLOB NOT NULL,    -- JSON array of Point, in time order
		PRIMARY KEY (user_id, day)
	) WITHOUT ROWID;
	CREATE TABLE tracking_places (
		user_id       INTEGER NOT NULL,
		id            INTEGER NOT NULL,
		label         TEXT NOT NULL,
		lat           REAL NOT NULL,
		lon           REAL NOT NULL,
		visits        INTEGER NOT NULL,
		dwell_minutes INTEGER NOT NULL,
		radius        REAL NOT NULL,
		PRIMARY KEY (user_id, id)
	) WITHOUT ROWID;`,
		Postgres: `CREATE TABLE tracking_jobs (
		id          TEXT PRIMARY KEY,
		user_id     BIGINT NOT NULL,
		url         TEXT NOT NULL,
		status      TEXT NOT NULL,
		description TEXT NOT NULL DEFAULT '',
		points      BIGINT NOT NULL DEFAULT 0,
		places      BIGINT NOT NULL DEFAULT 0,
		created_ms  BIGINT NOT NULL,
		updated_ms  BIGINT NOT NULL
	);
	CREATE INDEX tracking_jobs_status ON tracking_jobs(status);
	-- Points are read a day at a time, never one by one: one row per local
	-- day keeps a month's upload to a few dozen rows.
	CREATE TABLE tracking_points (
		user_id BIGINT NOT NULL,
		day     TEXT NOT NULL,    -- YYYY-MM-DD of the stamps, local time
		count   BIGINT NOT NULL,
		points  BYTEA NOT NULL,    -- JSON array of Point, in time order
		PRIMARY KEY (user_id, day)
	) ;
	CREATE TABLE tracking_places (
		user_id       BIGINT NOT NULL,
		id            BIGINT NOT NULL,
		label         TEXT NOT NULL,
		lat           DOUBLE PRECISION NOT NULL,
		lon           DOUBLE PRECISION NOT NULL,
		visits        BIGINT NOT NULL,
		dwell_minutes BIGINT NOT NULL,
		radius        DOUBLE PRECISION NOT NULL,
		PRIMARY KEY (user_id, id)
	) ;`},
	// Leases (server/lease): seq orders a user's uploads, owner and
	// lease_until say which process holds one and until when, attempts how
	// often it was claimed. SQLite cannot add an autoincrement column, so
	// the table is rebuilt there. An upload a crash left processing under
	// the old schema counts as claimed once, its lease run out.
	{SQLite: `CREATE TABLE tracking_jobs_leased (
		seq         INTEGER PRIMARY KEY AUTOINCREMENT,
		id          TEXT NOT NULL UNIQUE,
		user_id     INTEGER NOT NULL,
		url         TEXT NOT NULL,
		status      TEXT NOT NULL,
		description TEXT NOT NULL DEFAULT '',
		points      INTEGER NOT NULL DEFAULT 0,
		places      INTEGER NOT NULL DEFAULT 0,
		created_ms  INTEGER NOT NULL,
		updated_ms  INTEGER NOT NULL,
		owner       TEXT,
		lease_until INTEGER,
		attempts    INTEGER NOT NULL DEFAULT 0
	);
	INSERT INTO tracking_jobs_leased(id, user_id, url, status, description, points, places, created_ms, updated_ms)
		SELECT id, user_id, url, status, description, points, places, created_ms, updated_ms FROM tracking_jobs
		ORDER BY created_ms, rowid;
	DROP TABLE tracking_jobs;
	ALTER TABLE tracking_jobs_leased RENAME TO tracking_jobs;
	UPDATE tracking_jobs SET attempts = 1, lease_until = 0 WHERE status = 'processing';
	CREATE INDEX tracking_jobs_status ON tracking_jobs(status, seq);
	CREATE INDEX tracking_jobs_user ON tracking_jobs(user_id, status, seq);`,
		Postgres: `ALTER TABLE tracking_jobs ADD COLUMN seq BIGSERIAL;
	ALTER TABLE tracking_jobs ADD COLUMN owner TEXT;
	ALTER TABLE tracking_jobs ADD COLUMN lease_until BIGINT;
	ALTER TABLE tracking_jobs ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0;
	UPDATE tracking_jobs SET attempts = 1, lease_until = 0 WHERE status = 'processing';
	DROP INDEX tracking_jobs_status;
	CREATE INDEX tracking_jobs_status ON tracking_jobs(status, seq);
	CREATE INDEX tracking_jobs_user ON tracking_jobs(user_id, status, seq);`},
}

// New migrates the "tracking" tables and starts working the upload queue:
// uploads still queued from a previous run, and those a process that died
// left processing once their lease runs out. Call Close to stop.
func New(db *sql.DB, cfg Config) (*Service, error) {
	if cfg.MaxBytes <= 0 {
		cfg.MaxBytes = 64 << 20
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 60 * time.Second
	}
	if cfg.Workers <= 0 {
		cfg.Workers = 1
	}
	if cfg.QueueSize <= 0 {
		cfg.QueueSize = 16
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	ctx := context.Background()
	if err := Migrate(ctx, db); err != nil {
		return nil, err
	}
	s := &Service{db: db, fetch: newFetcher(cfg), log: cfg.Logger, queueSize: cfg.QueueSize}
	s.lq = lease.Start(db, lease.Config{Table: lease.Table{Name: "tracking_jobs", Group: "user_id", Stamp: "updated_ms"},
		Lease: cfg.Lease, Workers: cfg.Workers, Run: s.run, Logger: cfg.Logger})
	return s, nil
}

// Close stops the workers; an upload this process was working on ends in
// error.
func (s *Service) Close() error {
	s.closed.Store(true)
	s.lq.Close()
	s.fetch.client.CloseIdleConnections()
	return nil
}

// Upload accepts a dataset URL for the user and queues its fetch. A bad URL
// or a host off the allowlist is a 400 at once; a full queue a 503.
func (s *Service) Upload(ctx context.Context, userID int64, rawURL string) (Job, error) {
	if rawURL == "" {
		return Job{}, apierr.InvalidArgumentf("url is required")
	}
	u, err := s.fetch.check(rawURL)
	if err != nil {
		return Job{}, err
	}
	if s.closed.Load() {
		return Job{}, apierr.Unavailablef("the tracking service is shutting down")
	}
	// The bound is over every process's waiting uploads; processes that
	// count at the same moment may together overshoot it by a few.
	var waiting int
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM tracking_jobs WHERE status = $1`, StatusQueued).Scan(&waiting); err != nil {
		return Job{}, fmt.Errorf("tracking: count waiting uploads: %w", err)
	}
	if waiting >= s.queueSize {
		return Job{}, apierr.Unavailablef("too many dataset uploads are waiting; try again later")
	}
	id := uuid.NewString()
	now := time.Now().UnixMilli()
	if _, err := s.db.ExecContext(ctx, `INSERT INTO tracking_jobs(id, user_id, url, status, created_ms, updated_ms)
		VALUES($1, $2, $3, $4, $5, $6)`, id, userID, u.String(), StatusQueued, now, now); err != nil {
		return Job{}, fmt.Errorf("tracking: queue upload: %w", err)
	}
	s.lq.Wake()
	return Job{RequestID: id, Status: StatusQueued}, nil
}

// Job reports an upload of the user; another user's or an unknown id is 404.
func (s *Service) Job(ctx context.Context, userID int64, requestID string) (Job, error) {
	j := Job{RequestID: requestID}
	err := s.db.QueryRowContext(ctx, `SELECT status, description, points, places FROM tracking_jobs
		WHERE id = $1 AND user_id = $2`, requestID, userID).Scan(&j.Status, &j.Description, &j.Points, &j.Places)
	if errors.Is(err, sql.ErrNoRows) {
		return Job{}, apierr.NotFoundf("no upload request %q", requestID)
	}
	if err != nil {
		return Job{}, fmt.Errorf("tracking: read job: %w", err)
	}
	return j, nil
}

// POIs lists the user's places from their last completed upload, largest
// dwell first; empty (not nil) when there are none.
func (s *Service) POIs(ctx context.Context, userID int64) ([]Place, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, label, lat, lon, visits, dwell_minutes, radius
		FROM tracking_places WHERE user_id = $1 ORDER BY id`, userID)
	if err != nil {
		return nil, fmt.Errorf("tracking: list places: %w", err)
	}
	defer rows.Close()
	places := []Place{}
	for rows.Next() {
		var p Place
		if err := rows.Scan(&p.ID, &p.Label, &p.Lat, &p.Lon, &p.Visits, &p.DwellMinutes, &p.Radius); err != nil {
			return nil, fmt.Errorf("tracking: list places: %w", err)
		}
		places = append(places, p)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("tracking: list places: %w", err)
	}
	return places, nil
}

// run processes an upload this process claimed and records its outcome,
// fenced by the claim: once the lease is lost (another process took the
// upload over), nothing this run does lands, so an upload never completes
// twice.
func (s *Service) run(ctx context.Context, c lease.Claim) {
	// Outcomes are recorded even while shutting down.
	record := context.WithoutCancel(ctx)
	job := queued{id: c.ID, userID: c.Group}
	if err := s.db.QueryRowContext(record, `SELECT url FROM tracking_jobs WHERE id = $1`, c.ID).Scan(&job.url); err != nil {
		s.log.Error("tracking: read claimed job", "job", c.ID, "err", err)
		return // its lease runs out and another attempt reads it again
	}
	if c.Attempt > 1 {
		s.log.Warn("tracking: taking over an interrupted upload", "job", c.ID, "user", c.Group, "attempt", c.Attempt)
	}
	err := errors.New(lease.Interrupted)
	if c.Attempt <= lease.MaxAttempts {
		err = s.load(ctx, c, job)
	}
	if err == nil {
		return // recorded with the points
	}
	switch cause := context.Cause(ctx); {
	case errors.Is(cause, lease.ErrLeaseLost) || errors.Is(err, lease.ErrLeaseLost):
		s.log.Warn("tracking: lease lost before the upload finished; this run's outcome is discarded", "job", c.ID)
		return
	case errors.Is(cause, lease.ErrClosed):
		err = errors.New("the server shut down before the upload finished; upload again")
	}
	s.log.Info("tracking: upload failed", "job", c.ID, "user", c.Group, "err", err)
	fence, args := c.Fence(4)
	if err := lease.Fenced(s.db.ExecContext(record, `UPDATE tracking_jobs SET status = $1, description = $2, updated_ms = $3 WHERE `+fence,
		append([]any{StatusError, err.Error(), time.Now().UnixMilli()}, args...)...)); err != nil {
		s.log.Error("tracking: record job failure", "job", c.ID, "err", err)
	}
}

// load fetches, parses and analyses a dataset and replaces the user's
// points and places with it, recording the upload's completion in the
// same transaction.
func (s *Service) load(ctx context.Context, c lease.Claim, job queued) error {
	u, err := s.fetch.check(job.url)
	if err != nil {
		if ae, ok := apierr.As(err); ok {
			return errors.New(ae.Description)
		}
		return err
	}
	body, err := s.fetch.fetch(ctx, u)
	if err != nil {
		return err
	}
	fixes, err := parseDataset(body)
	if err != nil {
		return err
	}
	return s.save(ctx, c, job.userID, fixes, detectPlaces(fixes))
}

// save replaces the user's points and places and completes the upload, all
// or nothing: a lost lease (lease.ErrLeaseLost) rolls the points back too.
func (s *Service) save(ctx context.Context, c lease.Claim, userID int64, fixes []fix, places []Place) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("tracking: save: %w", err)
	}
	defer tx.Rollback()
	for _, q := range []string{`DELETE FROM tracking_points WHERE user_id = $1`, `DELETE FROM tracking_places WHERE user_id = $1`} {
		if _, err := tx.ExecContext(ctx, q, userID); err != nil {
			return fmt.Errorf("tracking: save: %w", err)
		}
	}
	// Fixes are in time order; a day can come back only when a file mixes
	// zones, so days are grouped by name, not by run.
	var days []string
	byDay := map[string][]Point{}
	for _, f := range fixes {
		day := f.point.Stamp[:10]
		if _, seen := byDay[day]; !seen {
			days = append(days, day)
		}
		byDay[day] = append(byDay[day], f.point)
	}
	for _, day := range days {
		blob, err := json.Marshal(byDay[day])
		if err != nil {
			return fmt.Errorf("tracking: save points: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO tracking_points(user_id, day, count, points) VALUES($1, $2, $3, $4)`,
			userID, day, len(byDay[day]), blob); err != nil {
			return fmt.Errorf("tracking: save points: %w", err)
		}
	}
	for _, p := range places {
		if _, err := tx.ExecContext(ctx, `INSERT INTO tracking_places(user_id, id, label, lat, lon, visits, dwell_minutes, radius)
			VALUES($1, $2, $3, $4, $5, $6, $7, $8)`, userID, p.ID, p.Label, p.Lat, p.Lon, p.Visits, p.DwellMinutes, p.Radius); err != nil {
			return fmt.Errorf("tracking: save places: %w", err)
		}
	}
	fence, args := c.Fence(5)
	if err := lease.Fenced(tx.ExecContext(ctx, `UPDATE tracking_jobs SET status = $1, points = $2, places = $3, updated_ms = $4 WHERE `+fence,
		append([]any{StatusCompleted, len(fixes), len(places), time.Now().UnixMilli()}, args...)...)); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("tracking: save: %w", err)
	}
	return nil
}

// Points returns the user's stored points of one local day (YYYY-MM-DD), in
// time order; empty when there are none.
func (s *Service) Points(ctx context.Context, userID int64, day string) ([]Point, error) {
	if _, err := time.Parse(time.DateOnly, day); err != nil {
		return nil, apierr.InvalidArgumentf("day %q is not YYYY-MM-DD", day)
	}
	var blob []byte
	err := s.db.QueryRowContext(ctx, `SELECT points FROM tracking_points WHERE user_id = $1 AND day = $2`, userID, day).Scan(&blob)
	if errors.Is(err, sql.ErrNoRows) {
		return []Point{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("tracking: read points: %w", err)
	}
	var pts []Point
	if err := json.Unmarshal(blob, &pts); err != nil {
		return nil, fmt.Errorf("tracking: read points of %s: %w", day, err)
	}
	return pts, nil
}

// Migrate brings the tracking tables of db up to this harkd's schema.
func Migrate(ctx context.Context, db *sql.DB) error {
	return store.MigrateSteps(ctx, db, "tracking", migrations)
}
