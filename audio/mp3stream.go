package audio

import (
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/hajimehoshi/go-mp3"
)

// mp3Stream decodes MP3 from a network body in its own goroutine, as bytes arrive, into
// float32 stereo frames at the output rate, and serves them to the device mixer through Read.
//
// The mixer (oto) reads its players from a single goroutine, so Read never blocks for long:
// while the network is late it waits at most readWait and returns no data, which the mixer
// turns into silence; playback resumes by itself when frames arrive. The queue is bounded so
// a paused playback applies back-pressure to the network instead of decoding without end.
type mp3Stream struct {
	outRate int
	readMu  sync.Mutex // the mixer may call Read from two goroutines; the wait timer is shared

	mu         sync.Mutex
	queue      []byte // float32 LE stereo frames waiting for the mixer
	srcRate    int    // MP3 sample rate, 0 until the first frame is decoded
	inBytes    int64  // MP3 bytes consumed by the decoder
	decoded    int64  // frames decoded, at srcRate
	produced   int64  // frames produced, at outRate
	served     int64  // frames handed to the mixer
	finished   bool   // decoding ended (end of stream, error or close)
	err        error  // decoding error, nil at a clean end
	closed     bool
	dataReady  chan struct{} // capacity 1: a frame was queued or decoding finished
	spaceReady chan struct{} // capacity 1: the mixer took frames or the stream closed
	waitTimer  *time.Timer
}

const (
	// maxQueuedAudio bounds the decoded audio held ahead of the mixer.
	maxQueuedAudio = 2 * time.Second
	// readWait is the longest Read blocks for frames that have not arrived yet.
	readWait = 10 * time.Millisecond
	// decodeChunk is what one go-mp3 read asks for: one MPEG-1 frame of 16-bit stereo.
	decodeChunk = 1152 * 4
)

func newMP3Stream(r io.Reader, outRate int) *mp3Stream {
	s := newStream(outRate)
	go s.decode(r)
	return s
}

// newStream is an empty stream at outRate; a feeding goroutine fills it.
func newStream(outRate int) *mp3Stream {
	s := &mp3Stream{
		outRate:    outRate,
		dataReady:  make(chan struct{}, 1),
		spaceReady: make(chan struct{}, 1),
		waitTimer:  time.NewTimer(time.Hour),
	}
	s.waitTimer.Stop()
	return s
}

// countingReader counts the MP3 bytes read, to estimate the duration from a Content-Length.
// It deliberately implements only Read: go-mp3 scans the whole source when it can Seek.
type countingReader struct {
	r io.Reader
	s *mp3Stream
}

func (c countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.s.mu.Lock()
	c.s.inBytes += int64(n)
	c.s.mu.Unlock()
	return n, err
}

func (s *mp3Stream) decode(r io.Reader) {
	err := s.decodeAll(countingReader{r: r, s: s})
	s.mu.Lock()
	s.finished = true
	if err != nil && !s.closed {
		s.err = err
	}
	s.mu.Unlock()
	notify(s.dataReady)
}

func (s *mp3Stream) decodeAll(r io.Reader) (err error) {
	defer func() {
		// go-mp3 is fuzzed, but a panic on a hostile stream must not take the process down.
		if p := recover(); p != nil {
			err = fmt.Errorf("decode MP3: %v", p)
		}
	}()
	dec, err := mp3.NewDecoder(r)
	if err != nil {
		if errors.Is(err, io.EOF) {
			return fmt.Errorf("decode MP3: %w", io.ErrUnexpectedEOF)
		}
		return fmt.Errorf("decode MP3: %w", err)
	}
	s.mu.Lock()
	s.srcRate = dec.SampleRate()
	s.mu.Unlock()
	rs := newStereoResampler(dec.SampleRate(), s.outRate)
	chunk := make([]byte, decodeChunk)
	for {
		n, err := io.ReadFull(dec, chunk)
		n &^= 3
		if n > 0 {
			if !s.enqueue(rs.push(chunk[:n]), int64(n/4)) {
				return nil
			}
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			s.enqueue(rs.flush(), 0)
			return nil
		}
		if err != nil {
			return fmt.Errorf("decode MP3: %w", err)
		}
	}
}

// enqueue appends frames, waiting while the queue is full. It reports false once the
// stream is closed.
func (s *mp3Stream) enqueue(frames []byte, decodedFrames int64) bool {
	maxBytes := int(maxQueuedAudio.Seconds() * float64(s.outRate) * 8)
	s.mu.Lock()
	for len(s.queue) >= maxBytes && !s.closed {
		s.mu.Unlock()
		<-s.spaceReady
		s.mu.Lock()
	}
	if s.closed {
		s.mu.Unlock()
		return false
	}
	s.queue = append(s.queue, frames...)
	s.decoded += decodedFrames
	s.produced += int64(len(frames) / 8)
	s.mu.Unlock()
	notify(s.dataReady)
	return true
}

// Read serves whole stereo frames to the mixer. It returns io.EOF after the last frame.
func (s *mp3Stream) Read(p []byte) (int, error) {
	want := len(p) &^ 7
	if want == 0 {
		return 0, nil
	}
	s.readMu.Lock()
	defer s.readMu.Unlock()
	s.mu.Lock()
	if len(s.queue) == 0 && !s.finished && !s.closed {
		s.mu.Unlock()
		s.waitTimer.Reset(readWait)
		select {
		case <-s.dataReady:
		case <-s.waitTimer.C:
		}
		s.waitTimer.Stop()
		s.mu.Lock()
	}
	defer s.mu.Unlock()
	if s.closed {
		return 0, io.EOF
	}
	if len(s.queue) == 0 {
		if s.finished {
			return 0, io.EOF
		}
		return 0, nil
	}
	n := copy(p[:want], s.queue)
	s.queue = s.queue[:copy(s.queue, s.queue[n:])]
	s.served += int64(n / 8)
	notify(s.spaceReady)
	return n, nil
}

// close stops decoding; a decoder blocked on the network leaves when its read returns.
func (s *mp3Stream) close() {
	s.mu.Lock()
	s.closed = true
	s.queue = nil
	s.mu.Unlock()
	notify(s.spaceReady)
	notify(s.dataReady)
}

type streamState struct {
	srcRate  int
	inBytes  int64
	decoded  int64
	produced int64
	served   int64
	queued   int64 // frames still in the queue
	finished bool
	err      error
}

func (s *mp3Stream) state() streamState {
	s.mu.Lock()
	defer s.mu.Unlock()
	return streamState{
		srcRate: s.srcRate, inBytes: s.inBytes, decoded: s.decoded, produced: s.produced,
		served: s.served, queued: int64(len(s.queue) / 8), finished: s.finished, err: s.err,
	}
}

// notify signals a capacity-1 channel without blocking: one pending signal is enough.
func notify(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}
