package speechworker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/harkhq/hark/server/apierr"
	"github.com/harkhq/hark/server/speech"
)

// Recognition is a pool of recognition workers, each with one decoder
// pair; it is the speech.Engine of the server.
type Recognition struct {
	*Pool
	maxBytes int64
}

// NewRecognition starts a pool of recognition workers configured with cfg
// (its Slots is the pool's Size when opt.Size is zero; each worker has
// one slot). The first worker starts at once.
func NewRecognition(cfg speech.Config, opt Options) *Recognition {
	if opt.Size <= 0 {
		opt.Size = cfg.Slots
	}
	if cfg.MaxBytes <= 0 {
		cfg.MaxBytes = 10 << 20 // as speech.New
	}
	return &Recognition{newPool(RoleRecognition, "speech recognition", cfg, opt), cfg.MaxBytes}
}

// Dropped is what the workers' grammar left out (speech.Grammar.Dropped),
// once Ready has returned.
func (r *Recognition) Dropped() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.readyInfo.Dropped
}

// Idle reports how many more utterances could be decoded at once.
func (r *Recognition) Idle() int {
	s := r.Stats()
	return s.Size - s.InUse
}

// Slots reports the pool size.
func (r *Recognition) Slots() int { return r.opt.Size }

// errRecognitionFailed is the answer when an utterance killed two workers.
var errRecognitionFailed = apierr.Unavailablef("speech recognition failed twice; try again")

// Open is OpenWith without options.
func (r *Recognition) Open(ctx context.Context, lang string, rate int) (speech.Stream, error) {
	return r.OpenWith(ctx, lang, rate, speech.Options{})
}

// OpenWith begins an utterance on a worker. The audio written is sent to
// the worker at once (it decodes while the audio arrives) and kept: when
// the worker dies, the utterance is replayed once on another worker; a
// second death answers 503 Unavailable. Cancelling ctx aborts the
// utterance. The options' prior goes to the worker with the open request.
func (r *Recognition) OpenWith(ctx context.Context, lang string, rate int, opt speech.Options) (speech.Stream, error) {
	if err := speech.Available(lang); err != nil {
		return nil, err
	}
	if rate != 8000 && rate != 16000 {
		return nil, apierr.InvalidArgumentf("sample rate %d Hz is not supported (8000 or 16000)", rate)
	}
	u := &utterance{r: r, ctx: ctx, open: openRequest{Lang: lang, Rate: rate, Prior: opt.Prior}, warps: opt.Warps}
	u.mu.Lock()
	defer u.mu.Unlock()
	if err := u.begin(); err != nil {
		return nil, err
	}
	u.stop = context.AfterFunc(ctx, u.Abort)
	return u, nil
}

// utterance is a speech.Stream decoded by a worker.
type utterance struct {
	r     *Recognition
	ctx   context.Context
	open  openRequest
	mu    sync.Mutex
	w     *worker // nil once ended
	audio []byte  // everything written, for a replay
	tries int
	ended error
	stop  func() bool
	warps func(scores []float64, frames int) // speech.Options.Warps
}

var errEnded = errors.New("speechworker: utterance already finished or aborted")

// begin takes a worker and opens the utterance there, replaying the
// audio so far; a worker that dies while doing so is replaced once.
// u.mu is held.
func (u *utterance) begin() error {
	for {
		u.tries++
		w, err := u.r.acquire(u.ctx)
		if err != nil {
			return err
		}
		err = u.replay(w)
		if err == nil {
			u.w = w
			return nil
		}
		if !errors.Is(err, errDied) {
			if errors.Is(err, errHung) {
				u.r.died(w, "hung", u.attrs()...)
			} else {
				u.r.release(w)
			}
			return err
		}
		if err := u.crashed(w); err != nil {
			return err
		}
	}
}

// crashed logs a worker's death and says whether the utterance may try
// again. u.mu is held.
func (u *utterance) crashed(w *worker) error {
	u.r.died(w, "crashed", u.attrs()...)
	if u.tries >= 2 {
		return errRecognitionFailed
	}
	return u.ctx.Err()
}

func (u *utterance) attrs() []any {
	ms := int64(len(u.audio)/2) * 1000 / int64(u.open.Rate)
	return []any{"audio_bytes", len(u.audio), "audio_ms", ms, "attempt", u.tries}
}

// replay opens the utterance on w and sends the audio kept so far.
func (u *utterance) replay(w *worker) error {
	if err := w.sendJSON(frameOpen, u.open); err != nil {
		return errDied
	}
	f, err := w.await(context.Background(), replyTimeout)
	if err != nil {
		return deadOrHung(err)
	}
	switch f.typ {
	case frameReady:
	case frameError:
		return fromWire(f.payload)
	default:
		return errHung
	}
	for rest := u.audio; len(rest) > 0; {
		n := min(len(rest), 32<<10)
		if err := w.send(frameAudio, rest[:n]); err != nil {
			return errDied
		}
		rest = rest[n:]
	}
	return nil
}

func deadOrHung(err error) error {
	if errors.Is(err, errDied) {
		return errDied
	}
	return errHung
}

// Write sends PCM to the worker as it arrives.
func (u *utterance) Write(pcm []byte) (int, error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.w == nil {
		return 0, u.endedErr()
	}
	// Checked here too, so the audio kept for a replay stays bounded.
	if int64(len(u.audio)+len(pcm)) > u.r.maxBytes {
		err := apierr.TooLargef("audio longer than %d bytes", u.r.maxBytes)
		u.abort(err)
		return 0, err
	}
	u.audio = append(u.audio, pcm...)
	if err := u.w.send(frameAudio, pcm); err != nil {
		if err := u.retry(); err != nil {
			return 0, err
		}
	}
	return len(pcm), nil
}

// retry replaces a dead worker, or ends the utterance. u.mu is held.
func (u *utterance) retry() error {
	w := u.w
	u.w = nil
	if err := u.crashed(w); err != nil {
		u.end(err)
		return err
	}
	if err := u.begin(); err != nil {
		u.end(err)
		return err
	}
	return nil
}

func (u *utterance) end(why error) {
	u.ended = why
	if u.stop != nil {
		u.stop()
	}
}

func (u *utterance) endedErr() error {
	if u.ended != nil {
		return u.ended
	}
	return errEnded
}

// Finish waits for the worker's result.
func (u *utterance) Finish() (speech.Result, error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	for {
		if u.w == nil {
			return speech.Result{}, u.endedErr()
		}
		var f frame
		err := errDied // a worker that cannot be written to has died
		if u.w.send(frameFinish, nil) == nil {
			f, err = u.w.await(context.Background(), replyTimeout)
		}
		if err != nil {
			if errors.Is(deadOrHung(err), errHung) {
				u.r.died(u.w, "hung", u.attrs()...)
				u.w = nil
				u.end(errHung)
				return speech.Result{}, errHung
			}
			if err := u.retry(); err != nil {
				return speech.Result{}, err
			}
			continue
		}
		w := u.w
		u.w = nil
		u.end(errEnded)
		switch f.typ {
		case frameResult:
			if u.open.Prior != nil && u.open.Prior.Estimate {
				go u.awaitWarps(w)
			} else {
				u.r.release(w)
			}
			var res speech.Result
			if err := json.Unmarshal(f.payload, &res); err != nil {
				return speech.Result{}, fmt.Errorf("%w: result: %v", errFrame, err)
			}
			return res, nil
		case frameError:
			u.r.release(w)
			return speech.Result{}, fromWire(f.payload)
		}
		u.r.died(w, "hung", u.attrs()...)
		return speech.Result{}, errHung
	}
}

// awaitWarps reads the warp estimate the worker sends after the result of
// an utterance whose prior asked for one, hands it to the caller
// (speech.Options.Warps; nil scores when it did not come), and returns the
// worker to the pool. The worker's next utterance waits for it, the
// answer does not.
func (u *utterance) awaitWarps(w *worker) {
	var ws warpScores
	f, err := w.await(context.Background(), replyTimeout)
	switch {
	case errors.Is(err, errDied):
		u.r.died(w, "crashed", u.attrs()...)
	case err != nil:
		u.r.died(w, "hung", u.attrs()...)
	case f.typ != frameWarps || json.Unmarshal(f.payload, &ws) != nil:
		u.r.died(w, "hung", u.attrs()...) // out of step with the protocol
		ws = warpScores{}
	default:
		u.r.release(w)
	}
	if u.warps != nil {
		u.warps(ws.Scores, ws.Frames)
	}
}

// Abort abandons the utterance; the worker returns to the pool once it
// has acknowledged. It is safe to call at any time, more than once.
func (u *utterance) Abort() {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.w == nil {
		return
	}
	why := errEnded
	if u.ctx.Err() != nil {
		why = fmt.Errorf("speech: utterance cancelled: %w", context.Cause(u.ctx))
	}
	u.abort(why)
}

// abort ends the utterance for why and gives the worker back once it has
// acknowledged. u.mu is held and u.w is set.
func (u *utterance) abort(why error) {
	w := u.w
	u.w = nil
	u.end(why)
	if w.send(frameAbort, nil) != nil {
		u.r.died(w, "crashed", u.attrs()...)
		return
	}
	// The caller (a cancelled request) does not wait for the worker.
	attrs := u.attrs()
	go func() {
		start := time.Now()
		f, err := w.await(context.Background(), replyTimeout)
		switch {
		case err == nil && f.typ == frameAborted:
			u.r.release(w)
		case errors.Is(err, errDied):
			u.r.died(w, "crashed", attrs...)
		default:
			u.r.died(w, "hung", append(attrs, "waited", time.Since(start))...)
		}
	}()
}
