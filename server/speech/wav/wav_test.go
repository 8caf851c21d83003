package wav

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"testing"
	"testing/iotest"
)

// header builds a WAV header field by field so tests can lie in any one.
type header struct {
	riffID, form      string
	riffSize          uint32
	format, channels  uint16
	rate              uint32
	byteRate          uint32
	align, bits       uint16
	fmtSize, dataSize uint32
	extra             []byte // chunks between fmt and data
	skipFmt, skipData bool
}

func good(rate int) header {
	return header{riffID: "RIFF", form: "WAVE", riffSize: 36 + 320, format: 1, channels: 1,
		rate: uint32(rate), byteRate: uint32(rate * 2), align: 2, bits: 16, fmtSize: 16, dataSize: 320}
}

func (h header) bytes() []byte {
	var b []byte
	b = append(b, h.riffID...)
	b = binary.LittleEndian.AppendUint32(b, h.riffSize)
	b = append(b, h.form...)
	if !h.skipFmt {
		b = append(b, "fmt "...)
		b = binary.LittleEndian.AppendUint32(b, h.fmtSize)
		f := binary.LittleEndian.AppendUint16(nil, h.format)
		f = binary.LittleEndian.AppendUint16(f, h.channels)
		f = binary.LittleEndian.AppendUint32(f, h.rate)
		f = binary.LittleEndian.AppendUint32(f, h.byteRate)
		f = binary.LittleEndian.AppendUint16(f, h.align)
		f = binary.LittleEndian.AppendUint16(f, h.bits)
		for len(f) < int(h.fmtSize) {
			f = append(f, 0)
		}
		b = append(b, f...)
	}
	b = append(b, h.extra...)
	if !h.skipData {
		b = append(b, "data"...)
		b = binary.LittleEndian.AppendUint32(b, h.dataSize)
	}
	return b
}

func TestReadGoodHeaderLeavesReaderAtPCM(t *testing.T) {
	pcm := bytes.Repeat([]byte{1, 2}, 160)
	for _, rate := range []int{8000, 16000} {
		in := append(good(rate).bytes(), pcm...)
		// One byte at a time: the header must parse from a trickling stream.
		r, err := NewReader(iotest.OneByteReader(bytes.NewReader(in)))
		if err != nil {
			t.Fatal(err)
		}
		if err := r.Header.Validate(rate); err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(r)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, pcm) {
			t.Fatalf("rate %d: PCM differs: %d bytes", rate, len(got))
		}
	}
}

func TestDataStopsAtDeclaredSize(t *testing.T) {
	h := good(16000)
	in := append(h.bytes(), make([]byte, 320+100)...) // trailing junk after data
	r, err := NewReader(bytes.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(r)
	if len(got) != 320 {
		t.Fatalf("read %d bytes, want 320", len(got))
	}
}

func TestPlaceholderSizesStreamToEOF(t *testing.T) {
	for _, size := range []uint32{0, 0xFFFFFFFF} {
		h := good(16000)
		h.riffSize, h.dataSize = size, size
		in := append(h.bytes(), make([]byte, 5000)...)
		r, err := NewReader(bytes.NewReader(in))
		if err != nil {
			t.Fatalf("size %#x: %v", size, err)
		}
		if r.Header.DataSize != -1 {
			t.Fatalf("size %#x: DataSize %d, want -1", size, r.Header.DataSize)
		}
		got, err := io.ReadAll(r)
		if err != nil || len(got) != 5000 {
			t.Fatalf("size %#x: %d bytes, %v", size, len(got), err)
		}
	}
}

func TestShortDataIsTruncated(t *testing.T) {
	h := good(16000)
	in := append(h.bytes(), make([]byte, 100)...)
	r, _ := NewReader(bytes.NewReader(in))
	if _, err := io.ReadAll(r); !errors.Is(err, ErrTruncated) || !errors.Is(err, ErrInvalid) {
		t.Fatalf("err %v, want ErrTruncated", err)
	}
}

func TestSkipsOtherChunks(t *testing.T) {
	h := good(8000)
	list := append([]byte("LIST"), 5, 0, 0, 0, 'a', 'b', 'c', 'd', 'e', 0) // odd size + pad byte
	h.extra = list
	h.riffSize += uint32(len(list))
	r, err := NewReader(bytes.NewReader(append(h.bytes(), make([]byte, 320)...)))
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Header.Validate(8000); err != nil {
		t.Fatal(err)
	}
}

func TestBadHeaders(t *testing.T) {
	cases := []struct {
		name string
		in   func() []byte
		want error
		rate int
	}{
		{"empty", func() []byte { return nil }, ErrTruncated, 16000},
		{"not RIFF", func() []byte { h := good(16000); h.riffID = "RIFX"; return h.bytes() }, ErrNotRIFF, 16000},
		{"short not RIFF", func() []byte { return []byte("ID3\x04\x00") }, ErrNotRIFF, 16000},
		{"not WAVE", func() []byte { h := good(16000); h.form = "AVI "; return h.bytes() }, ErrNotWAVE, 16000},
		{"missing fmt", func() []byte { h := good(16000); h.skipFmt = true; return h.bytes() }, ErrMissingFmt, 16000},
		{"float", func() []byte {
			h := good(16000)
			h.format, h.bits, h.align, h.byteRate = FormatFloat, 32, 4, 64000
			return h.bytes()
		}, ErrNotPCM, 16000},
		{"8-bit", func() []byte {
			h := good(16000)
			h.bits, h.align, h.byteRate = 8, 1, 16000
			return h.bytes()
		}, ErrBits, 16000},
		{"stereo", func() []byte {
			h := good(16000)
			h.channels, h.align, h.byteRate = 2, 4, 64000
			return h.bytes()
		}, ErrChannels, 16000},
		{"44.1 kHz", func() []byte { return good(44100).bytes() }, ErrRate, 16000},
		{"8k declared 16k", func() []byte { return good(8000).bytes() }, ErrRate, 16000},
		{"byte rate lies", func() []byte { h := good(16000); h.byteRate = 12345; return h.bytes() }, ErrSizes, 16000},
		{"block align lies", func() []byte { h := good(16000); h.align = 3; return h.bytes() }, ErrSizes, 16000},
		{"tiny fmt", func() []byte { h := good(16000); h.fmtSize = 8; return h.bytes() }, ErrSizes, 16000},
		{"data overruns RIFF", func() []byte { h := good(16000); h.dataSize = 1 << 30; return h.bytes() }, ErrSizes, 16000},
		{"odd data size", func() []byte { h := good(16000); h.dataSize = 321; h.riffSize = 36 + 321; return h.bytes() }, ErrSizes, 16000},
		{"huge junk chunk", func() []byte {
			h := good(16000)
			h.riffSize = 0xFFFFFFFF
			h.extra = append([]byte("JUNK"), 0, 0, 0, 0x40)
			return h.bytes()
		}, ErrSizes, 16000},
		{"cut in fmt", func() []byte { return good(16000).bytes()[:30] }, ErrTruncated, 16000},
		{"no data chunk", func() []byte { h := good(16000); h.skipData = true; return h.bytes() }, ErrTruncated, 16000},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h, err := ReadHeader(bytes.NewReader(c.in()))
			if err == nil {
				err = h.Validate(c.rate)
			}
			if !errors.Is(err, c.want) || !errors.Is(err, ErrInvalid) {
				t.Fatalf("err %v, want %v", err, c.want)
			}
		})
	}
}

func TestAppendHeaderRoundTrip(t *testing.T) {
	samples := []int16{0, 1, -1, 32767, -32768}
	in := Encode(samples, 16000)
	r, err := NewReader(bytes.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Header.Validate(16000); err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(r)
	for i, s := range samples {
		if v := int16(binary.LittleEndian.Uint16(got[2*i:])); v != s {
			t.Fatalf("sample %d: %d, want %d", i, v, s)
		}
	}
	stream := AppendHeader(nil, 8000, 1, -1)
	h, err := ReadHeader(bytes.NewReader(stream))
	if err != nil || h.DataSize != -1 || h.Validate(8000) != nil {
		t.Fatalf("streaming header: %+v %v", h, err)
	}
}

func FuzzParse(f *testing.F) {
	f.Add(good(16000).bytes())
	f.Add(append(good(8000).bytes(), 1, 2, 3, 4))
	h := good(16000)
	h.dataSize, h.riffSize = 0xFFFFFFFF, 0xFFFFFFFF
	f.Add(h.bytes())
	f.Add(Encode([]int16{1, 2, 3}, 8000))
	f.Add([]byte("RIFF\x00\x00\x00\x00WAVEdata\x00\x00\x00\x00"))
	f.Add([]byte("RIFF\xff\xff\xff\xffWAVEJUNK\xff\xff\xff\xff"))
	f.Fuzz(func(t *testing.T, in []byte) {
		r, err := NewReader(bytes.NewReader(in))
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("error without ErrInvalid: %v", err)
			}
			return
		}
		_ = r.Header.Validate(16000)
		got, err := io.ReadAll(r)
		if err != nil && !errors.Is(err, ErrInvalid) {
			t.Fatalf("read error without ErrInvalid: %v", err)
		}
		if len(got) > len(in) {
			t.Fatalf("read %d PCM bytes from %d input bytes", len(got), len(in))
		}
		if r.Header.DataSize >= 0 && int64(len(got)) > r.Header.DataSize {
			t.Fatalf("read %d bytes past declared %d", len(got), r.Header.DataSize)
		}
	})
}

// Decode is Encode's inverse, and refuses what Validate refuses.
func TestDecode(t *testing.T) {
	in := []int16{0, 1, -1, 32767, -32768, 1234}
	out, err := Decode(Encode(in, 16000), 16000)
	if err != nil || len(out) != len(in) {
		t.Fatalf("decoded %v, %v", out, err)
	}
	for i := range in {
		if out[i] != in[i] {
			t.Fatalf("sample %d: %d, want %d", i, out[i], in[i])
		}
	}
	stereo := append(AppendHeader(nil, 16000, 2, 8), make([]byte, 8)...)
	for name, b := range map[string][]byte{"another rate": Encode(in, 8000), "stereo": stereo, "not a WAV": []byte("hello"), "truncated": Encode(in, 16000)[:50]} {
		if _, err := Decode(b, 16000); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: %v, want an invalid WAV", name, err)
		}
	}
}
