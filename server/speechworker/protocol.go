package speechworker

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/harkhq/hark/server/apierr"
	"github.com/harkhq/hark/server/speech"
)

// Frame types (see the package documentation).
const (
	frameInit    = 'I' // server → worker: JSON configuration of the role
	frameReady   = 'R' // worker → server: JSON readyInfo; also "utterance open"
	frameError   = 'E' // worker → server: JSON wireError, ends a request
	frameSpeak   = 'S' // server → worker: JSON speakRequest
	framePCM     = 'P' // worker → server: little-endian 16-bit samples, ends a speak request
	frameCancel  = 'C' // server → worker: stop the speak request in progress
	frameOpen    = 'O' // server → worker: JSON openRequest, begins an utterance
	frameAudio   = 'A' // server → worker: PCM bytes of the open utterance
	frameFinish  = 'F' // server → worker: the utterance's audio is complete
	frameResult  = 'T' // worker → server: JSON speech.Result, ends an utterance (but a warp estimate)
	frameWarps   = 'W' // worker → server: JSON warpScores after the result of an utterance whose prior asked for them
	frameAbort   = 'X' // server → worker: abandon the utterance
	frameAborted = 'K' // worker → server: the utterance is abandoned
)

// maxFrame bounds a frame's payload: the longest sentence's PCM (5000
// characters at espeak-ng's pace is about 6 minutes, 16 MB) fits.
const maxFrame = 64 << 20

// protocolVersion is checked in the ready frame, so a worker from another
// build is refused rather than misread.
const protocolVersion = 2

type frame struct {
	typ     byte
	payload []byte
}

// writeFrame writes the 4-byte big-endian length of type and payload,
// the type byte and the payload in one write.
func writeFrame(w io.Writer, typ byte, payload []byte) error {
	buf := make([]byte, 5+len(payload))
	binary.BigEndian.PutUint32(buf, uint32(1+len(payload)))
	buf[4] = typ
	copy(buf[5:], payload)
	_, err := w.Write(buf)
	return err
}

func writeJSON(w io.Writer, typ byte, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return writeFrame(w, typ, b)
}

var errFrame = errors.New("speechworker: malformed frame")

func readFrame(r *bufio.Reader) (frame, error) {
	var hdr [4]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return frame{}, err
	}
	n := binary.BigEndian.Uint32(hdr[:])
	if n == 0 || n > maxFrame+1 {
		return frame{}, fmt.Errorf("%w: length %d", errFrame, n)
	}
	buf := make([]byte, n)
	if _, err := io.ReadFull(r, buf); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return frame{}, err
	}
	return frame{typ: buf[0], payload: buf[1:]}, nil
}

// wireError carries an error across the pipe: an *apierr.Error keeps its
// status and code; anything else only its text.
type wireError struct {
	Status      int    `json:"status,omitempty"`
	Code        string `json:"code,omitempty"`
	Description string `json:"description"`
}

func toWire(err error) wireError {
	if e, ok := apierr.As(err); ok {
		return wireError{Status: e.Status, Code: e.Code, Description: e.Description}
	}
	return wireError{Description: err.Error()}
}

func fromWire(payload []byte) error {
	var w wireError
	if err := json.Unmarshal(payload, &w); err != nil {
		return fmt.Errorf("%w: error frame: %v", errFrame, err)
	}
	if w.Status != 0 {
		return &apierr.Error{Status: w.Status, Code: w.Code, Description: w.Description}
	}
	return errors.New(w.Description)
}

// readyInfo answers the init frame.
type readyInfo struct {
	Protocol int `json:"protocol"`
	// Dropped is what the recogniser's grammar left out (speech.Grammar).
	Dropped []string `json:"dropped,omitempty"`
}

type speakRequest struct {
	Voice string `json:"voice"`
	Text  string `json:"text"`
}

// warpScores is an utterance's warp estimate (speech.Options.Warps).
type warpScores struct {
	Scores []float64 `json:"scores,omitempty"`
	Frames int       `json:"frames,omitempty"`
}

type openRequest struct {
	Lang string `json:"lang"`
	Rate int    `json:"rate"`
	// Prior is the speaker's cepstral mean from earlier utterances
	// (speech.Options.Prior); the result carries the new one (Mean).
	Prior *speech.Prior `json:"prior,omitempty"`
}
