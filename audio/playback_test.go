package audio

import (
	"io"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeVoice and fakeOutput stand in for the output library, to test the Player's own
// bookkeeping without a device.
type fakeVoice struct {
	mu      sync.Mutex
	playing bool
	volume  float64
	closed  bool
}

func (v *fakeVoice) Play()               { v.mu.Lock(); v.playing = true; v.mu.Unlock() }
func (v *fakeVoice) Pause()              { v.mu.Lock(); v.playing = false; v.mu.Unlock() }
func (v *fakeVoice) IsPlaying() bool     { v.mu.Lock(); defer v.mu.Unlock(); return v.playing }
func (v *fakeVoice) SetVolume(x float64) { v.mu.Lock(); v.volume = x; v.mu.Unlock() }
func (v *fakeVoice) BufferedSize() int   { return 0 }
func (v *fakeVoice) Close() error        { v.mu.Lock(); v.closed = true; v.mu.Unlock(); return nil }
func (v *fakeVoice) state() (bool, bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.playing, v.closed
}
func (v *fakeVoice) currentVolume() float64 { v.mu.Lock(); defer v.mu.Unlock(); return v.volume }

type fakeOutput struct {
	mu                sync.Mutex
	suspends, resumes int
}

func (d *fakeOutput) Suspend() error { d.mu.Lock(); d.suspends++; d.mu.Unlock(); return nil }
func (d *fakeOutput) Resume() error  { d.mu.Lock(); d.resumes++; d.mu.Unlock(); return nil }
func (d *fakeOutput) counts() (int, int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.suspends, d.resumes
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

func TestPlayerSuspendsTheOutputWhenIdle(t *testing.T) {
	dev := &fakeOutput{}
	var voices []*fakeVoice
	var mu sync.Mutex
	p := newPlayer(func(r io.Reader) voice {
		mu.Lock()
		defer mu.Unlock()
		v := &fakeVoice{}
		voices = append(voices, v)
		return v
	}, dev)
	p.mu.Lock()
	p.idleAfter = 20 * time.Millisecond
	p.scheduleSuspend()
	p.mu.Unlock()
	waitFor(t, "the idle output to be suspended", func() bool { s, _ := dev.counts(); return s == 1 })

	pr, pw := io.Pipe()
	defer pw.Close()
	pb, err := p.Play(pr)
	if err != nil {
		t.Fatal(err)
	}
	if _, r := dev.counts(); r != 1 {
		t.Fatalf("Play did not resume the output (%d resumes)", r)
	}
	p.SetVolume(0.25)
	if v := voices[0].currentVolume(); v != 0.25 {
		t.Errorf("voice volume %v after SetVolume(0.25)", v)
	}
	pb.Pause()
	if playing, _ := voices[0].state(); playing || !pb.Paused() {
		t.Errorf("Pause left the voice playing")
	}
	pb.Resume()
	if playing, _ := voices[0].state(); !playing || pb.Paused() {
		t.Errorf("Resume did not restart the voice")
	}
	time.Sleep(50 * time.Millisecond)
	if s, _ := dev.counts(); s != 1 {
		t.Fatalf("the output was suspended during a playback")
	}
	pb.Stop()
	if _, closed := voices[0].state(); !closed {
		t.Errorf("Stop left the voice open")
	}
	waitFor(t, "the output to be suspended after the playback", func() bool { s, _ := dev.counts(); return s == 2 })
}

func TestPlaybackOfAStreamThatNeverStartsIsStoppable(t *testing.T) {
	p := newPlayer(func(r io.Reader) voice { return &fakeVoice{} }, nil)
	body := &closeRecorder{Reader: strings.NewReader("")}
	pr, pw := io.Pipe()
	body.Reader = pr
	pb, err := p.Play(body)
	if err != nil {
		t.Fatal(err)
	}
	if d, known := pb.Duration(); known {
		t.Errorf("duration %v known before any byte", d)
	}
	pb.Stop()
	<-pb.Done()
	if _, err := p.Play(nil); err == nil {
		t.Errorf("Play(nil) accepted")
	}
	if !body.closed {
		t.Errorf("Stop did not close the body")
	}
	pw.Close()
}

type closeRecorder struct {
	io.Reader
	closed bool
}

func (c *closeRecorder) Close() error {
	c.closed = true
	if pr, ok := c.Reader.(*io.PipeReader); ok {
		pr.Close()
	}
	return nil
}
