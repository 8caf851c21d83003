//go:build !cgo

package audio

import (
	"errors"
	"testing"
)

func TestWithoutCgoCaptureAndPlaybackSaySo(t *testing.T) {
	if _, err := OpenCapture(CaptureConfig{}); !errors.Is(err, ErrNoAudioBuild) {
		t.Errorf("OpenCapture: %v", err)
	}
	if _, err := Devices(); !errors.Is(err, ErrNoAudioBuild) {
		t.Errorf("Devices: %v", err)
	}
	if _, err := NewPlayer(); !errors.Is(err, ErrNoAudioBuild) {
		t.Errorf("NewPlayer: %v", err)
	}
}
