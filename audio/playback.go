package audio

import (
	"errors"
	"io"
	"sync"
	"time"
)

// OutputRate is the one sample rate of the process's output context (stereo float32).
// 44100 Hz plays music MP3s (44.1 kHz) sample for sample and speech MP3s (22.05 kHz) by exact
// doubling; other rates are resampled linearly.
const OutputRate = 44100

// ErrNoOutput is returned by NewPlayer when no output device can be opened: the UI says
// "voice output off" and keeps answers for replay.
var ErrNoOutput = errors.New("audio: no output device")

// voice is the part of an oto player a Playback drives.
type voice interface {
	Play()
	Pause()
	IsPlaying() bool
	SetVolume(float64)
	BufferedSize() int
	Close() error
}

// Player plays MP3 streams on the process's single output context.
type Player struct {
	newVoice func(io.Reader) voice
	// device pauses the output once nothing has played for idleSuspend, so an idle
	// console costs no CPU; nil when there is nothing to pause.
	device    outputDevice
	idleAfter time.Duration
	suspended bool
	idle      *time.Timer

	mu     sync.Mutex
	volume float64
	active map[*Playback]struct{}
}

// voiceBuffer is how much decoded audio the mixer pulls ahead of the device for each
// playback: small, so playback starts on the first MP3 frames and Pause takes effect at once.
const voiceBuffer = 100 * time.Millisecond

// monitorPeriod is how often a playback checks for its first sample and its end; it is the
// resolution of FirstSample.
const monitorPeriod = 2 * time.Millisecond

// outputDevice is the output context's suspend and resume.
type outputDevice interface {
	Suspend() error
	Resume() error
}

// idleSuspend is how long the output keeps running after the last playback: long enough
// for the device's buffers to play out, so the end of an answer is never held back.
const idleSuspend = time.Second

func newPlayer(newVoice func(io.Reader) voice, device outputDevice) *Player {
	p := &Player{newVoice: newVoice, device: device, idleAfter: idleSuspend, volume: 1,
		active: map[*Playback]struct{}{}}
	p.mu.Lock()
	p.scheduleSuspend()
	p.mu.Unlock()
	return p
}

// scheduleSuspend suspends the output after idleSuspend unless a playback starts; called
// with p.mu held when the last playback ends.
func (p *Player) scheduleSuspend() {
	if p.device == nil {
		return
	}
	if p.idle != nil {
		p.idle.Stop()
	}
	p.idle = time.AfterFunc(p.idleAfter, func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		if len(p.active) == 0 && !p.suspended {
			p.device.Suspend()
			p.suspended = true
		}
	})
}

// Play starts playing an MP3 stream as its bytes arrive and returns at once. The stream is
// decoded progressively: playback starts on its first frames, not after the download. If r
// is an io.Closer (an HTTP body), Stop closes it. Decoding errors end the playback and are
// reported by Err.
func (p *Player) Play(r io.Reader) (*Playback, error) {
	return p.PlayLength(r, -1)
}

// PlayLength is Play for a stream whose total size in bytes is known (a Content-Length),
// which lets Duration give an estimate before the stream has ended. A size of -1 means
// unknown.
func (p *Player) PlayLength(r io.Reader, contentLength int64) (*Playback, error) {
	if r == nil {
		return nil, errors.New("audio: play: no stream")
	}
	body, _ := r.(io.Closer)
	return p.start(newMP3Stream(r, OutputRate), body, contentLength), nil
}

// start plays stream as a new Playback on the shared output, waking the
// device if it was suspended.
func (p *Player) start(stream *mp3Stream, body io.Closer, contentLength int64) *Playback {
	p.mu.Lock()
	defer p.mu.Unlock()
	pb := &Playback{
		player:        p,
		stream:        stream,
		body:          body,
		contentLength: contentLength,
		done:          make(chan struct{}),
		started:       time.Now(),
	}
	pb.voice = p.newVoice(stream)
	pb.voice.SetVolume(p.volume)
	if p.idle != nil {
		p.idle.Stop()
	}
	if p.suspended {
		p.device.Resume()
		p.suspended = false
	}
	p.active[pb] = struct{}{}
	pb.voice.Play()
	go pb.monitor()
	return pb
}

// SetVolume sets the volume (0 to 1) of current and later playbacks.
func (p *Player) SetVolume(v float64) {
	v = clampVolume(v)
	p.mu.Lock()
	p.volume = v
	list := p.playbacks()
	p.mu.Unlock()
	for _, pb := range list {
		pb.SetVolume(v)
	}
}

// StopAll stops every playback at once: barge-in.
func (p *Player) StopAll() {
	p.mu.Lock()
	list := p.playbacks()
	p.mu.Unlock()
	for _, pb := range list {
		pb.Stop()
	}
}

func (p *Player) playbacks() []*Playback {
	list := make([]*Playback, 0, len(p.active))
	for pb := range p.active {
		list = append(list, pb)
	}
	return list
}

func (p *Player) forget(pb *Playback) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.active, pb)
	if len(p.active) == 0 {
		p.scheduleSuspend()
	}
}

func clampVolume(v float64) float64 {
	if v < 0 || v != v {
		return 0
	}
	if v > 1 {
		return 1
	}
	return v
}

// Playback is one MP3 stream being played. Its methods are safe for concurrent use.
type Playback struct {
	player        *Player
	stream        *mp3Stream
	voice         voice
	body          io.Closer
	contentLength int64
	started       time.Time

	mu          sync.Mutex
	firstSample time.Time
	paused      bool
	stopped     bool
	err         error
	done        chan struct{}
	doneOnce    sync.Once
}

// Stop ends the playback at once (the device's own buffer, a few tens of milliseconds, still
// sounds) and closes the body if it is an io.Closer.
func (pb *Playback) Stop() {
	pb.mu.Lock()
	pb.stopped = true
	pb.mu.Unlock()
	pb.finish()
}

// Pause holds the playback at its position; the network stream is held back, not dropped.
func (pb *Playback) Pause() {
	pb.mu.Lock()
	defer pb.mu.Unlock()
	if pb.stopped || pb.paused {
		return
	}
	pb.paused = true
	pb.voice.Pause()
}

// Resume continues a paused playback.
func (pb *Playback) Resume() {
	pb.mu.Lock()
	defer pb.mu.Unlock()
	if pb.stopped || !pb.paused {
		return
	}
	pb.paused = false
	pb.voice.Play()
}

// Paused reports whether the playback is paused.
func (pb *Playback) Paused() bool {
	pb.mu.Lock()
	defer pb.mu.Unlock()
	return pb.paused
}

// SetVolume sets this playback's volume, 0 to 1.
func (pb *Playback) SetVolume(v float64) {
	pb.voice.SetVolume(clampVolume(v))
}

// Position is how much of the stream has been handed to the device.
func (pb *Playback) Position() time.Duration {
	st := pb.stream.state()
	played := st.served - int64(pb.voice.BufferedSize()/8)
	if played < 0 {
		played = 0
	}
	return framesToDuration(played, OutputRate)
}

// Duration is the length of the stream. It is exact once the stream has been decoded to
// its end, estimated from the MP3 bytes per second of audio so far when a Content-Length was
// given, and unknown (false) otherwise.
func (pb *Playback) Duration() (time.Duration, bool) {
	st := pb.stream.state()
	if st.finished && st.err == nil {
		return framesToDuration(st.produced, OutputRate), true
	}
	if pb.contentLength > 0 && st.inBytes > 0 && st.decoded > 0 && st.srcRate > 0 {
		decoded := float64(st.decoded) / float64(st.srcRate)
		seconds := decoded * float64(pb.contentLength) / float64(st.inBytes)
		return time.Duration(seconds * float64(time.Second)), true
	}
	return 0, false
}

// SourceRate is the MP3's sample rate, 0 until its first frame has been decoded.
func (pb *Playback) SourceRate() int {
	return pb.stream.state().srcRate
}

// Done is closed when the playback has ended: played to the end, stopped, or failed.
func (pb *Playback) Done() <-chan struct{} {
	return pb.done
}

// FirstSample is when the first sample was handed to the device (zero before), measured
// to within 2 ms: the "first sample played" point of the voice timings.
func (pb *Playback) FirstSample() time.Time {
	pb.mu.Lock()
	defer pb.mu.Unlock()
	return pb.firstSample
}

// Started is when Play was called.
func (pb *Playback) Started() time.Time {
	return pb.started
}

// Err is the decoding error that ended the playback, if any. A stopped playback has none.
func (pb *Playback) Err() error {
	pb.mu.Lock()
	defer pb.mu.Unlock()
	return pb.err
}

// Stopped reports whether Stop ended the playback.
func (pb *Playback) Stopped() bool {
	pb.mu.Lock()
	defer pb.mu.Unlock()
	return pb.stopped
}

func (pb *Playback) monitor() {
	tick := time.NewTicker(monitorPeriod)
	defer tick.Stop()
	for {
		select {
		case <-pb.done:
			return
		case <-tick.C:
		}
		st := pb.stream.state()
		buffered := int64(pb.voice.BufferedSize() / 8)
		pb.mu.Lock()
		if pb.firstSample.IsZero() && st.served-buffered > 0 {
			pb.firstSample = time.Now()
		}
		paused := pb.paused
		pb.mu.Unlock()
		if st.finished && st.queued == 0 && buffered == 0 && !paused && !pb.voice.IsPlaying() {
			pb.mu.Lock()
			pb.err = st.err
			pb.mu.Unlock()
			pb.finish()
			return
		}
	}
}

func (pb *Playback) finish() {
	pb.doneOnce.Do(func() {
		pb.voice.Close()
		pb.stream.close()
		if pb.body != nil {
			pb.body.Close()
		}
		pb.player.forget(pb)
		close(pb.done)
	})
}

func framesToDuration(frames int64, rate int) time.Duration {
	return time.Duration(frames) * time.Second / time.Duration(rate)
}
