package mp3enc

import (
	"errors"
	"fmt"
)

// Frame is the header of one MPEG audio frame.
type Frame struct {
	Version    string // "MPEG-1", "MPEG-2" or "MPEG-2.5"
	Layer      int
	Bitrate    int // kbps
	SampleRate int
	Mono       bool
	Size       int // bytes, header included
}

var (
	bitratesV1L3 = [16]int{0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 0}
	bitratesV2L3 = [16]int{0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160, 0}
	ratesV1      = [4]int{44100, 48000, 32000, 0}
)

// ParseFrame decodes the 4-byte Layer III frame header at the start of b.
func ParseFrame(b []byte) (Frame, error) {
	var f Frame
	if len(b) < 4 {
		return f, errors.New("short frame header")
	}
	if b[0] != 0xFF || b[1]&0xE0 != 0xE0 {
		return f, fmt.Errorf("no frame sync: % x", b[:4])
	}
	divisor := 1
	switch (b[1] >> 3) & 3 {
	case 3:
		f.Version = "MPEG-1"
	case 2:
		f.Version, divisor = "MPEG-2", 2
	case 0:
		f.Version, divisor = "MPEG-2.5", 4
	default:
		return f, errors.New("reserved MPEG version")
	}
	if (b[1]>>1)&3 != 1 {
		return f, fmt.Errorf("layer bits %d: not Layer III", (b[1]>>1)&3)
	}
	f.Layer = 3
	bi := b[2] >> 4
	if f.Version == "MPEG-1" {
		f.Bitrate = bitratesV1L3[bi]
	} else {
		f.Bitrate = bitratesV2L3[bi]
	}
	if f.Bitrate == 0 {
		return f, fmt.Errorf("free or bad bit-rate index %d", bi)
	}
	ri := (b[2] >> 2) & 3
	if ratesV1[ri] == 0 {
		return f, errors.New("reserved sample-rate index")
	}
	f.SampleRate = ratesV1[ri] / divisor
	padding := int(b[2]>>1) & 1
	f.Mono = b[3]>>6 == 3
	coef := 144
	if f.Version != "MPEG-1" {
		coef = 72
	}
	f.Size = coef*f.Bitrate*1000/f.SampleRate + padding
	return f, nil
}

// Frames walks a whole MP3 stream frame by frame (after an optional ID3v2
// tag) and returns every header; it fails on anything between frames.
func Frames(data []byte) ([]Frame, error) {
	if len(data) >= 10 && string(data[:3]) == "ID3" {
		size := int(data[6]&0x7F)<<21 | int(data[7]&0x7F)<<14 | int(data[8]&0x7F)<<7 | int(data[9]&0x7F)
		data = data[min(10+size, len(data)):]
	}
	var frames []Frame
	for off := 0; off < len(data); {
		f, err := ParseFrame(data[off:])
		if err != nil {
			return frames, fmt.Errorf("frame %d at byte %d: %w", len(frames), off, err)
		}
		if off+f.Size > len(data) {
			return frames, fmt.Errorf("frame %d at byte %d: %d bytes, only %d left", len(frames), off, f.Size, len(data)-off)
		}
		frames = append(frames, f)
		off += f.Size
	}
	return frames, nil
}
