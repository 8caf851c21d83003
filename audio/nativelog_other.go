//go:build cgo && !linux

package audio

// silenceNativeLogs has nothing to do where neither ALSA nor JACK is used by default.
func silenceNativeLogs() {}
