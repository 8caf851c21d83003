//go:build cgo

package audio

import (
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
	stream, err := openInputStream(dev.Index, CaptureRate, FrameSamples, dev.DefaultLowInputLatency)
	if err != nil {
		portaudio.Terminate()
		return nil, "", fmt.Errorf("open input %q at %d Hz: %w", dev.Name, CaptureRate, err)
	}
	return stream, dev.Name, nil
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
