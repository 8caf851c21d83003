//go:build cgo && linux

package audio

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// record runs a recording to its end (bounded) and returns its PCM as read through Read.
func record(t *testing.T, c *Capture, rec *Recording) []byte {
	t.Helper()
	type result struct {
		pcm []byte
		err error
	}
	got := make(chan result, 1)
	go func() {
		pcm, err := io.ReadAll(rec)
		got <- result{pcm, err}
	}()
	select {
	case r := <-got:
		if r.err != nil {
			t.Fatalf("read recording: %v", r.err)
		}
		return r.pcm
	case <-time.After(20 * time.Second):
		rec.Stop()
		t.Fatalf("recording did not end by itself")
		return nil
	}
}

func TestCaptureSpeechIsExactAndStopsOnSilence(t *testing.T) {
	speech := fliteSpeech(t, "set a timer for five minutes")
	setMic(t, "HARK_TEST_MIC", speech)
	const silenceStop = 700 * time.Millisecond
	c, err := OpenCapture(CaptureConfig{SilenceStop: silenceStop})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	rec, err := c.Start()
	if err != nil {
		t.Fatal(err)
	}
	got := record(t, c, rec)
	if rec.Reason() != StopSilence {
		t.Fatalf("recording ended by %v, want silence", rec.Reason())
	}
	if rec.PreRoll() != 0 {
		t.Errorf("a recording started before arming has %v of pre-roll", rec.PreRoll())
	}
	fixture := append(append([]byte(nil), speech...), make([]byte, 4*CaptureRate*2)...)
	if len(got) > len(fixture) || !bytes.Equal(got, fixture[:len(got)]) {
		t.Fatalf("captured %d bytes that are not the start of the %d-byte fixture", len(got), len(fixture))
	}
	if !bytes.Equal(rec.PCM(), got) {
		t.Errorf("PCM() differs from what Read delivered")
	}
	// Independently of the detector: the last 20 ms frame louder than -40 dBFS.
	lastLoud := 0
	for i := 0; i+FrameBytes <= len(speech); i += FrameBytes {
		if rms, _ := MeasureLevel(pcmToInt16(speech[i : i+FrameBytes])); rms > -40 {
			lastLoud = i/FrameBytes + 1
		}
	}
	speechEnd := time.Duration(lastLoud) * FrameDuration
	gotLen := time.Duration(len(got)/FrameBytes) * FrameDuration
	lo := speechEnd + silenceStop
	hi := speechEnd + silenceStop + VADHangoverFrames*FrameDuration + 100*time.Millisecond
	if gotLen < lo || gotLen > hi {
		t.Errorf("recording of %v for speech ending at %v; want %v to %v", gotLen, speechEnd, lo, hi)
	}
	if rec.SpeechEnd().IsZero() {
		t.Errorf("no end of speech recorded")
	}
	t.Logf("speech ends at %v, recording stopped at %v", speechEnd, gotLen)
}

func TestCaptureLevelsOfASine(t *testing.T) {
	// One second of silence, then half-scale 500 Hz: RMS 20·log10(0.5/√2) = -9.03 dBFS,
	// peak -6.02 dBFS, in every 20 ms frame (exactly ten periods). Long, because the file
	// plugin delivers faster than real time and the meter channel keeps only the latest.
	fixture := append(make([]byte, CaptureRate*2), sineMono(60, 500, 0.5)...)
	setMic(t, "HARK_TEST_MIC", fixture)
	c, err := OpenCapture(CaptureConfig{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Arm(); err != nil {
		t.Fatal(err)
	}
	var sine int
	var last time.Duration
	deadline := time.After(10 * time.Second)
	for sine < 20 {
		select {
		case l := <-c.Levels():
			if l.At <= last {
				t.Fatalf("level at %v after one at %v", l.At, last)
			}
			last = l.At
			switch {
			case l.At > 61*time.Second:
				t.Fatalf("only %d sine frames seen before %v", sine, l.At)
			case l.At <= time.Second:
				if l.RMS != SilenceDBFS || l.Peak != SilenceDBFS || l.Speech {
					t.Fatalf("silent frame at %v: %+v", l.At, l)
				}
			default:
				if math.Abs(l.RMS-(-9.03)) > 0.01 || math.Abs(l.Peak-(-6.02)) > 0.01 {
					t.Fatalf("level at %v: RMS %.3f peak %.3f dBFS, want -9.03 and -6.02", l.At, l.RMS, l.Peak)
				}
				sine++
			}
			if l.Recording {
				t.Fatalf("an armed capture reports recording frames")
			}
		case <-deadline:
			t.Fatalf("only %d levels arrived", sine)
		}
	}
}

func TestCaptureMaxDuration(t *testing.T) {
	fixture := sineMono(5, 300, 0.3)
	setMic(t, "HARK_TEST_MIC", fixture)
	c, err := OpenCapture(CaptureConfig{MaxDuration: time.Second, SilenceStop: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	rec, err := c.Start()
	if err != nil {
		t.Fatal(err)
	}
	got := record(t, c, rec)
	if rec.Reason() != StopMaxDuration {
		t.Fatalf("ended by %v, want maximum length", rec.Reason())
	}
	if !bytes.Equal(got, fixture[:CaptureRate*2]) {
		t.Fatalf("got %d bytes, want exactly the first second of the fixture", len(got))
	}
}

// countingPCM is a fixture whose sample n is int16(n): any dropped, repeated or reordered
// sample breaks the sequence.
func countingPCM(seconds int) []byte {
	pcm := make([]byte, seconds*CaptureRate*2)
	for i := 0; i < len(pcm)/2; i++ {
		binary.LittleEndian.PutUint16(pcm[2*i:], uint16(i+1))
	}
	return pcm
}

func checkCounting(t *testing.T, pcm []byte) {
	t.Helper()
	s := pcmToInt16(pcm)
	if len(s) == 0 {
		t.Fatal("empty recording")
	}
	for i := 1; i < len(s); i++ {
		if uint16(s[i]) != uint16(s[i-1])+1 {
			t.Fatalf("sample %d is %d after %d: the recording is not contiguous", i, s[i], s[i-1])
		}
	}
}

func TestCapturePreRollJoinsTheRecording(t *testing.T) {
	setMic(t, "HARK_TEST_MIC", countingPCM(300))
	c, err := OpenCapture(CaptureConfig{MaxDuration: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Arm(); err != nil {
		t.Fatal(err)
	}
	// Wait until the pre-roll has been filled and rolled over.
	deadline := time.After(10 * time.Second)
	for filled := false; !filled; {
		select {
		case l := <-c.Levels():
			filled = l.At >= 2*DefaultPreRoll
		case <-deadline:
			t.Fatal("no levels while armed")
		}
	}
	rec, err := c.Start()
	if err != nil {
		t.Fatal(err)
	}
	got := record(t, c, rec)
	if rec.PreRoll() != DefaultPreRoll {
		t.Fatalf("pre-roll %v, want %v", rec.PreRoll(), DefaultPreRoll)
	}
	if len(got) != CaptureRate*2 {
		t.Fatalf("recorded %d bytes, want one second, pre-roll included", len(got))
	}
	checkCounting(t, got)
	if first := uint16(pcmToInt16(got)[0]); first == 1 {
		t.Errorf("recording starts at the beginning of the stream: the pre-roll did not roll")
	}
	// The capture stays armed: a second recording works and is contiguous too.
	rec2, err := c.Start()
	if err != nil {
		t.Fatal(err)
	}
	checkCounting(t, record(t, c, rec2))
}

func TestCaptureStopAndCancel(t *testing.T) {
	setMic(t, "HARK_TEST_MIC", countingPCM(300))
	c, err := OpenCapture(CaptureConfig{PreRoll: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	rec, err := c.Start()
	if err != nil {
		t.Fatal(err)
	}
	// Checked here, on a recording that only Stop ends: one that ends on
	// its own (MaxDuration) may have ended before a loaded machine gets to
	// the second Start.
	if _, err := c.Start(); !errors.Is(err, ErrRecording) {
		t.Errorf("second Start: %v, want ErrRecording", err)
	}
	buf := make([]byte, FrameBytes)
	if _, err := io.ReadFull(rec, buf); err != nil {
		t.Fatal(err)
	}
	rec.Stop()
	rest, err := io.ReadAll(rec)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Reason() != StopUser {
		t.Errorf("reason %v, want stopped", rec.Reason())
	}
	checkCounting(t, append(buf, rest...))
	if uint16(pcmToInt16(buf)[0]) != 1 {
		t.Errorf("a recording without pre-roll does not start at the stream's start")
	}

	rec2, err := c.Start()
	if err != nil {
		t.Fatal(err)
	}
	rec2.Cancel()
	if _, err := rec2.Read(buf); !errors.Is(err, ErrCanceled) {
		t.Errorf("Read after Cancel: %v, want ErrCanceled", err)
	}
	if rec2.PCM() != nil {
		t.Errorf("a canceled recording keeps its audio")
	}
	select {
	case <-rec2.Done():
	default:
		t.Errorf("Done not closed after Cancel")
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Start(); !errors.Is(err, ErrClosed) {
		t.Errorf("Start after Close: %v, want ErrClosed", err)
	}
}

func TestCaptureDeviceByNameAndFallback(t *testing.T) {
	setMic(t, "HARK_TEST_MIC", countingPCM(10))
	second := sineMono(3, 700, 0.25)
	setMic(t, "HARK_TEST_MIC2", second)
	devices, err := Devices()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	var defaults int
	for _, d := range devices {
		names = append(names, d.Name)
		if d.Default {
			defaults++
		}
	}
	if !contains(names, "default") || !contains(names, "harkmic2") || defaults != 1 {
		t.Fatalf("devices %v with %d defaults; want default and harkmic2, one default", names, defaults)
	}

	c, err := OpenCapture(CaptureConfig{Device: "harkmic2", MaxDuration: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if c.Device() != "harkmic2" {
		t.Errorf("using %q, want harkmic2", c.Device())
	}
	rec, err := c.Start()
	if err != nil {
		t.Fatal(err)
	}
	if got := record(t, c, rec); !bytes.Equal(got, second[:len(got)]) || len(got) != 200*CaptureRate*2/1000 {
		t.Errorf("harkmic2 delivered %d bytes that are not its fixture", len(got))
	}
	select {
	case n := <-c.Notices():
		t.Errorf("unexpected notice %+v", n)
	default:
	}
	c.Close()

	c, err = OpenCapture(CaptureConfig{Device: "USB headset that was unplugged", MaxDuration: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if c.Device() != "default" {
		t.Errorf("fell back to %q, want default", c.Device())
	}
	select {
	case n := <-c.Notices():
		if n.Requested != "USB headset that was unplugged" || n.Using != "default" || !strings.Contains(n.Reason, "not found") {
			t.Errorf("notice %+v", n)
		}
	default:
		t.Errorf("no notice of the fallback")
	}
	rec, err = c.Start()
	if err != nil {
		t.Fatal(err)
	}
	checkCounting(t, record(t, c, rec))
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// TestNoDevices runs the test binary again under an ALSA configuration whose default PCM
// cannot be opened, since ALSA and the output context are set up once per process.
func TestNoDevices(t *testing.T) {
	conf, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestNoDevicesChild$", "-test.v")
	cmd.Env = append(os.Environ(), childEnv+"="+conf+"/testdata/asound-nodevice.conf")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "--- PASS: TestNoDevicesChild") {
		t.Fatalf("child did not run its test:\n%s", out)
	}
	// Nothing ALSA or JACK print may reach fd 2.
	for _, noise := range []string{"ALSA lib", "jack", "Jack", "Cannot connect"} {
		if strings.Contains(string(out), noise) {
			t.Errorf("native library noise reached stderr (%q):\n%s", noise, out)
		}
	}
}

func TestNoDevicesChild(t *testing.T) {
	if os.Getenv(childEnv) == "" {
		t.Skip("runs as a child of TestNoDevices")
	}
	_, err := OpenCapture(CaptureConfig{})
	if !errors.Is(err, ErrNoInput) {
		t.Errorf("OpenCapture without input: %v, want ErrNoInput", err)
	}
	_, err = OpenCapture(CaptureConfig{Device: "anything"})
	if !errors.Is(err, ErrNoInput) {
		t.Errorf("OpenCapture of a missing device without input: %v, want ErrNoInput", err)
	}
	devices, err := Devices()
	if err != nil || len(devices) != 0 {
		t.Errorf("Devices without input: %v, %v; want none", devices, err)
	}
	_, err = NewPlayer()
	if !errors.Is(err, ErrNoOutput) {
		t.Errorf("NewPlayer without output: %v, want ErrNoOutput", err)
	}
	if _, again := NewPlayer(); !errors.Is(again, ErrNoOutput) {
		t.Errorf("second NewPlayer: %v, want ErrNoOutput", again)
	}
}
