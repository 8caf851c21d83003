package tts

// #include <stdint.h>
import "C"

import (
	"runtime/cgo"
	"unsafe"
)

// harkEspeakSamples receives synthesised audio from libespeak-ng; a non-zero
// return asks espeak to stop (the request was cancelled).
//
//export harkEspeakSamples
func harkEspeakSamples(wav *C.short, n C.int, handle C.uintptr_t) C.int {
	if handle == 0 {
		return 1
	}
	col := cgo.Handle(handle).Value().(*collector)
	if col.ctx.Err() != nil {
		return 1
	}
	if wav != nil && n > 0 {
		col.samples = append(col.samples, unsafe.Slice((*int16)(unsafe.Pointer(wav)), int(n))...)
	}
	return 0
}
