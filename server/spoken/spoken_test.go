package spoken

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/harkhq/hark/server/apierr"
	"github.com/harkhq/hark/server/store/storetest"
)

// recorder stands in for text-to-speech: the store only keeps and serves
// bytes, so the test gives it bytes that name what was asked and counts
// the calls.
type recorder struct{ calls atomic.Int64 }

func (r *recorder) Synthesize(_ context.Context, lang, text string) ([]byte, error) {
	r.calls.Add(1)
	return []byte("mp3:" + lang + ":" + text), nil
}

type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func newStore(t *testing.T, dir string, now func() time.Time) (*Store, *recorder) {
	t.Helper()
	db, err := storetest.Open(t, dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	rec := &recorder{}
	s, err := New(context.Background(), db, filepath.Join(dir, "answers"), func() (Synthesizer, error) { return rec, nil }, now)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s, rec
}

func read(t *testing.T, a *Audio) string {
	t.Helper()
	if a == nil {
		return ""
	}
	defer a.Close()
	b, err := io.ReadAll(a)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// An id that Register returned is found at once, however many
// registrations and lookups run together: the writer used to take a batch
// out of its pending map before the batch's transaction committed, and a
// lookup in between found neither (404 for a URL just handed out).
func TestRegisteredAnswerIsFoundAtOnce(t *testing.T) {
	s, _ := newStore(t, t.TempDir(), nil)
	ctx := context.Background()
	// a fixed time rather than a count: the old writer flushed every
	// 50 ms, so the test must span many flushes however fast it runs
	const registrars, lookers = 8, 4
	until := time.Now().Add(time.Second)
	var (
		mu     sync.Mutex
		recent []int64 // the ids handed out last, as clients fetch them right away
		lost   atomic.Int64
		done   = make(chan struct{})
		wg     sync.WaitGroup
		lookWG sync.WaitGroup
	)
	for l := 0; l < lookers; l++ {
		lookWG.Add(1)
		go func() {
			defer lookWG.Done()
			for {
				select {
				case <-done:
					return
				default:
				}
				mu.Lock()
				ids := append([]int64(nil), recent...)
				mu.Unlock()
				for _, id := range ids {
					if _, err := s.Open(ctx, id); err != nil {
						lost.Add(1)
					}
				}
			}
		}()
	}
	for r := 0; r < registrars; r++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(until) {
				id, err := s.Register(ctx, "en", "")
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				recent = append(recent, id)
				if len(recent) > 16 {
					recent = recent[1:]
				}
				mu.Unlock()
				if _, err := s.Open(ctx, id); err != nil {
					lost.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	close(done)
	lookWG.Wait()
	if n := lost.Load(); n > 0 {
		t.Fatalf("%d lookups of just-returned ids failed", n)
	}
}

func TestOpenSynthesisesOnceAndKeeps(t *testing.T) {
	s, rec := newStore(t, t.TempDir(), nil)
	ctx := context.Background()
	id, err := s.Register(ctx, "es", "¿Algo más?")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a, err := s.Open(ctx, id)
			if err != nil {
				t.Error(err)
				return
			}
			if got := read(t, a); got != "mp3:es:¿Algo más?" {
				t.Errorf("audio = %q", got)
			}
		}()
	}
	wg.Wait()
	if n := rec.calls.Load(); n != 1 {
		t.Errorf("%d syntheses for one answer, want 1", n)
	}
	silent, _ := s.Register(ctx, "en", "")
	if a, err := s.Open(ctx, silent); a != nil || err != nil {
		t.Errorf("an answer without speech: %v %v, want nil audio", a, err)
	}
	if _, err := s.Open(ctx, 12345); !isNotFound(err) {
		t.Errorf("unknown id: %v, want 404", err)
	}
}

func isNotFound(err error) bool {
	e, ok := apierr.As(err)
	return ok && e.Status == 404
}

// Answers are kept 24 hours: found just before, 404 just after, and the
// sweep removes their records and files.
func TestExpiryAndSweep(t *testing.T) {
	dir := t.TempDir()
	c := &clock{t: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	s, _ := newStore(t, dir, c.now)
	ctx := context.Background()
	old, _ := s.Register(ctx, "en", "old answer")
	if a, err := s.Open(ctx, old); err != nil || read(t, a) == "" {
		t.Fatalf("fresh answer: %v", err)
	}
	c.add(12 * time.Hour)
	young, _ := s.Register(ctx, "en", "young answer")
	if a, err := s.Open(ctx, young); err != nil {
		t.Fatal(err)
	} else {
		read(t, a)
	}
	c.add(12*time.Hour - time.Second)
	if a, err := s.Open(ctx, old); err != nil {
		t.Fatalf("23:59:59 old: %v", err)
	} else {
		a.Close()
	}
	c.add(2 * time.Second)
	if _, err := s.Open(ctx, old); !isNotFound(err) {
		t.Fatalf("24:00:01 old: %v, want 404", err)
	}
	// an MP3 no record names, older than the TTL (a crash between the
	// file and the record), and a stale and a fresh temporary file
	answers := filepath.Join(dir, "answers")
	orphan := filepath.Join(answers, "777.mp3")
	stale := filepath.Join(answers, synthPrefix+"stale")
	fresh := filepath.Join(answers, streamPrefix+"fresh")
	for _, p := range []string{orphan, stale, fresh} {
		if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	long := c.now().Add(-25 * time.Hour)
	os.Chtimes(orphan, long, long)
	os.Chtimes(stale, long, long)
	os.Chtimes(fresh, c.now(), c.now())
	if err := s.Sweep(ctx); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := s.db.QueryRow(`SELECT count(*) FROM spoken WHERE id = $1`, old).Scan(&n); err != nil || n != 0 {
		t.Errorf("expired record kept: %d %v", n, err)
	}
	for p, want := range map[string]bool{s.path(old): false, orphan: false, stale: false, fresh: true, s.path(young): true} {
		_, err := os.Stat(p)
		if have := err == nil; have != want {
			t.Errorf("%s exists = %v, want %v", filepath.Base(p), have, want)
		}
	}
	if a, err := s.Open(ctx, young); err != nil || read(t, a) != "mp3:en:young answer" {
		t.Errorf("young answer after the sweep: %v", err)
	}
}

// Temporary files are leftovers of a crash when the store opens: they go,
// the answers' files stay.
func TestOpenRemovesCrashLeftovers(t *testing.T) {
	dir := t.TempDir()
	s, _ := newStore(t, dir, nil)
	ctx := context.Background()
	id, _ := s.Register(ctx, "en", "kept")
	a, err := s.Open(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	read(t, a)
	w, _, _, err := s.Writer(id + 1)
	if err != nil {
		t.Fatal(err)
	}
	w.Write([]byte("half an mp3"))
	os.WriteFile(filepath.Join(dir, "answers", synthPrefix+"123"), []byte("half"), 0o600)
	s.Close()

	s2, rec := newStore(t, dir, nil)
	left, _ := filepath.Glob(filepath.Join(dir, "answers", "*"))
	if len(left) != 1 || filepath.Base(left[0]) != fmt.Sprintf("%d.mp3", id) {
		t.Fatalf("files after reopening: %v", left)
	}
	if a, err := s2.Open(ctx, id); err != nil || read(t, a) != "mp3:en:kept" || rec.calls.Load() != 0 {
		t.Fatalf("kept answer after reopening: %v (syntheses %d)", err, rec.calls.Load())
	}
}

// A stream saved with commit becomes the answer's audio; abort leaves
// nothing behind.
func TestWriterCommitAndAbort(t *testing.T) {
	dir := t.TempDir()
	s, rec := newStore(t, dir, nil)
	ctx := context.Background()
	id, _ := s.Register(ctx, "en", "streamed")
	w, commit, _, err := s.Writer(id)
	if err != nil {
		t.Fatal(err)
	}
	w.Write([]byte("streamed mp3"))
	if err := commit(); err != nil {
		t.Fatal(err)
	}
	if a, err := s.Open(ctx, id); err != nil || read(t, a) != "streamed mp3" || rec.calls.Load() != 0 {
		t.Fatalf("committed stream: %v", err)
	}
	other, _ := s.Register(ctx, "en", "aborted")
	w, _, abort, _ := s.Writer(other)
	w.Write([]byte("part"))
	abort()
	if temps, _ := filepath.Glob(filepath.Join(dir, "answers", streamPrefix+"*")); len(temps) != 0 {
		t.Fatalf("abort left %v", temps)
	}
}

// With no room to keep a synthesis, the answer is served from memory.
func TestFullDiskStillServes(t *testing.T) {
	dir := t.TempDir()
	s, _ := newStore(t, dir, nil)
	ctx := context.Background()
	id, _ := s.Register(ctx, "en", "no room")
	createTempIn = func(dir, pattern string) (*os.File, error) {
		return nil, &fs.PathError{Op: "open", Path: filepath.Join(dir, pattern), Err: syscall.ENOSPC}
	}
	t.Cleanup(func() { createTempIn = os.CreateTemp })
	a, err := s.Open(ctx, id)
	if err != nil || read(t, a) != "mp3:en:no room" {
		t.Fatalf("open on a full disk: %v", err)
	}
	if _, _, _, err := s.Writer(id); !apierr.IsDiskFull(err) {
		t.Errorf("Writer on a full disk: %v", err)
	}
	if b, _ := os.ReadDir(filepath.Join(dir, "answers")); len(b) != 0 {
		t.Errorf("files on a full disk: %v", b)
	}
}
