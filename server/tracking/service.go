package tracking

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/harkhq/hark/server/apierr"
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
	// Workers is the number of uploads processed at once (default 1), and
	// QueueSize how many more may wait (default 16).
	Workers   int
	QueueSize int
	// Logger receives job failures (default slog.Default()).
	Logger *slog.Logger
}

// Service loads uploaded datasets into users' histories.
type Service struct {
	db     *sql.DB
	fetch  *fetcher
	log    *slog.Logger
	queue  chan queued
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
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
}

// New migrates the "tracking" tables, ends jobs a previous run left
// unfinished, and starts the workers. Call Close to stop them.
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
	if _, err := db.ExecContext(ctx, `UPDATE tracking_jobs SET status = $1, description = $2, updated_ms = $3
		WHERE status IN ($4, $5)`, StatusError, "the server restarted before the upload finished; upload again",
		time.Now().UnixMilli(), StatusQueued, StatusProcessing); err != nil {
		return nil, fmt.Errorf("tracking: end interrupted jobs: %w", err)
	}
	s := &Service{db: db, fetch: newFetcher(cfg), log: cfg.Logger, queue: make(chan queued, cfg.QueueSize)}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	for range cfg.Workers {
		s.wg.Add(1)
		go s.work()
	}
	return s, nil
}

// Close stops the workers; a job they were processing ends in error.
func (s *Service) Close() error {
	s.cancel()
	s.wg.Wait()
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
	if s.ctx.Err() != nil {
		return Job{}, apierr.Unavailablef("the tracking service is shutting down")
	}
	job := queued{id: uuid.NewString(), userID: userID, url: u.String()}
	now := time.Now().UnixMilli()
	if _, err := s.db.ExecContext(ctx, `INSERT INTO tracking_jobs(id, user_id, url, status, created_ms, updated_ms)
		VALUES($1, $2, $3, $4, $5, $6)`, job.id, userID, job.url, StatusQueued, now, now); err != nil {
		return Job{}, fmt.Errorf("tracking: queue upload: %w", err)
	}
	select {
	case s.queue <- job:
		return Job{RequestID: job.id, Status: StatusQueued}, nil
	default:
		if _, err := s.db.ExecContext(ctx, `DELETE FROM tracking_jobs WHERE id = $1`, job.id); err != nil {
			return Job{}, fmt.Errorf("tracking: drop refused upload: %w", err)
		}
		return Job{}, apierr.Unavailablef("too many dataset uploads are waiting; try again later")
	}
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

func (s *Service) work() {
	defer s.wg.Done()
	for {
		select {
		case <-s.ctx.Done():
			return
		case job := <-s.queue:
			s.run(job)
		}
	}
}

// run processes one job and records its outcome.
func (s *Service) run(job queued) {
	// Outcomes are recorded even while shutting down.
	record := context.WithoutCancel(s.ctx)
	if err := s.setStatus(record, job.id, StatusProcessing, ""); err != nil {
		s.log.Error("tracking: start job", "job", job.id, "err", err)
		return
	}
	points, places, err := s.load(job)
	if err != nil {
		if s.ctx.Err() != nil {
			err = errors.New("the server shut down before the upload finished; upload again")
		}
		s.log.Info("tracking: upload failed", "job", job.id, "user", job.userID, "err", err)
		if err := s.setStatus(record, job.id, StatusError, err.Error()); err != nil {
			s.log.Error("tracking: record job failure", "job", job.id, "err", err)
		}
		return
	}
	if _, err := s.db.ExecContext(record, `UPDATE tracking_jobs SET status = $1, points = $2, places = $3, updated_ms = $4
		WHERE id = $5`, StatusCompleted, points, places, time.Now().UnixMilli(), job.id); err != nil {
		s.log.Error("tracking: record job success", "job", job.id, "err", err)
	}
}

func (s *Service) setStatus(ctx context.Context, id, status, description string) error {
	_, err := s.db.ExecContext(ctx, `UPDATE tracking_jobs SET status = $1, description = $2, updated_ms = $3 WHERE id = $4`,
		status, description, time.Now().UnixMilli(), id)
	return err
}

// load fetches, parses and analyses a dataset and replaces the user's
// points and places with it.
func (s *Service) load(job queued) (points, places int, err error) {
	u, err := s.fetch.check(job.url)
	if err != nil {
		if ae, ok := apierr.As(err); ok {
			return 0, 0, errors.New(ae.Description)
		}
		return 0, 0, err
	}
	body, err := s.fetch.fetch(s.ctx, u)
	if err != nil {
		return 0, 0, err
	}
	fixes, err := parseDataset(body)
	if err != nil {
		return 0, 0, err
	}
	found := detectPlaces(fixes)
	if err := s.save(job.userID, fixes, found); err != nil {
		return 0, 0, err
	}
	return len(fixes), len(found), nil
}

func (s *Service) save(userID int64, fixes []fix, places []Place) error {
	tx, err := s.db.BeginTx(s.ctx, nil)
	if err != nil {
		return fmt.Errorf("tracking: save: %w", err)
	}
	defer tx.Rollback()
	for _, q := range []string{`DELETE FROM tracking_points WHERE user_id = $1`, `DELETE FROM tracking_places WHERE user_id = $1`} {
		if _, err := tx.ExecContext(s.ctx, q, userID); err != nil {
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
		if _, err := tx.ExecContext(s.ctx, `INSERT INTO tracking_points(user_id, day, count, points) VALUES($1, $2, $3, $4)`,
			userID, day, len(byDay[day]), blob); err != nil {
			return fmt.Errorf("tracking: save points: %w", err)
		}
	}
	for _, p := range places {
		if _, err := tx.ExecContext(s.ctx, `INSERT INTO tracking_places(user_id, id, label, lat, lon, visits, dwell_minutes, radius)
			VALUES($1, $2, $3, $4, $5, $6, $7, $8)`, userID, p.ID, p.Label, p.Lat, p.Lon, p.Visits, p.DwellMinutes, p.Radius); err != nil {
			return fmt.Errorf("tracking: save places: %w", err)
		}
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
