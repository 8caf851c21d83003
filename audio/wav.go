package audio

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// ErrBadWAV is wrapped by every error DecodeWAV returns for input that is not a
// 16-bit PCM mono WAV file.
var ErrBadWAV = errors.New("audio: not a 16-bit PCM mono WAV")

// streamSize is what WAVStreamHeader writes in the RIFF and data size fields:
// the conventional "unknown length" value that streaming writers (espeak-ng, ffmpeg)
// use, and that DecodeWAV clamps to the data actually present.
const streamSize = 0xFFFFFFFF

// maxWAVBytes bounds what DecodeWAV will read, so a hostile size field or an endless
// stream cannot exhaust memory: 10 minutes of 48 kHz 16-bit mono.
const maxWAVBytes = 10 * 60 * 48000 * 2

// WAVStreamHeader returns the 44-byte header of a 16-bit mono PCM WAV file whose length is
// not known yet: it precedes raw PCM streamed as a request body while the user speaks.
func WAVStreamHeader(rate int) []byte {
	return wavHeader(rate, streamSize)
}

// EncodeWAV wraps 16-bit little-endian mono PCM in a WAV header with exact sizes.
func EncodeWAV(pcm []byte, rate int) []byte {
	out := make([]byte, 0, 44+len(pcm))
	out = append(out, wavHeader(rate, uint32(len(pcm)))...)
	return append(out, pcm...)
}

func wavHeader(rate int, dataSize uint32) []byte {
	h := make([]byte, 44)
	riffSize := uint32(streamSize)
	if dataSize != streamSize {
		riffSize = 36 + dataSize
	}
	copy(h[0:], "RIFF")
	binary.LittleEndian.PutUint32(h[4:], riffSize)
	copy(h[8:], "WAVE")
	copy(h[12:], "fmt ")
	binary.LittleEndian.PutUint32(h[16:], 16)
	binary.LittleEndian.PutUint16(h[20:], 1) // PCM
	binary.LittleEndian.PutUint16(h[22:], 1) // mono
	binary.LittleEndian.PutUint32(h[24:], uint32(rate))
	binary.LittleEndian.PutUint32(h[28:], uint32(rate*2))
	binary.LittleEndian.PutUint16(h[32:], 2)
	binary.LittleEndian.PutUint16(h[34:], 16)
	copy(h[36:], "data")
	binary.LittleEndian.PutUint32(h[40:], dataSize)
	return h
}

// DecodeWAV reads a 16-bit PCM mono WAV file and returns its samples (little-endian) and
// rate. Chunks other than "fmt " and "data" are skipped. A data size larger than what
// follows (a streamed file, or espeak-ng's placeholder) is clamped to the data present; an
// odd trailing byte is dropped.
func DecodeWAV(r io.Reader) (pcm []byte, rate int, err error) {
	var riff [12]byte
	if _, err := io.ReadFull(r, riff[:]); err != nil {
		return nil, 0, fmt.Errorf("%w: short header: %v", ErrBadWAV, err)
	}
	if string(riff[0:4]) != "RIFF" || string(riff[8:12]) != "WAVE" {
		return nil, 0, fmt.Errorf("%w: no RIFF/WAVE signature", ErrBadWAV)
	}
	haveFmt := false
	for {
		var ch [8]byte
		if _, err := io.ReadFull(r, ch[:]); err != nil {
			return nil, 0, fmt.Errorf("%w: no data chunk: %v", ErrBadWAV, err)
		}
		id := string(ch[0:4])
		size := binary.LittleEndian.Uint32(ch[4:8])
		switch id {
		case "fmt ":
			if size < 16 || size > 1024 {
				return nil, 0, fmt.Errorf("%w: fmt chunk of %d bytes", ErrBadWAV, size)
			}
			body := make([]byte, size+size%2)
			if _, err := io.ReadFull(r, body); err != nil {
				return nil, 0, fmt.Errorf("%w: short fmt chunk: %v", ErrBadWAV, err)
			}
			format := binary.LittleEndian.Uint16(body[0:])
			channels := binary.LittleEndian.Uint16(body[2:])
			sampleRate := binary.LittleEndian.Uint32(body[4:])
			bits := binary.LittleEndian.Uint16(body[14:])
			// 0xFFFE is WAVE_FORMAT_EXTENSIBLE, which some writers use even for plain PCM.
			if format != 1 && format != 0xFFFE {
				return nil, 0, fmt.Errorf("%w: format tag %d is not PCM", ErrBadWAV, format)
			}
			if channels != 1 || bits != 16 {
				return nil, 0, fmt.Errorf("%w: %d channels of %d bits", ErrBadWAV, channels, bits)
			}
			if sampleRate < 1000 || sampleRate > 384000 {
				return nil, 0, fmt.Errorf("%w: sample rate %d", ErrBadWAV, sampleRate)
			}
			rate = int(sampleRate)
			haveFmt = true
		case "data":
			if !haveFmt {
				return nil, 0, fmt.Errorf("%w: data before fmt", ErrBadWAV)
			}
			limit := int64(size)
			if limit > maxWAVBytes {
				limit = maxWAVBytes
			}
			pcm, err := io.ReadAll(io.LimitReader(r, limit))
			if err != nil {
				return nil, 0, fmt.Errorf("read WAV data: %w", err)
			}
			return pcm[:len(pcm)&^1], rate, nil
		default:
			skip := int64(size) + int64(size%2)
			n, err := io.CopyN(io.Discard, r, skip)
			if err != nil {
				return nil, 0, fmt.Errorf("%w: chunk %q cut short after %d bytes: %v", ErrBadWAV, id, n, err)
			}
		}
	}
}
