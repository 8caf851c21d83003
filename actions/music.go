package actions

import (
	"context"
	"errors"
	"fmt"
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

// The console's music keys go through the registry so that every change of what plays
// reaches the UI the same way, as a NowPlaying event.

// PauseMusic pauses the player.
func (r *Registry) PauseMusic() error { return r.controlMusic("paused", Player.Pause) }

// ResumeMusic resumes a paused player.
func (r *Registry) ResumeMusic() error { return r.controlMusic("resumed", Player.Resume) }

// StopMusic stops the player.
func (r *Registry) StopMusic() error { return r.controlMusic("stopped", Player.Stop) }

// NowPlaying is the player's track; the zero Track when there is no player.
func (r *Registry) NowPlaying() Track {
	if r.player == nil {
		return Track{}
	}
	return r.player.NowPlaying()
}

func (r *Registry) controlMusic(what string, control func(Player) error) error {
	if r.player == nil {
		return ErrNoPlayer
	}
	if err := control(r.player); err != nil {
		return fmt.Errorf("music %s: %w", what, err)
	}
	track := r.player.NowPlaying()
	r.emit(Event{Kind: NowPlaying, At: r.clock.Now(), Summary: "music " + what, Track: track})
	return nil
}
