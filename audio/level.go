package audio

import (
	"math"
	"time"
)

// SilenceDBFS is the level reported for digital silence, where the logarithm has no floor.
const SilenceDBFS = -96.0

// Level describes one 20 ms capture frame for a meter. Levels are in dBFS, where 0 dBFS is a
// full-scale square wave (a full-scale sine has an RMS of -3.01 dBFS).
type Level struct {
	RMS       float64       // root mean square level, dBFS, at least SilenceDBFS
	Peak      float64       // largest absolute sample, dBFS, at least SilenceDBFS
	Speech    bool          // the voice activity detector's decision for this frame
	Recording bool          // the frame went into a recording (not only the pre-roll)
	At        time.Duration // audio time at the end of the frame since the stream was armed
}

// MeasureLevel returns the RMS and peak level of 16-bit samples in dBFS.
func MeasureLevel(samples []int16) (rms, peak float64) {
	if len(samples) == 0 {
		return SilenceDBFS, SilenceDBFS
	}
	var sum float64
	var maxAbs int32
	for _, s := range samples {
		v := int32(s)
		sum += float64(v * v)
		if v < 0 {
			v = -v
		}
		if v > maxAbs {
			maxAbs = v
		}
	}
	return toDBFS(math.Sqrt(sum / float64(len(samples)))), toDBFS(float64(maxAbs))
}

func toDBFS(amplitude float64) float64 {
	if amplitude <= 0 {
		return SilenceDBFS
	}
	return math.Max(SilenceDBFS, 20*math.Log10(amplitude/32768))
}
