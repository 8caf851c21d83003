//go:build cgo

package audio

import (
	"errors"
	"fmt"
	"sync"

	"github.com/gordonklaus/portaudio"
)

// PortAudio is not safe for concurrent use of its library-wide calls; every call except
// reading a stream goes through this lock.
var portaudioMu sync.Mutex

// Devices lists the input devices. It initialises PortAudio for the call, so the list is
// fresh: a device plugged in since the last call appears.
func Devices() ([]Device, error) {
	portaudioMu.Lock()
	defer portaudioMu.Unlock()
	if err := initPortAudio(); err != nil {
		return nil, err
	}
	defer portaudio.Terminate()
	all, err := portaudio.Devices()
	if err != nil {
		return nil, fmt.Errorf("list input devices: %w", err)
	}
	def, _ := portaudio.DefaultInputDevice()
	var list []Device
	for _, d := range all {
		if d.MaxInputChannels < 1 {
			continue
		}
		list = append(list, Device{
			Name:              d.Name,
			Channels:          d.MaxInputChannels,
			DefaultSampleRate: d.DefaultSampleRate,
			Default:           def != nil && def.Index == d.Index,
		})
	}
	return list, nil
}

// OpenCapture opens the configured input device, or the default one with a Notice when
// the named device is missing. It returns an error wrapping ErrNoInput when there is no
// input device at all. The stream is opened but not started: call Arm or Start.
func OpenCapture(cfg CaptureConfig) (*Capture, error) {
	return openCapture(cfg, portaudioBackend{})
}

func initPortAudio() error {
	silenceNativeLogs()
	if err := portaudio.Initialize(); err != nil {
		return fmt.Errorf("initialise PortAudio: %w", err)
	}
	return nil
}

type portaudioBackend struct{}

// open initialises PortAudio afresh (so a device that appeared or vanished since the last
// open is seen) and keeps it initialised for the stream's life.
func (portaudioBackend) open(name string) (inputStream, string, error) {
	portaudioMu.Lock()
	defer portaudioMu.Unlock()
	if err := initPortAudio(); err != nil {
		return nil, "", err
	}
	dev, err := findInput(name)
	if err != nil {
		portaudio.Terminate()
		return nil, "", err
	}
	s := &portaudioStream{frame: make([]int16, FrameSamples)}
	params := portaudio.StreamParameters{
		Input: portaudio.StreamDeviceParameters{
			Device:   dev,
			Channels: 1,
			Latency:  dev.DefaultLowInputLatency,
		},
		SampleRate:      CaptureRate,
		FramesPerBuffer: FrameSamples,
	}
	s.stream, err = portaudio.OpenStream(params, s.frame)
	if err != nil {
		portaudio.Terminate()
		return nil, "", fmt.Errorf("open input %q at %d Hz: %w", dev.Name, CaptureRate, err)
	}
	return s, dev.Name, nil
}

func findInput(name string) (*portaudio.DeviceInfo, error) {
	if name == "" {
		dev, err := portaudio.DefaultInputDevice()
		if err != nil || dev == nil || dev.MaxInputChannels < 1 {
			return nil, fmt.Errorf("%w: %v", ErrNoInput, err)
		}
		return dev, nil
	}
	all, err := portaudio.Devices()
	if err != nil {
		return nil, fmt.Errorf("list input devices: %w", err)
	}
	for _, d := range all {
		if d.Name == name && d.MaxInputChannels > 0 {
			return d, nil
		}
	}
	return nil, fmt.Errorf("%w: %q", errDeviceNotFound, name)
}

type portaudioStream struct {
	stream *portaudio.Stream
	frame  []int16 // the buffer PortAudio reads into

	mu     sync.Mutex
	closed bool
}

func (s *portaudioStream) start() error {
	portaudioMu.Lock()
	defer portaudioMu.Unlock()
	return s.stream.Start()
}

func (s *portaudioStream) read(frame []int16) error {
	err := s.stream.Read()
	if errors.Is(err, portaudio.InputOverflowed) {
		err = errOverflow
	}
	copy(frame, s.frame)
	return err
}

func (s *portaudioStream) close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	portaudioMu.Lock()
	defer portaudioMu.Unlock()
	err := s.stream.Close()
	portaudio.Terminate()
	return err
}
