package sphinx

/*
#include <stdlib.h>
#include <malloc.h>
#include <pocketsphinx.h>
#include <sphinxbase/ngram_model.h>
#include <sphinxbase/logmath.h>

// hark_lm_prob is the raw (unweighted) probability of words[n-1] after
// words[0..n-2], in the model's log base.
static int32 hark_lm_prob(ngram_model_t *lm, char **words, int n) {
	int32 hist[2] = { NGRAM_INVALID_WID, NGRAM_INVALID_WID };
	int32 nh = 0, used;
	for (int i = n - 2; i >= 0 && nh < 2; i--) hist[nh++] = ngram_wid(lm, words[i]);
	return ngram_ng_prob(lm, ngram_wid(lm, words[n-1]), hist, nh, &used);
}

// hark_unigrams fills logp[wid] with the raw probability of every word.
static void hark_unigrams(ngram_model_t *lm, int32 *logp, int n) {
	int32 used;
	for (int32 w = 0; w < n; w++) logp[w] = ngram_ng_prob(lm, w, NULL, 0, &used);
}

// hark_bigrams finds the bigrams the model holds (rather than backs off
// for) among every ordered pair of the k words, writing up to cap of them
// as (first, second, raw probability); it returns how many it found.
static int hark_bigrams(ngram_model_t *lm, const int32 *wids, int k, int32 *out, int cap) {
	int found = 0;
	for (int i = 0; i < k; i++) {
		for (int j = 0; j < k; j++) {
			int32 used, h = wids[i];
			int32 p = ngram_ng_prob(lm, wids[j], &h, 1, &used);
			if (used == 2) {
				if (found == cap) return -1;
				out[3*found] = wids[i]; out[3*found+1] = wids[j]; out[3*found+2] = p;
				found++;
			}
		}
	}
	return found;
}

*/
import "C"

import (
	"errors"
	"fmt"
	"math"
	"unsafe"
)

// LM is a language model read with sphinxbase, to query its
// probabilities (tests use it to check that a generated model parses).
type LM struct {
	lm    *C.ngram_model_t
	lmath *C.logmath_t
}

// ReadLM reads an ARPA or binary model.
func ReadLM(path string) (*LM, error) {
	silence()
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	lmath := C.logmath_init(1.0001, 0, 0)
	m := C.ngram_model_read(nil, cpath, C.NGRAM_AUTO, C.logmath_retain(lmath))
	if m == nil {
		C.logmath_free(lmath)
		return nil, fmt.Errorf("sphinx: cannot read the language model %s", path)
	}
	return &LM{lm: m, lmath: lmath}, nil
}

// LogProb is the log10 probability of the last word after the others (at
// most two of them count).
func (l *LM) LogProb(words ...string) (float64, error) {
	if len(words) == 0 {
		return 0, errors.New("sphinx: no word")
	}
	cw := make([]*C.char, len(words))
	for i, w := range words {
		cw[i] = C.CString(w)
		defer C.free(unsafe.Pointer(cw[i]))
	}
	return l.log10(C.hark_lm_prob(l.lm, &cw[0], C.int(len(words)))), nil
}

// Words is the size of the model's vocabulary (its unigrams).
func (l *LM) Words() int { return int(*C.ngram_model_get_counts(l.lm)) }

// ConvertLM reads a model (ARPA or binary) and writes it as ARPA text
// (what sphinx_lm_convert does), or in sphinxbase's binary format, which
// loads in a fraction of the time of the text.
func ConvertLM(from, to string, binary bool) error {
	l, err := ReadLM(from)
	if err != nil {
		return err
	}
	defer l.Close()
	cto := C.CString(to)
	defer C.free(unsafe.Pointer(cto))
	format := C.ngram_file_type_t(C.NGRAM_ARPA)
	if binary {
		format = C.NGRAM_BIN
	}
	if C.ngram_model_write(l.lm, cto, format) != 0 {
		return fmt.Errorf("sphinx: cannot write the language model %s", to)
	}
	l.Close()
	// Reading a large ARPA model allocates its n-grams in many small
	// pieces, which glibc keeps after they are freed (the mixed model's
	// 3.7 million: about 130 MiB more resident in a worker that built it);
	// hand them back.
	C.malloc_trim(0)
	return nil
}

// Unigrams lists the model's words and their log10 probabilities.
func (l *LM) Unigrams() ([]string, []float64) {
	n := int(*C.ngram_model_get_counts(l.lm))
	raw := make([]C.int32, n)
	C.hark_unigrams(l.lm, &raw[0], C.int(n))
	words, logp := make([]string, n), make([]float64, n)
	for i := range raw {
		words[i] = C.GoString(C.ngram_word(l.lm, C.int32(i)))
		logp[i] = l.log10(raw[i])
	}
	return words, logp
}

// Bigrams lists the bigrams the model holds among the given words (in
// either order), with their log10 probabilities.
func (l *LM) Bigrams(words []string) ([][2]string, []float64, error) {
	var wids []C.int32
	for _, w := range words {
		cw := C.CString(w)
		id := C.ngram_wid(l.lm, cw)
		C.free(unsafe.Pointer(cw))
		if id >= 0 && id != C.ngram_unknown_wid(l.lm) {
			wids = append(wids, id)
		}
	}
	if len(wids) == 0 {
		return nil, nil, nil
	}
	capacity := int(unsafe.Slice(C.ngram_model_get_counts(l.lm), 2)[1])
	out := make([]C.int32, 3*capacity)
	n := C.hark_bigrams(l.lm, &wids[0], C.int(len(wids)), &out[0], C.int(capacity))
	if n < 0 {
		return nil, nil, errors.New("sphinx: more bigrams found than the model declares")
	}
	pairs, logp := make([][2]string, n), make([]float64, n)
	for i := range int(n) {
		pairs[i] = [2]string{C.GoString(C.ngram_word(l.lm, out[3*i])), C.GoString(C.ngram_word(l.lm, out[3*i+1]))}
		logp[i] = l.log10(out[3*i+2])
	}
	return pairs, logp, nil
}

func (l *LM) log10(v C.int32) float64 {
	return float64(C.logmath_log_to_ln(l.lmath, v)) / math.Ln10
}

// Counts is the number of n-grams of each order, unigrams first.
func (l *LM) Counts() []int {
	n := int(C.ngram_model_get_size(l.lm))
	c := unsafe.Slice(C.ngram_model_get_counts(l.lm), n)
	out := make([]int, n)
	for i, v := range c {
		out[i] = int(v)
	}
	return out
}

// Close frees the model.
func (l *LM) Close() {
	if l.lm != nil {
		C.ngram_model_free(l.lm)
		C.logmath_free(l.lmath)
		l.lm = nil
	}
}
