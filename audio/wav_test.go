package audio

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"
)

func TestWAVRoundTrip(t *testing.T) {
	pcm := countingBytes(1000)
	got, rate, err := DecodeWAV(bytes.NewReader(EncodeWAV(pcm, 16000)))
	if err != nil {
		t.Fatal(err)
	}
	if rate != 16000 || !bytes.Equal(got, pcm) {
		t.Fatalf("round trip: rate %d, %d bytes (want 16000, %d)", rate, len(got), len(pcm))
	}
	if h := EncodeWAV(nil, 22050); len(h) != 44 || binary.LittleEndian.Uint32(h[4:]) != 36 {
		t.Fatalf("empty file header %x", h)
	}
}

func TestWAVStreamHeaderIsClampedToTheData(t *testing.T) {
	h := WAVStreamHeader(16000)
	if len(h) != 44 || binary.LittleEndian.Uint32(h[40:]) != 0xFFFFFFFF || binary.LittleEndian.Uint32(h[4:]) != 0xFFFFFFFF {
		t.Fatalf("stream header %x", h)
	}
	pcm := countingBytes(333)
	got, rate, err := DecodeWAV(bytes.NewReader(append(h, pcm...)))
	if err != nil || rate != 16000 || !bytes.Equal(got, pcm) {
		t.Fatalf("streamed WAV: %v, rate %d, %d bytes of %d", err, rate, len(got), len(pcm))
	}
	// An odd trailing byte (a stream cut mid-sample) is dropped.
	got, _, err = DecodeWAV(bytes.NewReader(append(append(h, pcm...), 7)))
	if err != nil || !bytes.Equal(got, pcm) {
		t.Fatalf("odd tail: %v, %d bytes", err, len(got))
	}
}

func TestWAVSkipsOtherChunks(t *testing.T) {
	pcm := countingBytes(50)
	full := EncodeWAV(pcm, 22050)
	// RIFF header, an odd-sized LIST chunk (padded), then fmt and data.
	var b bytes.Buffer
	b.Write(full[:12])
	b.WriteString("LIST")
	binary.Write(&b, binary.LittleEndian, uint32(3))
	b.Write([]byte{1, 2, 3, 0})
	b.Write(full[12:])
	got, rate, err := DecodeWAV(&b)
	if err != nil || rate != 22050 || !bytes.Equal(got, pcm) {
		t.Fatalf("with a LIST chunk: %v, rate %d, %d bytes", err, rate, len(got))
	}
}

func TestWAVRejectsWhatItCannotPlay(t *testing.T) {
	good := EncodeWAV(countingBytes(10), 16000)
	with := func(off int, v uint16) []byte {
		b := append([]byte(nil), good...)
		binary.LittleEndian.PutUint16(b[off:], v)
		return b
	}
	cases := map[string][]byte{
		"empty":         nil,
		"short":         good[:10],
		"not RIFF":      append([]byte("RIFX"), good[4:]...),
		"stereo":        with(22, 2),
		"8-bit":         with(34, 8),
		"float":         with(20, 3),
		"rate 0":        append(append(append([]byte(nil), good[:24]...), 0, 0, 0, 0), good[28:]...),
		"no data chunk": good[:36],
		"data first":    append(append(append([]byte(nil), good[:12]...), good[36:]...), good[12:36]...),
		"huge fmt":      with(16, 0xFFFF),
		"cut chunk":     append(append(append([]byte(nil), good[:12]...), "JUNK\xff\x00\x00\x00"...), 1, 2),
	}
	for name, in := range cases {
		if _, _, err := DecodeWAV(bytes.NewReader(in)); !errors.Is(err, ErrBadWAV) {
			t.Errorf("%s: %v, want ErrBadWAV", name, err)
		}
	}
}

func FuzzDecodeWAV(f *testing.F) {
	f.Add(EncodeWAV(countingBytes(20), 16000))
	f.Add(append(WAVStreamHeader(22050), 1, 2, 3))
	f.Add([]byte("RIFF\x00\x00\x00\x00WAVEfmt \x10\x00\x00\x00"))
	f.Add([]byte("RIFF\xff\xff\xff\xffWAVEdata\xff\xff\xff\xff"))
	f.Fuzz(func(t *testing.T, data []byte) {
		pcm, rate, err := DecodeWAV(bytes.NewReader(data))
		if err != nil {
			return
		}
		if len(pcm)%2 != 0 || len(pcm) > len(data) || rate < 1000 || rate > 384000 {
			t.Fatalf("accepted %d bytes of PCM at %d Hz from %d bytes", len(pcm), rate, len(data))
		}
		// What was accepted encodes back to a file that decodes to the same samples.
		again, rate2, err := DecodeWAV(bytes.NewReader(EncodeWAV(pcm, rate)))
		if err != nil || rate2 != rate || !bytes.Equal(again, pcm) {
			t.Fatalf("re-encoding: %v", err)
		}
	})
}

func countingBytes(samples int) []byte {
	b := make([]byte, 2*samples)
	for i := 0; i < samples; i++ {
		binary.LittleEndian.PutUint16(b[2*i:], uint16(i*37))
	}
	return b
}
