package audio

import (
	"encoding/binary"
	"fmt"
)

// PlayPCM plays 16-bit little-endian mono PCM at rate (a synthesised sound such as the alarm
// tone, or a kept recording) on the same output as the MP3 answers, so it can be stopped,
// paused and measured like them. It returns at once.
func (p *Player) PlayPCM(pcm []byte, rate int) (*Playback, error) {
	if rate < 8000 || rate > 192000 {
		return nil, fmt.Errorf("audio: PCM rate %d Hz is outside 8000..192000", rate)
	}
	return p.start(newPCMStream(pcm, rate, OutputRate), nil, -1), nil
}

// newPCMStream feeds mono PCM through the same queue, resampler and bookkeeping as a decoded
// MP3, so a Playback cannot tell the two apart.
func newPCMStream(pcm []byte, rate, outRate int) *mp3Stream {
	s := newStream(outRate)
	s.srcRate = rate
	s.inBytes = int64(len(pcm))
	go s.feedPCM(pcm, rate)
	return s
}

// feedPCM duplicates each mono sample into both channels and queues the result, a frame's
// worth at a time so that Stop takes effect within one chunk.
func (s *mp3Stream) feedPCM(pcm []byte, rate int) {
	rs := newStereoResampler(rate, s.outRate)
	stereo := make([]byte, 0, decodeChunk)
	n := len(pcm) &^ 1
	for i := 0; i < n; i += 2 {
		v := binary.LittleEndian.Uint16(pcm[i:])
		stereo = binary.LittleEndian.AppendUint16(stereo, v)
		stereo = binary.LittleEndian.AppendUint16(stereo, v)
		if len(stereo) == cap(stereo) {
			if !s.enqueue(rs.push(stereo), int64(len(stereo)/4)) {
				return
			}
			stereo = stereo[:0]
		}
	}
	if len(stereo) > 0 && !s.enqueue(rs.push(stereo), int64(len(stereo)/4)) {
		return
	}
	s.enqueue(rs.flush(), 0)
	s.mu.Lock()
	s.finished = true
	s.mu.Unlock()
	notify(s.dataReady)
}
