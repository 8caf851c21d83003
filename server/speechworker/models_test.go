package speechworker

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/harkhq/hark/server/speech"
)

// TestModelsBuiltWhenThePoolStarts checks that the language models a
// worker needs are built when the pool is created, not inside the first
// spoken query: with an empty cache directory, the domain model appears
// in it while nothing has been asked. (The domain + full arrangement, so
// that only the quick domain model is built; the mixed model is built at
// the same point, see speech.New.)
func TestModelsBuiltWhenThePoolStarts(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache) // the workers inherit it
	decs := []string{speech.SourceDomain, speech.SourceFull}
	r := NewRecognition(speech.Config{Grammar: dialogueGrammar(), Decoders: decs, NarrowbandDecoders: decs}, Options{Size: 1})
	t.Cleanup(r.Close)
	start := time.Now()
	for {
		files, err := filepath.Glob(filepath.Join(cache, "hark", "speech", "domain-*.arpa"))
		if err != nil {
			t.Fatal(err)
		}
		if len(files) > 0 {
			t.Logf("%s built %.1f s after the pool was created, no query made", filepath.Base(files[0]), time.Since(start).Seconds())
			break
		}
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		err = r.Ready(ctx)
		cancel()
		if err == nil {
			t.Fatal("the worker is ready and no domain model is in the cache")
		}
		if err != context.DeadlineExceeded {
			t.Skipf("speech recognition is not available here: %v", err)
		}
		if time.Since(start) > startTimeout {
			t.Fatalf("no domain model in %s %s after the pool was created", cache, startTimeout)
		}
	}
	if err := r.Ready(context.Background()); err != nil {
		t.Fatal(err)
	}
	if s := r.Stats(); s.InUse != 0 {
		t.Fatalf("%d utterances in use; none was opened", s.InUse)
	}
}
