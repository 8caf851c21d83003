package voice

import (
	"context"
	"errors"
	"io"
	"sync"

	"github.com/harkhq/hark/actions"
	"github.com/harkhq/hark/audio"
	"github.com/harkhq/hark/client"
)

// MusicPlayer is the actions.Player of the console: PLAY_MUSIC streams the URL through the
// process's audio output, one track at a time, with its own volume so that spoken answers
// stay audible over the music.
type MusicPlayer struct {
	open  func() (*audio.Player, error)
	fetch func(ctx context.Context, url string) (io.ReadCloser, error)

	mu     sync.Mutex
	pb     *audio.Playback
	track  actions.Track
	volume int
}

// NewMusicPlayer plays through open (nil: audio.NewPlayer) what c fetches.
func NewMusicPlayer(c *client.Client, open func() (*audio.Player, error)) *MusicPlayer {
	if open == nil {
		open = audio.NewPlayer
	}
	return &MusicPlayer{open: open, fetch: c.Dialogue.AudioFile, volume: 100}
}

var errNothingPlaying = errors.New("no music is playing")

// Play stops what plays and streams url; it returns once the stream has started.
func (m *MusicPlayer) Play(ctx context.Context, url, title, artist string) error {
	player, err := m.open()
	if err != nil {
		return err
	}
	// The stream outlives the dispatch that started it.
	body, err := m.fetch(context.WithoutCancel(ctx), url)
	if err != nil {
		return err
	}
	m.Stop()
	pb, err := player.Play(body)
	if err != nil {
		body.Close()
		return err
	}
	m.mu.Lock()
	pb.SetVolume(float64(m.volume) / 100)
	m.pb = pb
	m.track = actions.Track{URL: url, Title: title, Artist: artist, Playing: true}
	m.mu.Unlock()
	go func() {
		<-pb.Done()
		m.mu.Lock()
		if m.pb == pb {
			m.pb = nil
			m.track.Playing, m.track.Paused = false, false
		}
		m.mu.Unlock()
	}()
	return nil
}

func (m *MusicPlayer) current() (*audio.Playback, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.pb == nil {
		return nil, errNothingPlaying
	}
	return m.pb, nil
}

// Pause holds the music.
func (m *MusicPlayer) Pause() error {
	pb, err := m.current()
	if err != nil {
		return err
	}
	pb.Pause()
	m.mu.Lock()
	m.track.Paused = true
	m.mu.Unlock()
	return nil
}

// Resume continues paused music.
func (m *MusicPlayer) Resume() error {
	pb, err := m.current()
	if err != nil {
		return err
	}
	pb.Resume()
	m.mu.Lock()
	m.track.Paused = false
	m.mu.Unlock()
	return nil
}

// Stop ends the music; stopping nothing is not an error.
func (m *MusicPlayer) Stop() error {
	m.mu.Lock()
	pb := m.pb
	m.pb = nil
	m.track.Playing, m.track.Paused = false, false
	m.mu.Unlock()
	if pb != nil {
		pb.Stop()
	}
	return nil
}

// SetVolume sets the music's volume, 0..100.
func (m *MusicPlayer) SetVolume(level int) error {
	level = min(max(level, 0), 100)
	m.mu.Lock()
	m.volume = level
	pb := m.pb
	m.mu.Unlock()
	if pb != nil {
		pb.SetVolume(float64(level) / 100)
	}
	return nil
}

// NowPlaying is the current track.
func (m *MusicPlayer) NowPlaying() actions.Track {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.track
}
