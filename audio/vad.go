package audio

// VAD is an energy-based voice activity detector working on 20 ms frames.
//
// Design: a frame is loud when its RMS level is at least VADMargin above the noise floor and
// above VADMinLevel. The noise floor is the quietest frame of the last 3 s (a minimum
// tracker over 15 blocks of 200 ms), so it adapts within seconds to a fan being switched on
// or off, yet does not climb into ordinary speech, which always has quieter gaps between
// syllables. Speech starts after VADOnsetFrames consecutive loud frames (a click or a key
// press is shorter) and ends after VADHangoverFrames quiet frames (so the pauses inside and
// between words are not cut). A frame reported as speech therefore lasts from the third loud
// frame to the end of the hangover.
//
// A VAD is not safe for concurrent use.
type VAD struct {
	blocks   [vadBlocks]float64 // minimum level of each 200 ms block, a ring
	block    int                // index of the block being filled
	inBlock  int                // frames already in that block
	seen     int                // frames seen, saturating at a full window
	loudRun  int
	hangover int
	speaking bool
	floor    float64
}

const (
	// VADMargin is how far above the noise floor (dB) a frame must be to count as loud.
	VADMargin = 10.0
	// VADMinLevel (dBFS) is the quietest level that can count as speech whatever the floor.
	VADMinLevel = -50.0
	// VADOnsetFrames loud frames in a row (60 ms) start speech.
	VADOnsetFrames = 3
	// VADHangoverFrames quiet frames in a row (300 ms) end speech.
	VADHangoverFrames = 15

	vadBlockFrames = 10 // 200 ms
	vadBlocks      = 15 // 3 s window
)

// NewVAD returns a detector with no history: its floor starts at the first frame's level.
func NewVAD() *VAD {
	return &VAD{}
}

// Push feeds the RMS level (dBFS) of the next frame and reports whether it is speech.
func (v *VAD) Push(rms float64) bool {
	v.track(rms)
	floor := v.Floor()
	threshold := floor + VADMargin
	if threshold < VADMinLevel {
		threshold = VADMinLevel
	}
	if rms >= threshold {
		v.loudRun++
		if v.loudRun >= VADOnsetFrames {
			v.speaking = true
		}
		if v.speaking {
			v.hangover = VADHangoverFrames
		}
		return v.speaking
	}
	v.loudRun = 0
	if v.speaking {
		v.hangover--
		if v.hangover <= 0 {
			v.speaking = false
		}
	}
	return v.speaking
}

// Floor is the current noise floor estimate in dBFS.
func (v *VAD) Floor() float64 {
	return v.floor
}

func (v *VAD) track(rms float64) {
	if v.inBlock == 0 || rms < v.blocks[v.block] {
		v.blocks[v.block] = rms
	}
	v.inBlock++
	if v.seen < vadBlocks*vadBlockFrames {
		v.seen++
	}
	filled := (v.seen + vadBlockFrames - 1) / vadBlockFrames
	if filled > vadBlocks {
		filled = vadBlocks
	}
	floor := v.blocks[v.block]
	for i := 1; i < filled; i++ {
		b := v.blocks[(v.block-i+vadBlocks)%vadBlocks]
		if b < floor {
			floor = b
		}
	}
	v.floor = floor
	if v.inBlock == vadBlockFrames {
		v.inBlock = 0
		v.block = (v.block + 1) % vadBlocks
	}
}
