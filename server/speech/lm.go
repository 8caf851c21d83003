package speech

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/harkhq/hark/server/speech/ngram"
	"github.com/harkhq/hark/server/speech/sphinx"
)

// DefaultDomainWeight is the interpolation weight of the domain model in
// the mixed one (the general model has the rest); see the package
// documentation for how it was measured.
const DefaultDomainWeight = 0.3

// dictionarySpec is src with every word in the dictionary's spelling, the
// same rewriting BuildGrammar applies, so the grammar and the domain
// model describe one language.
func dictionarySpec(src GrammarSource) GrammarSource {
	out := GrammarSource{Slots: make(map[string][][]element, len(src.Slots))}
	for _, p := range src.Patterns {
		out.Patterns = append(out.Patterns, dictionaryForm(p))
	}
	for name, values := range src.Slots {
		for _, v := range values {
			out.Slots[name] = append(out.Slots[name], dictionaryForm(v))
		}
	}
	for _, c := range src.Courtesy {
		out.Courtesy = append(out.Courtesy, dictionaryForm(c))
	}
	for _, o := range src.Openers {
		out.Openers = append(out.Openers, dictionaryForm(o))
	}
	return out
}

// BuildDomainModel estimates the domain trigram model of src (package
// ngram); parts with words the dictionary lacks are left out, as in the
// grammar.
func BuildDomainModel(src GrammarSource, known func(string) bool) (*ngram.Model, error) {
	m, err := ngram.Build(dictionarySpec(src), ngram.Options{Known: known})
	if err != nil {
		return nil, fmt.Errorf("domain model: %w", err)
	}
	return m, nil
}

// generalTop is how many of the general model's most probable words have
// their bigrams (among themselves and the domain's words) carried into the
// mixed model.
const generalTop = 1000

// generalLM is the general English model as Mix reads it: probabilities
// by query through sphinxbase, and the n-grams it is known to hold. The
// Debian model can only be queried: sphinxbase 5prealpha has no n-gram
// iterator, and its ARPA writer (sphinx_lm_convert too) aborts on this
// model with a count mismatch, so its bigrams are found by asking for
// pairs of words, and its trigrams are not carried over.
type generalLM struct {
	lm    *sphinx.LM
	vocab map[string]bool
	grams [3][]string
}

func (g *generalLM) Grams(n int) []string { return g.grams[n-1] }

func (g *generalLM) LogProb(history []string, word string) float64 {
	if !g.vocab[word] {
		return math.Inf(-1)
	}
	p, err := g.lm.LogProb(append(append([]string(nil), history...), word)...)
	if err != nil {
		return math.Inf(-1)
	}
	return p
}

// MixedModel interpolates the domain model with the general English model
// (weight for the domain, 1-weight for the general one): every word,
// bigram and trigram of both. The general model is read by package
// ngram's reader of sphinxbase's binary trie format (sphinxbase itself
// cannot list its n-grams).
func MixedModel(domain *ngram.Model, generalPath string, weight float64) (*ngram.Model, error) {
	return mixedModelPruned(domain, generalPath, weight, 0)
}

// mixedModelPruned is MixedModel with the general model's bigrams and
// trigrams pruned at threshold (ngram.Prune; 0 keeps them all).
func mixedModelPruned(domain *ngram.Model, generalPath string, weight, threshold float64) (*ngram.Model, error) {
	g, err := ngram.ReadTrie(generalPath)
	if err != nil {
		return nil, err
	}
	if threshold > 0 {
		return ngram.Mix(domain, ngram.Prune(g, threshold), weight), nil
	}
	return ngram.Mix(domain, g, weight), nil
}

// mixedModelQueried is the mixed model as it was built before the trie
// reader (kept for the measurements that compare the two): the general
// model read by queries through sphinxbase, every word's unigram
// probability and its bigrams among its generalTop most probable words
// and the domain's words; no trigram.
func mixedModelQueried(domain *ngram.Model, generalPath string, weight float64) (*ngram.Model, error) {
	lm, err := sphinx.ReadLM(generalPath)
	if err != nil {
		return nil, err
	}
	defer lm.Close()
	words, logp := lm.Unigrams()
	g := &generalLM{lm: lm, vocab: make(map[string]bool, len(words))}
	order := make([]int, len(words))
	for i, w := range words {
		g.vocab[w] = true
		order[i] = i
	}
	g.grams[0] = words
	sort.SliceStable(order, func(a, b int) bool { return logp[order[a]] > logp[order[b]] })
	pick := map[string]bool{}
	for _, i := range order[:min(generalTop, len(order))] {
		pick[words[i]] = true
	}
	for _, w := range domain.Vocabulary {
		pick[w] = true
	}
	pick[ngram.Start], pick[ngram.End] = true, true
	var sel []string
	for w := range pick {
		sel = append(sel, w)
	}
	sort.Strings(sel)
	pairs, _, err := lm.Bigrams(sel)
	if err != nil {
		return nil, err
	}
	for _, p := range pairs {
		g.grams[1] = append(g.grams[1], strings.Join(p[:], " "))
	}
	return ngram.Mix(domain, g, weight), nil
}

// writeModel writes m to a new file in dir (the temporary directory when
// empty): ARPA text, or, when binary, sphinxbase's binary trie format
// (see cachedModel). The caller removes or renames the file.
func writeModel(m *ngram.Model, dir, name string, binary bool) (string, error) {
	f, err := os.CreateTemp(dir, "hark-"+name+"-*.arpa")
	if err != nil {
		return "", fmt.Errorf("%s model: %w", name, err)
	}
	err = m.WriteARPA(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return "", fmt.Errorf("%s model: %w", name, err)
	}
	if !binary {
		return f.Name(), nil
	}
	defer os.Remove(f.Name())
	bin := strings.TrimSuffix(f.Name(), ".arpa") + ".lm.bin"
	if err := sphinx.ConvertLM(f.Name(), bin, true); err != nil {
		os.Remove(bin)
		return "", fmt.Errorf("%s model: %w", name, err)
	}
	return bin, nil
}

// modelVersion changes whenever the way models are built changes, so that
// cached files of an older build are not used.
const modelVersion = "hark-lm-3"

// cacheMaxIdle is how long a cached model may go unused before a process
// that finds or builds another model removes it. Every pattern change
// makes new models (a mixed one is 27 MB), and nothing else removes the
// old ones: 36 files, 252 MB on the development machine (2026-11-25).
// Fourteen days keeps the models of a grammar used every week or so (a
// second checkout, a branch's tests, last week's demo) and still bounds
// the cache by two weeks of changes; a model removed too early costs one
// rebuild (about 20 s on 2 cores). A model a running process holds
// (modelFile) is kept at any age.
const cacheMaxIdle = 14 * 24 * time.Hour

// A modelFile is a model file a recogniser reads. A cached one is held
// open under a shared flock(2) for as long as the recogniser may load it
// (its slots load their decoders on first use, possibly days later), which
// tells sweepCache in every process not to remove it; a temporary one
// (no writable cache directory) is removed by Close.
type modelFile struct {
	path string
	temp bool
	hold *os.File // the shared lock on a cached model
}

// Path is the model's file; "" for no model (nil).
func (f *modelFile) Path() string {
	if f == nil {
		return ""
	}
	return f.path
}

// touch marks the cached model as used now: its modification time is its
// last use, which sweepCache reads. Best effort: a file of another user's
// cannot be touched, and is then swept as if unused since its last touch
// by its owner.
func (f *modelFile) touch() {
	if f != nil && !f.temp {
		now := time.Now()
		os.Chtimes(f.path, now, now)
	}
}

// Close releases the model: a temporary file is removed, a cached one
// touched (its last use) and its lock released.
func (f *modelFile) Close() {
	switch {
	case f == nil:
	case f.temp:
		os.Remove(f.path)
	case f.hold != nil:
		f.touch()
		f.hold.Close() // releases the flock
		f.hold = nil
	}
}

// cachedModel returns the file of a model identified by key (any
// JSON-encodable description of everything the model depends on),
// building it with build and keeping it in the user's cache directory
// when it is not there yet: building the domain and mixed models takes
// seconds, and every speech worker process would otherwise pay them. The
// file is written under a temporary name and renamed, so workers starting
// together never read a partial one. When no cache directory is writable
// the model goes to a temporary file, which Close removes. The caller
// closes the modelFile when it will not load the model again.
//
// A binary model is kept in sphinxbase's binary trie format: the mixed
// model with all the general model's n-grams is 98 MB of ARPA text,
// which pocketsphinx takes 6 s to read (at load 12) where it maps the
// 27 MB binary in 20 ms; the conversion (sphinxbase's own writer) costs
// about 8 s once.
//
// The cache is shared by every process of the user (harkd, its workers,
// tests, other checkouts with other grammars), so files are only ever
// added by rename and removed under these locks (flock(2), released by
// the kernel when a process dies):
//   - <model>.lock, exclusive, by the one process that builds <model>
//     (the others wait for it and then find the file);
//   - <model> itself, shared, by every process that may still load it
//     (holdModel), from before it checks the file is there;
//   - both exclusive, without waiting, by sweepCache before it removes a
//     model unused for cacheMaxIdle, so a model held or being built is
//     never removed. A process that opened either file just before it was
//     removed finds, once it has its lock, that the path no longer names
//     the file it locked, and starts again (it rebuilds the model).
//
// speechCacheDir is the speech cache, ~/.cache/hark/speech, made if need be.
func speechCacheDir() (string, error) {
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	dir = filepath.Join(dir, "hark", "speech")
	return dir, os.MkdirAll(dir, 0o755)
}

func cachedModel(name string, key any, binary bool, build func() (*ngram.Model, error)) (*modelFile, error) {
	b, err := json.Marshal([]any{modelVersion, name, key, binary})
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(b)
	dir, err := speechCacheDir()
	if err != nil {
		m, err := build()
		if err != nil {
			return nil, err
		}
		path, err := writeModel(m, "", name, binary)
		if err != nil {
			return nil, err
		}
		return &modelFile{path: path, temp: true}, nil
	}
	ext := ".arpa"
	if binary {
		ext = ".lm.bin"
	}
	path := filepath.Join(dir, name+"-"+hex.EncodeToString(sum[:12])+ext)
	f, err := findOrBuild(dir, path, name, binary, build)
	if err != nil {
		return nil, err
	}
	sweepCache(dir, time.Now().Add(-cacheMaxIdle))
	return f, nil
}

// findOrBuild holds the model at path, building it first when it is not
// there. It tries twice: a file that vanishes between its rename and
// holdModel has been removed by hand (sweepCache never removes a new
// one), and a third build would not fare better.
func findOrBuild(dir, path, name string, binary bool, build func() (*ngram.Model, error)) (*modelFile, error) {
	var m *ngram.Model
	for range 2 {
		if f := holdModel(path); f != nil {
			return f, nil
		}
		// Speech workers start together: one builds, the others wait for
		// its file instead of all spending the CPU at once.
		unlock := lockFile(path + ".lock")
		if f := holdModel(path); f != nil {
			unlock()
			return f, nil
		}
		if m == nil {
			var err error
			if m, err = build(); err != nil {
				unlock()
				return nil, err
			}
		}
		tmp, err := writeModel(m, dir, name, binary)
		if err != nil {
			unlock()
			return nil, err
		}
		if err := os.Rename(tmp, path); err != nil {
			os.Remove(tmp)
			unlock()
			return nil, fmt.Errorf("%s model: %w", name, err)
		}
		f := holdModel(path)
		unlock()
		if f != nil {
			return f, nil
		}
	}
	return nil, fmt.Errorf("%s model: %s was removed as soon as it was written", name, path)
}

// beforeHold, when set (by tests), runs in holdModel between opening the
// file and locking it: where another process's sweepCache may remove it.
var beforeHold func(path string)

// holdModel opens the cached model at path under a shared lock and marks
// it used (touch), or returns nil when there is no such file, or when it
// was removed before the lock was had (the caller then builds it again).
// Where flock is not supported the file is used without the lock;
// sweepCache, which cannot lock it either, then leaves it alone.
func holdModel(path string) *modelFile {
	h, err := os.Open(path)
	if err != nil {
		return nil
	}
	if beforeHold != nil {
		beforeHold(path)
	}
	// sweepCache holds its exclusive lock only while it removes the file,
	// so waiting here is short.
	syscall.Flock(int(h.Fd()), syscall.LOCK_SH)
	if !namesFile(path, h) {
		h.Close()
		return nil
	}
	f := &modelFile{path: path, hold: h}
	f.touch()
	return f
}

// namesFile reports whether path still names the open file f (not
// removed, nor replaced by another file since f was opened).
func namesFile(path string, f *os.File) bool {
	fi, err := f.Stat()
	if err != nil {
		return false
	}
	pi, err := os.Stat(path)
	return err == nil && os.SameFile(fi, pi)
}

// lockFile takes an exclusive lock on path, creating it, and returns its
// release. When path cannot be opened or locked it goes without the lock
// (two processes then both build the model, which costs time only: each
// renames a complete file into place). A lock file sweepCache removed
// while this process waited for it is not the one others now lock, so it
// locks the new one instead.
func lockFile(path string) (unlock func()) {
	for range 3 {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
		if err != nil {
			return func() {}
		}
		if syscall.Flock(int(f.Fd()), syscall.LOCK_EX) != nil {
			f.Close()
			return func() {}
		}
		if namesFile(path, f) {
			return func() { f.Close() } // closing releases the lock
		}
		f.Close()
	}
	return func() {}
}

// Names of the cache's files: the models cachedModel keeps (of every
// modelVersion: the key's hash is the only difference), their locks, and
// writeModel's temporaries, which a build that was killed leaves behind.
var (
	cachedModelName = regexp.MustCompile(`^(domain|mixed)-[0-9a-f]+\.(arpa|lm\.bin)$`)
	tempModelName   = regexp.MustCompile(`^hark-(domain|mixed)-[0-9]+\.(arpa|lm\.bin)$`)
)

// sweepCache removes from dir the models not used since cutoff (their
// modification time, see modelFile.touch) with their locks, the locks
// left without a model, and temporaries older than cutoff (a build takes
// seconds, so these are a dead build's). It skips anything locked by
// another process (see cachedModel) and ignores every error: the cache
// only grows when it fails.
func sweepCache(dir string, cutoff time.Time) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		name := e.Name()
		path := filepath.Join(dir, name)
		info, err := e.Info()
		if err != nil || !info.Mode().IsRegular() || !info.ModTime().Before(cutoff) {
			continue
		}
		switch {
		case cachedModelName.MatchString(name):
			removeModel(path, cutoff)
		case strings.HasSuffix(name, ".lock") && cachedModelName.MatchString(strings.TrimSuffix(name, ".lock")):
			// A lock's time is when it was created; one whose model is
			// there goes with the model.
			if _, err := os.Lstat(strings.TrimSuffix(path, ".lock")); errors.Is(err, fs.ErrNotExist) {
				removeLocked(path, func(*os.File) bool { return true })
			}
		case tempModelName.MatchString(name):
			os.Remove(path)
		}
	}
}

// removeModel removes the model at path and its lock when neither is
// locked by another process and it is still unused since cutoff.
func removeModel(path string, cutoff time.Time) {
	removeLocked(path, func(f *os.File) bool {
		fi, err := f.Stat()
		if err != nil || !fi.ModTime().Before(cutoff) {
			return false // used since the directory was read
		}
		lock := path + ".lock"
		if _, err := os.Lstat(lock); errors.Is(err, fs.ErrNotExist) {
			return true
		}
		// A builder, or a process that waited for one, holds the lock:
		// it is about to hold the model.
		return removeLocked(lock, func(*os.File) bool { return true })
	})
}

// removeLocked removes path when it can lock it exclusively at once,
// path still names the file locked and ok (called under the lock)
// agrees; it reports whether it removed it.
func removeLocked(path string, ok func(*os.File) bool) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil || !namesFile(path, f) || !ok(f) {
		return false
	}
	return os.Remove(path) == nil
}

// generalKey identifies the general model file by name, size and time.
func generalKey(path string) any {
	fi, err := os.Stat(path)
	if err != nil {
		return path
	}
	return []any{path, fi.Size(), fi.ModTime().UnixNano()}
}
