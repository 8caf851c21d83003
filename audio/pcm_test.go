//go:build cgo && linux

package audio

import (
	"math"
	"testing"
	"time"
)

func TestPlayPCMReachesTheSpeakerAtItsLength(t *testing.T) {
	spk.Quiet(t)
	// One second of 440 Hz at half scale, at a rate that needs resampling.
	const rate = 22050
	resampled := make([]byte, 0, 2*rate)
	for i := 0; i < rate; i++ {
		v := int16(math.Round(0.5 * 32767 * math.Sin(2*math.Pi*440*float64(i)/rate)))
		resampled = append(resampled, byte(v), byte(uint16(v)>>8))
	}
	pb, err := testPlayer(t).PlayPCM(resampled, rate)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-pb.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the PCM playback did not end")
	}
	if pb.Err() != nil || pb.FirstSample().IsZero() {
		t.Fatalf("err %v, first sample %v", pb.Err(), pb.FirstSample())
	}
	if d, ok := pb.Duration(); !ok || d < 990*time.Millisecond || d > 1010*time.Millisecond {
		t.Errorf("duration %v %v, want 1 s", d, ok)
	}
	time.Sleep(300 * time.Millisecond) // the device's buffer plays out
	got := spk.Samples()
	lo, hi := -1, -1
	var sum float64
	for i, v := range got {
		if math.Abs(float64(v)) > 1e-3 {
			if lo < 0 {
				lo = i
			}
			hi = i
		}
		sum += float64(v) * float64(v)
	}
	if lo < 0 {
		t.Fatal("nothing reached the speaker")
	}
	frames := (hi - lo) / 2
	if frames < OutputRate*95/100 || frames > OutputRate*101/100 {
		t.Errorf("%d frames of sound, want about %d", frames, OutputRate)
	}
	// A half-scale sine has an RMS of 0.354.
	if rms := math.Sqrt(sum / float64(hi-lo+1)); rms < 0.3 || rms > 0.4 {
		t.Errorf("rms %.3f, want 0.354", rms)
	}
}

func TestPlayPCMRejectsBadRates(t *testing.T) {
	for _, rate := range []int{0, -1, 7999, 192001} {
		if _, err := testPlayer(t).PlayPCM(make([]byte, 100), rate); err == nil {
			t.Errorf("rate %d accepted", rate)
		}
	}
}

func TestPlayPCMAroundTheIdleSuspend(t *testing.T) {
	tone := make([]byte, 0, 2*CaptureRate/5)
	for i := 0; i < CaptureRate/5; i++ {
		v := int16(math.Round(0.5 * 32767 * math.Sin(2*math.Pi*440*float64(i)/CaptureRate)))
		tone = append(tone, byte(v), byte(uint16(v)>>8))
	}
	for _, pause := range []time.Duration{990, 1010} {
		pause *= time.Millisecond
		spk.Quiet(t)
		pb, err := testPlayer(t).PlayPCM(tone, CaptureRate)
		if err != nil {
			t.Fatal(err)
		}
		<-pb.Done()
		time.Sleep(pause)
		spk.Reset()
		pb, err = testPlayer(t).PlayPCM(tone, CaptureRate)
		if err != nil {
			t.Fatal(err)
		}
		select {
		case <-pb.Done():
		case <-time.After(5 * time.Second):
			t.Fatalf("after %v idle: the playback never ended", pause)
		}
		time.Sleep(300 * time.Millisecond)
		heard := false
		for _, v := range spk.Samples() {
			if math.Abs(float64(v)) > 1e-3 {
				heard = true
				break
			}
		}
		if !heard {
			t.Errorf("after %v idle: nothing reached the speaker", pause)
		}
	}
}
