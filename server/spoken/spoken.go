// Package spoken keeps the spoken form of dialogue answers for
// GET /query/audio/{id} (DECISIONS §6): every answer gets a random positive
// 63-bit id; its MP3 is synthesised on first request (so text answers cost
// no synthesis unless someone listens) or saved as it streams, kept on disk
// beside the database, and removed after 24 hours.
package spoken

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/harkhq/hark/server/apierr"
	"github.com/harkhq/hark/server/store"
)

// TTL is how long an answer's audio is kept.
const TTL = 24 * time.Hour

var migrations = []string{
	`CREATE TABLE spoken (
		id         INTEGER PRIMARY KEY,
		lang       TEXT NOT NULL,
		speech     TEXT NOT NULL,
		created_ms INTEGER NOT NULL
	)`,
	`CREATE INDEX spoken_created ON spoken(created_ms)`,
}

// Synthesizer turns text into MP3.
type Synthesizer interface {
	Synthesize(ctx context.Context, lang, text string) ([]byte, error)
}

// Store keeps answers' audio.
type Store struct {
	db  *sql.DB
	dir string
	now func() time.Time
	// synth gives the synthesizer, or why there is none.
	synth func() (Synthesizer, error)

	mu          sync.Mutex
	synthesing  map[int64]*sync.Mutex // one synthesis per answer at a time
	lastSweepMs int64
	// pending holds registrations not yet written: every dialogue answer
	// registers one, so they are written in batches by one goroutine rather
	// than one SQLite write per request.
	pending  map[int64]entry
	wake     chan struct{}
	flushed  chan struct{}
	stop     chan struct{}
	stopOnce sync.Once
}

type entry struct {
	lang, speech string
	createdMs    int64
}

// New migrates the table and keeps MP3 files in dir. synth returns the
// synthesizer, or an error (an *apierr.Error naming what is missing) while
// none is available.
func New(ctx context.Context, db *sql.DB, dir string, synth func() (Synthesizer, error), now func() time.Time) (*Store, error) {
	if err := store.Migrate(ctx, db, "spoken", migrations); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return nil, fmt.Errorf("audio directory: %w", err)
	}
	if now == nil {
		now = time.Now
	}
	s := &Store{db: db, dir: dir, synth: synth, now: now, synthesing: map[int64]*sync.Mutex{},
		pending: map[int64]entry{}, wake: make(chan struct{}, 1), flushed: make(chan struct{}), stop: make(chan struct{})}
	go s.writer()
	return s, nil
}

// Close writes what is pending and stops the writer.
func (s *Store) Close() {
	s.stopOnce.Do(func() {
		close(s.stop)
		<-s.flushed
	})
}

// writer writes pending registrations in one transaction at most every
// 50 ms.
func (s *Store) writer() {
	defer close(s.flushed)
	for {
		select {
		case <-s.wake:
		case <-s.stop:
			s.flush()
			return
		}
		time.Sleep(50 * time.Millisecond)
		s.flush()
	}
}

func (s *Store) flush() {
	s.mu.Lock()
	batch := s.pending
	s.pending = map[int64]entry{}
	s.mu.Unlock()
	if len(batch) == 0 {
		return
	}
	err := func() error {
		tx, err := s.db.Begin()
		if err != nil {
			return err
		}
		defer tx.Rollback()
		for id, e := range batch {
			if _, err := tx.Exec(`INSERT OR IGNORE INTO spoken(id, lang, speech, created_ms) VALUES(?, ?, ?, ?)`,
				id, e.lang, e.speech, e.createdMs); err != nil {
				return err
			}
		}
		return tx.Commit()
	}()
	if err != nil {
		// Keep them in memory for the next round rather than lose them.
		s.mu.Lock()
		for id, e := range batch {
			s.pending[id] = e
		}
		s.mu.Unlock()
	}
}

// Register records an answer's speech (possibly empty) and returns its id.
// The record is written shortly after, in a batch; Open finds it at once.
// (A clash of two random 63-bit ids is not a practical concern.)
func (s *Store) Register(ctx context.Context, lang, speech string) (int64, error) {
	id := randomID()
	s.mu.Lock()
	s.pending[id] = entry{lang: lang, speech: speech, createdMs: s.now().UnixMilli()}
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
	s.maybeSweep(ctx)
	return id, nil
}

// randomID is a uniformly random positive 63-bit integer: not guessable,
// so an answer's audio is as private as its URL.
func randomID() int64 {
	var b [8]byte
	for {
		rand.Read(b[:])
		if id := int64(binary.BigEndian.Uint64(b[:]) >> 1); id > 0 {
			return id
		}
	}
}

// Writer returns a file to save the MP3 of answer id into while it streams;
// commit makes it the answer's audio, and abort forgets it.
func (s *Store) Writer(id int64) (w io.Writer, commit func() error, abort func(), err error) {
	f, err := os.CreateTemp(s.dir, "stream-*")
	if err != nil {
		return nil, nil, nil, fmt.Errorf("answer audio: %w", err)
	}
	commit = func() error {
		if err := f.Close(); err != nil {
			os.Remove(f.Name())
			return err
		}
		return os.Rename(f.Name(), s.path(id))
	}
	abort = func() {
		f.Close()
		os.Remove(f.Name())
	}
	return f, commit, abort, nil
}

func (s *Store) path(id int64) string { return filepath.Join(s.dir, strconv.FormatInt(id, 10)+".mp3") }

// Open returns the MP3 of answer id, synthesising it on first use. An
// unknown or expired id is a 404; an answer without speech returns a nil
// file and no error (the handler answers 204).
func (s *Store) Open(ctx context.Context, id int64) (*os.File, error) {
	var lang, speech string
	var created int64
	s.mu.Lock()
	e, ok := s.pending[id]
	s.mu.Unlock()
	var err error
	if ok {
		lang, speech, created = e.lang, e.speech, e.createdMs
	} else {
		err = s.db.QueryRowContext(ctx, `SELECT lang, speech, created_ms FROM spoken WHERE id = ?`, id).Scan(&lang, &speech, &created)
	}
	if errors.Is(err, sql.ErrNoRows) || (err == nil && s.now().Sub(time.UnixMilli(created)) > TTL) {
		return nil, apierr.NotFoundf("no answer audio %d (they are kept 24 hours)", id)
	}
	if err != nil {
		return nil, fmt.Errorf("answer audio: %w", err)
	}
	if speech == "" {
		return nil, nil
	}
	// One synthesis per answer, however many listeners arrive at once.
	s.mu.Lock()
	m, ok := s.synthesing[id]
	if !ok {
		m = &sync.Mutex{}
		s.synthesing[id] = m
	}
	s.mu.Unlock()
	m.Lock()
	defer func() {
		m.Unlock()
		s.mu.Lock()
		delete(s.synthesing, id)
		s.mu.Unlock()
	}()
	if f, err := os.Open(s.path(id)); err == nil {
		return f, nil
	}
	synth, err := s.synth()
	if err != nil {
		return nil, err
	}
	mp3, err := synth.Synthesize(ctx, lang, speech)
	if err != nil {
		return nil, fmt.Errorf("synthesise answer %d: %w", id, err)
	}
	tmp, err := os.CreateTemp(s.dir, "synth-*")
	if err != nil {
		return nil, err
	}
	if _, err := tmp.Write(mp3); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return nil, err
	}
	tmp.Close()
	if err := os.Rename(tmp.Name(), s.path(id)); err != nil {
		return nil, err
	}
	return os.Open(s.path(id))
}

// maybeSweep removes expired answers at most once a minute.
func (s *Store) maybeSweep(ctx context.Context) {
	now := s.now().UnixMilli()
	s.mu.Lock()
	due := now-s.lastSweepMs > int64(time.Minute/time.Millisecond)
	if due {
		s.lastSweepMs = now
	}
	s.mu.Unlock()
	if due {
		go s.Sweep(context.WithoutCancel(ctx))
	}
}

// Sweep deletes the answers older than TTL and their files.
func (s *Store) Sweep(ctx context.Context) error {
	cutoff := s.now().Add(-TTL).UnixMilli()
	rows, err := s.db.QueryContext(ctx, `SELECT id FROM spoken WHERE created_ms < ?`, cutoff)
	if err != nil {
		return err
	}
	var ids []int64
	for rows.Next() {
		var id int64
		if rows.Scan(&id) == nil {
			ids = append(ids, id)
		}
	}
	rows.Close()
	for _, id := range ids {
		os.Remove(s.path(id))
	}
	_, err = s.db.ExecContext(ctx, `DELETE FROM spoken WHERE created_ms < ?`, cutoff)
	return err
}
