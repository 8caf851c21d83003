//go:build cgo

// Package mp3enc encodes PCM to MP3 with libmp3lame. The audio package's tests use it to make
// MP3 fixtures at test time instead of committing binaries; nothing else links it.
package mp3enc

/*
#cgo pkg-config: lame
#include <stdlib.h>
#include <lame/lame.h>
*/
import "C"

import (
	"errors"
	"fmt"
	"unsafe"
)

// Encode encodes 16-bit samples (interleaved when channels is 2) at rate into a constant
// bitrate MP3 of kbps kilobits per second.
func Encode(samples []int16, rate, channels, kbps int) ([]byte, error) {
	if channels != 1 && channels != 2 {
		return nil, fmt.Errorf("mp3enc: %d channels", channels)
	}
	if len(samples)%channels != 0 {
		return nil, errors.New("mp3enc: samples do not fill whole frames")
	}
	gf := C.lame_init()
	if gf == nil {
		return nil, errors.New("mp3enc: lame_init failed")
	}
	defer C.lame_close(gf)
	C.lame_set_in_samplerate(gf, C.int(rate))
	C.lame_set_out_samplerate(gf, C.int(rate))
	C.lame_set_num_channels(gf, C.int(channels))
	if channels == 1 {
		C.lame_set_mode(gf, C.MONO)
	} else {
		C.lame_set_mode(gf, C.STEREO)
	}
	C.lame_set_brate(gf, C.int(kbps))
	C.lame_set_bWriteVbrTag(gf, 0)
	if C.lame_init_params(gf) < 0 {
		return nil, fmt.Errorf("mp3enc: lame rejects %d Hz, %d channels, %d kbps", rate, channels, kbps)
	}
	frames := len(samples) / channels
	out := make([]byte, 0, frames/2+16384)
	// libmp3lame's documented worst case output size: 1.25 × samples + 7200.
	buf := make([]byte, 5*4096/4+7200)
	const chunk = 4096
	pcm := (*C.short)(C.malloc(C.size_t(chunk * channels * 2)))
	defer C.free(unsafe.Pointer(pcm))
	in := unsafe.Slice((*int16)(unsafe.Pointer(pcm)), chunk*channels)
	for start := 0; start < frames; start += chunk {
		n := min(chunk, frames-start)
		copy(in, samples[start*channels:(start+n)*channels])
		var written C.int
		if channels == 1 {
			written = C.lame_encode_buffer(gf, pcm, nil, C.int(n),
				(*C.uchar)(unsafe.Pointer(&buf[0])), C.int(len(buf)))
		} else {
			written = C.lame_encode_buffer_interleaved(gf, pcm, C.int(n),
				(*C.uchar)(unsafe.Pointer(&buf[0])), C.int(len(buf)))
		}
		if written < 0 {
			return nil, fmt.Errorf("mp3enc: lame_encode_buffer returned %d", int(written))
		}
		out = append(out, buf[:written]...)
	}
	written := C.lame_encode_flush(gf, (*C.uchar)(unsafe.Pointer(&buf[0])), C.int(len(buf)))
	if written < 0 {
		return nil, fmt.Errorf("mp3enc: lame_encode_flush returned %d", int(written))
	}
	return append(out, buf[:written]...), nil
}
