//go:build cgo && linux

package voice

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/harkhq/hark/actions"
	"github.com/harkhq/hark/audio"
)

// The voice benchmarks run the console with the real capture and playback over the test
// ALSA configuration (see voice_alsa_test.go). The file plugin delivers the microphone's
// audio faster than real time, so "end of speech" here is the moment the recording ended
// (the VAD's decision after its silence, or the talk key): on a real microphone the silence
// the detector waits for (Voice.Mic.SilenceStop, 900 ms by default) comes before it.

func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func ms(d time.Duration, n int) float64 { return float64(d.Microseconds()) / 1000 / float64(n) }

// BenchmarkVoiceEndOfSpeechToFirstSample times an in-domain spoken command through a real
// in-process harkd: end of speech → recognised → first answer byte → first sample handed to
// the audio device. The baseline, in the same run, is the same command typed (the dialogue
// and the network without speech).
func BenchmarkVoiceEndOfSpeechToFirstSample(b *testing.B) {
	spk := voiceDevices(b)
	speech := flitePCM(b, "set a timer for five minutes")
	cl := voicePlatform(b)
	mic := newTestMic(b)
	mic.set(b, speech)
	reg, _, _ := testRegistry(b, actions.NewManualClock(time.Now()), nil)
	opt := testOptions(cl, true)
	opt.Session.Token = cl.Token()
	opt.Now = time.Now
	opt.Voice = &Config{Actions: reg, OpenMic: mic.open}
	r := newRig(b, opt)
	c := r.console()
	v := c.voice
	r.until("probed", 30*time.Second, func() bool { return v.probed })
	r.settle(time.Second)

	turn := func() (recognised, firstByte, firstSample time.Duration) {
		spk.Quiet(b)
		r.ctrl("ctrl+t")
		r.until("the first sample", 60*time.Second, func() bool {
			return v.playback != nil && !v.playback.FirstSample().IsZero()
		})
		vt := v.current
		first := v.playback.FirstSample()
		r.ctrl("esc") // the rest of the answer is not the point
		r.until("idle", 10*time.Second, func() bool { return v.phase == voiceIdle && vt.pcm != nil })
		return vt.recognised.Sub(vt.speechEnd), vt.answer.firstByte().Sub(vt.speechEnd), first.Sub(vt.speechEnd)
	}
	turn() // warm: the speech models' first use
	var recognised, firstByte, firstSample, whole, typed time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		rec, fb, fs := turn()
		recognised += rec
		firstByte += fb
		firstSample += fs
		// Baselines: the same recording sent whole (recognition and answer, nothing
		// streamed), and the same command typed.
		_, vt := lastSpoken(c)
		wav := audio.EncodeWAV(vt.pcm, audio.CaptureRate)
		start := time.Now()
		if _, err := cl.Dialogue.Audio(context.Background(), bytes.NewReader(wav), int64(len(wav)), audio.CaptureRate, 0); err != nil {
			b.Fatal(err)
		}
		whole += time.Since(start)
		start = time.Now()
		if _, err := cl.Dialogue.Text(context.Background(), "set a timer for five minutes", 0); err != nil {
			b.Fatal(err)
		}
		typed += time.Since(start)
	}
	b.StopTimer()
	b.ReportMetric(ms(recognised, b.N), "eos-recognised-ms")
	b.ReportMetric(ms(firstByte, b.N), "eos-firstbyte-ms")
	b.ReportMetric(ms(firstSample, b.N), "eos-firstsample-ms")
	b.ReportMetric(ms(whole, b.N), "whole-wav-request-ms")
	b.ReportMetric(ms(typed, b.N), "typed-answer-ms")
	b.ReportMetric(float64(firstSample)/float64(whole), "x-whole-wav")
}

// fakeVoicePlatform answers every spoken turn with mp3 after reading the whole upload.
func fakeVoicePlatform(b *testing.B, mp3 []byte) *fakePlatform {
	f := newFakePlatform(b)
	f.Handle("POST /v2/query/audio/stream", func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Service-Response-Info", `{"context":{"ref":1},"responses":{"text":"It is noon.","query":"what time is it"},"nextActions":[]}`)
		w.Write(mp3)
	})
	return f
}

// answerMP3 is a spoken answer as harkd makes it.
func answerMP3(b *testing.B) []byte {
	cl := voicePlatform(b)
	ctx := context.Background()
	a, err := cl.Dialogue.Text(ctx, "what is the weather like today", 0)
	if err != nil {
		b.Fatal(err)
	}
	rc, err := cl.Dialogue.AudioFile(ctx, a.Responses.Audio)
	if err != nil {
		b.Fatal(err)
	}
	defer rc.Close()
	data, err := io.ReadAll(rc)
	if err != nil || len(data) == 0 {
		b.Fatalf("answer audio: %d bytes, %v", len(data), err)
	}
	return data
}

// BenchmarkVoiceRecordingCPU is the console's CPU per second of audio while recording and
// streaming the upload (capture, level meter, request body), the screen drawn after every
// message as the program does.
func BenchmarkVoiceRecordingCPU(b *testing.B) {
	voiceDevices(b)
	const seconds = 10
	f := fakeVoicePlatform(b, nil)
	mic := newTestMic(b)
	tone := make([]byte, seconds*audio.CaptureRate*2)
	for i := 0; i+1 < len(tone); i += 2 {
		tone[i+1] = byte((i / 40) % 64) // a rough buzz: loud frames all through
	}
	mic.set(b, tone)
	reg, _, _ := testRegistry(b, actions.NewManualClock(fixedNow), nil)
	opt := testOptions(f.Client(&testing.T{}), true)
	opt.Voice = &Config{Actions: reg, OpenMic: mic.open, Mic: audio.CaptureConfig{MaxDuration: seconds * time.Second},
		OpenSpeaker: func() (*audio.Player, error) { return nil, audio.ErrNoOutput }}
	r := newRig(b, opt)
	c := r.console()
	r.until("probed", 10*time.Second, func() bool { return c.voice.probed })
	var cpu time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		before := processCPU(b)
		r.ctrl("ctrl+t")
		r.until("uploaded", 30*time.Second, func() bool {
			r.view()
			_, vt := lastSpoken(c)
			return vt != nil && vt.pcm != nil && c.voice.phase == voiceIdle
		})
		cpu += processCPU(b) - before
	}
	b.StopTimer()
	b.ReportMetric(ms(cpu, b.N*seconds), "cpu-ms/s-audio")
}

// BenchmarkVoicePlaybackCPU is the console's CPU per second of answer while it plays in real
// time (decoding, resampling, the device, the position shown), the screen drawn after every
// message.
func BenchmarkVoicePlaybackCPU(b *testing.B) {
	spk := voiceDevices(b)
	mp3 := answerMP3(b)
	f := fakeVoicePlatform(b, mp3)
	mic := newTestMic(b)
	mic.set(b, make([]byte, 3200))
	reg, _, _ := testRegistry(b, actions.NewManualClock(fixedNow), nil)
	opt := testOptions(f.Client(&testing.T{}), true)
	opt.Voice = &Config{Actions: reg, OpenMic: mic.open, Mic: audio.CaptureConfig{MaxDuration: 100 * time.Millisecond}}
	r := newRig(b, opt)
	c := r.console()
	v := c.voice
	r.until("probed", 10*time.Second, func() bool { return v.probed })
	// Baseline in the same run: the audio package's player on the same answer, no console.
	player, err := audio.NewPlayer()
	if err != nil {
		b.Fatal(err)
	}
	spk.Quiet(b)
	before := processCPU(b)
	pb, err := player.Play(bytes.NewReader(mp3))
	if err != nil {
		b.Fatal(err)
	}
	<-pb.Done()
	bareLength, _ := pb.Duration()
	bare := float64((processCPU(b) - before).Microseconds()) / 1000 / bareLength.Seconds()
	var cpu, played time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		spk.Quiet(b)
		r.ctrl("ctrl+t")
		r.until("playing", 10*time.Second, func() bool { return v.playback != nil })
		pb := v.playback
		before := processCPU(b)
		r.until("played", 60*time.Second, func() bool { r.view(); return v.phase == voiceIdle })
		cpu += processCPU(b) - before
		d, _ := pb.Duration()
		played += d
	}
	b.StopTimer()
	console := float64(cpu.Microseconds()) / 1000 / played.Seconds()
	b.ReportMetric(console, "cpu-ms/s-audio")
	b.ReportMetric(bare, "player-only-cpu-ms/s-audio")
	b.ReportMetric(console/bare, "x-player-only")
}

// BenchmarkVoiceTurnsMemory runs 100 spoken turns (real capture, streamed upload, the answer
// kept for replay with no speaker) and reports the live heap they leave, against 10 turns
// in the same run: audio is kept for the last 10 turns only, so growth per turn is the
// transcript's text.
func BenchmarkVoiceTurnsMemory(b *testing.B) {
	voiceDevices(b).Reset()    // what earlier benchmarks played is not this one's heap
	mp3 := make([]byte, 24000) // the size of a short spoken answer
	f := fakeVoicePlatform(b, mp3)
	mic := newTestMic(b)
	mic.set(b, make([]byte, 32000)) // one second
	heap := func() uint64 {
		runtime.GC()
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	var after10, after100 uint64
	for i := 0; i < b.N; i++ {
		reg, _, _ := testRegistry(b, actions.NewManualClock(fixedNow), nil)
		opt := testOptions(f.Client(&testing.T{}), true)
		opt.Voice = &Config{Actions: reg, OpenMic: mic.open, Mic: audio.CaptureConfig{MaxDuration: time.Second},
			OpenSpeaker: func() (*audio.Player, error) { return nil, audio.ErrNoOutput }}
		r := newRig(b, opt)
		c := r.console()
		r.until("probed", 10*time.Second, func() bool { return c.voice.probed })
		for n := 1; n <= 100; n++ {
			r.ctrl("ctrl+t")
			r.until("a turn", 10*time.Second, func() bool {
				_, vt := lastSpoken(c)
				return vt != nil && vt.answer != nil && vt.answer.isComplete() && vt.pcm != nil && vt.dispatched
			})
			r.settle(5 * time.Millisecond)
			if n == 10 {
				after10 = heap()
			}
		}
		after100 = heap()
		if len(c.turns) != 100 {
			b.Fatalf("%d turns", len(c.turns))
		}
		runtime.KeepAlive(r)
	}
	b.ReportMetric(float64(after100)/1e6, "heap-MB@100")
	b.ReportMetric((float64(after100)-float64(after10))/90, "heap-B/turn")
}
