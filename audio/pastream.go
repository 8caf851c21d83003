//go:build cgo

package audio

/*
#cgo pkg-config: portaudio-2.0
#include <portaudio.h>

static PaError harkOpenInput(PaStream **stream, PaDeviceIndex device, double rate,
		unsigned long frames, PaTime latency) {
	PaStreamParameters in;
	in.device = device;
	in.channelCount = 1;
	in.sampleFormat = paInt16;
	in.suggestedLatency = latency;
	in.hostApiSpecificStreamInfo = NULL;
	return Pa_OpenStream(stream, &in, NULL, rate, frames, paNoFlag, NULL, NULL);
}
*/
import "C"

import (
	"errors"
	"sync"
	"time"
	"unsafe"

	"github.com/gordonklaus/portaudio"
)

// paStream is a blocking 16-bit mono input stream. The binding's own OpenStream passes its
// stream id to C as a pointer, which the race detector's pointer checks reject (for every
// stream but the first of the process), so streams are opened here; initialisation and
// device listing stay with the binding.
type paStream struct {
	stream unsafe.Pointer // a PaStream, which C declares as void

	mu     sync.Mutex
	closed bool
}

func paError(code C.PaError) error {
	if code == C.paNoError {
		return nil
	}
	if code == C.paUnanticipatedHostError {
		info := C.Pa_GetLastHostErrorInfo()
		return errors.New(C.GoString(info.errorText))
	}
	return portaudio.Error(int32(code))
}

func openInputStream(device, rate, frames int, latency time.Duration) (*paStream, error) {
	s := &paStream{}
	code := C.harkOpenInput(&s.stream, C.PaDeviceIndex(device), C.double(rate),
		C.ulong(frames), C.PaTime(latency.Seconds()))
	if err := paError(code); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *paStream) start() error {
	portaudioMu.Lock()
	defer portaudioMu.Unlock()
	return paError(C.Pa_StartStream(s.stream))
}

// read blocks until a whole frame has been captured.
func (s *paStream) read(frame []int16) error {
	err := paError(C.Pa_ReadStream(s.stream, unsafe.Pointer(&frame[0]), C.ulong(len(frame))))
	if errors.Is(err, portaudio.InputOverflowed) {
		return errOverflow
	}
	return err
}

func (s *paStream) close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	portaudioMu.Lock()
	defer portaudioMu.Unlock()
	err := paError(C.Pa_CloseStream(s.stream))
	portaudio.Terminate()
	return err
}
