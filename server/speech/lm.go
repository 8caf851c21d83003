package speech

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

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

// cachedModel returns the file of a model identified by key (any
// JSON-encodable description of everything the model depends on),
// building it with build and keeping it in the user's cache directory
// when it is not there yet: building the domain and mixed models takes
// seconds, and every speech worker process would otherwise pay them. The
// file is written under a temporary name and renamed, so workers starting
// together never read a partial one. When no cache directory is writable
// the model goes to a temporary file; temp reports that the caller must
// remove it.
//
// A binary model is kept in sphinxbase's binary trie format: the mixed
// model with all the general model's n-grams is 98 MB of ARPA text,
// which pocketsphinx takes 6 s to read (at load 12) where it maps the
// 27 MB binary in 20 ms; the conversion (sphinxbase's own writer) costs
// about 8 s once.
func cachedModel(name string, key any, binary bool, build func() (*ngram.Model, error)) (path string, temp bool, err error) {
	b, err := json.Marshal([]any{modelVersion, name, key, binary})
	if err != nil {
		return "", false, err
	}
	sum := sha256.Sum256(b)
	dir, err := os.UserCacheDir()
	if err == nil {
		dir = filepath.Join(dir, "hark", "speech")
		err = os.MkdirAll(dir, 0o755)
	}
	if err != nil {
		m, err := build()
		if err != nil {
			return "", false, err
		}
		path, err := writeModel(m, "", name, binary)
		return path, true, err
	}
	ext := ".arpa"
	if binary {
		ext = ".lm.bin"
	}
	path = filepath.Join(dir, name+"-"+hex.EncodeToString(sum[:12])+ext)
	if _, err := os.Stat(path); err == nil {
		return path, false, nil
	}
	// Speech workers start together: one builds, the others wait for its
	// file instead of all spending the CPU at once.
	if lock, err := os.OpenFile(path+".lock", os.O_CREATE|os.O_RDWR, 0o644); err == nil {
		defer lock.Close()
		if syscall.Flock(int(lock.Fd()), syscall.LOCK_EX) == nil {
			defer syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)
			if _, err := os.Stat(path); err == nil {
				return path, false, nil
			}
		}
	}
	m, err := build()
	if err != nil {
		return "", false, err
	}
	tmp, err := writeModel(m, dir, name, binary)
	if err != nil {
		return "", false, err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return "", false, fmt.Errorf("%s model: %w", name, err)
	}
	return path, false, nil
}

// generalKey identifies the general model file by name, size and time.
func generalKey(path string) any {
	fi, err := os.Stat(path)
	if err != nil {
		return path
	}
	return []any{path, fi.Size(), fi.ModTime().UnixNano()}
}
