//go:build !cgo

package audio

// NewPlayer reports ErrNoAudioBuild: this binary was built without cgo, which the output
// device needs.
func NewPlayer() (*Player, error) {
	return nil, ErrNoAudioBuild
}
