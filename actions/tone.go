package actions

import (
	"encoding/binary"
	"math"
)

// AlarmToneRate is the sample rate the alarm tone is made for.
const AlarmToneRate = 22050

// The alarm is two bursts of three short beeps, a pattern people read as "alarm" rather
// than "notification", at a pitch that carries on small speakers.
const (
	toneHz      = 880.0
	toneBeep    = 0.15 // seconds
	toneGap     = 0.08
	toneRest    = 0.40
	toneBeeps   = 3
	toneBursts  = 2
	toneRamp    = 0.005 // fade in and out, so beeps start and end without clicks
	toneAmpl    = 0.5
	toneOverton = 0.25 // a little of the octave makes it less pure and easier to hear
)

// AlarmTonePCM synthesises the alarm sound as 16-bit little-endian mono PCM at rate
// (8000..192000; other rates are clamped).
func AlarmTonePCM(rate int) []byte {
	rate = max(8000, min(192000, rate))
	var samples []int16
	for burst := 0; burst < toneBursts; burst++ {
		for beep := 0; beep < toneBeeps; beep++ {
			samples = appendBeep(samples, rate)
			samples = appendSilence(samples, rate, toneGap)
		}
		samples = appendSilence(samples, rate, toneRest)
	}
	pcm := make([]byte, 2*len(samples))
	for i, s := range samples {
		binary.LittleEndian.PutUint16(pcm[2*i:], uint16(s))
	}
	return pcm
}

func appendBeep(dst []int16, rate int) []int16 {
	n := int(toneBeep * float64(rate))
	ramp := int(toneRamp * float64(rate))
	for i := 0; i < n; i++ {
		t := float64(i) / float64(rate)
		v := math.Sin(2*math.Pi*toneHz*t) + toneOverton*math.Sin(4*math.Pi*toneHz*t)
		v *= toneAmpl / (1 + toneOverton)
		switch {
		case i < ramp:
			v *= float64(i) / float64(ramp)
		case i >= n-ramp:
			v *= float64(n-1-i) / float64(ramp)
		}
		dst = append(dst, int16(math.Round(v*32767)))
	}
	return dst
}

func appendSilence(dst []int16, rate int, seconds float64) []int16 {
	return append(dst, make([]int16, int(seconds*float64(rate)))...)
}
