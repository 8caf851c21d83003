// Package wav reads and writes RIFF WAV headers for the audio that harkd
// accepts (PCM 16-bit mono at 8000 or 16000 Hz) and for the PCM it produces.
//
// The reader consumes only the header bytes from a stream, so a request
// body arriving chunk by chunk can be parsed before its end exists; the PCM
// that follows is read through Reader, which treats a placeholder data size
// (0 or 0xFFFFFFFF, as streaming writers emit) as "until end of stream".
//
// Every format error wraps ErrInvalid and one specific sentinel (ErrNotRIFF,
// ErrStereo, ...), so callers can test either with errors.Is.
package wav

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// ErrInvalid is wrapped by every error that describes bad WAV input.
var ErrInvalid = errors.New("invalid WAV")

// Specific reasons; each error also wraps ErrInvalid.
var (
	ErrNotRIFF    = errors.New("not a RIFF file")
	ErrNotWAVE    = errors.New("RIFF form is not WAVE")
	ErrMissingFmt = errors.New("missing fmt chunk before data")
	ErrNotPCM     = errors.New("sample format is not integer PCM")
	ErrBits       = errors.New("samples are not 16-bit")
	ErrChannels   = errors.New("audio is not mono")
	ErrRate       = errors.New("sample rate differs from the declared one")
	ErrSizes      = errors.New("header declares impossible sizes")
	ErrTruncated  = errors.New("stream ends early")
)

// Format tags of the fmt chunk.
const (
	FormatPCM        = 1
	FormatFloat      = 3
	FormatExtensible = 0xFFFE
)

// Placeholder data sizes written by streaming producers that do not know
// the length in advance.
const (
	sizeUnknownZero = 0
	sizeUnknownMax  = 0xFFFFFFFF
)

// maxSkippedChunk bounds the non-audio chunks (LIST, fact, ...) skipped
// before the data chunk, so a lying header cannot make the reader swallow
// a whole upload looking for "data".
const maxSkippedChunk = 1 << 20

// Header is the format of a WAV stream.
type Header struct {
	Format        uint16 // FormatPCM, FormatFloat, ... (sub-format for WAVE_FORMAT_EXTENSIBLE)
	Channels      int
	SampleRate    int
	BitsPerSample int
	BlockAlign    int
	ByteRate      int
	// DataSize is the byte length of the data chunk, or -1 when the header
	// holds a placeholder (0 or 0xFFFFFFFF) and the data runs to the end.
	DataSize int64
}

func invalid(reason error, format string, args ...any) error {
	return fmt.Errorf("%w: %w: %s", ErrInvalid, reason, fmt.Sprintf(format, args...))
}

// ReadHeader reads the RIFF header up to and including the data chunk's
// header and returns it; r is left at the first PCM byte. Only structural
// problems are reported here; Validate checks the format against what the
// caller accepts.
func ReadHeader(r io.Reader) (Header, error) {
	var h Header
	var riff [12]byte
	if n, err := io.ReadFull(r, riff[:]); err != nil {
		if n >= 4 && string(riff[:4]) != "RIFF" {
			return h, invalid(ErrNotRIFF, "starts with %q", riff[:4])
		}
		return h, invalid(ErrTruncated, "%d bytes, less than the 12-byte RIFF header", n)
	}
	if string(riff[:4]) != "RIFF" {
		return h, invalid(ErrNotRIFF, "starts with %q", riff[:4])
	}
	if string(riff[8:12]) != "WAVE" {
		return h, invalid(ErrNotWAVE, "form type %q", riff[8:12])
	}
	riffSize := binary.LittleEndian.Uint32(riff[4:8])
	riffKnown := riffSize != sizeUnknownZero && riffSize != sizeUnknownMax
	// consumed counts bytes after the RIFF size field, which riffSize covers.
	consumed := int64(4)

	haveFmt := false
	for {
		var ch [8]byte
		if n, err := io.ReadFull(r, ch[:]); err != nil {
			if !haveFmt {
				return h, invalid(ErrTruncated, "ends after %d header bytes with no fmt chunk", 8+consumed+int64(n))
			}
			return h, invalid(ErrTruncated, "ends after %d header bytes with no data chunk", 8+consumed+int64(n))
		}
		consumed += 8
		id := string(ch[:4])
		size := binary.LittleEndian.Uint32(ch[4:8])
		switch id {
		case "fmt ":
			if haveFmt {
				return h, invalid(ErrSizes, "second fmt chunk")
			}
			if size < 16 || size > 1024 {
				return h, invalid(ErrSizes, "fmt chunk of %d bytes (16 to 1024 expected)", size)
			}
			if riffKnown && consumed+int64(size) > int64(riffSize) {
				return h, invalid(ErrSizes, "fmt chunk of %d bytes overruns RIFF size %d", size, riffSize)
			}
			body := make([]byte, size+size%2)
			if _, err := io.ReadFull(r, body); err != nil {
				return h, invalid(ErrTruncated, "inside the fmt chunk")
			}
			consumed += int64(len(body))
			if err := h.parseFmt(body[:size]); err != nil {
				return h, err
			}
			haveFmt = true
		case "data":
			if !haveFmt {
				return h, invalid(ErrMissingFmt, "data chunk comes first")
			}
			h.DataSize = int64(size)
			if size == sizeUnknownZero || size == sizeUnknownMax {
				h.DataSize = -1
			} else if riffKnown && consumed+int64(size) > int64(riffSize)+1 {
				// +1: a writer may omit the pad byte's count for an odd size.
				return h, invalid(ErrSizes, "data chunk of %d bytes overruns RIFF size %d", size, riffSize)
			}
			if h.DataSize > 0 && h.BlockAlign > 0 && h.DataSize%int64(h.BlockAlign) != 0 {
				return h, invalid(ErrSizes, "data size %d is not a whole number of %d-byte frames", size, h.BlockAlign)
			}
			return h, nil
		default:
			if size > maxSkippedChunk {
				return h, invalid(ErrSizes, "%q chunk of %d bytes before the data", id, size)
			}
			if riffKnown && consumed+int64(size) > int64(riffSize) {
				return h, invalid(ErrSizes, "%q chunk of %d bytes overruns RIFF size %d", id, size, riffSize)
			}
			skip := int64(size) + int64(size%2)
			if n, err := io.CopyN(io.Discard, r, skip); err != nil {
				return h, invalid(ErrTruncated, "inside the %q chunk (%d of %d bytes)", id, n, skip)
			}
			consumed += skip
		}
	}
}

func (h *Header) parseFmt(b []byte) error {
	h.Format = binary.LittleEndian.Uint16(b[0:2])
	h.Channels = int(binary.LittleEndian.Uint16(b[2:4]))
	h.SampleRate = int(binary.LittleEndian.Uint32(b[4:8]))
	h.ByteRate = int(binary.LittleEndian.Uint32(b[8:12]))
	h.BlockAlign = int(binary.LittleEndian.Uint16(b[12:14]))
	h.BitsPerSample = int(binary.LittleEndian.Uint16(b[14:16]))
	if h.Format == FormatExtensible {
		// cbSize(2) validBits(2) channelMask(4) subFormat GUID(16): the
		// first two bytes of the GUID carry the real format tag.
		if len(b) < 40 {
			return invalid(ErrSizes, "extensible fmt chunk of %d bytes (40 expected)", len(b))
		}
		h.Format = binary.LittleEndian.Uint16(b[24:26])
	}
	if h.Channels == 0 {
		return invalid(ErrSizes, "zero channels")
	}
	if h.SampleRate == 0 {
		return invalid(ErrSizes, "zero sample rate")
	}
	if h.BitsPerSample == 0 {
		return invalid(ErrSizes, "zero bits per sample")
	}
	wantAlign := h.Channels * ((h.BitsPerSample + 7) / 8)
	if h.BlockAlign != wantAlign {
		return invalid(ErrSizes, "block align %d for %d channels of %d bits (%d expected)",
			h.BlockAlign, h.Channels, h.BitsPerSample, wantAlign)
	}
	if h.ByteRate != h.SampleRate*h.BlockAlign {
		return invalid(ErrSizes, "byte rate %d for %d Hz × %d-byte frames (%d expected)",
			h.ByteRate, h.SampleRate, h.BlockAlign, h.SampleRate*h.BlockAlign)
	}
	return nil
}

// Validate reports whether h is PCM 16-bit mono at rate, naming the first
// property that differs.
func (h Header) Validate(rate int) error {
	switch {
	case h.Format == FormatFloat:
		return invalid(ErrNotPCM, "IEEE float samples; 16-bit integer PCM expected")
	case h.Format != FormatPCM:
		return invalid(ErrNotPCM, "format tag %#x; 16-bit integer PCM expected", h.Format)
	case h.BitsPerSample != 16:
		return invalid(ErrBits, "%d-bit samples; 16-bit expected", h.BitsPerSample)
	case h.Channels != 1:
		return invalid(ErrChannels, "%d channels; mono expected", h.Channels)
	case h.SampleRate != rate:
		return invalid(ErrRate, "%d Hz in the header; %d Hz declared", h.SampleRate, rate)
	}
	return nil
}

// Reader yields the PCM bytes of a WAV stream after its header.
type Reader struct {
	Header Header
	r      io.Reader
	// left is the number of data bytes still expected, or -1 when unknown.
	left int64
}

// NewReader reads the header from r and returns a Reader positioned at
// the first PCM byte.
func NewReader(r io.Reader) (*Reader, error) {
	h, err := ReadHeader(r)
	if err != nil {
		return nil, err
	}
	return &Reader{Header: h, r: r, left: h.DataSize}, nil
}

// Read reads PCM bytes. It returns io.EOF at the end of the data chunk (or
// of the stream when the size is unknown) and ErrTruncated (wrapped) when a
// declared size is not reached.
func (wr *Reader) Read(p []byte) (int, error) {
	if wr.left == 0 {
		return 0, io.EOF
	}
	if wr.left > 0 && int64(len(p)) > wr.left {
		p = p[:wr.left]
	}
	n, err := wr.r.Read(p)
	if wr.left > 0 {
		wr.left -= int64(n)
	}
	if err == io.EOF && wr.left > 0 {
		return n, invalid(ErrTruncated, "data chunk declares %d bytes, %d missing",
			wr.Header.DataSize, wr.left)
	}
	return n, err
}

// HeaderSize is the length of the header AppendHeader writes.
const HeaderSize = 44

// AppendHeader appends a 44-byte header for PCM 16-bit at rate with the
// given channel count. dataSize < 0 writes the streaming placeholder
// 0xFFFFFFFF in both size fields.
func AppendHeader(b []byte, rate, channels int, dataSize int64) []byte {
	riffSize, data := uint32(sizeUnknownMax), uint32(sizeUnknownMax)
	if dataSize >= 0 && dataSize <= sizeUnknownMax-36-1 {
		riffSize, data = uint32(36+dataSize), uint32(dataSize)
	}
	align := channels * 2
	b = append(b, "RIFF"...)
	b = binary.LittleEndian.AppendUint32(b, riffSize)
	b = append(b, "WAVEfmt "...)
	b = binary.LittleEndian.AppendUint32(b, 16)
	b = binary.LittleEndian.AppendUint16(b, FormatPCM)
	b = binary.LittleEndian.AppendUint16(b, uint16(channels))
	b = binary.LittleEndian.AppendUint32(b, uint32(rate))
	b = binary.LittleEndian.AppendUint32(b, uint32(rate*align))
	b = binary.LittleEndian.AppendUint16(b, uint16(align))
	b = binary.LittleEndian.AppendUint16(b, 16)
	b = append(b, "data"...)
	b = binary.LittleEndian.AppendUint32(b, data)
	return b
}

// Encode returns a complete mono 16-bit WAV file holding samples.
func Encode(samples []int16, rate int) []byte {
	b := AppendHeader(make([]byte, 0, HeaderSize+2*len(samples)), rate, 1, int64(2*len(samples)))
	for _, s := range samples {
		b = binary.LittleEndian.AppendUint16(b, uint16(s))
	}
	return b
}

// Decode reads a whole 16-bit mono WAV file at rate (Encode's inverse),
// refusing any other format as Header.Validate does.
func Decode(b []byte, rate int) ([]int16, error) {
	r, err := NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	if err := r.Header.Validate(rate); err != nil {
		return nil, err
	}
	raw, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	samples := make([]int16, len(raw)/2)
	for i := range samples {
		samples[i] = int16(binary.LittleEndian.Uint16(raw[2*i:]))
	}
	return samples, nil
}
