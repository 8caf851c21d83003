// Package recommhttp serves the recommendation service under /v2/recomm:
// every endpoint of the recommendation document plus the extras of
// DECISIONS §12, on top of the catalog, the job queue, the trainer, the
// recommender and the batcher, which New assembles.
//
// Routing: the document's paths overlap (/users/{userId}/warmup/keywords
// against /{tableId}/users/{userId}/{interactionId}), which net/http's
// ServeMux refuses, so the package mounts one prefix per method and routes
// below it itself, trying literal routes before wildcard ones. The table
// ids "users" and "tables" are reserved for that reason.
package recommhttp

import (
	"context"
	"database/sql"
	"log/slog"
	"path/filepath"
	"time"

	"github.com/harkhq/hark/server/httpapi"
	"github.com/harkhq/hark/server/recomm/catalog"
	"github.com/harkhq/hark/server/recomm/jobs"
	"github.com/harkhq/hark/server/recomm/recommend"
)

// Storage is what the service needs of the workspace storage: reading
// import files and writing batch results.
type Storage interface {
	jobs.StorageOpener
	jobs.StorageWriter
}

// Config assembles the service.
type Config struct {
	DB      *sql.DB
	DataDir string // models live in DataDir/recomm
	// FetchAllow lists hosts (or host:port) imports may fetch from.
	FetchAllow      []string
	MaxImportBytes  int64 // default 1 GiB
	Storage         Storage
	MinInteractions int // default 500
	// TrainingBudget gives a workspace's training time; nil or 0 is unlimited.
	TrainingBudget func(ws int64) time.Duration
	// TuningBudget is each training's hyperparameter search time (0: none unless asked).
	TuningBudget time.Duration
	// Quota gives a workspace's batch recommendation quota; nil is 10,000,000.
	Quota func(ws int64) int64
	// Concurrency bounds background jobs running at once (default 1).
	Concurrency int
	// JobLease is the lease of a claimed job (default 30 s, server/lease).
	JobLease time.Duration
	Logger   *slog.Logger
}

// Service is the assembled recommendation service.
type Service struct {
	Catalog     *catalog.Catalog
	Queue       *jobs.Queue
	Models      *recommend.Models
	Trainer     *jobs.Trainer
	Recommender *recommend.Recommender
	Batcher     *jobs.Batcher
	Sources     *jobs.Sources
	maxJSON     int64
	stopWatch   context.CancelFunc // ends the listeners of Recommender.Watch
}

// New opens the catalog and the queue and loads the saved models.
func New(ctx context.Context, cfg Config) (*Service, error) {
	logger := cfg.Logger
	if logger == nil {
		logger = slog.Default()
	}
	cat, err := catalog.Open(ctx, cfg.DB)
	if err != nil {
		return nil, err
	}
	models, problems := recommend.OpenModels(filepath.Join(cfg.DataDir, "recomm"))
	for _, p := range problems {
		logger.Warn("recomm: a saved model did not load; train the table again", "err", p)
	}
	s := &Service{Catalog: cat, Models: models}
	s.Sources = &jobs.Sources{FetchAllow: cfg.FetchAllow, MaxBytes: cfg.MaxImportBytes}
	var writer jobs.StorageWriter
	if cfg.Storage != nil {
		s.Sources.Storage = cfg.Storage
		writer = cfg.Storage
	}
	s.Trainer = &jobs.Trainer{Catalog: cat, Models: models, DB: cfg.DB, MinInteractions: cfg.MinInteractions, Budget: cfg.TrainingBudget,
		TuningBudget: cfg.TuningBudget}
	s.Recommender = &recommend.Recommender{Catalog: cat, Models: models}
	// Every process hears of the models the others train and of the interactions they record
	// (README, PostgreSQL as the store); before the queue opens, so no training goes unannounced.
	watchCtx, stopWatch := context.WithCancel(context.Background())
	s.stopWatch = stopWatch
	s.Recommender.Watch(watchCtx, cfg.DB)
	s.Batcher = &jobs.Batcher{Rec: s.Recommender, Storage: writer, DB: cfg.DB, Quota: cfg.Quota}
	imports := jobs.ImportRunner(cat, s.Sources)
	s.Queue, err = jobs.Open(ctx, cfg.DB, map[string]jobs.Runner{
		jobs.ImportItems: imports, jobs.ImportUsers: imports, jobs.ImportInteractions: imports,
		jobs.Train: s.Trainer.Run, jobs.Recommend: s.Batcher.Run,
	}, cfg.Concurrency, jobs.WithLease(cfg.JobLease), jobs.WithLogger(logger),
		// a job whose process died is run again from a clean slate
		jobs.WithReclaimed(func(ctx context.Context, j jobs.Job) error { return cat.UndoJobImports(ctx, j.ID) }))
	if err != nil {
		return nil, err
	}
	cat.Busy = s.Queue.Busy
	cat.Recorded = s.Recommender.Learn
	return s, nil
}

// Close stops the background jobs and waits for the models being saved.
func (s *Service) Close() {
	s.Queue.Close()
	s.stopWatch()
	s.Models.WaitSaves()
}

// Register mounts the endpoints on api, all signed (recommendation
// requests act for the workspace).
func (s *Service) Register(api *httpapi.API) {
	s.maxJSON = api.MaxJSONBody()
	r := s.routes()
	for _, method := range []string{"GET", "POST", "PATCH", "DELETE"} {
		api.Handle(method+" /v2/recomm/", httpapi.Signed, r.serve)
	}
}
