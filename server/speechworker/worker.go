package speechworker

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/harkhq/hark/server/speech"
	"github.com/harkhq/hark/server/speech/tts"
)

// Subcommand is the hidden subcommand of harkd and hark that runs a
// worker: `harkd speech-worker synthesis|recognition`.
const Subcommand = "speech-worker"

// Roles of a worker.
const (
	RoleSynthesis   = "synthesis"
	RoleRecognition = "recognition"
)

// envRole marks a worker process: test binaries, which have no
// subcommands, find their role there (RunIfWorker), and a worker refuses
// to start workers of its own.
const envRole = "HARK_SPEECH_WORKER"

// Main runs the worker named by args (the arguments after the
// subcommand) on stdin and stdout until stdin ends.
func Main(args []string) error {
	if len(args) != 1 {
		return fmt.Errorf("usage: %s %s|%s", Subcommand, RoleSynthesis, RoleRecognition)
	}
	return Serve(args[0], os.Stdin, os.Stdout)
}

// RunIfWorker runs the worker and exits when this process was started as
// one; test binaries call it first in TestMain, so that a server in a
// test starts its workers from the test binary itself.
func RunIfWorker() {
	role := os.Getenv(envRole)
	if role == "" {
		return
	}
	if err := Serve(role, os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "speech worker:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// Serve answers the server's frames on in and out: first the init frame,
// then requests one at a time. It returns nil when in ends.
func Serve(role string, in io.Reader, out io.Writer) error {
	r := bufio.NewReaderSize(in, 64<<10)
	w := bufio.NewWriterSize(out, 64<<10)
	send := func(typ byte, payload []byte) error {
		if err := writeFrame(w, typ, payload); err != nil {
			return err
		}
		return w.Flush()
	}
	sendJSON := func(typ byte, v any) error {
		b, err := json.Marshal(v)
		if err != nil {
			return err
		}
		return send(typ, b)
	}
	init, err := readFrame(r)
	if err != nil {
		return eof(err)
	}
	if init.typ != frameInit {
		return fmt.Errorf("%w: %q before init", errFrame, init.typ)
	}
	switch role {
	case RoleSynthesis:
		return serveSynthesis(r, send, sendJSON)
	case RoleRecognition:
		var cfg speech.Config
		if err := json.Unmarshal(init.payload, &cfg); err != nil {
			return fmt.Errorf("%w: init: %v", errFrame, err)
		}
		return serveRecognition(cfg, r, send, sendJSON)
	}
	return fmt.Errorf("unknown speech worker role %q", role)
}

func eof(err error) error {
	if err == io.EOF {
		return nil
	}
	return err
}

type sender func(typ byte, payload []byte) error
type jsonSender func(typ byte, v any) error

// serveSynthesis speaks one sentence per speak frame. A reader goroutine
// keeps reading while espeak-ng runs, so that a cancel frame stops it.
func serveSynthesis(r *bufio.Reader, send sender, sendJSON jsonSender) error {
	// libespeak-ng 1.51 probes for an audio device (pcaudiolib opens
	// PulseAudio, which autospawns a daemon and writes a runtime directory
	// under $XDG_CONFIG_HOME) even in synchronous mode; this process only
	// returns samples, so it points PulseAudio at no server.
	os.Setenv("PULSE_SERVER", "unix:/nonexistent")
	engine, err := tts.NewInProcess()
	if err != nil {
		return sendJSON(frameError, toWire(err))
	}
	if err := sendJSON(frameReady, readyInfo{Protocol: protocolVersion}); err != nil {
		return err
	}
	frames := make(chan frame)
	readErr := make(chan error, 1)
	go func() {
		defer close(frames)
		for {
			f, err := readFrame(r)
			if err != nil {
				readErr <- eof(err)
				return
			}
			frames <- f
		}
	}()
	cancel := func() {}
	defer func() { cancel() }()
	// The loop sends the reply itself, so it is idle before the server
	// can send the next request.
	done := make(chan frame, 1)
	busy := false
	for {
		select {
		case f, ok := <-frames:
			if !ok {
				cancel()
				if busy {
					<-done
				}
				return <-readErr
			}
			switch f.typ {
			case frameCancel:
				cancel()
			case frameSpeak:
				if busy {
					return fmt.Errorf("%w: speak while speaking", errFrame)
				}
				var req speakRequest
				if err := json.Unmarshal(f.payload, &req); err != nil {
					return fmt.Errorf("%w: speak: %v", errFrame, err)
				}
				ctx, stop := context.WithCancel(context.Background())
				cancel = stop
				busy = true
				go func() {
					pcm, err := engine.Speak(ctx, req.Voice, req.Text)
					if err != nil {
						b, _ := json.Marshal(toWire(err))
						done <- frame{frameError, b}
						return
					}
					done <- frame{framePCM, samplesToBytes(pcm)}
				}()
			default:
				return fmt.Errorf("%w: %q in a synthesis worker", errFrame, f.typ)
			}
		case reply := <-done:
			busy = false
			cancel()
			if err := send(reply.typ, reply.payload); err != nil {
				return err
			}
		}
	}
}

// serveRecognition decodes one utterance at a time with a one-slot
// Recognizer. Audio frames are handed to the decoders as they come; an
// error while writing is kept and answered when the utterance ends, since
// the server sends audio without waiting for replies.
func serveRecognition(cfg speech.Config, r *bufio.Reader, send sender, sendJSON jsonSender) error {
	cfg.Slots = 1
	rec, err := speech.New(cfg)
	if err != nil {
		return sendJSON(frameError, toWire(err))
	}
	defer rec.Close()
	if err := sendJSON(frameReady, readyInfo{Protocol: protocolVersion, Dropped: rec.Grammar().Dropped}); err != nil {
		return err
	}
	var u *speech.Utterance
	var writeErr error
	var estimate bool
	warps := make(chan warpScores, 1)
	for {
		f, err := readFrame(r)
		if err != nil {
			if u != nil {
				u.Abort()
			}
			return eof(err)
		}
		switch f.typ {
		case frameOpen:
			if u != nil {
				return fmt.Errorf("%w: open while an utterance is open", errFrame)
			}
			var req openRequest
			if err := json.Unmarshal(f.payload, &req); err != nil {
				return fmt.Errorf("%w: open: %v", errFrame, err)
			}
			estimate = req.Prior != nil && req.Prior.Estimate
			opt := speech.Options{Prior: req.Prior}
			if estimate {
				opt.Warps = func(scores []float64, frames int) { warps <- warpScores{scores, frames} }
			}
			u, err = rec.StartWith(context.Background(), req.Lang, req.Rate, opt)
			writeErr = nil
			if err != nil {
				err = sendJSON(frameError, toWire(err))
			} else {
				err = sendJSON(frameReady, readyInfo{Protocol: protocolVersion})
			}
		case frameAudio:
			if u == nil {
				return fmt.Errorf("%w: audio outside an utterance", errFrame)
			}
			if writeErr == nil {
				_, writeErr = u.Write(f.payload)
			}
		case frameFinish:
			if u == nil {
				return fmt.Errorf("%w: finish outside an utterance", errFrame)
			}
			res, ferr := u.Finish()
			u.Abort()
			u = nil
			switch {
			case writeErr != nil:
				err = sendJSON(frameError, toWire(writeErr))
			case ferr != nil:
				err = sendJSON(frameError, toWire(ferr))
			default:
				err = sendJSON(frameResult, res)
			}
			if estimate && ferr == nil {
				// The estimate runs once the result is on its way: the
				// server answers meanwhile, and waits for this frame only
				// to give the worker its next utterance.
				w := <-warps
				if err == nil && writeErr == nil {
					err = sendJSON(frameWarps, w)
				}
			}
		case frameAbort:
			if u != nil {
				u.Abort()
				u = nil
			}
			err = send(frameAborted, nil)
		default:
			return fmt.Errorf("%w: %q in a recognition worker", errFrame, f.typ)
		}
		if err != nil {
			return err
		}
	}
}

func samplesToBytes(pcm []int16) []byte {
	b := make([]byte, 2*len(pcm))
	for i, v := range pcm {
		binary.LittleEndian.PutUint16(b[2*i:], uint16(v))
	}
	return b
}

func bytesToSamples(b []byte) ([]int16, error) {
	if len(b)%2 != 0 {
		return nil, errors.New("speechworker: odd PCM byte count")
	}
	pcm := make([]int16, len(b)/2)
	for i := range pcm {
		pcm[i] = int16(binary.LittleEndian.Uint16(b[2*i:]))
	}
	return pcm, nil
}
