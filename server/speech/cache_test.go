package speech

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/harkhq/hark/server/speech/ngram"
)

// cacheDir points the user's cache at a new directory and returns the
// model cache in it.
func cacheDir(t *testing.T) string {
	t.Helper()
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	dir := filepath.Join(cache, "hark", "speech")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// smallModel builds a small domain model (no pocketsphinx needed) and
// counts the builds.
func smallModel(t *testing.T, builds *int) func() (*ngram.Model, error) {
	src := spec(t, []string{"set an alarm for {time}", "what time is it"}, map[string][]string{"time": {"seven", "eight"}}, nil)
	return func() (*ngram.Model, error) {
		*builds++
		return BuildDomainModel(src, func(string) bool { return true })
	}
}

// file writes a file of the cache last modified age ago.
func file(t *testing.T, dir, name string, age time.Duration) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	when := time.Now().Add(-age)
	if err := os.Chtimes(path, when, when); err != nil {
		t.Fatal(err)
	}
	return path
}

// lock opens path on a new open file description and flocks it, as
// another process would (flock locks of two descriptions conflict within
// one process too).
func lock(t *testing.T, path string, how int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	if err := syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB); err != nil {
		t.Fatal(err)
	}
}

func listCache(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// A model found or built removes the cache's models (and their locks)
// unused for cacheMaxIdle, the locks left without a model and a dead
// build's temporaries, and keeps recent models, the models other
// processes hold, the models and locks of a build under way, and the
// model just found.
func TestCacheRemovesUnusedModels(t *testing.T) {
	dir := cacheDir(t)
	old, recent := cacheMaxIdle+time.Hour, cacheMaxIdle-time.Hour
	const (
		h1 = "00112233445566778899aabb"
		h2 = "0123456789abcdef01234567"
		h3 = "aaaaaaaaaaaaaaaaaaaaaaaa"
		h4 = "bbbbbbbbbbbbbbbbbbbbbbbb"
		h5 = "cccccccccccccccccccccccc"
		h6 = "dddddddddddddddddddddddd"
	)
	file(t, dir, "mixed-"+h1+".lm.bin", old)         // unused: goes
	file(t, dir, "mixed-"+h1+".lm.bin.lock", old)    // with it
	file(t, dir, "domain-"+h1+".arpa", old)          // an older modelVersion's: goes
	file(t, dir, "mixed-"+h2+".arpa", recent)        // used 13 days ago: stays
	file(t, dir, "mixed-"+h2+".arpa.lock", old)      // its lock stays with it
	held := file(t, dir, "mixed-"+h3+".lm.bin", old) // a running recogniser holds it
	lock(t, held, syscall.LOCK_SH)
	building := file(t, dir, "domain-"+h4+".arpa.lock", old) // a build under way
	lock(t, building, syscall.LOCK_EX)
	file(t, dir, "domain-"+h5+".arpa.lock", old)                            // a dead build's lock: goes
	file(t, dir, "domain-"+h6+".arpa.lock", recent)                         // a recent one stays
	file(t, dir, "domain-"+h6+".arpa", old)                                 // a builder just finished it, under its lock:
	lock(t, filepath.Join(dir, "domain-"+h6+".arpa.lock"), syscall.LOCK_EX) // stays
	file(t, dir, "hark-mixed-123456.arpa", old)                             // a dead build's temporary: goes
	file(t, dir, "hark-mixed-654321.lm.bin", time.Minute)                   // a build's being written: stays
	file(t, dir, "notes.txt", old)                                          // not the cache's: stays

	var builds int
	f, err := cachedModel("domain", "sweep", false, smallModel(t, &builds))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	current := filepath.Base(f.Path())
	want := []string{
		current, current + ".lock",
		"mixed-" + h2 + ".arpa", "mixed-" + h2 + ".arpa.lock",
		"mixed-" + h3 + ".lm.bin",
		"domain-" + h4 + ".arpa.lock",
		"domain-" + h6 + ".arpa", "domain-" + h6 + ".arpa.lock",
		"hark-mixed-654321.lm.bin",
		"notes.txt",
	}
	slices.Sort(want)
	if got := listCache(t, dir); !slices.Equal(got, want) {
		t.Errorf("cache after a build:\n got %v\nwant %v", got, want)
	}
	if builds != 1 {
		t.Errorf("%d builds, want 1", builds)
	}

	// Found again after cacheMaxIdle without use (another process holds
	// it meanwhile): it is touched, kept and not built again.
	f.Close()
	when := time.Now().Add(-old)
	os.Chtimes(f.Path(), when, when)
	g, err := cachedModel("domain", "sweep", false, smallModel(t, &builds))
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	fi, err := os.Stat(g.Path())
	if err != nil || g.Path() != f.Path() || time.Since(fi.ModTime()) > time.Minute {
		t.Errorf("model found again: %v, %s (was %s), last used %v ago", err, g.Path(), f.Path(), time.Since(fi.ModTime()))
	}
	if builds != 1 {
		t.Errorf("%d builds, want 1", builds)
	}
}

// A held model stays through another process's sweep even once it is
// unused for longer than cacheMaxIdle, and goes once it is let go.
func TestCacheKeepsHeldModels(t *testing.T) {
	dir := cacheDir(t)
	var builds int
	f, err := cachedModel("domain", "held", false, smallModel(t, &builds))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	when := time.Now().Add(-2 * cacheMaxIdle)
	os.Chtimes(f.Path(), when, when)
	sweepCache(dir, time.Now().Add(-cacheMaxIdle))
	if _, err := os.Stat(f.Path()); err != nil {
		t.Fatalf("a held model was removed: %v", err)
	}
	f.hold.Close() // let go without the touch of Close
	f.hold = nil
	sweepCache(dir, time.Now().Add(-cacheMaxIdle))
	if names := listCache(t, dir); len(names) != 0 {
		t.Errorf("cache after the holder let go: %v, want it empty", names)
	}
}

// A model removed between being found and being locked (by another
// process's sweep) is built again rather than handed to the decoder as
// a path to nothing.
func TestCacheRebuildsAVanishedModel(t *testing.T) {
	cacheDir(t)
	var builds int
	f, err := cachedModel("domain", "vanish", false, smallModel(t, &builds))
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	removed := 0
	beforeHold = func(path string) {
		if removed == 0 {
			removed++
			os.Remove(path)
		}
	}
	defer func() { beforeHold = nil }()
	g, err := cachedModel("domain", "vanish", false, smallModel(t, &builds))
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if removed != 1 {
		t.Fatalf("the model was not found in the cache (%d removals)", removed)
	}
	if fi, err := os.Stat(g.Path()); err != nil || fi.Size() < 100 {
		t.Fatalf("after the model vanished: %v", err)
	}
	if builds != 2 {
		t.Errorf("%d builds, want 2 (the first and the rebuild)", builds)
	}
	if !namesFile(g.Path(), g.hold) {
		t.Error("the rebuilt model is not the file held")
	}
}

// A process waiting for a build's lock that the sweep removes meanwhile
// locks the new lock file, the one other processes see.
func TestLockFileFollowsARemovedLock(t *testing.T) {
	dir := cacheDir(t)
	path := filepath.Join(dir, "domain-"+"ab"+".arpa.lock")
	first, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Flock(int(first.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	got := make(chan func())
	go func() { got <- lockFile(path) }()
	waitForWaiter(t, first)
	os.Remove(path)
	first.Close()
	var unlock func()
	select {
	case unlock = <-got:
	case <-time.After(10 * time.Second):
		t.Fatal("lockFile still waits")
	}
	defer unlock()
	other, err := os.Open(path)
	if err != nil {
		t.Fatalf("no lock file after lockFile: %v", err)
	}
	defer other.Close()
	if err := syscall.Flock(int(other.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err == nil {
		t.Error("the lock file others see is not locked")
	}
}

// waitForWaiter waits until a flock on f's file is waited for
// (/proc/locks lists the waiters with "->").
func waitForWaiter(t *testing.T, f *os.File) {
	t.Helper()
	fi, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	ino := ":" + strconv.FormatUint(fi.Sys().(*syscall.Stat_t).Ino, 10) + " "
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		b, err := os.ReadFile("/proc/locks")
		if err != nil {
			t.Skipf("no /proc/locks to see the waiter: %v", err)
		}
		for _, l := range strings.Split(string(b), "\n") {
			if strings.Contains(l, "->") && strings.Contains(l, ino) {
				return
			}
		}
	}
	t.Fatal("nobody waits for the lock")
}

// A recogniser holds its cached models for its whole life: a sweep by
// another process, to which they look unused for ever, leaves them, and a
// slot that loads its decoders afterwards (slots load on first use,
// possibly days after New) finds them. Once it is closed they go.
func TestRecognizerHoldsItsModels(t *testing.T) {
	skipUnderRace(t)
	dir := cacheDir(t)
	src := spec(t, []string{"set an alarm for {time}", "what time is it"}, map[string][]string{"time": {"seven", "eight"}}, nil)
	decs := []string{SourceDomain, SourceFull}
	rec, err := New(Config{Grammar: src, Decoders: decs, NarrowbandDecoders: decs, Slots: 2})
	if err != nil {
		t.Skipf("speech recognition is not available here: %v", err)
	}
	defer rec.Close()
	models := func() []string {
		var out []string
		for _, n := range listCache(t, dir) {
			if cachedModelName.MatchString(n) {
				out = append(out, n)
			}
		}
		return out
	}
	if m := models(); len(m) != 1 {
		t.Fatalf("models in the cache: %v, want the domain model", m)
	}
	sweepCache(dir, time.Now().Add(time.Hour))
	if m := models(); len(m) != 1 {
		t.Fatalf("a sweep removed the model a recogniser holds: %v left", m)
	}
	// Both slots: the second loads its decoders now.
	var us []*Utterance
	for range 2 {
		u, err := rec.Start(context.Background(), "en", 16000)
		if err != nil {
			t.Fatalf("a slot after the sweep: %v", err)
		}
		us = append(us, u)
	}
	for _, u := range us {
		if _, err := u.Write(make([]byte, 3200)); err != nil {
			t.Fatal(err)
		}
		if _, err := u.Finish(); err != nil {
			t.Fatal(err)
		}
	}
	rec.Close()
	sweepCache(dir, time.Now().Add(time.Hour))
	if m := models(); len(m) != 0 {
		t.Errorf("models left after the recogniser closed and a sweep: %v", m)
	}
}
