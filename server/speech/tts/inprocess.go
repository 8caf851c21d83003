package tts

/*
#cgo pkg-config: espeak-ng
#include <stdint.h>
#include <stdlib.h>
#include <espeak-ng/espeak_ng.h>
#include <espeak-ng/speak_lib.h>

extern int harkEspeakSamples(short *wav, int n, uintptr_t handle);

// The callback finds its Go collector through the user_data that
// espeak_ng_Synthesize copies into every event.
static int hark_callback(short *wav, int n, espeak_EVENT *events) {
	return harkEspeakSamples(wav, n, (uintptr_t)events->user_data);
}

static espeak_ng_STATUS hark_init(void) {
	espeak_ng_InitializePath(NULL);
	espeak_ng_STATUS st = espeak_ng_Initialize(NULL);
	if (st != ENS_OK) return st;
	st = espeak_ng_InitializeOutput(ENOUTPUT_MODE_SYNCHRONOUS, 0, NULL);
	if (st != ENS_OK) return st;
	espeak_SetSynthCallback(hark_callback);
	return ENS_OK;
}

static espeak_ng_STATUS hark_synth(const char *text, size_t size, uintptr_t handle) {
	return espeak_ng_Synthesize(text, size, 0, POS_CHARACTER, 0, espeakCHARS_UTF8, NULL, (void *)handle);
}
*/
import "C"

import (
	"context"
	"fmt"
	"runtime/cgo"
	"sync"
	"unsafe"

	"github.com/harkhq/hark/server/apierr"
)

// libespeak-ng keeps one global synthesiser (voice, callback, buffers):
// every call goes through espeakMu.
var (
	espeakMu    sync.Mutex
	espeakInit  sync.Once
	espeakErr   error
	espeakVoice string
)

// collector gathers one sentence's samples inside the callback.
type collector struct {
	ctx     context.Context
	samples []int16
}

func initEspeak() error {
	espeakInit.Do(func() {
		if st := C.hark_init(); st != C.ENS_OK {
			espeakErr = apierr.Unavailablef("speech synthesis is not installed: libespeak-ng cannot start (status %#x; install the Debian package espeak-ng-data)", uint32(st))
			return
		}
		if rate := int(C.espeak_ng_GetSampleRate()); rate != SampleRate {
			espeakErr = fmt.Errorf("tts: libespeak-ng speaks at %d Hz, %d expected", rate, SampleRate)
		}
	})
	return espeakErr
}

// New returns a Synthesizer that calls libespeak-ng in this process. A
// missing espeak-ng data directory gives a 503 Unavailable *apierr.Error
// naming the Debian package.
//
// Running `espeak-ng --stdout` once per sentence was measured against this
// (BenchmarkSynthesizeSubprocess, since removed): 14.0 ms against 9.2 ms
// per second of speech including MP3 encoding, best of runs on 2 cores;
// the subprocess added nothing as a fallback, because both need the same
// espeak-ng data, so only the in-process engine is kept.
func New() (*Synthesizer, error) {
	if err := initEspeak(); err != nil {
		return nil, err
	}
	return &Synthesizer{}, nil
}

// synthesize speaks one sentence with an espeak-ng voice.
func synthesize(ctx context.Context, voice, sentence string) ([]int16, error) {
	espeakMu.Lock()
	defer espeakMu.Unlock()
	if voice != espeakVoice {
		cv := C.CString(voice)
		st := C.espeak_ng_SetVoiceByName(cv)
		C.free(unsafe.Pointer(cv))
		if st != C.ENS_OK {
			return nil, apierr.Unavailablef("espeak-ng voice %q is not installed (status %#x)", voice, uint32(st))
		}
		espeakVoice = voice
	}
	col := &collector{ctx: ctx}
	h := cgo.NewHandle(col)
	defer h.Delete()
	text := C.CString(sentence)
	defer C.free(unsafe.Pointer(text))
	st := C.hark_synth(text, C.size_t(len(sentence)+1), C.uintptr_t(h))
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if st != C.ENS_OK {
		return nil, fmt.Errorf("espeak_ng_Synthesize: status %#x", uint32(st))
	}
	if len(col.samples) == 0 {
		return nil, errNoSpeech
	}
	return col.samples, nil
}
