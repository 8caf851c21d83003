package audio

import (
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeInputs is an input backend of named devices whose frames count up (sample value =
// frame number) and which can be made to fail, to test what no sound card can be made to
// do on demand: a device vanishing mid-recording.
type fakeInputs struct {
	mu       sync.Mutex
	devices  map[string]*fakeDevice
	fallback string // the default device's name; "" for none
}

type fakeDevice struct {
	failAfter int // frames delivered before reads fail; 0 for never
	opens     int
}

func (b *fakeInputs) open(name string) (inputStream, string, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if name == "" {
		if b.fallback == "" {
			return nil, "", ErrNoInput
		}
		name = b.fallback
	}
	d, ok := b.devices[name]
	if !ok {
		return nil, "", errDeviceNotFound
	}
	d.opens++
	return &fakeStream{backend: b, name: name, failAfter: d.failAfter}, name, nil
}

// unplug removes a device: its open streams fail and it cannot be opened again.
func (b *fakeInputs) unplug(name string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.devices, name)
	if b.fallback == name {
		b.fallback = ""
	}
}

func (b *fakeInputs) present(name string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	_, ok := b.devices[name]
	return ok
}

type fakeStream struct {
	backend   *fakeInputs
	name      string
	failAfter int
	frames    int
	closed    bool
}

func (s *fakeStream) start() error { return nil }

func (s *fakeStream) read(frame []int16) error {
	// Paced a little, like a device, so the test can act while the stream runs.
	time.Sleep(200 * time.Microsecond)
	if s.closed || !s.backend.present(s.name) || (s.failAfter > 0 && s.frames >= s.failAfter) {
		return errors.New("device unavailable")
	}
	s.frames++
	for i := range frame {
		frame[i] = int16(s.frames)
	}
	return nil
}

func (s *fakeStream) close() error {
	s.closed = true
	return nil
}

func readAllBounded(t *testing.T, r io.Reader) ([]byte, error) {
	t.Helper()
	type result struct {
		b   []byte
		err error
	}
	ch := make(chan result, 1)
	go func() {
		b, err := io.ReadAll(r)
		ch <- result{b, err}
	}()
	select {
	case res := <-ch:
		return res.b, res.err
	case <-time.After(10 * time.Second):
		t.Fatal("recording did not end")
		return nil, nil
	}
}

func TestCaptureFallsBackWhenTheDeviceVanishesMidRecording(t *testing.T) {
	b := &fakeInputs{devices: map[string]*fakeDevice{"usb": {}, "builtin": {}}, fallback: "builtin"}
	c, err := openCapture(CaptureConfig{Device: "usb", MaxDuration: 2 * time.Second, PreRoll: -1}, b)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	rec, err := c.Start()
	if err != nil {
		t.Fatal(err)
	}
	// Wait for some frames from the USB device, then pull it out.
	for rec.Duration() < 200*time.Millisecond {
		time.Sleep(time.Millisecond)
	}
	b.unplug("usb")
	var n Notice
	select {
	case n = <-c.Notices():
	case <-time.After(5 * time.Second):
		t.Fatal("no notice after the device vanished")
	}
	if n.Requested != "usb" || n.Using != "builtin" || !strings.Contains(n.Reason, "failed") {
		t.Errorf("notice %+v", n)
	}
	if c.Device() != "builtin" {
		t.Errorf("device %q after fallback", c.Device())
	}
	pcm, err := readAllBounded(t, rec)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Reason() != StopMaxDuration || len(pcm) != 100*FrameBytes {
		t.Fatalf("recording ended by %v with %d frames; want 100 frames, maximum length", rec.Reason(), len(pcm)/FrameBytes)
	}
	// Frames count up from 1 on the USB device, then again from 1 on the built-in one.
	s := pcmToSamples(pcm)
	restarts := 0
	for f := 1; f < len(s)/FrameSamples; f++ {
		prev, cur := s[(f-1)*FrameSamples], s[f*FrameSamples]
		if cur != prev+1 {
			if cur != 1 {
				t.Fatalf("frame %d is %d after %d", f, cur, prev)
			}
			restarts++
		}
	}
	if restarts != 1 {
		t.Fatalf("%d switches of device in the recording, want 1", restarts)
	}
}

func TestCaptureEndsWhenNoDeviceRemains(t *testing.T) {
	b := &fakeInputs{devices: map[string]*fakeDevice{"builtin": {}}, fallback: "builtin"}
	c, err := openCapture(CaptureConfig{}, b)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	rec, err := c.Start()
	if err != nil {
		t.Fatal(err)
	}
	for rec.Duration() < 100*time.Millisecond {
		time.Sleep(time.Millisecond)
	}
	b.unplug("builtin")
	if _, err := readAllBounded(t, rec); err == nil || !errors.Is(err, ErrNoInput) {
		t.Fatalf("read after the last device vanished: %v, want an error wrapping ErrNoInput", err)
	}
	if rec.Reason() != StopDevice || rec.Err() == nil {
		t.Fatalf("reason %v, err %v", rec.Reason(), rec.Err())
	}
	if len(rec.PCM()) == 0 {
		t.Errorf("the audio recorded before the failure was dropped")
	}
	if _, err := c.Start(); err == nil {
		t.Errorf("Start on a failed capture succeeded")
	}
}

func TestCaptureGivesUpOnADeviceThatKeepsFailing(t *testing.T) {
	b := &fakeInputs{devices: map[string]*fakeDevice{"flaky": {failAfter: 1}}, fallback: "flaky"}
	c, err := openCapture(CaptureConfig{}, b)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	rec, err := c.Start()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := readAllBounded(t, rec); err == nil || !strings.Contains(err.Error(), "times in") {
		t.Fatalf("read: %v, want a give-up error", err)
	}
	if opens := b.devices["flaky"].opens; opens != maxReopens+1 {
		t.Errorf("device opened %d times, want %d", opens, maxReopens+1)
	}
}

func TestOpenCaptureDeviceChoice(t *testing.T) {
	b := &fakeInputs{devices: map[string]*fakeDevice{"builtin": {}}, fallback: "builtin"}
	c, err := openCapture(CaptureConfig{Device: "gone"}, b)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case n := <-c.Notices():
		if n.Requested != "gone" || n.Using != "builtin" {
			t.Errorf("notice %+v", n)
		}
	default:
		t.Error("no notice for a missing device")
	}
	c.Close()

	none := &fakeInputs{devices: map[string]*fakeDevice{}}
	if _, err := openCapture(CaptureConfig{Device: "gone"}, none); !errors.Is(err, ErrNoInput) {
		t.Errorf("no devices at all: %v, want ErrNoInput", err)
	}
	for name, cfg := range map[string]CaptureConfig{
		"max below a frame":     {MaxDuration: time.Millisecond},
		"negative silence stop": {SilenceStop: -time.Second},
	} {
		if _, err := openCapture(cfg, b); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestCaptureCloseEndsTheRecording(t *testing.T) {
	b := &fakeInputs{devices: map[string]*fakeDevice{"builtin": {}}, fallback: "builtin"}
	c, err := openCapture(CaptureConfig{}, b)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := c.Start()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := readAllBounded(t, rec); err != nil {
		t.Fatal(err)
	}
	if rec.Reason() != StopClosed {
		t.Errorf("reason %v, want closed", rec.Reason())
	}
	if err := c.Arm(); !errors.Is(err, ErrClosed) {
		t.Errorf("Arm after Close: %v", err)
	}
	if err := c.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

func pcmToSamples(pcm []byte) []int16 {
	s := make([]int16, len(pcm)/2)
	for i := range s {
		s[i] = int16(uint16(pcm[2*i]) | uint16(pcm[2*i+1])<<8)
	}
	return s
}
