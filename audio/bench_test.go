package audio

import (
	"math"
	"testing"
	"time"
)

// silentInputs never delivers a frame, so a benchmark can drive Capture.process itself.
type silentInputs struct{ last *blockedStream }

func (in *silentInputs) open(name string) (inputStream, string, error) {
	in.last = &blockedStream{closed: make(chan struct{})}
	return in.last, "bench", nil
}

type blockedStream struct{ closed chan struct{} }

func (s *blockedStream) start() error { return nil }
func (s *blockedStream) read(frame []int16) error {
	<-s.closed
	return ErrClosed
}
func (s *blockedStream) close() error {
	select {
	case <-s.closed:
	default:
		close(s.closed)
	}
	return nil
}

// closeArmed closes a capture whose loop is blocked in a read that never returns by
// itself: Close waits for the loop, which leaves once the stream is closed under it.
func closeArmed(b *testing.B, c *Capture, in *silentInputs) {
	done := make(chan error, 1)
	go func() { done <- c.Close() }()
	for {
		c.mu.Lock()
		closed := c.closed
		c.mu.Unlock()
		if closed {
			break
		}
		time.Sleep(time.Millisecond)
	}
	in.last.close()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		b.Fatal("Close did not return")
	}
}

func speechLikeFrame() []int16 {
	f := make([]int16, FrameSamples)
	for i := range f {
		f[i] = int16(8000 * math.Sin(float64(i)*0.3) * math.Sin(float64(i)*0.01))
	}
	return f
}

// BenchmarkMeasureLevel is the baseline: the least any frame costs.
func BenchmarkMeasureLevel(b *testing.B) {
	frame := speechLikeFrame()
	b.ReportAllocs()
	for b.Loop() {
		MeasureLevel(frame)
	}
}

// BenchmarkCaptureFrameArmed is one 20 ms frame while armed: level, detector, pre-roll ring,
// meter channel.
func BenchmarkCaptureFrameArmed(b *testing.B) {
	c, err := openCapture(CaptureConfig{}, &silentInputs{})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	frame := speechLikeFrame()
	b.ReportAllocs()
	for b.Loop() {
		c.process(frame)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(FrameDuration.Nanoseconds())*1000, "cpu-ms/s-audio")
}

// BenchmarkCaptureFrameRecording is one frame going into a recording.
func BenchmarkCaptureFrameRecording(b *testing.B) {
	in := &silentInputs{}
	c, err := openCapture(CaptureConfig{MaxDuration: 10 * time.Minute}, in)
	if err != nil {
		b.Fatal(err)
	}
	defer closeArmed(b, c, in)
	frame := speechLikeFrame()
	rec, err := c.Start()
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		c.process(frame)
		if rec.ended() {
			if rec, err = c.Start(); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(FrameDuration.Nanoseconds())*1000, "cpu-ms/s-audio")
}

// BenchmarkResample22050 doubles one go-mp3 frame (1152 stereo frames, 52 ms) of speech.
func BenchmarkResample22050(b *testing.B) {
	pcm := stereoPCM(1152, func(i, ch int) int16 { return int16(9000 * math.Sin(float64(i)*0.2)) })
	r := newStereoResampler(22050, OutputRate)
	b.ReportAllocs()
	for b.Loop() {
		r.push(pcm)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/(1152.0/22050*1e9)*1000, "cpu-ms/s-audio")
}
