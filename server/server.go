// Package server assembles harkd: it opens the store, builds every service
// and mounts their endpoints on one HTTP handler. cmd/harkd serves it on a
// port; cmd/hark embeds it in-process when no remote platform is
// configured; tests wrap it in httptest.
package server

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/harkhq/hark/server/accounts"
	"github.com/harkhq/hark/server/dialogue"
	"github.com/harkhq/hark/server/endpoints"
	"github.com/harkhq/hark/server/httpapi"
	"github.com/harkhq/hark/server/httpapi/connguard"
	"github.com/harkhq/hark/server/items"
	"github.com/harkhq/hark/server/knowledge"
	"github.com/harkhq/hark/server/media"
	"github.com/harkhq/hark/server/onboarding"
	"github.com/harkhq/hark/server/openapi"
	"github.com/harkhq/hark/server/recomm/catalog"
	"github.com/harkhq/hark/server/recomm/jobs"
	"github.com/harkhq/hark/server/recomm/recommhttp"
	"github.com/harkhq/hark/server/speakers"
	"github.com/harkhq/hark/server/speech"
	"github.com/harkhq/hark/server/spoken"
	"github.com/harkhq/hark/server/storage"
	"github.com/harkhq/hark/server/store"
	"github.com/harkhq/hark/server/surveys"
	"github.com/harkhq/hark/server/tracking"
	"github.com/harkhq/hark/server/workspaces"
)

// Config is everything harkd serve takes. Zero values take the defaults of
// DECISIONS §3-4.
type Config struct {
	DataDir string
	// Store is where the services keep their tables: empty for SQLite at
	// DataDir/harkd.db, or a postgres:// URL (README, PostgreSQL as the
	// store). Files stay under DataDir, shared by every process.
	Store string
	// PublicKey and PrivateKey, when set, make sure that workspace exists.
	PublicKey, PrivateKey string
	TokenTTL              time.Duration
	// MinInteractions is the least number of records an interaction type
	// needs to take part in training (recommendation document: 500).
	MinInteractions int
	// RecommCandidates is the items-to-user candidates precomputed per user (0: the default, negative:
	// none, every request ranks every item).
	RecommCandidates int
	// FetchAllow lists the hosts (host or host:port) that tracking uploads
	// and recommendation imports may fetch from; the server's own address is
	// always allowed.
	FetchAllow []string
	// TrainingBudget is each workspace's total training time; 0 is
	// unlimited. Once spent, training answers 403 TrainingTimeOut.
	TrainingBudget time.Duration
	// TuningBudget is the hyperparameter search time of one training (harkd: 40 s); 0 trains with
	// the engines' defaults unless a request asks for a search. A search takes at most half of the
	// workspace's training time left.
	TuningBudget time.Duration
	// RecommendationQuota is each workspace's batch recommendation quota;
	// default 10,000,000.
	RecommendationQuota int64

	RatePerSecond, RateBurst float64
	// Processes is how many harkd serve the same PostgreSQL database
	// behind one address (default 1). Rate limits are kept in each
	// process's memory; with N processes each takes 1/N of every rate and
	// burst above, so a client spread over all of them gets at most the
	// configured limit in total (README, PostgreSQL).
	Processes   int
	MaxJSONBody int64 // default 1 MiB
	MaxAudio    int64 // default 10 MiB
	MaxUpload   int64 // default 1 GiB
	MaxImport   int64 // default 1 GiB
	// DrainTimeout bounds the wait for requests in flight on shutdown;
	// those still running then are cut and logged. Default 75 s: the
	// longest voice turn hark records (60 s) plus time to decode and
	// answer it, under systemd's default 90 s stop timeout.
	DrainTimeout time.Duration
	// JobLease is the lease of a background job a process claimed (default
	// 30 s, server/lease): a job whose process died waits this long before
	// another process takes it over.
	JobLease time.Duration
	// AudioIdleTimeout bounds the wait for the next piece of a streamed
	// audio upload; default 10 s.
	AudioIdleTimeout time.Duration
	// SpeechLateStart decodes short commands only after their end, as
	// before their early start (speech.Config.LateStart; for comparisons).
	SpeechLateStart bool
	// SpeechShortDecoder is the in-domain decoder of 16 kHz commands
	// shorter than a second (speech.Config.ShortDecoder; "mixed" decodes
	// them as before it, for comparisons; empty for the default).
	SpeechShortDecoder string
	// SpeechDomainWeight and SpeechMixedMargin are the mixed model's domain
	// weight and its choice margin (speech.Config.DomainWeight and
	// MixedMargin; zero for the defaults), for measuring them through the
	// server (server/spokeneval's HARK_SPOKEN_LAMBDA and HARK_SPOKEN_MARGIN).
	SpeechDomainWeight float64
	SpeechMixedMargin  float64
	// SpeechSearchArgs are the in-domain decoders' search settings
	// (speech.Config.SearchArgs; nil for the defaults), for measuring them
	// through the server (server/spokeneval's HARK_SPOKEN_ARGS).
	SpeechSearchArgs []string
	// SpeechDomainSearchArgs are the domain decoder's (8 kHz audio and
	// short commands; speech.Config.DomainSearchArgs, nil for the
	// defaults), for the same measurements (HARK_SPOKEN_DOMAIN_ARGS).
	SpeechDomainSearchArgs []string
	// SpeechNoWarp decodes every speaker with the acoustic model's own
	// filters (no speaker normalisation, see server/speech's warp.go), for
	// measuring it (HARK_SPOKEN_WARP=off).
	SpeechNoWarp bool
	// SpeechNoAdapt decodes every speaker with the acoustic model's own
	// means (no speaker adaptation, see server/speech's adaptation.go), for
	// measuring it (HARK_SPOKEN_ADAPT=off).
	SpeechNoAdapt bool
	// SpeechNoNarrowband decodes 8 kHz audio under the acoustic model's own
	// means (no band compensation, see server/speech/adapt's narrowband.go),
	// for measuring it (HARK_SPOKEN_NARROWBAND=off).
	SpeechNoNarrowband bool
	// SpeechOnDemand starts the speech workers with the first request that
	// needs them (audio, an answer's spoken form) instead of when the
	// platform starts. Test platforms set it (servertest): most never
	// speak, and a recognition worker costs about a second of CPU to load,
	// several under the race detector. harkd and hark keep the default,
	// which finds a missing library at start and has the engines ready for
	// the first spoken turn.
	SpeechOnDemand bool

	// AuthMemory is the memory budget of password hashing (19 MiB per
	// argon2id hash); default 128 MiB, 6 hashes at once.
	AuthMemory int64
	// AuthRate and AuthBurst limit logins and registrations per client
	// address (default 5/s, burst 20); AuthWorkspaceRate and
	// AuthWorkspaceBurst limit them per workspace (default 20/s, burst 60).
	AuthRate, AuthBurst                   float64
	AuthWorkspaceRate, AuthWorkspaceBurst float64
	// MinBodyRate (bytes/s) and BodyGrace are the least pace of request
	// bodies (default 240 bytes/s after 5 s; a negative rate turns the rule
	// off). The voice stream has its own rule.
	MinBodyRate float64
	BodyGrace   time.Duration
	// MaxConnsPerAddr caps the open connections of one client address
	// (default 256; negative: no cap).
	MaxConnsPerAddr int

	Logger *slog.Logger
	Now    func() time.Time
}

// Server is an assembled harkd.
type Server struct {
	cfg        Config
	db         *sql.DB
	api        *httpapi.API
	Workspaces *workspaces.Service
	Accounts   *accounts.Service
	Storage    *storage.Store
	Surveys    *surveys.Service
	Items      *items.Service
	Tracking   *tracking.Service
	Onboarding *onboarding.Service
	Dialogue   *dialogue.Engine
	Recomm     *recommhttp.Service
	voice      *voice
	nudges     chan nudge
	nudgesDone chan struct{}
	answers    *spoken.Store
	// closeConversations writes the dialogue conversations still pending.
	closeConversations func()
	// priors is what the recogniser learns of each speaker; speakers keeps
	// it in db.
	priors   *speech.Priors
	speakers *speakers.Store
}

func (c *Config) defaults() {
	if c.Processes > 1 {
		c.shareLimits()
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.NewTextHandler(os.Stderr, nil))
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.MinInteractions <= 0 {
		c.MinInteractions = 500
	}
	if c.RecommendationQuota <= 0 {
		c.RecommendationQuota = 10_000_000
	}
	if c.MaxJSONBody <= 0 {
		c.MaxJSONBody = 1 << 20
	}
	if c.MaxAudio <= 0 {
		c.MaxAudio = 10 << 20
	}
	if c.MaxUpload <= 0 {
		c.MaxUpload = 1 << 30
	}
	if c.MaxImport <= 0 {
		c.MaxImport = 1 << 30
	}
	if c.AudioIdleTimeout <= 0 {
		c.AudioIdleTimeout = 10 * time.Second
	}
	if c.DrainTimeout <= 0 {
		c.DrainTimeout = 75 * time.Second
	}
}

// New opens the data directory, runs migrations and builds the services.
func New(ctx context.Context, cfg Config) (*Server, error) {
	cfg.defaults()
	if cfg.DataDir == "" {
		return nil, errors.New("server: a data directory is required")
	}
	if err := os.MkdirAll(cfg.DataDir, 0o750); err != nil {
		return nil, fmt.Errorf("data directory: %w", err)
	}
	db, err := store.Connect(ctx, cfg.Store, cfg.DataDir)
	if err != nil {
		return nil, err
	}
	s := &Server{cfg: cfg, db: db}
	if err := s.build(ctx); err != nil {
		if s.closeConversations != nil {
			s.closeConversations()
		}
		if s.speakers != nil {
			s.speakers.Close()
		}
		s.db.Close()
		return nil, err
	}
	return s, nil
}

// shareLimits gives this process its 1/Processes of each rate limit. A
// limit left zero takes its default first (those of httpapi and accounts),
// since dividing zero would leave the default whole. Bursts keep at least
// one request, so a limit below N requests still lets each process serve.
func (c *Config) shareLimits() {
	n := float64(c.Processes)
	share := func(v *float64, def float64, least float64) {
		if *v <= 0 {
			*v = def
		}
		*v = max(*v/n, least)
	}
	share(&c.RatePerSecond, 50, 0)
	share(&c.RateBurst, 100, 1)
	share(&c.AuthRate, 5, 0)
	share(&c.AuthBurst, 20, 1)
	share(&c.AuthWorkspaceRate, 20, 0)
	share(&c.AuthWorkspaceBurst, 60, 1)
}

// Migrate applies the migrations of every service on store spec (see
// Config.Store) without building or serving anything, so a deployment can
// migrate before it starts its processes.
func Migrate(ctx context.Context, spec, dataDir string) error {
	db, err := store.Connect(ctx, spec, dataDir)
	if err != nil {
		return err
	}
	defer db.Close()
	for _, m := range []func(context.Context, *sql.DB) error{workspaces.Migrate, accounts.Migrate, surveys.Migrate,
		tracking.Migrate, onboarding.Migrate, dialogue.MigrateConversations, spoken.Migrate, speakers.Migrate, catalog.Migrate, jobs.Migrate} {
		if err := m(ctx, db); err != nil {
			return err
		}
	}
	return nil
}

func (s *Server) build(ctx context.Context) error {
	cfg := s.cfg
	var err error
	if s.Workspaces, err = workspaces.New(ctx, s.db); err != nil {
		return err
	}
	if cfg.PublicKey != "" || cfg.PrivateKey != "" {
		if _, err := s.Workspaces.Ensure(ctx, "default", cfg.PublicKey, cfg.PrivateKey); err != nil {
			return err
		}
	}
	if s.Accounts, err = accounts.New(ctx, s.db, s.Workspaces, accounts.Config{TokenTTL: cfg.TokenTTL, Now: cfg.Now,
		HashMemory: cfg.AuthMemory, AttemptRate: cfg.AuthWorkspaceRate, AttemptBurst: cfg.AuthWorkspaceBurst}); err != nil {
		return err
	}
	openStorage := storage.New
	if store.EngineOf(s.db) == store.Postgres {
		openStorage = storage.NewShared // other processes use the same directory
	}
	if s.Storage, err = openStorage(filepath.Join(cfg.DataDir, "storage")); err != nil {
		return err
	}

	if s.Surveys, err = surveys.New(s.db); err != nil {
		return err
	}
	if s.Items, err = items.New(items.Config{}); err != nil {
		return err
	}
	if s.Tracking, err = tracking.New(s.db, tracking.Config{FetchAllow: cfg.FetchAllow, MaxBytes: cfg.MaxImport,
		Lease: cfg.JobLease, Logger: cfg.Logger}); err != nil {
		return err
	}

	if s.Onboarding, err = onboarding.New(s.db, onboarding.Config{
		SetName: s.Accounts.SetName,
		SetSurvey: func(ctx context.Context, userID int64, surveyID int, itemIDs []int) error {
			_, err := s.Surveys.Select(ctx, userID, surveyID, itemIDs, "")
			return err
		},
		SurveyItems: func(ctx context.Context, userID int64, surveyID int) ([]onboarding.SurveyItem, error) {
			d, err := s.Surveys.Get(ctx, userID, surveyID, endpoints.BaseURL(ctx))
			if err != nil {
				return nil, err
			}
			out := make([]onboarding.SurveyItem, len(d.Items))
			for i, it := range d.Items {
				out[i] = onboarding.SurveyItem{ID: it.ID, Text: it.Texto, Image: it.Imagen, Selected: it.Selected}
			}
			return out, nil
		},
	}); err != nil {
		return err
	}

	if s.Recomm, err = recommhttp.New(ctx, recommhttp.Config{DB: s.db, DataDir: cfg.DataDir, FetchAllow: cfg.FetchAllow,
		MaxImportBytes: cfg.MaxImport, Storage: recommStorage{s.Storage, cfg.MaxUpload}, MinInteractions: cfg.MinInteractions,
		TrainingBudget: func(int64) time.Duration { return cfg.TrainingBudget },
		TuningBudget:   cfg.TuningBudget,
		Quota:          func(int64) int64 { return cfg.RecommendationQuota },
		JobLease:       cfg.JobLease,
		Logger:         cfg.Logger}); err != nil {
		return err
	}
	s.Recomm.Recommender.Candidates = cfg.RecommCandidates
	// without candidates, each request reads the user's history from the store, as before either
	// existed: the benchmarks' baseline
	s.Recomm.Catalog.NoHistoryCache = cfg.RecommCandidates < 0

	music, err := media.New(filepath.Join(cfg.DataDir, "music"))
	if err != nil {
		return err
	}
	s.nudges, s.nudgesDone = make(chan nudge, 1024), make(chan struct{})
	go s.nudgeInterests()
	prefs := preferences{s}
	s.Dialogue = dialogue.New(dialogue.Config{
		Music:     musicTracks(),
		MusicURL:  endpoints.MusicPath,
		Knowledge: &knowledge.Items{Items: s.Items, Users: prefs, Places: s.Tracking, Now: cfg.Now},
		Recommendations: &knowledge.Films{Catalog: s.Recomm.Catalog, Recommender: s.Recomm.Recommender, Users: prefs,
			Username: func(ctx context.Context, userID int64) (string, error) {
				u, err := s.Accounts.User(ctx, userID)
				return u.Username, err
			}},
		OnTopic: s.nudgeLater,
		Clock:   cfg.Now,
		Logger:  cfg.Logger,
	})
	if s.closeConversations, err = s.Dialogue.KeepConversationsIn(ctx, s.db); err != nil {
		return err
	}

	var nonces httpapi.Nonces
	if store.EngineOf(s.db) == store.Postgres {
		// Other processes may share the database: a nonce one of them
		// accepted must be refused here too.
		nonces = s.Workspaces
	}
	s.api = httpapi.New(httpapi.Config{
		Nonces:        nonces,
		Logger:        cfg.Logger,
		Keys:          s.Workspaces,
		Tokens:        s.Accounts,
		RatePerSecond: cfg.RatePerSecond,
		RateBurst:     cfg.RateBurst,
		MaxJSONBody:   cfg.MaxJSONBody,
		AuthRate:      cfg.AuthRate,
		AuthBurst:     cfg.AuthBurst,
		BodyRate:      httpapi.BodyRate{BytesPerSecond: cfg.MinBodyRate, Grace: cfg.BodyGrace},
		Now:           cfg.Now,
	})
	endpoints.Accounts(s.api, s.Accounts)
	endpoints.Storage(s.api, s.Storage, cfg.MaxUpload)
	endpoints.Surveys(s.api, s.Surveys)
	endpoints.Items(s.api, s.Items, prefs)
	s.voice = loadVoice(cfg.Logger, s.Dialogue, speech.Config{MaxBytes: cfg.MaxAudio, LateStart: cfg.SpeechLateStart, ShortDecoder: cfg.SpeechShortDecoder,
		DomainWeight: cfg.SpeechDomainWeight, MixedMargin: cfg.SpeechMixedMargin, SearchArgs: cfg.SpeechSearchArgs,
		DomainSearchArgs: cfg.SpeechDomainSearchArgs, NoNarrowband: cfg.SpeechNoNarrowband}, cfg.SpeechOnDemand)
	s.answers, err = spoken.New(ctx, s.db, filepath.Join(cfg.DataDir, "answers"), s.voice.spokenSynth, cfg.Now)
	if err != nil {
		return err
	}
	s.priors = newSpeechPriors(cfg.Logger, cfg.SpeechNoWarp, cfg.SpeechNoAdapt)
	if s.speakers, err = speakers.Open(ctx, s.db, maxSpeechPriors, cfg.Logger); err != nil {
		return err
	}
	s.priors.Profiles = s.speakers
	s.priors.OnProfileError = func(key string, err error) {
		cfg.Logger.Warn("a kept speaker profile is unreadable", "speaker", key, "err", err)
	}
	audio := &endpoints.Audio{Engine: s.Dialogue, Spoken: s.answers, Recognizer: s.voice.recognizer,
		Synthesizer: s.voice.synthesizer, MaxAudio: cfg.MaxAudio, IdleTimeout: cfg.AudioIdleTimeout, Logger: cfg.Logger,
		Priors: s.priors}
	endpoints.Dialogue(s.api, s.Dialogue, audio)
	audio.Routes(s.api)
	endpoints.Icons(s.api)
	endpoints.Music(s.api, music)
	endpoints.Tracking(s.api, s.Tracking)
	endpoints.Onboarding(s.api, s.Onboarding)
	s.Recomm.Register(s.api)

	s.api.Handle("GET /v2/openapi.json", httpapi.Public, func(w http.ResponseWriter, r *http.Request) error {
		w.Header().Set("Content-Type", "application/json")
		_, err := w.Write(openapi.Document())
		return err
	})
	s.api.Handle("GET /healthz", httpapi.Public, func(w http.ResponseWriter, r *http.Request) error {
		w.Header().Set("Content-Type", "text/plain")
		_, err := w.Write([]byte("ok\n"))
		return err
	})
	return nil
}

// Handler is the root HTTP handler.
func (s *Server) Handler() http.Handler { return s.api }

// The request head (request line and headers) must arrive within
// headerTimeout and hold at most maxHeadBytes; net/http reads 4 KiB past
// its MaxHeaderBytes before it answers 431, hence the difference.
const (
	headerTimeout = 10 * time.Second
	maxHeadBytes  = 64 << 10
)

// cutGrace is how long shutdown waits for the handlers of requests it cut
// to return before closing the store.
const cutGrace = 2 * time.Second

// Serve answers on ln until ctx ends, then shuts down gracefully: new
// requests get 503 while those in flight finish (bounded by DrainTimeout,
// after which they are cut and logged), and the store is closed.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	hs := &http.Server{
		Handler:           s.api,
		ReadHeaderTimeout: headerTimeout,
		MaxHeaderBytes:    maxHeadBytes - 4096,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(s.cfg.Logger.Handler(), slog.LevelWarn),
	}
	ln = connguard.Listen(ln, connguard.Config{MaxPerAddr: s.cfg.MaxConnsPerAddr, MaxHeaderBytes: maxHeadBytes,
		HeaderTimeout: headerTimeout, Logger: s.cfg.Logger})
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	go s.purgeTokens(ctx)
	select {
	case err := <-errc:
		s.Close()
		return err
	case <-ctx.Done():
	}
	s.cfg.Logger.Info("shutting down", "drain_timeout", s.cfg.DrainTimeout.String())
	dctx, cancel := context.WithTimeout(context.Background(), s.cfg.DrainTimeout)
	defer cancel()
	drainErr := s.api.Drain(dctx)
	hs.SetKeepAlivesEnabled(false)
	// Requests Drain cut answer 503 as their handlers notice (a pending
	// read of a body ends at once); what still holds a connection then is
	// closed.
	sctx, scancel := context.WithTimeout(context.Background(), cutGrace)
	if err := hs.Shutdown(sctx); err != nil {
		hs.Close()
	}
	scancel()
	if !s.api.Wait(cutGrace) {
		s.cfg.Logger.Warn("handlers still running after shutdown; closing the store under them")
	}
	closeErr := s.Close()
	return errors.Join(drainErr, closeErr)
}

// purgeTokens deletes expired and revoked tokens at start and then hourly,
// until ctx ends, so the token table does not grow with every login.
func (s *Server) purgeTokens(ctx context.Context) {
	t := time.NewTicker(time.Hour)
	defer t.Stop()
	for {
		if err := s.Accounts.PurgeExpired(ctx); err != nil && ctx.Err() == nil {
			s.cfg.Logger.Warn("token purge failed", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Close releases the store. Serve calls it; tests that only use Handler
// call it themselves.
func (s *Server) Close() error {
	// The last answers' warp estimates and transforms come after them,
	// from the recognisers: let them in and kept before those stop.
	s.priors.Drain(speakerDrain)
	s.voice.shutdown()
	s.speakers.Close()
	close(s.nudges)
	<-s.nudgesDone
	s.answers.Close()
	s.closeConversations()
	s.Recomm.Close()
	return errors.Join(s.Tracking.Close(), s.db.Close())
}

// recommStorage is the workspace storage as the recommendation jobs see it:
// import files come from it and batch results go to it.
type recommStorage struct {
	st    *storage.Store
	limit int64
}

func (r recommStorage) Open(ws int64, folder, name string) (io.ReadCloser, error) {
	f, _, err := r.st.Open(ws, folder, name)
	if err != nil {
		return nil, err
	}
	return f, nil
}

func (r recommStorage) CreateFolder(_ context.Context, ws int64, folder string) error {
	return r.st.CreateFolder(ws, folder)
}

func (r recommStorage) Put(ctx context.Context, ws int64, folder, name string, rd io.Reader) error {
	_, err := r.st.Put(ctx, ws, folder, name, rd, r.limit)
	return err
}

// preferences joins what the items need to know of a user.
type preferences struct{ s *Server }

func (p preferences) Profile(ctx context.Context, userID int64) (map[string]float64, error) {
	return p.s.Surveys.Profile(ctx, userID)
}

// Metric is true unless the user chose imperial units in onboarding.
func (p preferences) Metric(ctx context.Context, userID int64) bool {
	units, ok, err := p.s.Onboarding.Preference(ctx, userID, "units")
	return err != nil || !ok || units != "imperial"
}

// nudge is a topic a user asked about.
type nudge struct {
	userID int64
	topic  string
}

// nudgeLater queues an interest nudge (DECISIONS §8) so the answer does not
// wait for a database write; under a flood, nudges are dropped rather than
// slowing answers.
func (s *Server) nudgeLater(_ context.Context, userID int64, topic string) {
	select {
	case s.nudges <- nudge{userID, topic}:
	default:
	}
}

func (s *Server) nudgeInterests() {
	defer close(s.nudgesDone)
	for n := range s.nudges {
		if _, err := s.Surveys.Nudge(context.Background(), n.userID, n.topic); err != nil {
			s.cfg.Logger.Warn("nudge interest", "topic", n.topic, "err", err)
		}
	}
}
