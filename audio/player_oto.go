//go:build cgo

package audio

import (
	"fmt"
	"io"
	"sync"

	"github.com/ebitengine/oto/v3"
)

// The audio library allows one context per process, at one rate: it is made on first use
// and shared by every Player.
var output struct {
	once   sync.Once
	player *Player
	err    error
}

// NewPlayer returns the process's player, opening the output device on first use. With no
// usable output device it returns an error wrapping ErrNoOutput (and will keep doing so for
// the life of the process: the device is tried once).
func NewPlayer() (*Player, error) {
	output.once.Do(func() {
		silenceNativeLogs()
		ctx, ready, err := oto.NewContext(&oto.NewContextOptions{
			SampleRate:   OutputRate,
			ChannelCount: 2,
			Format:       oto.FormatFloat32LE,
		})
		if err != nil {
			output.err = fmt.Errorf("%w: %v", ErrNoOutput, err)
			return
		}
		<-ready
		// oto reports a failed device open only here; a player on a failed context would
		// claim to be playing forever.
		if err := ctx.Err(); err != nil {
			output.err = fmt.Errorf("%w: %v", ErrNoOutput, err)
			return
		}
		output.player = newPlayer(func(r io.Reader) voice {
			v := ctx.NewPlayer(r)
			v.SetBufferSize(int(voiceBuffer.Seconds() * OutputRate * 8))
			return v
		}, ctx)
	})
	return output.player, output.err
}
