package actions

import (
	"context"
	"errors"
)

// Player plays music streams; the UI implements it on top of the audio package (an HTTP
// GET of the URL handed to audio.Player.Play). Volume is 0..100.
type Player interface {
	Play(ctx context.Context, url, title, artist string) error
	Pause() error
	Resume() error
	Stop() error
	SetVolume(level int) error
	NowPlaying() Track
}

// Track is what the player is playing, for a now-playing line.
type Track struct {
	URL, Title, Artist string
	Playing            bool
	Paused             bool
}

// ErrNoPlayer fails PLAY_MUSIC when the console has no audio output.
var ErrNoPlayer = errors.New("no audio output to play music on")
