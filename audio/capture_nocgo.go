//go:build !cgo

package audio

// Devices reports ErrNoAudioBuild: this binary was built without cgo, which PortAudio needs.
func Devices() ([]Device, error) {
	return nil, ErrNoAudioBuild
}

// OpenCapture reports ErrNoAudioBuild: this binary was built without cgo.
func OpenCapture(cfg CaptureConfig) (*Capture, error) {
	return nil, ErrNoAudioBuild
}
