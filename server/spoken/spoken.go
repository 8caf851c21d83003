// Package spoken keeps the spoken form of dialogue answers for
// GET /query/audio/{id} (DECISIONS §6): every answer gets a random positive
// 63-bit id, committed to the database before the id is handed out; its
// MP3 is synthesised on first request (so text answers cost no synthesis
// unless someone listens) or saved as it streams, kept on disk beside the
// database, and removed after 24 hours.
package spoken

import (
	"bytes"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/harkhq/hark/server/apierr"
	"github.com/harkhq/hark/server/store"
)

// TTL is how long an answer's audio is kept.
const TTL = 24 * time.Hour

var migrations = []store.Step{
	{SQLite: `CREATE TABLE spoken (
		id         INTEGER PRIMARY KEY,
		lang       TEXT NOT NULL,
		speech     TEXT NOT NULL,
		created_ms INTEGER NOT NULL
	)`,
		Postgres: `CREATE TABLE spoken (
		id         BIGINT PRIMARY KEY,
		lang       TEXT NOT NULL,
		speech     TEXT NOT NULL,
		created_ms BIGINT NOT NULL
	)`},
	store.Same(`CREATE INDEX spoken_created ON spoken(created_ms)`),
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
	// queue holds registrations waiting for the writer. Every dialogue
	// answer registers one, so one goroutine commits all that are waiting
	// in one transaction (group commit) rather than one SQLite write per
	// request; each Register returns only once its row is committed, so an
	// id handed to a client is always found, even after a crash.
	queue   []*registration
	closed  bool
	sweeps  sync.WaitGroup // Close waits for a sweep in progress
	wake    chan struct{}
	stopped chan struct{}
	stop    chan struct{}
}

type registration struct {
	id           int64
	lang, speech string
	createdMs    int64
	done         chan error
}

// New migrates the table and keeps MP3 files in dir. synth returns the
// synthesizer, or an error (an *apierr.Error naming what is missing) while
// none is available. Files a crash left half-written are removed.
func New(ctx context.Context, db *sql.DB, dir string, synth func() (Synthesizer, error), now func() time.Time) (*Store, error) {
	if err := Migrate(ctx, db); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return nil, fmt.Errorf("audio directory: %w", err)
	}
	if now == nil {
		now = time.Now
	}
	s := &Store{db: db, dir: dir, synth: synth, now: now, synthesing: map[int64]*sync.Mutex{},
		wake: make(chan struct{}, 1), stopped: make(chan struct{}), stop: make(chan struct{})}
	// At start nothing is being written, so every temporary file is a
	// crash's leftover.
	if err := s.removeFiles(func(name string, _ fs.FileInfo) bool { return isTemp(name) }); err != nil {
		return nil, err
	}
	go s.writer()
	return s, nil
}

// Close commits what is waiting and stops the writer; later
// registrations fail.
func (s *Store) Close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		<-s.stopped
		return
	}
	s.closed = true
	s.mu.Unlock()
	close(s.stop)
	<-s.stopped
	s.sweeps.Wait()
}

// writer commits the waiting registrations, all of them in one
// transaction, whenever there are some.
func (s *Store) writer() {
	defer close(s.stopped)
	for {
		select {
		case <-s.wake:
			s.flush()
		case <-s.stop:
			s.flush()
			return
		}
	}
}

func (s *Store) flush() {
	s.mu.Lock()
	batch := s.queue
	s.queue = nil
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
		st, err := tx.Prepare(`INSERT INTO spoken(id, lang, speech, created_ms) VALUES($1, $2, $3, $4) ON CONFLICT DO NOTHING`)
		if err != nil {
			return err
		}
		defer st.Close()
		for _, r := range batch {
			if _, err := st.Exec(r.id, r.lang, r.speech, r.createdMs); err != nil {
				return err
			}
		}
		return tx.Commit()
	}()
	for _, r := range batch {
		r.done <- err
	}
}

// Register records an answer's speech (possibly empty) and returns its id
// once the record is committed. A full disk is a 507 InsufficientStorage.
func (s *Store) Register(ctx context.Context, lang, speech string) (int64, error) {
	r := &registration{id: randomID(), lang: lang, speech: speech, createdMs: s.now().UnixMilli(), done: make(chan error, 1)}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return 0, apierr.Unavailablef("the server is shutting down")
	}
	s.queue = append(s.queue, r)
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
	// Waiting ignores ctx on purpose: the row may be committed whatever
	// the caller does, and the wait is one short transaction.
	if err := <-r.done; err != nil {
		if e := apierr.DiskFull(err); e != nil {
			return 0, e
		}
		return 0, fmt.Errorf("register answer audio: %w", err)
	}
	s.maybeSweep(ctx)
	return r.id, nil
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

// Temporary files: streams being saved and syntheses being cached.
const (
	streamPrefix = "stream-"
	synthPrefix  = "synth-"
)

func isTemp(name string) bool {
	return strings.HasPrefix(name, streamPrefix) || strings.HasPrefix(name, synthPrefix)
}

// Writer returns a file to save the MP3 of answer id into while it streams;
// commit makes it the answer's audio, and abort forgets it.
func (s *Store) Writer(id int64) (w io.Writer, commit func() error, abort func(), err error) {
	f, err := s.createTemp(streamPrefix)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("answer audio: %w", err)
	}
	commit = func() error {
		// Synced before the rename publishes it to every process sharing the directory.
		if err := errors.Join(f.Sync(), f.Close()); err != nil {
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

// Audio is an answer's MP3, for http.ServeContent.
type Audio struct {
	io.ReadSeeker
	ModTime time.Time
	close   func() error
}

// Close releases the file behind the audio, if any.
func (a *Audio) Close() error {
	if a.close == nil {
		return nil
	}
	return a.close()
}

func fileAudio(f *os.File) (*Audio, error) {
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	return &Audio{ReadSeeker: f, ModTime: fi.ModTime(), close: f.Close}, nil
}

// Open returns the MP3 of answer id, synthesising it on first use. An
// unknown or expired id is a 404; an answer without speech returns nil
// audio and no error (the handler answers 204). When the disk is too full
// to keep a synthesis, the answer is served from memory all the same.
func (s *Store) Open(ctx context.Context, id int64) (*Audio, error) {
	var lang, speech string
	var created int64
	err := s.db.QueryRowContext(ctx, `SELECT lang, speech, created_ms FROM spoken WHERE id = $1`, id).Scan(&lang, &speech, &created)
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
		return fileAudio(f)
	}
	synth, err := s.synth()
	if err != nil {
		return nil, err
	}
	mp3, err := synth.Synthesize(ctx, lang, speech)
	if err != nil {
		return nil, fmt.Errorf("synthesise answer %d: %w", id, err)
	}
	if err := s.keep(id, mp3); err != nil {
		if apierr.IsDiskFull(err) {
			return &Audio{ReadSeeker: bytes.NewReader(mp3), ModTime: s.now()}, nil
		}
		return nil, err
	}
	f, err := os.Open(s.path(id))
	if err != nil {
		return nil, err
	}
	return fileAudio(f)
}

// keep writes a synthesis beside the others, whole or not at all.
func (s *Store) keep(id int64, mp3 []byte) error {
	tmp, err := s.createTemp(synthPrefix)
	if err != nil {
		return err
	}
	_, err = tmp.Write(mp3)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), s.path(id))
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}

// createTemp is os.CreateTemp in the audio directory; tests replace it to
// inject a full disk.
var createTempIn = os.CreateTemp

func (s *Store) createTemp(prefix string) (*os.File, error) { return createTempIn(s.dir, prefix+"*") }

// maybeSweep removes expired answers at most once a minute.
func (s *Store) maybeSweep(ctx context.Context) {
	now := s.now().UnixMilli()
	s.mu.Lock()
	due := !s.closed && now-s.lastSweepMs > int64(time.Minute/time.Millisecond)
	if due {
		s.lastSweepMs = now
		s.sweeps.Add(1)
	}
	s.mu.Unlock()
	if due {
		go func() {
			defer s.sweeps.Done()
			s.Sweep(context.WithoutCancel(ctx))
		}()
	}
}

// staleTemp is the age after which a temporary file can only be a
// leftover: no stream or synthesis takes that long.
const staleTemp = time.Hour

// Sweep deletes the answers older than TTL and their files, then any file
// no answer can reach any more: MP3s older than TTL (an answer's file is
// never older than its record) and stale temporary files.
func (s *Store) Sweep(ctx context.Context) error {
	cutoff := s.now().Add(-TTL).UnixMilli()
	rows, err := s.db.QueryContext(ctx, `SELECT id FROM spoken WHERE created_ms < $1`, cutoff)
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
	if _, err = s.db.ExecContext(ctx, `DELETE FROM spoken WHERE created_ms < $1`, cutoff); err != nil {
		return err
	}
	now := s.now()
	return s.removeFiles(func(name string, fi fs.FileInfo) bool {
		age := now.Sub(fi.ModTime())
		return (isTemp(name) && age > staleTemp) || (strings.HasSuffix(name, ".mp3") && age > TTL)
	})
}

// removeFiles removes the files of the audio directory that doomed picks.
func (s *Store) removeFiles(doomed func(name string, fi fs.FileInfo) bool) error {
	des, err := os.ReadDir(s.dir)
	if err != nil {
		return fmt.Errorf("audio directory: %w", err)
	}
	for _, de := range des {
		if !de.Type().IsRegular() {
			continue
		}
		fi, err := de.Info()
		if err != nil {
			continue // removed meanwhile
		}
		if doomed(de.Name(), fi) {
			if err := os.Remove(filepath.Join(s.dir, de.Name())); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("audio directory: %w", err)
			}
		}
	}
	return nil
}

// Migrate brings the spoken tables of db up to this harkd's schema.
func Migrate(ctx context.Context, db *sql.DB) error {
	return store.MigrateSteps(ctx, db, "spoken", migrations)
}
