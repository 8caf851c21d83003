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

// matchWithGaps checks that the speaker received want (float32 stereo, full scale 1) from
// its first sound on, sample for sample within tol, except for whole silent frames inserted
// anywhere: a pause, or an underrun when the machine is too loaded to decode in time (these
// tests share two cores with everything else). It returns the inserted frames, the
// longest run of them, and the speaker's frames matched to want.
func matchWithGaps(t *testing.T, got, want []float32, tol float64) (inserted, longest int, aligned []float32) {
	t.Helper()
	g, w := firstNonZeroFrame(got), firstNonZeroFrame(want)
	if g < 0 || w < 0 {
		t.Fatalf("no sound: first frames %d (speaker), %d (expected)", g, w)
	}
	run := 0
	for ; 2*w+1 < len(want); g++ {
		if 2*g+1 >= len(got) {
			t.Fatalf("the speaker received %d of %d expected frames", w, len(want)/2)
		}
		gl, gr, wl, wr := got[2*g], got[2*g+1], want[2*w], want[2*w+1]
		if math.Abs(float64(gl-wl)) <= tol && math.Abs(float64(gr-wr)) <= tol {
			aligned = append(aligned, gl, gr)
			w++
			run = 0
			continue
		}
		if gl != 0 || gr != 0 {
			t.Fatalf("expected frame %d: speaker (%v, %v), want (%v, %v)", w, gl*32768, gr*32768, wl*32768, wr*32768)
		}
		inserted++
		run++
		longest = max(longest, run)
	}
	return inserted, longest, aligned
}

func toFloats(s []int16, volume float32) []float32 {
	f := make([]float32, len(s))
	for i, v := range s {
		f[i] = float32(v) / 32768 * volume
	}
	return f
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
	spk.Quiet(t)
	pb, err := p.Play(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	waitDone(t, pb, 10*time.Second)
	settle()
	if pb.Err() != nil {
		t.Fatalf("playback error: %v", pb.Err())
	}
	inserted, _, _ := matchWithGaps(t, spk.Samples(), toFloats(ref, 1), 0)
	t.Logf("%d silent frames inserted by underruns", inserted)
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
	spk.Quiet(t)
	pb, err := p.Play(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	waitDone(t, pb, 15*time.Second)
	settle()
	if pb.SourceRate() != 22050 {
		t.Errorf("source rate %d", pb.SourceRate())
	}
	// Linear interpolation doubling 22050 Hz keeps every decoded frame and puts the midpoint
	// between neighbours; the last frame is held.
	frames := len(ref) / 2
	want := make([]float32, 0, 4*frames)
	for i := 0; i < frames; i++ {
		next := min(i+1, frames-1)
		for ch := 0; ch < 2; ch++ {
			want = append(want, float32(ref[2*i+ch])/32768)
		}
		for ch := 0; ch < 2; ch++ {
			want = append(want, float32((float64(ref[2*i+ch])+float64(ref[2*next+ch]))/2/32768))
		}
	}
	inserted, _, aligned := matchWithGaps(t, spk.Samples(), want, 1e-6)
	t.Logf("%d silent frames inserted by underruns", inserted)
	// And the plain measure: the speaker's left channel, decimated back to 22050 Hz, against
	// go-mp3's own decoding.
	// Aligned frame k is expected frame w0+k; decoded frame i is expected frame 2i.
	w0 := firstNonZeroFrame(want)
	var heard, decoded []float64
	for i := (w0 + 1) / 2; i < frames && 2*(2*i-w0) < len(aligned); i++ {
		heard = append(heard, float64(aligned[2*(2*i-w0)]))
		decoded = append(decoded, float64(ref[2*i]))
	}
	best := correlation(heard, decoded)
	if best < 0.99 {
		t.Errorf("correlation of the speaker's audio with the decoded speech %.4f, want > 0.99", best)
	}
	t.Logf("correlation with the decoded speech %.6f", best)
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
	spk.Quiet(t)
	pb, err := p.PlayLength(pr, int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	heard := spk.WaitSound(t, 5*time.Second)
	// The estimate from the bytes per second so far settles after a few frames.
	time.Sleep(300 * time.Millisecond)
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
	spk.Quiet(t)
	pb, err := p.Play(io.NopCloser(bytes.NewReader(data)))
	if err != nil {
		t.Fatal(err)
	}
	spk.WaitSound(t, 5*time.Second)
	time.Sleep(200 * time.Millisecond)
	consumed := pb.Position() // what the mixer had taken from the playback's buffer
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
	// What the mixer had taken before Stop (in ALSA's buffer, the file plugin's, the FIFO)
	// still arrives, but not one frame more, and not the rest of the 5 s stream.
	got := spk.Samples()
	var heardFrames int64
	for f := 0; 2*f+1 < len(got); f++ {
		if got[2*f] != 0 || got[2*f+1] != 0 {
			heardFrames++
		}
	}
	// Between Position and Stop the mixer may take one more device period, whose size ALSA
	// chooses (the file plugin's is larger than a sound card's): allow half a second.
	limit := int64(consumed.Seconds()*OutputRate) + OutputRate/2
	if heardFrames > limit {
		t.Errorf("%d frames sounded, but the mixer had taken %d at Stop", heardFrames, limit-OutputRate/2)
	}
	t.Logf("%d frames sounded, %d taken by the mixer before Stop", heardFrames, limit-OutputRate/2)
	if served > 3*OutputRate {
		t.Errorf("the mixer had taken %d frames by Stop, most of the stream", served)
	}
	last := spk.LastSound()
	t.Logf("last sound arrived %v after Stop", last.Sub(stopped))
	if last.Sub(stopped) > time.Second {
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
	spk.Quiet(t)
	pb, err := p.Play(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	spk.WaitSound(t, 5*time.Second)
	time.Sleep(300 * time.Millisecond)
	pb.Pause()
	if !pb.Paused() {
		t.Fatal("not paused")
	}
	pos := pb.Position()
	const pause = 600 * time.Millisecond
	time.Sleep(pause)
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
	inserted, longest, _ := matchWithGaps(t, spk.Samples(), toFloats(ref, 0.5), 0)
	// The pause sounds as silence, shortened at most by the device pipeline's depth.
	if longest < OutputRate*3/10 {
		t.Fatalf("longest silence inside the stream %d frames: the pause did not pause", longest)
	}
	t.Logf("%d silent frames inserted, %d in the longest run", inserted, longest)
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
