// Package sphinx is a minimal cgo binding to the pocketsphinx 5prealpha
// decoder (Debian libpocketsphinx-dev, libsphinxbase-dev): create a
// decoder with a language model or a JSGF grammar, feed 16 kHz 16-bit
// audio incrementally, read the hypothesis and its scores.
//
// A Decoder is not safe for concurrent use; separate decoders may run in
// parallel.
package sphinx

/*
#cgo pkg-config: pocketsphinx sphinxbase
#include <stdlib.h>
#include <pocketsphinx.h>
#include <sphinxbase/err.h>

// cmd_ln_init is variadic, which cgo cannot call.
static cmd_ln_t *hark_config(const char *hmm, const char *dict, const char *lm, const char *rate) {
	if (lm != NULL) {
		return cmd_ln_init(NULL, ps_args(), TRUE,
			"-hmm", hmm, "-dict", dict, "-lm", lm, "-samprate", rate, NULL);
	}
	return cmd_ln_init(NULL, ps_args(), TRUE,
		"-hmm", hmm, "-dict", dict, "-samprate", rate, NULL);
}

static void hark_quiet(void) { err_set_logfp(NULL); }
*/
import "C"

import (
	"errors"
	"fmt"
	"strconv"
	"sync"
	"unsafe"
)

var quiet sync.Once

// Config selects the models of a decoder. Exactly one of LM and JSGF is set.
type Config struct {
	HMM  string // acoustic model directory
	Dict string // pronunciation dictionary file
	LM   string // n-gram language model file (binary or ARPA)
	JSGF string // grammar text
	// SampleRate of the audio fed to Process; the models expect 16000.
	SampleRate int
	// Search limits; zero keeps pocketsphinx's default. Lower values trade
	// accuracy for speed.
	MaxHMMPerFrame   int // -maxhmmpf (default 30000)
	MaxWordsPerFrame int // -maxwpf (default unlimited)
	TopN             int // -topn Gaussians per frame (default 4)
	PhoneLookahead   int // -pl_window (default 5)
}

// Decoder is one pocketsphinx decoder.
type Decoder struct {
	ps     *C.ps_decoder_t
	config *C.cmd_ln_t
	inUtt  bool
}

// NewDecoder loads the models of c.
func NewDecoder(c Config) (*Decoder, error) {
	if (c.LM == "") == (c.JSGF == "") {
		return nil, errors.New("sphinx: exactly one of LM and JSGF must be given")
	}
	if c.SampleRate == 0 {
		c.SampleRate = 16000
	}
	quiet.Do(func() { C.hark_quiet() })
	hmm, dict := C.CString(c.HMM), C.CString(c.Dict)
	defer C.free(unsafe.Pointer(hmm))
	defer C.free(unsafe.Pointer(dict))
	rate := C.CString(strconv.Itoa(c.SampleRate))
	defer C.free(unsafe.Pointer(rate))
	var lm *C.char
	if c.LM != "" {
		lm = C.CString(c.LM)
		defer C.free(unsafe.Pointer(lm))
	}
	config := C.hark_config(hmm, dict, lm, rate)
	if config == nil {
		return nil, errors.New("sphinx: bad decoder configuration")
	}
	for name, v := range map[string]int{"-maxhmmpf": c.MaxHMMPerFrame, "-maxwpf": c.MaxWordsPerFrame,
		"-topn": c.TopN, "-pl_window": c.PhoneLookahead} {
		if v != 0 {
			cname := C.CString(name)
			C.cmd_ln_set_int_r(config, cname, C.long(v))
			C.free(unsafe.Pointer(cname))
		}
	}
	ps := C.ps_init(config)
	if ps == nil {
		C.cmd_ln_free_r(config)
		return nil, fmt.Errorf("sphinx: cannot load models (hmm %s, dict %s, lm %q)", c.HMM, c.Dict, c.LM)
	}
	d := &Decoder{ps: ps, config: config}
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

// Process feeds samples of the current utterance. The model normalises
// cepstra per block of audio (-cmn batch in its feat.params), so the
// larger the blocks the better; see DecodeUtterance.
func (d *Decoder) Process(samples []int16) error {
	return d.process(samples, false)
}

// DecodeUtterance decodes a whole utterance in one block (Start, the
// audio marked as complete, End), normalised over all of it.
func (d *Decoder) DecodeUtterance(samples []int16) error {
	if err := d.Start(); err != nil {
		return err
	}
	if err := d.process(samples, true); err != nil {
		return err
	}
	return d.End()
}

func (d *Decoder) process(samples []int16, whole bool) error {
	if !d.inUtt {
		return errors.New("sphinx: no utterance started")
	}
	if len(samples) == 0 {
		return nil
	}
	full := C.int(0)
	if whole {
		full = 1
	}
	if C.ps_process_raw(d.ps, (*C.int16)(unsafe.Pointer(&samples[0])), C.size_t(len(samples)), 0, full) < 0 {
		return errors.New("sphinx: ps_process_raw failed")
	}
	return nil
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
	Score int
	// Acoustic is the sum of the words' acoustic scores alone, comparable
	// between decoders that share an acoustic model.
	Acoustic int
	Frames   int
}

// Hyp returns the best hypothesis so far ("" when none).
func (d *Decoder) Hyp() Hyp {
	var score C.int32
	p := C.ps_get_hyp(d.ps, &score)
	h := Hyp{Score: int(score), Frames: int(C.ps_get_n_frames(d.ps))}
	if p != nil {
		h.Text = C.GoString(p)
	}
	for seg := C.ps_seg_iter(d.ps); seg != nil; seg = C.ps_seg_next(seg) {
		var ascr, lscr, lback C.int32
		C.ps_seg_prob(seg, &ascr, &lscr, &lback)
		h.Acoustic += int(ascr)
	}
	return h
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
