//go:build cgo && linux

package audio

import (
	"bytes"
	"io"
	"math"
	"testing"
	"time"
)

// waitDone waits (bounded) for a playback to end.
func waitDone(t *testing.T, pb *Playback, within time.Duration) {
	t.Helper()
	select {
	case <-pb.Done():
	case <-time.After(within):
		pb.Stop()
		t.Fatalf("playback did not end within %v", within)
	}
}

// firstNonZeroFrame is the index of the first stereo frame with a non-zero channel.
func firstNonZeroFrame[T int16 | float32](s []T) int {
	for i := 0; i+1 < len(s); i += 2 {
		if s[i] != 0 || s[i+1] != 0 {
			return i / 2
		}
	}
	return -1
}

// settle waits until the speaker has received this much silence after the playback ended,
// so everything the device buffered has arrived.
func settle() { time.Sleep(150 * time.Millisecond) }

func TestPlayMusicArrivesExactly(t *testing.T) {
	data := encodeMP3(t, musicSamples(44100, 1.5), 44100, 2)
	ref, rate := decodeReference(t, data)
	if rate != OutputRate {
		t.Fatalf("reference at %d Hz", rate)
	}
	p := testPlayer(t)
	spk.quietReset(t)
	pb, err := p.Play(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	waitDone(t, pb, 10*time.Second)
	settle()
	if pb.Err() != nil {
		t.Fatalf("playback error: %v", pb.Err())
	}
	got := spk.snapshot()
	g0, r0 := firstNonZeroFrame(got), firstNonZeroFrame(ref)
	if g0 < 0 || r0 < 0 {
		t.Fatalf("no sound: first frames %d (speaker), %d (reference)", g0, r0)
	}
	want := ref[2*r0:]
	if len(got)-2*g0 < len(want) {
		t.Fatalf("speaker received %d samples of %d", len(got)-2*g0, len(want))
	}
	for i, v := range want {
		if g := got[2*g0+i]; g*32768 != float32(v) {
			t.Fatalf("sample %d: speaker %v, decoded %v", i, g*32768, v)
		}
	}
	if d, known := pb.Duration(); !known || d != framesToDuration(int64(len(ref)/2), OutputRate) {
		t.Errorf("duration %v (known %v), want %v", d, known, framesToDuration(int64(len(ref)/2), OutputRate))
	}
	if pos := pb.Position(); pos != framesToDuration(int64(len(ref)/2), OutputRate) {
		t.Errorf("position at the end %v, want the whole stream", pos)
	}
	if pb.FirstSample().IsZero() || pb.FirstSample().Before(pb.Started()) {
		t.Errorf("first sample at %v, started %v", pb.FirstSample(), pb.Started())
	}
}

// correlation is the normalised correlation of a and b.
func correlation(a, b []float64) float64 {
	var ab, aa, bb float64
	for i := range a {
		ab += a[i] * b[i]
		aa += a[i] * a[i]
		bb += b[i] * b[i]
	}
	return ab / math.Sqrt(aa*bb)
}

func TestPlaySpeechIsResampled(t *testing.T) {
	speech, rate := espeakSpeech(t, "Your timer is set for five minutes.")
	if rate != 22050 {
		t.Fatalf("espeak-ng wrote %d Hz", rate)
	}
	data := encodeMP3(t, speech, rate, 1)
	ref, refRate := decodeReference(t, data)
	if refRate != 22050 {
		t.Fatalf("reference at %d Hz", refRate)
	}
	p := testPlayer(t)
	spk.quietReset(t)
	pb, err := p.Play(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	waitDone(t, pb, 15*time.Second)
	settle()
	if pb.SourceRate() != 22050 {
		t.Errorf("source rate %d", pb.SourceRate())
	}
	got := spk.snapshot()
	g0, r0 := firstNonZeroFrame(got), firstNonZeroFrame(ref)
	if g0 < 0 || r0 < 0 {
		t.Fatal("no sound")
	}
	// The left channel at 22050 Hz against every other output frame, at the best of a few
	// alignments around the first sound (interpolation makes the first sound a half step
	// early).
	n := len(ref)/2 - r0 - 4
	want := make([]float64, n)
	for i := range want {
		want[i] = float64(ref[2*(r0+i)])
	}
	best := -1.0
	for start := g0 - 3; start <= g0+3; start++ {
		if start < 0 || 2*(start+2*n) > len(got) {
			continue
		}
		have := make([]float64, n)
		for i := range have {
			have[i] = float64(got[2*(start+2*i)]) * 32768
		}
		best = math.Max(best, correlation(want, have))
	}
	if best < 0.999 {
		t.Fatalf("correlation with the decoded speech %.5f, want > 0.999", best)
	}
	d, known := pb.Duration()
	wantD := framesToDuration(int64(len(ref)/2), 22050)
	if !known || d < wantD-time.Millisecond || d > wantD+time.Millisecond {
		t.Errorf("duration %v, want %v", d, wantD)
	}
}

// slowReader hands out its data in small pieces with pauses, like a slow network.
type slowReader struct {
	data  []byte
	piece int
	pause time.Duration
	ended time.Time // when the last byte was handed out
}

func (s *slowReader) Read(p []byte) (int, error) {
	if len(s.data) == 0 {
		return 0, io.EOF
	}
	time.Sleep(s.pause)
	n := copy(p[:min(len(p), s.piece)], s.data)
	s.data = s.data[n:]
	if len(s.data) == 0 {
		s.ended = time.Now()
	}
	return n, nil
}

func TestPlayStartsBeforeTheStreamHasArrived(t *testing.T) {
	data := encodeMP3(t, musicSamples(44100, 2), 44100, 2)
	// 2 s of 128 kbps audio (32 kB) delivered in 1 kB pieces every 40 ms: 1.3 s in all.
	pr, pw := io.Pipe()
	writerDone := make(chan time.Time, 1)
	go func() {
		src := &slowReader{data: data, piece: 1024, pause: 40 * time.Millisecond}
		io.Copy(pw, src)
		writerDone <- src.ended
		pw.Close()
	}()
	p := testPlayer(t)
	spk.quietReset(t)
	pb, err := p.PlayLength(pr, int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	_, heard := spk.firstSound(t, 5*time.Second)
	if d, known := pb.Duration(); !known || d < 1800*time.Millisecond || d > 2300*time.Millisecond {
		t.Errorf("duration estimated from the Content-Length while streaming: %v (known %v), want about 2s", d, known)
	}
	var ended time.Time
	select {
	case ended = <-writerDone:
	case <-time.After(10 * time.Second):
		t.Fatal("writer did not finish")
	}
	waitDone(t, pb, 10*time.Second)
	if !heard.Before(ended) {
		t.Fatalf("first sound at the speaker %v after the stream ended", heard.Sub(ended))
	}
	if first := pb.FirstSample(); first.IsZero() || !first.Before(ended) {
		t.Fatalf("first sample handed to the device %v, stream ended %v", first, ended)
	}
	t.Logf("first sound %v after Play, %v before the stream's last byte", heard.Sub(pb.Started()), ended.Sub(heard))
}

func TestPlayStopIsImmediate(t *testing.T) {
	data := encodeMP3(t, musicSamples(44100, 5), 44100, 2)
	p := testPlayer(t)
	spk.quietReset(t)
	pb, err := p.Play(io.NopCloser(bytes.NewReader(data)))
	if err != nil {
		t.Fatal(err)
	}
	spk.firstSound(t, 5*time.Second)
	time.Sleep(200 * time.Millisecond)
	stopped := time.Now()
	pb.Stop()
	select {
	case <-pb.Done():
	default:
		t.Fatal("Done not closed by Stop")
	}
	if !pb.Stopped() || pb.Err() != nil {
		t.Errorf("stopped %v, err %v", pb.Stopped(), pb.Err())
	}
	served := pb.stream.state().served
	time.Sleep(600 * time.Millisecond)
	if again := pb.stream.state().served; again != served {
		t.Errorf("the mixer took %d more frames after Stop", again-served)
	}
	// The audio after the mixer (ALSA's buffer, the file plugin's, the FIFO) still arrives,
	// but not the 4.5 s of the stream that were left.
	last := time.Time{}
	for at := stopped; ; {
		sound, when := spk.soundSince(at)
		if !sound {
			break
		}
		last, at = when, when.Add(time.Nanosecond)
	}
	t.Logf("last sound arrived %v after Stop", last.Sub(stopped))
	if last.Sub(stopped) > 500*time.Millisecond {
		t.Fatalf("sound still arriving %v after Stop", last.Sub(stopped))
	}
}

func TestPlayPauseResumeVolume(t *testing.T) {
	data := encodeMP3(t, musicSamples(44100, 1.5), 44100, 2)
	ref, _ := decodeReference(t, data)
	p := testPlayer(t)
	// Set before the playback starts: a change while playing is ramped over one buffer.
	p.SetVolume(0.5)
	defer p.SetVolume(1)
	spk.quietReset(t)
	pb, err := p.Play(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	_, heard := spk.firstSound(t, 5*time.Second)
	latency := heard.Sub(pb.FirstSample()) // see TestPlayStopIsImmediate
	time.Sleep(300 * time.Millisecond)
	pb.Pause()
	paused := time.Now()
	if !pb.Paused() {
		t.Fatal("not paused")
	}
	pos := pb.Position()
	time.Sleep(latency + 400*time.Millisecond)
	if sound, at := spk.soundSince(paused.Add(latency + 30*time.Millisecond)); sound {
		t.Fatalf("sound %v into the pause (device pipeline latency %v)", at.Sub(paused), latency)
	}
	if again := pb.Position(); again != pos {
		t.Errorf("position moved from %v to %v while paused", pos, again)
	}
	select {
	case <-pb.Done():
		t.Fatal("a paused playback ended")
	default:
	}
	pb.Resume()
	waitDone(t, pb, 10*time.Second)
	settle()
	got := spk.snapshot()
	// Remove the pause (the longest silent run inside the sound); the rest is the stream at
	// half volume, sample for sample.
	g0, r0 := firstNonZeroFrame(got), firstNonZeroFrame(ref)
	gapStart, gapLen, run := 0, 0, 0
	for f := g0; 2*f+1 < len(got); f++ {
		if got[2*f] == 0 && got[2*f+1] == 0 {
			run++
			continue
		}
		if run > gapLen {
			gapStart, gapLen = f-run, run
		}
		run = 0
	}
	if gapLen < OutputRate/4 {
		t.Fatalf("no pause in the output (longest silence %d frames)", gapLen)
	}
	joined := append(append([]float32(nil), got[2*g0:2*gapStart]...), got[2*(gapStart+gapLen):]...)
	want := ref[2*r0:]
	if len(joined) < len(want) {
		t.Fatalf("%d samples arrived around the pause, want %d", len(joined), len(want))
	}
	for i, v := range want {
		if joined[i]*32768 != float32(v)*0.5 {
			t.Fatalf("sample %d: %v, want half of %v", i, joined[i]*32768, v)
		}
	}
}

func TestPlayBadStreams(t *testing.T) {
	p := testPlayer(t)
	for name, data := range map[string][]byte{
		"empty":     nil,
		"not MP3":   bytes.Repeat([]byte("this is not an mp3 stream "), 200),
		"truncated": encodeMP3(t, musicSamples(44100, 0.5), 44100, 2)[:3],
	} {
		pb, err := p.Play(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		waitDone(t, pb, 5*time.Second)
		if pb.Err() == nil {
			t.Errorf("%s: no error", name)
		}
		if d, known := pb.Duration(); known {
			t.Errorf("%s: duration %v claimed known", name, d)
		}
	}
}

func TestStopAllAndPlayerVolume(t *testing.T) {
	p := testPlayer(t)
	data := encodeMP3(t, musicSamples(44100, 3), 44100, 2)
	a, err := p.Play(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	b, err := p.Play(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	p.SetVolume(1.7) // clamped to 1
	p.StopAll()
	for _, pb := range []*Playback{a, b} {
		select {
		case <-pb.Done():
		default:
			t.Fatal("StopAll left a playback running")
		}
	}
	if len(p.playbacks()) != 0 {
		t.Errorf("stopped playbacks still tracked")
	}
	if p.volume != 1 {
		t.Errorf("volume %v after SetVolume(1.7)", p.volume)
	}
}
