// Package speakers keeps what harkd's recogniser has learnt of each
// signed-in speaker (speech.Profile: the cepstral mean, the warp evidence
// and the MLLR transform) in the platform's database, so that it outlives
// the process. An embedded platform lives as long as one hark command, so
// without it every `hark ask` met its speaker as a stranger. The audio a
// transform is estimated from is never kept here.
package speakers

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"log/slog"
	"maps"
	"strings"
	"sync"
	"time"

	"github.com/harkhq/hark/server/speech"
	"github.com/harkhq/hark/server/store"
)

var migrations = []store.Step{
	// speaker is speech.Priors' key of a signed-in speaker
	// ("user/<workspace>/<user>/<rate>"); profile is speech.Profile as
	// JSON; updated_ms orders the rows for the size bound.
	store.Same(`CREATE TABLE speech_speakers (
		speaker    TEXT PRIMARY KEY,
		updated_ms BIGINT NOT NULL,
		profile    TEXT NOT NULL
	)`),
	store.Same(`CREATE INDEX speech_speakers_updated ON speech_speakers(updated_ms)`),
}

// Store is a speech.ProfileStore on a database. Saves are written behind,
// batched by one goroutine: an answer never waits for a write.
type Store struct {
	db  *sql.DB
	log *slog.Logger
	max int

	mu sync.Mutex
	// pending holds each saved profile until a commit holds it: Load
	// reads it from here meanwhile, and a failed write is tried again.
	pending map[string]saved
	saves   uint64 // numbers the saves, so a commit clears only what it wrote
	swept   time.Time
	writer  *store.Behind
}

// Migrate brings the "speakers" component of db up to this harkd's schema.
func Migrate(ctx context.Context, db *sql.DB) error {
	return store.MigrateSteps(ctx, db, "speakers", migrations)
}

// Open migrates the "speakers" component of db and starts the writer. It
// keeps the max most recently updated profiles. Close before db closes.
func Open(ctx context.Context, db *sql.DB, max int, log *slog.Logger) (*Store, error) {
	if err := Migrate(ctx, db); err != nil {
		return nil, err
	}
	s := &Store{db: db, log: log, max: max, pending: map[string]saved{}}
	// At most one commit every 50 ms, whatever the number of speakers.
	s.writer = store.WriteBehind(50*time.Millisecond, s.flush)
	return s, nil
}

// kept tells whether key is a speaker whose profile is kept: a signed-in
// user's. A conversation's key (signed requests without a user) names no
// one who comes back.
func kept(key string) bool { return strings.HasPrefix(key, "user/") }

// Load reads key's profile; nil when there is none.
func (s *Store) Load(key string) (*speech.Profile, error) {
	if !kept(key) {
		return nil, nil
	}
	s.mu.Lock()
	p, ok := s.pending[key]
	s.mu.Unlock()
	if ok {
		return &p.profile, nil
	}
	var text string
	err := s.db.QueryRow(`SELECT profile FROM speech_speakers WHERE speaker = $1`, key).Scan(&text)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var prof speech.Profile
	if err := json.Unmarshal([]byte(text), &prof); err != nil {
		return nil, err
	}
	return &prof, nil
}

// Save queues key's profile for the writer.
func (s *Store) Save(key string, p speech.Profile) {
	if !kept(key) {
		return
	}
	s.mu.Lock()
	s.saves++
	s.pending[key] = saved{p, s.saves}
	s.mu.Unlock()
	s.writer.Wake()
}

// saved is a profile waiting for its commit, numbered by its save.
type saved struct {
	profile speech.Profile
	n       uint64
}

// Close writes what is pending and stops the writer.
func (s *Store) Close() { s.writer.Close() }

func (s *Store) flush() {
	s.mu.Lock()
	batch := maps.Clone(s.pending)
	now := time.Now()
	sweep := now.Sub(s.swept) >= time.Minute
	if sweep {
		s.swept = now
	}
	s.mu.Unlock()
	if len(batch) > 0 {
		if err := s.write(batch, now); err != nil {
			s.log.Warn("keep speaker profiles", "count", len(batch), "err", err)
		} else {
			s.mu.Lock()
			for key, b := range batch {
				if s.pending[key].n == b.n { // not saved again since
					delete(s.pending, key)
				}
			}
			s.mu.Unlock()
		}
	}
	if sweep {
		s.sweep()
	}
}

func (s *Store) write(batch map[string]saved, now time.Time) error {
	tx, err := s.db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for key, p := range batch {
		b, err := json.Marshal(p.profile)
		if err != nil {
			return err
		}
		if _, err := tx.Exec(`INSERT INTO speech_speakers(speaker, updated_ms, profile) VALUES($1, $2, $3)
			ON CONFLICT(speaker) DO UPDATE SET updated_ms = excluded.updated_ms, profile = excluded.profile`,
			key, now.UnixMilli(), string(b)); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// sweep deletes all but the max most recently updated profiles.
func (s *Store) sweep() {
	// SQLite has no OFFSET without LIMIT, and PostgreSQL no negative LIMIT.
	all := "-1"
	if store.EngineOf(s.db) == store.Postgres {
		all = "ALL"
	}
	if _, err := s.db.Exec(`DELETE FROM speech_speakers WHERE speaker IN
		(SELECT speaker FROM speech_speakers ORDER BY updated_ms DESC LIMIT `+all+` OFFSET $1)`, s.max); err != nil {
		s.log.Warn("bound speaker profiles", "err", err)
	}
}
