//go:build !cgo

// Package mp3enc encodes PCM to MP3 with libmp3lame; without cgo it only reports that.
package mp3enc

import "errors"

// Encode reports that MP3 encoding needs cgo.
func Encode(samples []int16, rate, channels, kbps int) ([]byte, error) {
	return nil, errors.New("mp3enc: built without cgo")
}
