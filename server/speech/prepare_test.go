package speech

import (
	"os"
	"path/filepath"
	"testing"
)

// PrepareModels writes the models the arrangement reads into the cache and
// nothing else, and a recogniser started afterwards reads them from there
// rather than building them again.
func TestPrepareModelsFillsTheCache(t *testing.T) {
	skipUnderRace(t)
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	src := spec(t, []string{"set an alarm for {time}", "what time is it"}, map[string][]string{"time": {"seven", "eight"}}, nil)
	decs := []string{SourceDomain, SourceFull}
	cfg := Config{Grammar: src, Decoders: decs, NarrowbandDecoders: decs, Slots: 1}
	if err := PrepareModels(cfg); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(cache, "hark", "speech", "*"))
	var models []string
	for _, f := range files {
		if filepath.Ext(f) != ".lock" {
			models = append(models, f)
		}
	}
	if len(models) != 1 || filepath.Ext(models[0]) != ".arpa" {
		t.Fatalf("cache after PrepareModels: %v, want the domain model alone", files)
	}
	before, err := os.Stat(models[0])
	if err != nil {
		t.Fatal(err)
	}
	rec, err := New(cfg)
	if err != nil {
		t.Skipf("speech recognition is not available here: %v", err)
	}
	rec.Close()
	// The same file (a rebuild renames a new one into place), its time
	// moved to its last use (see cachedModel).
	after, err := os.Stat(models[0])
	if err != nil || !os.SameFile(before, after) || after.ModTime().Before(before.ModTime()) {
		t.Fatalf("the recogniser rebuilt the prepared model: %v %v → %v", err, before.ModTime(), after.ModTime())
	}
	if err := PrepareModels(Config{Grammar: src, Decoders: []string{"nonsense"}}); err == nil {
		t.Error("an unknown decoder was accepted")
	}
}

// skipUnderRace skips a test that decodes many utterances or builds a
// model when the race detector is on. Decoding is pocketsphinx's C code,
// which the detector does not see, while the Go around it runs several
// times slower: the accuracy tests, the short commands' and this one took
// 115 s under it against 75 s without. make test runs them without it;
// the recogniser's concurrency is checked under it by TestSlotsAlwaysReturn
// and the speech workers' tests.
func skipUnderRace(t *testing.T) {
	t.Helper()
	if raceEnabled {
		t.Skip("measured without the race detector (make test runs it so)")
	}
}
