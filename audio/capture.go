package audio

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"
)

// Capture format: what the speech service consumes.
const (
	CaptureRate   = 16000
	FrameSamples  = 320 // 20 ms
	FrameBytes    = FrameSamples * 2
	FrameDuration = 20 * time.Millisecond
)

// Defaults for a zero CaptureConfig field.
const (
	DefaultPreRoll     = 400 * time.Millisecond
	DefaultMaxDuration = 60 * time.Second
)

var (
	// ErrNoInput is returned by OpenCapture when there is no input device at all.
	ErrNoInput = errors.New("audio: no input device")
	// ErrNoAudioBuild is returned by capture and playback in a binary built without cgo.
	ErrNoAudioBuild = errors.New("audio: built without cgo: no capture or playback")
	// ErrCanceled is returned by Recording.Read after Cancel.
	ErrCanceled = errors.New("audio: recording canceled")
	// ErrRecording is returned by Start while a recording is in progress.
	ErrRecording = errors.New("audio: a recording is already in progress")
	// ErrClosed is returned by a Capture's methods after Close.
	ErrClosed = errors.New("audio: capture closed")

	// errDeviceNotFound is what a backend returns for a device name it does not know.
	errDeviceNotFound = errors.New("audio: input device not found")
	// errOverflow is what a backend returns when frames were dropped before a read: the
	// stream goes on.
	errOverflow = errors.New("audio: input overflow")
)

// CaptureConfig configures a microphone. Zero fields take the defaults.
type CaptureConfig struct {
	// Device is the input device's name as listed by Devices; empty means the default.
	Device string
	// PreRoll is how much audio before Start a recording begins with (default
	// DefaultPreRoll; negative for none).
	PreRoll time.Duration
	// MaxDuration bounds a recording, pre-roll included (default DefaultMaxDuration).
	MaxDuration time.Duration
	// SilenceStop ends a recording after this much silence following speech, as judged by
	// the voice activity detector; zero disables auto-stop.
	SilenceStop time.Duration
}

// Device is an input device.
type Device struct {
	Name              string
	Channels          int     // maximum input channels
	DefaultSampleRate float64 // the device's preferred rate; capture asks for 16 kHz anyway
	Default           bool
}

// Notice tells the UI that the capture is not using the device it asked for.
type Notice struct {
	Requested string // the configured device name
	Using     string // the device now in use
	Reason    string // for a status line
}

// StopReason says why a recording ended.
type StopReason int

const (
	StopNone        StopReason = iota // still recording
	StopUser                          // Stop was called
	StopSilence                       // trailing silence after speech
	StopMaxDuration                   // the maximum length was reached
	StopCanceled                      // Cancel was called
	StopDevice                        // the device failed and no other could be opened
	StopClosed                        // the Capture was closed
)

func (r StopReason) String() string {
	switch r {
	case StopNone:
		return "recording"
	case StopUser:
		return "stopped"
	case StopSilence:
		return "silence"
	case StopMaxDuration:
		return "maximum length"
	case StopCanceled:
		return "canceled"
	case StopDevice:
		return "device lost"
	case StopClosed:
		return "closed"
	}
	return fmt.Sprintf("StopReason(%d)", int(r))
}

// inputBackend opens input streams; the real one is PortAudio, tests may use others.
type inputBackend interface {
	// open opens the named device (empty for the default) for 16 kHz mono 16-bit frames of
	// FrameSamples and returns the name of the device actually opened. It returns an error
	// wrapping errDeviceNotFound for an unknown name and ErrNoInput when there is no
	// default input.
	open(name string) (inputStream, string, error)
}

type inputStream interface {
	start() error
	// read fills frame (FrameSamples samples), blocking until it is available.
	read(frame []int16) error
	close() error
}

// Capture is an open microphone. While armed it keeps the last PreRoll of audio so a
// recording started by a key press keeps the first word; Levels reports every frame.
// Its methods are safe for concurrent use.
type Capture struct {
	cfg     CaptureConfig
	backend inputBackend

	levels  chan Level
	notices chan Notice

	mu        sync.Mutex
	stream    inputStream
	device    string
	armed     bool
	closed    bool
	failure   error
	rec       *Recording
	ring      []byte // pre-roll, a ring of whole frames
	ringHead  int    // next frame slot to write
	ringCount int    // frames held
	frameNo   int64  // frames read since armed
	lastVoice int64  // frame number of the last speech frame, -1 for none
	vad       *VAD
	loopDone  chan struct{}
}

func openCapture(cfg CaptureConfig, backend inputBackend) (*Capture, error) {
	if cfg.PreRoll == 0 {
		cfg.PreRoll = DefaultPreRoll
	}
	if cfg.PreRoll < 0 {
		cfg.PreRoll = 0
	}
	if cfg.MaxDuration == 0 {
		cfg.MaxDuration = DefaultMaxDuration
	}
	if cfg.MaxDuration < FrameDuration {
		return nil, fmt.Errorf("audio: maximum recording length %v is shorter than a frame", cfg.MaxDuration)
	}
	if cfg.SilenceStop < 0 {
		return nil, fmt.Errorf("audio: negative silence stop %v", cfg.SilenceStop)
	}
	c := &Capture{
		cfg:       cfg,
		backend:   backend,
		levels:    make(chan Level, 16),
		notices:   make(chan Notice, 4),
		ring:      make([]byte, int(cfg.PreRoll/FrameDuration)*FrameBytes),
		lastVoice: -1,
		vad:       NewVAD(),
	}
	stream, name, err := backend.open(cfg.Device)
	if err != nil && cfg.Device != "" && errors.Is(err, errDeviceNotFound) {
		stream, name, err = backend.open("")
		if err == nil {
			c.notify(Notice{Requested: cfg.Device, Using: name,
				Reason: fmt.Sprintf("microphone %q not found: using %q", cfg.Device, name)})
		}
	}
	if err != nil {
		return nil, err
	}
	c.stream = stream
	c.device = name
	return c, nil
}

// Levels delivers the level of every frame while armed. When the reader falls behind the
// oldest levels are dropped: a meter wants the latest.
func (c *Capture) Levels() <-chan Level {
	return c.levels
}

// Notices delivers a Notice whenever the capture falls back to another device.
func (c *Capture) Notices() <-chan Notice {
	return c.notices
}

// Device is the name of the device in use.
func (c *Capture) Device() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.device
}

// PreRollHeld is how much audio the armed pre-roll holds now: a recording
// started at once begins with that much from before Start.
func (c *Capture) PreRollHeld() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Duration(c.ringCount) * FrameDuration
}

// Arm starts the stream: levels flow and the pre-roll fills. Arming an armed capture does
// nothing.
func (c *Capture) Arm() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.armLocked()
}

func (c *Capture) armLocked() error {
	if c.closed {
		return ErrClosed
	}
	if c.failure != nil {
		return c.failure
	}
	if c.armed {
		return nil
	}
	if err := c.stream.start(); err != nil {
		return fmt.Errorf("start %s: %w", c.device, err)
	}
	c.armed = true
	c.loopDone = make(chan struct{})
	go c.loop(c.stream, c.loopDone)
	return nil
}

// Start begins a recording, arming the capture if needed. The recording begins with the
// pre-roll held so far and ends on Stop, Cancel, the maximum length, or trailing silence.
func (c *Capture) Start() (*Recording, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.rec != nil && !c.rec.ended() {
		return nil, ErrRecording
	}
	if err := c.armLocked(); err != nil {
		return nil, err
	}
	maxFrames := int(c.cfg.MaxDuration / FrameDuration)
	rec := &Recording{maxFrames: maxFrames}
	rec.cond = sync.NewCond(&rec.mu)
	rec.done = make(chan struct{})
	rec.data = make([]byte, 0, min(maxFrames, 10*50)*FrameBytes)
	// The oldest frame held is at ringHead when the ring is full.
	slots := len(c.ring) / FrameBytes
	for i := 0; i < c.ringCount && len(rec.data) < maxFrames*FrameBytes; i++ {
		slot := (c.ringHead - c.ringCount + i + slots) % slots
		rec.data = append(rec.data, c.ring[slot*FrameBytes:(slot+1)*FrameBytes]...)
	}
	rec.preRoll = time.Duration(len(rec.data)/FrameBytes) * FrameDuration
	rec.firstFrame = c.frameNo - int64(len(rec.data)/FrameBytes)
	c.ringCount = 0
	c.rec = rec
	if len(rec.data) >= maxFrames*FrameBytes {
		rec.end(StopMaxDuration, nil)
	}
	return rec, nil
}

// Close stops the stream and ends a recording in progress (StopClosed).
func (c *Capture) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	rec := c.rec
	loopDone := c.loopDone
	armed := c.armed
	c.mu.Unlock()
	if rec != nil {
		rec.end(StopClosed, nil)
	}
	if armed {
		<-loopDone // the loop leaves after its current frame and closes the stream
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stream.close()
}

func (c *Capture) notify(n Notice) {
	select {
	case c.notices <- n:
	default:
	}
}

// A stream that fails more than maxReopens times within reopenWindow is given up on, so a
// device that opens but cannot deliver does not keep the loop spinning.
const (
	maxReopens   = 3
	reopenWindow = 2 * time.Second
)

// loop reads frames until Close, replacing a failed stream when it can.
func (c *Capture) loop(stream inputStream, done chan struct{}) {
	defer close(done)
	frame := make([]int16, FrameSamples)
	var failures []time.Time // recent failures, within reopenWindow
	for {
		c.mu.Lock()
		closed := c.closed
		c.mu.Unlock()
		if closed {
			stream.close()
			return
		}
		err := stream.read(frame)
		if errors.Is(err, errOverflow) {
			err = nil // frames were lost before this one; this one is good
		}
		if err != nil {
			now := time.Now()
			for len(failures) > 0 && now.Sub(failures[0]) > reopenWindow {
				failures = failures[1:]
			}
			failures = append(failures, now)
			stream = c.recover(stream, err, len(failures) > maxReopens)
			if stream == nil {
				return
			}
			continue
		}
		c.process(frame)
	}
}

// recover replaces a stream that failed with the configured device if it can be opened
// again, else the default, with a notice. It returns nil when no device could be opened
// (or giveUp is set): the recording in progress ends with StopDevice and later calls
// return the error.
func (c *Capture) recover(failed inputStream, cause error, giveUp bool) inputStream {
	failed.close()
	c.mu.Lock()
	lost := c.device
	c.mu.Unlock()
	var stream inputStream
	var name string
	var err error
	if giveUp {
		err = fmt.Errorf("failed %d times in %v", maxReopens+1, reopenWindow)
	} else if c.cfg.Device != "" {
		stream, name, err = c.backend.open(c.cfg.Device)
	}
	if stream == nil && !giveUp {
		stream, name, err = c.backend.open("")
	}
	if err == nil {
		if err = stream.start(); err != nil {
			stream.close()
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if err != nil || c.closed {
		if err == nil {
			stream.close()
			err = ErrClosed
		}
		c.failure = fmt.Errorf("input device %q failed (%v) and none could be reopened: %w", lost, cause, err)
		c.armed = false
		if c.rec != nil {
			c.rec.end(StopDevice, c.failure)
		}
		return nil
	}
	c.stream = stream
	c.device = name
	if name != lost || (c.cfg.Device != "" && name != c.cfg.Device) {
		c.notify(Notice{Requested: c.cfg.Device, Using: name,
			Reason: fmt.Sprintf("microphone %q failed (%v): using %q", lost, cause, name)})
	}
	return stream
}

// process measures a frame, runs the detector, and stores the frame in the recording or
// the pre-roll.
func (c *Capture) process(frame []int16) {
	rms, peak := MeasureLevel(frame)
	c.mu.Lock()
	speech := c.vad.Push(rms)
	c.frameNo++
	if speech {
		c.lastVoice = c.frameNo
	}
	lvl := Level{RMS: rms, Peak: peak, Speech: speech, At: time.Duration(c.frameNo) * FrameDuration}
	rec := c.rec
	if rec != nil && !rec.ended() {
		lvl.Recording = true
		rec.add(frame, c.lastVoice, c.cfg.SilenceStop)
	} else if len(c.ring) > 0 {
		slots := len(c.ring) / FrameBytes
		putFrame(c.ring[c.ringHead*FrameBytes:], frame)
		c.ringHead = (c.ringHead + 1) % slots
		if c.ringCount < slots {
			c.ringCount++
		}
	}
	c.mu.Unlock()
	select {
	case c.levels <- lvl:
	default:
		// Drop the oldest level to make room; another reader may have emptied the channel.
		select {
		case <-c.levels:
		default:
		}
		select {
		case c.levels <- lvl:
		default:
		}
	}
}

func putFrame(dst []byte, frame []int16) {
	for i, s := range frame {
		binary.LittleEndian.PutUint16(dst[2*i:], uint16(s))
	}
}

// Recording is one utterance: an io.Reader of raw 16 kHz mono 16-bit PCM that delivers frames
// as they are captured (so it can be a request body while the user speaks) and ends with
// io.EOF when the recording ends, or ErrCanceled after Cancel.
type Recording struct {
	maxFrames  int
	firstFrame int64 // frame number of the first frame, pre-roll included
	preRoll    time.Duration

	mu        sync.Mutex
	cond      *sync.Cond
	data      []byte
	readPos   int
	reason    StopReason
	err       error
	speechEnd time.Time
	done      chan struct{}
}

// add appends a frame; called with the capture's lock held.
func (r *Recording) add(frame []int16, lastVoice int64, silenceStop time.Duration) {
	r.mu.Lock()
	n := len(r.data)
	if cap(r.data) >= n+FrameBytes {
		r.data = r.data[:n+FrameBytes]
	} else {
		r.data = append(r.data, make([]byte, FrameBytes)...)
	}
	putFrame(r.data[n:], frame)
	frames := len(r.data) / FrameBytes
	frameNo := r.firstFrame + int64(frames)
	if lastVoice == frameNo {
		r.speechEnd = time.Now()
	}
	reason := StopNone
	switch {
	case frames >= r.maxFrames:
		reason = StopMaxDuration
	case silenceStop > 0 && lastVoice > r.firstFrame &&
		time.Duration(frameNo-lastVoice)*FrameDuration >= silenceStop:
		reason = StopSilence
	}
	r.mu.Unlock()
	r.cond.Broadcast()
	if reason != StopNone {
		r.end(reason, nil)
	}
}

func (r *Recording) ended() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.reason != StopNone
}

func (r *Recording) end(reason StopReason, err error) {
	r.mu.Lock()
	if r.reason != StopNone {
		r.mu.Unlock()
		return
	}
	r.reason = reason
	r.err = err
	if reason == StopCanceled {
		r.data = nil
	}
	close(r.done)
	r.mu.Unlock()
	r.cond.Broadcast()
}

// Read delivers the recorded PCM, blocking until more is captured or the recording ends.
func (r *Recording) Read(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for {
		if r.reason == StopCanceled {
			return 0, ErrCanceled
		}
		if r.readPos < len(r.data) {
			n := copy(p, r.data[r.readPos:])
			r.readPos += n
			return n, nil
		}
		if r.reason != StopNone {
			if r.err != nil {
				return 0, r.err
			}
			return 0, io.EOF
		}
		r.cond.Wait()
	}
}

// Stop ends the recording; Read returns what was captured, then io.EOF.
func (r *Recording) Stop() {
	r.end(StopUser, nil)
}

// Cancel ends the recording and discards it; Read returns ErrCanceled.
func (r *Recording) Cancel() {
	r.end(StopCanceled, nil)
}

// Done is closed when the recording ends.
func (r *Recording) Done() <-chan struct{} {
	return r.done
}

// Reason says why the recording ended (StopNone while it goes on).
func (r *Recording) Reason() StopReason {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.reason
}

// Err is the device error that ended the recording, if any.
func (r *Recording) Err() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}

// PCM returns a copy of everything recorded so far (nil after Cancel): kept for replay and
// for a retry after a failed upload.
func (r *Recording) PCM() []byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.data == nil {
		return nil
	}
	return append([]byte(nil), r.data...)
}

// Duration is the length recorded so far, pre-roll included.
func (r *Recording) Duration() time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	return time.Duration(len(r.data)/FrameBytes) * FrameDuration
}

// PreRoll is how much audio from before Start the recording begins with.
func (r *Recording) PreRoll() time.Duration {
	return r.preRoll
}

// SpeechEnd is when the last frame the detector judged as speech was captured (zero if none):
// the "end of speech" point of the voice timings. Speech includes the detector's 300 ms
// hangover.
func (r *Recording) SpeechEnd() time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.speechEnd
}
