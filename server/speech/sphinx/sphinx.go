// Package sphinx is a minimal cgo binding to the pocketsphinx 5prealpha
// decoder (Debian libpocketsphinx-dev, libsphinxbase-dev): create a
// decoder with a language model or a JSGF grammar, compute cepstra from
// 16 kHz 16-bit audio with a Frontend, feed them to the decoder
// incrementally, read the hypothesis and its scores.
//
// The decoder does not normalise the cepstra's mean itself (the model's
// feat.params asks for -cmn batch, which only works on whole utterances):
// the caller does, so that it can choose how much of the utterance the
// mean is estimated from while decoding runs (see package speech).
//
// A Decoder or Frontend is not safe for concurrent use; separate ones may
// run in parallel.
package sphinx

/*
#cgo pkg-config: pocketsphinx sphinxbase
#include <stdlib.h>
#include <pocketsphinx.h>
#include <sphinxbase/err.h>
#include <sphinxbase/fe.h>
#include <sphinxbase/feat.h>

// cmd_ln_init is variadic, which cgo cannot call.
// The models are 16 kHz; callers resample. The warp is always given (see
// frontendMu).
static cmd_ln_t *hark_config(const char *hmm, const char *dict, const char *lm) {
	if (lm != NULL) {
		return cmd_ln_init(NULL, ps_args(), TRUE,
			"-hmm", hmm, "-dict", dict, "-lm", lm, "-samprate", "16000", "-warp_params", "1", NULL);
	}
	return cmd_ln_init(NULL, ps_args(), TRUE,
		"-hmm", hmm, "-dict", dict, "-samprate", "16000", "-warp_params", "1", NULL);
}

// hark_frontend makes a front end with config's settings and the given
// frequency warp.
static fe_t *hark_frontend(cmd_ln_t *config, const char *warp) {
	cmd_ln_set_str_r(config, "-warp_params", warp);
	return fe_init_auto_r(config);
}

static void hark_quiet(void) { err_set_logfp(NULL); }

// hark_set_args overrides search settings ("-lw", "8", ...) of a
// configuration; NULL when a name is unknown. (A strict parse would refuse
// every name, as already set by hark_config.)
static cmd_ln_t *hark_set_args(cmd_ln_t *config, int argc, char **argv) {
	for (int i = 0; i < argc; i += 2) {
		if (!cmd_ln_exists_r(config, argv[i])) return NULL;
	}
	return cmd_ln_parse_r(config, ps_args(), argc, argv, FALSE);
}

static double hark_float_arg(cmd_ln_t *config, const char *name) {
	return cmd_ln_float_r(config, name);
}

static long hark_int_arg(cmd_ln_t *config, const char *name) {
	return cmd_ln_int_r(config, name);
}

// hark_take_cepstra readies a decoder for cepstra fed in blocks by
// Decoder.ProcessCepstra: the caller normalises them, and the acoustic
// module keeps every frame of the utterance. Without the latter it writes
// features into a ring buffer whose wrap-around path loses frames when
// cepstra come in blocks (an n-gram search fed 8-frame blocks found
// nothing). A call with no_search set and no frames is the only public way
// to switch the module to a growing buffer.
static void hark_take_cepstra(ps_decoder_t *ps) {
	ps_get_feat(ps)->cmn = CMN_NONE;
	ps_process_cep(ps, NULL, 0, TRUE, FALSE);
}

// hark_process_cep feeds n frames of ncep coefficients stored row after row.
static int hark_process_cep(ps_decoder_t *ps, mfcc_t *flat, int n, int ncep) {
	mfcc_t **rows = malloc(n * sizeof *rows);
	if (rows == NULL) return -1;
	for (int i = 0; i < n; i++) rows[i] = flat + (size_t)i * ncep;
	int r = ps_process_cep(ps, rows, n, FALSE, FALSE);
	free(rows);
	return r;
}

// hark_fe_process computes up to cap frames into out (rows of ncep) from
// the samples; *left is what it could not take for lack of room.
static int hark_fe_process(fe_t *fe, const int16 *spch, size_t n, mfcc_t *out, int cap, int ncep, size_t *left) {
	mfcc_t **rows = malloc(cap * sizeof *rows);
	if (rows == NULL) return -1;
	for (int i = 0; i < cap; i++) rows[i] = out + (size_t)i * ncep;
	int total = 0;
	while (n > 0 && total < cap) {
		int32 nf = cap - total, idx;
		if (fe_process_frames(fe, &spch, &n, rows + total, &nf, &idx) < 0) { free(rows); return -1; }
		if (nf == 0) break;
		total += nf;
	}
	free(rows);
	*left = n;
	return total;
}
*/
import "C"

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unsafe"
)

var quiet sync.Once

// silence turns sphinxbase's logging off, once per process.
func silence() { quiet.Do(func() { C.hark_quiet() }) }

// Config selects the models of a decoder. Exactly one of LM and JSGF is set.
type Config struct {
	HMM  string // acoustic model directory
	Dict string // pronunciation dictionary file
	LM   string // n-gram language model file (binary or ARPA)
	JSGF string // grammar text
	// NoFlatPass skips the second, flat-lexicon pass that an n-gram search
	// otherwise runs over the whole utterance when it ends (-fwdflat no).
	NoFlatPass bool
	// Args overrides pocketsphinx search settings, as name and value
	// pairs: "-lw", "8", "-wip", "0.2".
	Args []string
	// Spellings rewrites words of the hypotheses (a dictionary's British
	// spelling to the American one of the same pronunciation), before
	// NBest compares texts, so two spellings are one reading.
	Spellings map[string]string
	// Words adds pronunciations (word -> phones) to the dictionary of an
	// n-gram decoder: words its language model holds but the dictionary
	// lacks, which it otherwise never hears (package lexicon spells them).
	Words map[string][]string
}

// checkArgs refuses what sphinxbase would take silently: an odd count, and
// a value that is neither a number nor yes/no (sphinxbase reads "heavy"
// as 0). Unknown names are refused by hark_set_args.
func checkArgs(args []string) error {
	if len(args)%2 != 0 {
		return fmt.Errorf("sphinx: arguments %q are not name and value pairs", args)
	}
	for i := 1; i < len(args); i += 2 {
		if _, err := strconv.ParseFloat(args[i], 64); err != nil && args[i] != "yes" && args[i] != "no" {
			return fmt.Errorf("sphinx: %s %q is neither a number nor yes/no", args[i-1], args[i])
		}
	}
	return nil
}

// frontendMu serialises the making of front ends (each decoder makes one
// too). sphinxbase keeps the warp of the mel filters it is building in
// static variables of fe_warp_inverse_linear.c, shared by the process, and
// skips parsing a warp equal to the last one it parsed even after a front
// end without a warp made it neutral; so two front ends made at once could
// take each other's warp, and a missing warp would make the next equal one
// a no-op. Under this lock, with a warp always given, every front end gets
// its own. The filters are fixed once built: processing needs no lock.
var frontendMu sync.Mutex

// Decoder is one pocketsphinx decoder.
type Decoder struct {
	ps     *C.ps_decoder_t
	config *C.cmd_ln_t
	inUtt  bool
	ncep   int
	spell  map[string]string
}

// NewDecoder loads the models of c.
func NewDecoder(c Config) (*Decoder, error) {
	if (c.LM == "") == (c.JSGF == "") {
		return nil, errors.New("sphinx: exactly one of LM and JSGF must be given")
	}
	quiet.Do(func() { C.hark_quiet() })
	hmm, dict := C.CString(c.HMM), C.CString(c.Dict)
	defer C.free(unsafe.Pointer(hmm))
	defer C.free(unsafe.Pointer(dict))
	var lm *C.char
	if c.LM != "" {
		lm = C.CString(c.LM)
		defer C.free(unsafe.Pointer(lm))
	}
	config := C.hark_config(hmm, dict, lm)
	if config == nil {
		return nil, errors.New("sphinx: bad decoder configuration")
	}
	if c.NoFlatPass {
		name := C.CString("-fwdflat")
		C.cmd_ln_set_int_r(config, name, 0) // cmd_ln_set_boolean_r is a macro over it
		C.free(unsafe.Pointer(name))
	}
	if err := checkArgs(c.Args); err != nil {
		C.cmd_ln_free_r(config)
		return nil, err
	}
	if len(c.Args) > 0 {
		argv := make([]*C.char, len(c.Args))
		for i, a := range c.Args {
			argv[i] = C.CString(a)
			defer C.free(unsafe.Pointer(argv[i]))
		}
		if C.hark_set_args(config, C.int(len(argv)), &argv[0]) == nil {
			C.cmd_ln_free_r(config)
			return nil, fmt.Errorf("sphinx: arguments %q rejected", c.Args)
		}
	}
	frontendMu.Lock()
	ps := C.ps_init(config)
	frontendMu.Unlock()
	if ps == nil {
		C.cmd_ln_free_r(config)
		return nil, fmt.Errorf("sphinx: cannot load models (hmm %s, dict %s, lm %q)", c.HMM, c.Dict, c.LM)
	}
	C.hark_take_cepstra(ps)
	d := &Decoder{ps: ps, config: config, ncep: int(C.fe_get_output_size(C.ps_get_fe(ps))), spell: c.Spellings}
	if c.LM != "" && len(c.Words) > 0 {
		if err := d.addWords(c.Words); err != nil {
			d.Close()
			return nil, err
		}
	}
	if c.JSGF != "" {
		name := C.CString("grammar")
		defer C.free(unsafe.Pointer(name))
		text := C.CString(c.JSGF)
		defer C.free(unsafe.Pointer(text))
		if C.ps_set_jsgf_string(ps, name, text) != 0 {
			d.Close()
			return nil, errors.New("sphinx: grammar rejected (syntax error or word missing from the dictionary)")
		}
		if C.ps_set_search(ps, name) != 0 {
			d.Close()
			return nil, errors.New("sphinx: cannot select the grammar search")
		}
	}
	return d, nil
}

// addWords adds words to the dictionary, rebuilding the search once, after
// the last (in sorted order, so that every decoder gets the same ids).
func (d *Decoder) addWords(words map[string][]string) error {
	names := slices.Sorted(maps.Keys(words))
	for i, w := range names {
		cw, cp := C.CString(w), C.CString(strings.Join(words[w], " "))
		update := C.int(0)
		if i == len(names)-1 {
			update = 1
		}
		rc := C.ps_add_word(d.ps, cw, cp, update)
		C.free(unsafe.Pointer(cw))
		C.free(unsafe.Pointer(cp))
		if rc < 0 {
			return fmt.Errorf("sphinx: cannot add %q (%s) to the dictionary", w, strings.Join(words[w], " "))
		}
	}
	return nil
}

// Transform moves the acoustic model's Gaussian means by the MLLR
// transform in the file at path (mllr_solve's format), starting from the
// model's own means: a transform replaces the previous one rather than
// adding to it, and the identity restores the model. pocketsphinx reloads
// the means and variances from the model's files to do so (a few
// milliseconds). The transform's streams must be the model's: pocketsphinx
// does not check them (package adapt's ParseTransform and the caller do).
// An utterance in progress is abandoned.
func (d *Decoder) Transform(path string) error {
	if d.inUtt {
		C.ps_end_utt(d.ps)
		d.inUtt = false
	}
	p := C.CString(path)
	defer C.free(unsafe.Pointer(p))
	m := C.ps_mllr_read(p)
	if m == nil {
		return fmt.Errorf("sphinx: cannot read the transform %s", path)
	}
	if C.ps_update_mllr(d.ps, m) == nil {
		return errors.New("sphinx: the transform was refused")
	}
	return nil
}

// Start begins an utterance, abandoning any one in progress.
func (d *Decoder) Start() error {
	if d.inUtt {
		C.ps_end_utt(d.ps)
	}
	if C.ps_start_utt(d.ps) < 0 {
		return errors.New("sphinx: ps_start_utt failed")
	}
	d.inUtt = true
	return nil
}

// ProcessCepstra feeds frames of the current utterance: CepstrumSize
// values each, row after row, already normalised by the caller. The search
// advances over them at once.
func (d *Decoder) ProcessCepstra(frames []float32) error {
	if !d.inUtt {
		return errors.New("sphinx: no utterance started")
	}
	if len(frames) == 0 {
		return nil
	}
	if len(frames)%d.ncep != 0 {
		return fmt.Errorf("sphinx: %d values is not a whole number of %d-value frames", len(frames), d.ncep)
	}
	if C.hark_process_cep(d.ps, (*C.mfcc_t)(unsafe.Pointer(&frames[0])), C.int(len(frames)/d.ncep), C.int(d.ncep)) < 0 {
		return errors.New("sphinx: ps_process_cep failed")
	}
	return nil
}

// FloatSetting reads a numeric search setting of the decoder ("-lw").
func (d *Decoder) FloatSetting(name string) float64 {
	n := C.CString(name)
	defer C.free(unsafe.Pointer(n))
	return float64(C.hark_float_arg(d.config, n))
}

// IntSetting reads an integer setting of the decoder ("-nfilt").
func (d *Decoder) IntSetting(name string) int {
	n := C.CString(name)
	defer C.free(unsafe.Pointer(n))
	return int(C.hark_int_arg(d.config, n))
}

// CepstrumSize is the number of coefficients in a frame.
func (d *Decoder) CepstrumSize() int { return d.ncep }

// Frontend computes cepstra from 16 kHz audio with a decoder's acoustic
// front end settings (the model's feat.params), dropping silence with the
// same voice activity detector pocketsphinx applies to raw audio. It is
// separate from the decoder, so the two may run on different goroutines.
type Frontend struct {
	fe   *C.fe_t
	ncep int
}

// NewFrontend makes a front end with d's settings and its mel filters
// warped by warp (sphinxbase's inverse linear warping, as in vocal tract
// length normalisation: a warp above 1 suits a shorter vocal tract than
// the model's average speaker, below 1 a longer one; 1 is the model's own
// filters); Close frees it.
func NewFrontend(d *Decoder, warp float64) (*Frontend, error) {
	if !(warp >= MinWarp && warp <= MaxWarp) {
		return nil, fmt.Errorf("sphinx: warp %g outside [%g, %g]", warp, MinWarp, MaxWarp)
	}
	w := C.CString(strconv.FormatFloat(warp, 'g', -1, 32))
	defer C.free(unsafe.Pointer(w))
	frontendMu.Lock()
	fe := C.hark_frontend(C.ps_get_config(d.ps), w)
	frontendMu.Unlock()
	if fe == nil {
		return nil, errors.New("sphinx: cannot make the front end")
	}
	return &Frontend{fe: fe, ncep: int(C.fe_get_output_size(fe))}, nil
}

// The warps a front end accepts: well beyond the spread of adult voices
// (about ±20 %), and far enough from 0 that the filters stay in the band.
const (
	MinWarp float64 = 0.5
	MaxWarp float64 = 2
)

// Start begins an utterance.
func (f *Frontend) Start() error {
	if C.fe_start_utt(f.fe) < 0 {
		return errors.New("sphinx: fe_start_utt failed")
	}
	return nil
}

// Process appends to dst the frames the samples complete; the front end
// keeps a partial frame for the next call.
func (f *Frontend) Process(dst []float32, samples []int16) ([]float32, error) {
	for len(samples) > 0 {
		// One frame per 10 ms of audio, plus the frames the detector holds
		// back before speech starts and releases at once.
		capFrames := len(samples)/160 + 64
		start := len(dst)
		dst = append(dst, make([]float32, capFrames*f.ncep)...)
		var left C.size_t
		n := C.hark_fe_process(f.fe, (*C.int16)(unsafe.Pointer(&samples[0])), C.size_t(len(samples)),
			(*C.mfcc_t)(unsafe.Pointer(&dst[start])), C.int(capFrames), C.int(f.ncep), &left)
		if n < 0 {
			return dst[:start], errors.New("sphinx: fe_process_frames failed")
		}
		dst = dst[:start+int(n)*f.ncep]
		samples = samples[len(samples)-int(left):]
	}
	return dst, nil
}

// End flushes the last partial frame, appending it (if any) to dst.
func (f *Frontend) End(dst []float32) ([]float32, error) {
	start := len(dst)
	dst = append(dst, make([]float32, f.ncep)...)
	var n C.int32
	if C.fe_end_utt(f.fe, (*C.mfcc_t)(unsafe.Pointer(&dst[start])), &n) < 0 {
		return dst[:start], errors.New("sphinx: fe_end_utt failed")
	}
	return dst[:start+int(n)*f.ncep], nil
}

// Close frees the front end.
func (f *Frontend) Close() {
	if f.fe != nil {
		C.fe_free(f.fe)
		f.fe = nil
	}
}

// End closes the utterance; Hyp then gives the final hypothesis.
func (d *Decoder) End() error {
	if !d.inUtt {
		return errors.New("sphinx: no utterance started")
	}
	d.inUtt = false
	if C.ps_end_utt(d.ps) < 0 {
		return errors.New("sphinx: ps_end_utt failed")
	}
	return nil
}

// Hyp is a decoded hypothesis.
type Hyp struct {
	Text string
	// Score is the path score (log base 1.0001, negative; acoustic plus
	// weighted language score).
	Score  int
	Frames int
}

// Hyp returns the best hypothesis so far ("" when none).
func (d *Decoder) Hyp() Hyp {
	var score C.int32
	p := C.ps_get_hyp(d.ps, &score)
	h := Hyp{Score: int(score), Frames: int(C.ps_get_n_frames(d.ps))}
	if p != nil {
		h.Text = d.respell(C.GoString(p))
	}
	return h
}

// respell rewrites the words of text that Config.Spellings names.
func (d *Decoder) respell(text string) string {
	if len(d.spell) == 0 {
		return text
	}
	words := strings.Fields(text)
	changed := false
	for i, w := range words {
		if to, ok := d.spell[w]; ok {
			words[i], changed = to, true
		}
	}
	if !changed {
		return text
	}
	return strings.Join(words, " ")
}

// Close frees the decoder.
func (d *Decoder) Close() {
	if d.ps != nil {
		C.ps_free(d.ps)
		d.ps = nil
	}
	if d.config != nil {
		C.cmd_ln_free_r(d.config)
		d.config = nil
	}
}

// NBest returns up to n hypotheses of the ended utterance with distinct
// texts, best first, each with its path score (the same scale as Hyp's).
// It reads the word lattice the decoder built for its final best-path
// search (-bestpath, on by default), so the decoder's configuration needs
// nothing more: an n-gram decoder without the flat pass builds it from the
// first pass. The A* search behind ps_nbest yields one path per
// segmentation, and many paths differ only in silences, fillers or
// alternative pronunciations, which read the same; at most maxNBestPaths
// paths are read, so a long utterance with a wide lattice stays bounded.
// Nil when the decoder has no lattice (no utterance, no hypothesis).
func (d *Decoder) NBest(n int) []Hyp {
	if n <= 0 || d.inUtt {
		return nil
	}
	frames := int(C.ps_get_n_frames(d.ps))
	var out []Hyp
	seen := map[string]bool{}
	it := C.ps_nbest(d.ps)
	for paths := 0; it != nil && len(out) < n && paths < maxNBestPaths; paths++ {
		var score C.int32
		if p := C.ps_nbest_hyp(it, &score); p != nil {
			text := d.respell(C.GoString(p))
			if !seen[text] {
				seen[text] = true
				out = append(out, Hyp{Text: text, Score: int(score), Frames: frames})
			}
		}
		it = C.ps_nbest_next(it) // frees the iterator when the paths run out
	}
	if it != nil {
		C.ps_nbest_free(it)
	}
	return out
}

// maxNBestPaths bounds the A* paths NBest reads.
const maxNBestPaths = 100
