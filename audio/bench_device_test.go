//go:build cgo && linux

package audio

import (
	"bytes"
	"io"
	"syscall"
	"testing"
	"time"

	"github.com/hajimehoshi/go-mp3"
)

// processCPU is the user and system time the process has used.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkCaptureDevice records 10 s through PortAudio and ALSA's file plugin, which
// delivers faster than real time: the process CPU per second of audio is the capture's
// whole cost (PortAudio, ALSA, level, detector, recording).
func BenchmarkCaptureDevice(b *testing.B) {
	const seconds = 10
	fixture := make([]byte, seconds*CaptureRate*2)
	copy(fixture, sineMono(seconds, 440, 0.3))
	b.ReportAllocs()
	var cpu time.Duration
	for b.Loop() {
		b.StopTimer()
		setMic(b, "HARK_TEST_MIC", fixture)
		c, err := OpenCapture(CaptureConfig{MaxDuration: seconds * time.Second, PreRoll: -1})
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		before := processCPU(b)
		rec, err := c.Start()
		if err != nil {
			b.Fatal(err)
		}
		if _, err := io.Copy(io.Discard, rec); err != nil {
			b.Fatal(err)
		}
		cpu += processCPU(b) - before
		b.StopTimer()
		c.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N*seconds), "cpu-ms/s-audio")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*seconds*50), "ns/frame")
}

func speechMP3(b *testing.B) []byte {
	speech, rate := espeakSpeech(b, "Here is the weather for today. Expect light rain in the morning, clearing in the afternoon, with a high of seventeen degrees and a gentle breeze from the west.")
	return encodeMP3(b, speech, rate, 1)
}

func audioSeconds(b *testing.B, data []byte) float64 {
	ref, rate := decodeReference(b, data)
	return float64(len(ref)/2) / float64(rate)
}

// BenchmarkDecodeGoMP3 is the baseline: go-mp3 alone decoding a speech reply.
func BenchmarkDecodeGoMP3(b *testing.B) {
	data := speechMP3(b)
	secs := audioSeconds(b, data)
	b.ReportAllocs()
	for b.Loop() {
		dec, err := mp3.NewDecoder(bytes.NewReader(data))
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, dec)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/secs/1e6, "cpu-ms/s-audio")
}

// BenchmarkDecodeStream is the playback pipeline without the device: progressive decoding,
// resampling 22050 to 44100 Hz, queueing, and the mixer-side reads.
func BenchmarkDecodeStream(b *testing.B) {
	data := speechMP3(b)
	secs := audioSeconds(b, data)
	buf := make([]byte, int(voiceBuffer.Seconds()*OutputRate*8))
	b.ReportAllocs()
	for b.Loop() {
		s := newMP3Stream(bytes.NewReader(data), OutputRate)
		for {
			if _, err := s.Read(buf); err != nil {
				break
			}
		}
		if st := s.state(); st.err != nil {
			b.Fatal(st.err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/secs/1e6, "cpu-ms/s-audio")
}

// BenchmarkPlaybackDevice plays a speech reply in real time and reports the process CPU per
// second of audio (the test's FIFO drain included), and the process CPU per second once the
// idle output has been suspended.
func BenchmarkPlaybackDevice(b *testing.B) {
	data := speechMP3(b)
	secs := audioSeconds(b, data)
	p, err := NewPlayer()
	if err != nil {
		b.Fatal(err)
	}
	var playing, idle time.Duration
	var idleSecs float64
	for b.Loop() {
		before := processCPU(b)
		pb, err := p.Play(bytes.NewReader(data))
		if err != nil {
			b.Fatal(err)
		}
		select {
		case <-pb.Done():
		case <-time.After(time.Duration(secs*float64(time.Second)) + 10*time.Second):
			b.Fatal("playback did not end")
		}
		playing += processCPU(b) - before
		// The output is suspended once idle for idleSuspend; measure after that.
		time.Sleep(idleSuspend + 200*time.Millisecond)
		before = processCPU(b)
		time.Sleep(time.Second)
		idle += processCPU(b) - before
		idleSecs++
	}
	b.ReportMetric(float64(playing.Microseconds())/1000/(secs*float64(b.N)), "cpu-ms/s-playing")
	b.ReportMetric(float64(idle.Microseconds())/1000/idleSecs, "cpu-ms/s-idle")
}
