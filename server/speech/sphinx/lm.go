package sphinx

/*
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

// hark_mix reads the language models into a set interpolated with the
// weights and makes it the decoder's search. Each model gets its own
// reference to the decoder's log-math tables (ngram_model_read takes
// ownership of the one it is given).
static int hark_mix(ps_decoder_t *ps, char **paths, float32 *weights, int n) {
	ngram_model_t **lms = calloc(n, sizeof *lms);
	char **names = calloc(n, sizeof *names);
	char buf[16];
	int ok = lms != NULL && names != NULL;
	for (int i = 0; ok && i < n; i++) {
		lms[i] = ngram_model_read(ps_get_config(ps), paths[i], NGRAM_AUTO, logmath_retain(ps_get_logmath(ps)));
		snprintf(buf, sizeof buf, "lm%d", i);
		names[i] = strdup(buf);
		ok = lms[i] != NULL && names[i] != NULL;
	}
	ngram_model_t *set = NULL;
	if (ok) set = ngram_model_set_init(ps_get_config(ps), lms, names, weights, n);
	int r = -1;
	if (set != NULL) {
		r = ps_set_lm(ps, "mixed", set);
		if (r == 0) r = ps_set_search(ps, "mixed");
		ngram_model_free(set); // the search keeps its own reference; this frees the models with it
	} else {
		for (int i = 0; lms != NULL && i < n; i++) ngram_model_free(lms[i]);
	}
	for (int i = 0; names != NULL && i < n; i++) free(names[i]);
	free(names);
	free(lms);
	return r;
}
*/
import "C"

import (
	"errors"
	"fmt"
	"math"
	"unsafe"
)

// Weighted is one language model of a mixture and its interpolation
// weight.
type Weighted struct {
	Path   string
	Weight float32
}

// mix makes d's search an interpolation of the models. pocketsphinx
// applies its language weight to each model's score before the set adds
// them, so the mixture is of P^lw, not of P: with the default -lw 6.5 the
// larger of the two scaled probabilities dominates and a weight acts as a
// per-word bonus or penalty of log(weight).
func (d *Decoder) mix(models []Weighted) error {
	paths := make([]*C.char, len(models))
	weights := make([]C.float32, len(models))
	for i, m := range models {
		paths[i] = C.CString(m.Path)
		defer C.free(unsafe.Pointer(paths[i]))
		weights[i] = C.float32(m.Weight)
	}
	if C.hark_mix(d.ps, &paths[0], &weights[0], C.int(len(models))) != 0 {
		return fmt.Errorf("sphinx: cannot load and mix the language models %v", models)
	}
	return nil
}

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
	p := C.hark_lm_prob(l.lm, &cw[0], C.int(len(words)))
	return float64(C.logmath_log_to_ln(l.lmath, p)) / math.Ln10, nil
}

// Words is the size of the model's vocabulary (its unigrams).
func (l *LM) Words() int { return int(*C.ngram_model_get_counts(l.lm)) }

// Close frees the model.
func (l *LM) Close() {
	if l.lm != nil {
		C.ngram_model_free(l.lm)
		C.logmath_free(l.lmath)
		l.lm = nil
	}
}
