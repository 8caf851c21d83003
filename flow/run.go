package flow

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/harkhq/hark/audio"
	"github.com/harkhq/hark/client"
)

// Pace is how fast spoken turns are uploaded.
type Pace string

const (
	// RealTime uploads audio as a microphone delivers it, so the waterfall shows what a
	// user waits for after the last word.
	RealTime Pace = "real"
	// Fast uploads as fast as the connection takes it: the same requests and checks in a
	// fraction of the time, for test suites; the waterfall then shows processing alone.
	Fast Pace = "fast"
)

// DefaultTimeout bounds one turn, from its synthesis to the end of the spoken answer.
const DefaultTimeout = 30 * time.Second

// frame is how much audio a paced upload sends at a time: the capture's 20 ms.
const frame = 20 * time.Millisecond

// Runner plays flows against one platform. It is not safe for concurrent use.
type Runner struct {
	// Client is signed in; flows in another language than its own go through a copy with
	// the flow's language and the same token.
	Client  *client.Client
	Pace    Pace          // RealTime when empty
	Timeout time.Duration // per turn; DefaultTimeout when zero

	byLang map[string]*client.Client
	spoke  bool // a spoken turn has been answered: the platform's speech engines are up
}

// Result is what one run of a flow showed.
type Result struct {
	Name       string       `json:"name"`
	File       string       `json:"file"`
	Lang       string       `json:"lang"`
	Voice      string       `json:"voice,omitempty"` // of its 'say' turns: a flite voice, or espeak-ng (Spanish)
	Rate       int          `json:"rate"`
	Pace       Pace         `json:"pace"`
	Pass       bool         `json:"pass"`
	DurationMs float64      `json:"durationMs"`
	Turns      []TurnResult `json:"turns"`
}

// TurnResult is one turn's outcome. Error says why a turn could not run (a missing file,
// a refusal, a timeout); Failures list the expectations that did not hold.
type TurnResult struct {
	N        int             `json:"turn"` // from 1
	Line     int             `json:"line"`
	Kind     Kind            `json:"kind"`
	Input    string          `json:"input"` // what was said or typed, or the WAV path
	Pass     bool            `json:"pass"`
	Error    string          `json:"error,omitempty"`
	Failures []string        `json:"failures,omitempty"`
	Heard    string          `json:"heard"`
	Answer   string          `json:"answer"`
	Actions  []client.Action `json:"actions"`
	Ref      int64           `json:"ref,omitempty"`
	Timing   Waterfall       `json:"timing"`
}

// Waterfall is when a turn's milestones came, in milliseconds from the request's start (a
// zero field was not reached). For a spoken turn: the end of the upload, the answer's
// header (recognition and dialogue done), the first and last byte of the spoken answer.
// For a typed turn, Answered alone.
type Waterfall struct {
	AudioMs      float64 `json:"audioMs,omitempty"` // length of the audio sent
	UploadEndMs  float64 `json:"uploadEndMs,omitempty"`
	RecognisedMs float64 `json:"recognisedMs,omitempty"`
	FirstByteMs  float64 `json:"firstByteMs,omitempty"`
	AnswerEndMs  float64 `json:"answerEndMs,omitempty"`
	AnsweredMs   float64 `json:"answeredMs,omitempty"`
	AnswerBytes  int64   `json:"answerBytes,omitempty"` // of the spoken answer (MP3)
	// SpeechWaitMs is how long the platform kept the turn waiting for its speech engines to
	// start, from when it took the request, so partly during the upload (the first spoken turn
	// after it starts; on a new machine the speech models are built then, about 20 s once).
	SpeechWaitMs float64 `json:"speechWaitMs,omitempty"`
}

// Run plays f once, its 'say' turns in voice and its spoken turns at rate ("" and 0: the
// flow's own). The conversation's ref goes from each answer to the next turn, as the
// console sends it. Every turn runs, whatever happened to the one before, unless ctx ends.
func (r *Runner) Run(ctx context.Context, f *Flow, voice string, rate int) *Result {
	if voice == "" {
		voice = f.Voice
	}
	if rate == 0 {
		rate = f.Rate
	}
	res := &Result{Name: f.Name, File: f.Path, Lang: f.Lang, Rate: rate, Pace: r.pace(), Pass: true, Turns: []TurnResult{}}
	switch {
	case f.Speaks() && f.Lang == "es":
		res.Voice = "espeak-ng"
	case f.Speaks():
		res.Voice = voice
	}
	start := time.Now()
	c, cerr := r.clientFor(f.Lang)
	var ref int64
	for i, t := range f.Turns {
		tr := TurnResult{N: i + 1, Line: t.Line, Kind: t.Kind, Input: t.Text, Actions: []client.Action{}}
		switch {
		case ctx.Err() != nil:
			tr.Error = "not run: interrupted"
		case cerr != nil:
			tr.Error = cerr.Error()
		default:
			r.turn(ctx, c, f, t, voice, rate, ref, &tr)
			if tr.Ref != 0 {
				ref = tr.Ref
			}
		}
		tr.Pass = tr.Error == "" && len(tr.Failures) == 0
		res.Pass = res.Pass && tr.Pass
		res.Turns = append(res.Turns, tr)
	}
	res.DurationMs = ms(time.Since(start))
	return res
}

func (r *Runner) pace() Pace {
	if r.Pace == "" {
		return RealTime
	}
	return r.Pace
}

func (r *Runner) clientFor(lang string) (*client.Client, error) {
	if r.Client.Config().Language == lang {
		return r.Client, nil
	}
	if c := r.byLang[lang]; c != nil {
		return c, nil
	}
	cfg := r.Client.Config()
	cfg.Language = lang
	c, err := client.New(cfg)
	if err != nil {
		return nil, err
	}
	c.SetToken(r.Client.Token())
	c.SetRequestInfo(r.Client.RequestInfo())
	if r.byLang == nil {
		r.byLang = map[string]*client.Client{}
	}
	r.byLang[lang] = c
	return c, nil
}

func (r *Runner) turn(ctx context.Context, c *client.Client, f *Flow, t Turn, voice string, rate int, ref int64, tr *TurnResult) {
	timeout := r.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	tctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	phase := "while waiting for the answer"
	var resp *client.DialogueResponse
	var err error
	if t.Kind == Type {
		start := time.Now()
		resp, err = c.Dialogue.Text(tctx, t.Text, ref)
		if err == nil {
			tr.Timing.AnsweredMs = ms(time.Since(start))
		}
	} else {
		phase = "while reading the WAV file"
		if t.Kind == Say {
			phase = "while synthesising the speech"
		}
		var pcm []byte
		pcm, err = r.audioFor(tctx, f, t, voice, rate)
		if err == nil {
			resp, err = r.stream(tctx, c, pcm, rate, ref, &tr.Timing)
			phase = streamPhase(tr.Timing)
		}
	}
	if err != nil {
		switch {
		case ctx.Err() != nil:
			tr.Error = "interrupted " + phase
		case errors.Is(tctx.Err(), context.DeadlineExceeded):
			tr.Error = fmt.Sprintf("timed out after %s, %s", timeout, phase)
			if t.Kind != Type && !r.spoke && tr.Timing.UploadEndMs > 0 {
				tr.Error += " (a platform's first spoken turn waits for its speech engines to start, " +
					"longer on a new machine; --timeout gives each turn more time)"
			}
		default:
			tr.Error = describe(err)
		}
		return
	}
	r.spoke = r.spoke || t.Kind != Type
	tr.Heard = resp.Responses.Query
	tr.Answer = resp.Responses.Text
	tr.Actions = resp.NextActions
	tr.Ref = resp.Context.Ref
	tr.Failures = t.Expect.check(resp)
}

// streamPhase names how far a spoken turn got, for a timeout's message.
func streamPhase(w Waterfall) string {
	switch {
	case w.UploadEndMs == 0:
		return "while uploading the audio"
	case w.RecognisedMs == 0:
		return "while waiting for the answer after the upload"
	}
	return "while reading the spoken answer"
}

func describe(err error) string {
	var api *client.APIError
	if errors.As(err, &api) {
		return fmt.Sprintf("the platform refused: %s (HTTP %d): %s", api.Code, api.Status, api.Description)
	}
	return err.Error()
}

// audioFor gives a spoken turn's PCM at rate: synthesised for 'say', read for 'wav', and
// resampled when its own rate differs.
func (r *Runner) audioFor(ctx context.Context, f *Flow, t Turn, voice string, rate int) ([]byte, error) {
	var pcm []byte
	var from int
	var err error
	if t.Kind == Say {
		pcm, from, err = synthesize(ctx, f.Lang, voice, t.Text)
	} else {
		pcm, from, err = readWAV(f.Path, t.Text)
	}
	if err != nil {
		return nil, err
	}
	return audio.ResampleMono(pcm, from, rate), nil
}

// stream sends one spoken turn through /query/audio/stream and reads the spoken answer to
// its end, noting the waterfall.
func (r *Runner) stream(ctx context.Context, c *client.Client, pcm []byte, rate int, ref int64, w *Waterfall) (*client.DialogueResponse, error) {
	w.AudioMs = ms(time.Duration(len(pcm)) * time.Second / time.Duration(2*rate))
	start := time.Now()
	body := &pacedUpload{ctx: ctx, header: audio.WAVStreamHeader(rate), pcm: pcm, bytesPerSec: 2 * rate,
		realTime: r.pace() == RealTime, start: start}
	defer func() {
		if end := body.ended(); !end.IsZero() {
			w.UploadEndMs = ms(end.Sub(start))
		}
	}()
	// The explanation says how long the turn waited for the platform's speech engines.
	ans, err := c.Dialogue.Stream(ctx, body, rate, ref, client.Explain())
	if err != nil {
		return nil, err
	}
	defer ans.Audio.Close()
	w.RecognisedMs = ms(time.Since(start))
	if x := ans.Answer.Explain; x != nil {
		w.SpeechWaitMs = float64(x.SpeechWaitMs)
	}
	buf := make([]byte, 32<<10)
	for {
		n, err := ans.Audio.Read(buf)
		if n > 0 && w.FirstByteMs == 0 {
			w.FirstByteMs = ms(time.Since(start))
		}
		w.AnswerBytes += int64(n)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("reading the spoken answer: %w", err)
		}
	}
	w.AnswerEndMs = ms(time.Since(start))
	return &ans.Answer, nil
}

// pacedUpload is a WAV stream that hands out its PCM no faster than it would be spoken
// (when realTime), in 20 ms frames, as the console's microphone does.
type pacedUpload struct {
	ctx         context.Context
	header, pcm []byte
	bytesPerSec int
	realTime    bool
	start       time.Time

	mu  sync.Mutex // the transport reads on its own goroutine; ended is asked on ours
	pos int        // into header+pcm
	end time.Time
}

func (p *pacedUpload) Read(b []byte) (int, error) {
	p.mu.Lock()
	pos := p.pos
	p.mu.Unlock()
	if pos < len(p.header) {
		n := copy(b, p.header[pos:])
		p.advance(n)
		return n, nil
	}
	off := pos - len(p.header)
	if off >= len(p.pcm) {
		return 0, io.EOF
	}
	n := min(len(b), len(p.pcm)-off)
	if p.realTime {
		n = min(n, int(int64(p.bytesPerSec)*int64(frame)/int64(time.Second)))
		// A frame leaves once its last sample has been spoken.
		due := p.start.Add(time.Duration(off+n) * time.Second / time.Duration(p.bytesPerSec))
		if wait := time.Until(due); wait > 0 {
			t := time.NewTimer(wait)
			select {
			case <-t.C:
			case <-p.ctx.Done():
				t.Stop()
				return 0, p.ctx.Err()
			}
		}
	}
	copy(b, p.pcm[off:off+n])
	p.advance(n)
	return n, nil
}

func (p *pacedUpload) advance(n int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.pos += n
	if p.pos == len(p.header)+len(p.pcm) {
		p.end = time.Now()
	}
}

func (p *pacedUpload) ended() time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.end
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// check lists the expectations resp does not meet, each with what was there instead.
func (e Expect) check(resp *client.DialogueResponse) []string {
	var out []string
	if e.Heard != nil && !e.Heard.MatchString(resp.Responses.Query) {
		out = append(out, fmt.Sprintf("heard %q, expected /%s/ (any case)", resp.Responses.Query, strings.TrimPrefix(e.Heard.String(), "(?i)")))
	}
	if e.Action != "" {
		out = append(out, e.checkAction(resp.NextActions)...)
	}
	if e.Answer != nil && !e.Answer.MatchString(resp.Responses.Text) {
		out = append(out, fmt.Sprintf("answered %q, expected /%s/", resp.Responses.Text, e.Answer))
	}
	return out
}

func (e Expect) checkAction(actions []client.Action) []string {
	var codes []string
	var best []string // the mismatches of the closest action with the expected code
	for _, a := range actions {
		codes = append(codes, a.Action)
		if a.Action != e.Action {
			continue
		}
		miss := e.checkData(a.Data)
		if len(miss) == 0 {
			return nil
		}
		if best == nil || len(miss) < len(best) {
			best = miss
		}
	}
	if best != nil {
		return best
	}
	got := "no action"
	if len(codes) > 0 {
		got = strings.Join(codes, ", ")
	}
	return []string{fmt.Sprintf("action %s expected, got %s", e.Action, got)}
}

func (e Expect) checkData(raw json.RawMessage) []string {
	var fields map[string]json.RawMessage
	if len(e.Data) > 0 {
		if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
			return []string{fmt.Sprintf("%s data is %s, not an object with %s", e.Action, compact(raw), e.Data[0].Key)}
		}
	}
	var out []string
	for _, d := range e.Data {
		v, ok := fields[d.Key]
		if !ok {
			out = append(out, fmt.Sprintf("%s data has no %q: %s", e.Action, d.Key, compact(raw)))
			continue
		}
		text := compact(v)
		var s string
		if json.Unmarshal(v, &s) == nil {
			text = s
		}
		if !d.Pattern.MatchString(text) {
			out = append(out, fmt.Sprintf("%s data %s is %q, expected /%s/", e.Action, d.Key, text, d.Pattern))
		}
	}
	return out
}

func compact(raw json.RawMessage) string {
	s := strings.TrimSpace(string(raw))
	if s == "" {
		return `""`
	}
	var v any
	if json.Unmarshal(raw, &v) == nil {
		if b, err := json.Marshal(v); err == nil {
			return string(b)
		}
	}
	return s
}
