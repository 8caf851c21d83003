// Package mp3enc encodes 16-bit mono PCM to constant-bit-rate MPEG Layer
// III with libmp3lame (Debian libmp3lame-dev) and checks MP3 frame headers.
//
// The encoder writes frames to an io.Writer as soon as LAME releases them,
// and Flush completes the frames LAME holds without ending the stream, so a
// spoken answer can be sent sentence by sentence.
package mp3enc

/*
#cgo LDFLAGS: -lmp3lame
#include <lame/lame.h>
#include <stdlib.h>
*/
import "C"

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"
	"unsafe"
)

// Rates the encoder accepts: the MPEG-1 and MPEG-2 rates. MPEG-2.5 rates
// (8, 11.025, 12 kHz) are refused because go-mp3 and many players cannot
// decode them.
var validRates = map[int]bool{16000: true, 22050: true, 24000: true, 32000: true, 44100: true, 48000: true}

// Encoder is one LAME stream. It is not safe for concurrent use.
type Encoder struct {
	gf      *C.lame_global_flags
	w       io.Writer
	buf     []byte
	cleanup runtime.Cleanup
	err     error
}

// New starts a mono CBR stream at rate Hz and kbps kilobits per second
// whose frames are written to w.
func New(w io.Writer, rate, kbps int) (*Encoder, error) {
	if !validRates[rate] {
		return nil, fmt.Errorf("mp3enc: sample rate %d Hz is not an MPEG-1/2 rate", rate)
	}
	if kbps < 8 || kbps > 320 {
		return nil, fmt.Errorf("mp3enc: bit rate %d kbps out of range", kbps)
	}
	gf := C.lame_init()
	if gf == nil {
		return nil, errors.New("mp3enc: lame_init failed")
	}
	C.lame_set_in_samplerate(gf, C.int(rate))
	C.lame_set_out_samplerate(gf, C.int(rate))
	C.lame_set_num_channels(gf, 1)
	C.lame_set_mode(gf, C.MONO)
	C.lame_set_VBR(gf, C.vbr_off)
	C.lame_set_brate(gf, C.int(kbps))
	C.lame_set_quality(gf, 5)
	// A Xing/Info tag would need a seek back to the start of the stream,
	// which a live HTTP body does not allow; CBR does not need it.
	C.lame_set_bWriteVbrTag(gf, 0)
	C.lame_set_write_id3tag_automatic(gf, 0)
	if rc := C.lame_init_params(gf); rc < 0 {
		C.lame_close(gf)
		return nil, fmt.Errorf("mp3enc: lame_init_params: code %d (rate %d, %d kbps)", int(rc), rate, kbps)
	}
	e := &Encoder{gf: gf, w: w}
	// Safety net for an encoder dropped without Close.
	e.cleanup = runtime.AddCleanup(e, func(gf *C.lame_global_flags) { C.lame_close(gf) }, gf)
	return e, nil
}

// Write encodes samples and writes any completed frames.
func (e *Encoder) Write(samples []int16) error {
	if e.err != nil {
		return e.err
	}
	if e.gf == nil {
		return errors.New("mp3enc: write after Close")
	}
	for len(samples) > 0 {
		// LAME's documented worst case: 1.25 × samples + 7200 bytes.
		n := min(len(samples), 1<<16)
		need := n*5/4 + 7200
		if cap(e.buf) < need {
			e.buf = make([]byte, need)
		}
		buf := e.buf[:need]
		rc := C.lame_encode_buffer(e.gf,
			(*C.short)(unsafe.Pointer(&samples[0])), nil, C.int(n),
			(*C.uchar)(unsafe.Pointer(&buf[0])), C.int(len(buf)))
		if rc < 0 {
			e.err = fmt.Errorf("mp3enc: lame_encode_buffer: code %d", int(rc))
			return e.err
		}
		if err := e.emit(buf[:rc]); err != nil {
			return err
		}
		samples = samples[n:]
	}
	return nil
}

// Flush writes out, as whole frames, everything LAME has encoded so far;
// the stream stays open and continues without a gap. LAME keeps its
// look-ahead (the encoder delay, up to about 1700 samples) until more
// samples or Close arrive, so a caller that wants a sentence fully out
// follows it with a short pause of silence, as speech has anyway.
func (e *Encoder) Flush() error {
	if e.err != nil {
		return e.err
	}
	if e.gf == nil {
		return errors.New("mp3enc: flush after Close")
	}
	buf := e.flushBuf()
	rc := C.lame_encode_flush_nogap(e.gf, (*C.uchar)(unsafe.Pointer(&buf[0])), C.int(len(buf)))
	if rc < 0 {
		e.err = fmt.Errorf("mp3enc: lame_encode_flush_nogap: code %d", int(rc))
		return e.err
	}
	return e.emit(buf[:rc])
}

// Close writes the final frames and releases the encoder. Closing twice is
// a no-op.
func (e *Encoder) Close() error {
	if e.gf == nil {
		return e.err
	}
	var err error
	if e.err == nil {
		buf := e.flushBuf()
		rc := C.lame_encode_flush(e.gf, (*C.uchar)(unsafe.Pointer(&buf[0])), C.int(len(buf)))
		if rc < 0 {
			err = fmt.Errorf("mp3enc: lame_encode_flush: code %d", int(rc))
		} else {
			err = e.emit(buf[:rc])
		}
	}
	e.cleanup.Stop()
	C.lame_close(e.gf)
	e.gf = nil
	if e.err == nil {
		e.err = err
	}
	return err
}

func (e *Encoder) flushBuf() []byte {
	if cap(e.buf) < 7200 {
		e.buf = make([]byte, 7200)
	}
	return e.buf[:7200]
}

func (e *Encoder) emit(b []byte) error {
	if len(b) == 0 {
		return nil
	}
	if _, err := e.w.Write(b); err != nil {
		e.err = fmt.Errorf("mp3enc: write frames: %w", err)
		return e.err
	}
	return nil
}

// Encode returns the whole MP3 of samples.
func Encode(samples []int16, rate, kbps int) ([]byte, error) {
	var out bytes.Buffer
	e, err := New(&out, rate, kbps)
	if err != nil {
		return nil, err
	}
	if err := e.Write(samples); err != nil {
		e.Close()
		return nil, err
	}
	if err := e.Close(); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}
