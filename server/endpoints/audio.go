package endpoints

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/harkhq/hark/server/apierr"
	"github.com/harkhq/hark/server/dialogue"
	"github.com/harkhq/hark/server/httpapi"
	"github.com/harkhq/hark/server/speech"
	"github.com/harkhq/hark/server/speech/tts"
	"github.com/harkhq/hark/server/spoken"
)

// Audio is what the audio endpoints need. Recognizer and Synthesizer wait
// for the speech engines to load (bounded by ctx) and answer a 503
// Unavailable naming the missing package when they cannot.
type Audio struct {
	Engine      *dialogue.Engine
	Spoken      *spoken.Store
	Recognizer  func(ctx context.Context) (speech.Engine, error)
	Synthesizer func(ctx context.Context) (*tts.Synthesizer, error)
	MaxAudio    int64
	// IdleTimeout bounds the wait for the next piece of a streamed upload.
	IdleTimeout time.Duration
	// Priors keeps each speaker's cepstral mean for their next utterance
	// (see priorKey); nil keeps none.
	Priors *speech.Priors
	Logger *slog.Logger
}

// Speak gives an answer its audio URL (DECISIONS §6): every answer gets
// one, text answers too; an answer without speech answers 204 there.
func (a *Audio) Speak(r *http.Request, lang string, resp *dialogue.Response) error {
	_, err := a.speak(r, lang, resp)
	return err
}

// speak registers the answer's speech and returns its id, or 0 when the
// disk is full: the answer then goes out without its audio URL, so the
// dialogue still works and no id is handed out that could not be found.
func (a *Audio) speak(r *http.Request, lang string, resp *dialogue.Response) (int64, error) {
	id, err := a.Spoken.Register(r.Context(), lang, resp.Responses.Speech)
	if apierr.IsDiskFull(err) {
		a.Logger.Warn("answer audio not registered: the disk is full", "request_id", httpapi.RequestID(r.Context()))
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	resp.Responses.Audio = baseURL(r) + "/v2/query/audio/" + strconv.FormatInt(id, 10)
	return id, nil
}

// Routes registers /query/audio/*.
func (a *Audio) Routes(api *httpapi.API) {
	api.Handle("POST /v2/query/audio/data", httpapi.Token, a.data)
	api.Handle("POST /v2/query/audio/stream", httpapi.Token, a.stream, httpapi.WithBodyRate(streamBodyRate))
	api.Handle("GET /v2/query/audio/{id}", httpapi.Public, a.file)
}

// streamBodyRate is the voice stream's own pace rule. Speech arrives in
// real time, 16,000 bytes/s at the least (8 kHz, 16-bit), so a stream must
// average half that once 10 s have passed (longer than the general grace:
// a microphone may take a moment to open); a slower one would hold a
// decoder without speaking. IdleTimeout still bounds a stall.
var streamBodyRate = httpapi.BodyRate{BytesPerSecond: 8000, Grace: 10 * time.Second}

// audioRate reads the rate from the Content-Type, which must be one of the
// two the contract allows.
func audioRate(r *http.Request) (int, error) {
	ct := r.Header.Get("Content-Type")
	mt, params, err := mime.ParseMediaType(ct)
	if err != nil || mt != "audio/x-wav" || !strings.EqualFold(params["codec"], "pcm") || params["bit"] != "16" {
		return 0, apierr.BadRequestf("Content-Type must be audio/x-wav;codec=pcm;bit=16;rate=8000 or ...;rate=16000, not %q", ct)
	}
	switch params["rate"] {
	case "8000":
		return 8000, nil
	case "16000":
		return 16000, nil
	}
	return 0, apierr.BadRequestf("the rate must be 8000 or 16000, not %q", params["rate"])
}

// recognise reads the WAV body and answers it as a dialogue turn. waited
// is how long the request already waited for the speech engines to start
// (the stream's synthesiser); the explanation reports it with the wait for
// the recogniser.
func (a *Audio) recognise(w http.ResponseWriter, r *http.Request, body io.Reader, waited time.Duration) (dialogue.Response, string, error) {
	rate, err := audioRate(r)
	if err != nil {
		return dialogue.Response{}, "", err
	}
	lang := language(r)
	if err := speech.Available(lang); err != nil {
		return dialogue.Response{}, "", err
	}
	req, err := dialogueRequest(r, "")
	if err != nil {
		return dialogue.Response{}, "", err
	}
	start := time.Now()
	rec, err := a.Recognizer(r.Context())
	if err != nil {
		return dialogue.Response{}, "", err
	}
	waited += time.Since(start)
	limited := http.MaxBytesReader(w, io.NopCloser(body), a.MaxAudio)
	key := priorKey(req, rate)
	var in io.Reader = limited
	var heard *heardAudio
	// 8 kHz audio is decoded under the narrowband transform instead, which
	// a speaker's own did not improve on (server/speech's adaptation.go).
	if key != "" && a.Priors != nil && a.Priors.Adapt != nil && rate == 16000 {
		heard = &heardAudio{}
		in = io.TeeReader(limited, heard)
	}
	var opt speech.Options
	if key != "" && a.Priors != nil {
		opt.Prior = a.Priors.Get(key)
		// The estimate comes after the result (the answer does not wait).
		opt.Warps = func(scores []float64, frames int) { a.Priors.AddWarps(key, scores, frames) }
	}
	res, err := speech.RecognizeWith(r.Context(), rec, lang, rate, opt, in)
	if err != nil && opt.Prior != nil && opt.Prior.Estimate {
		a.Priors.AddWarps(key, nil, 0) // no estimate will come
	}
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return dialogue.Response{}, "", apierr.TooLargef("the audio is larger than %d bytes", a.MaxAudio)
		}
		return dialogue.Response{}, "", err
	}
	if key != "" && a.Priors != nil {
		a.Priors.Add(key, res.Mean)
	}
	// For the log: whether the speaker's cepstral mean seeded the
	// utterance, the front end's warp (1: the model's own filters), whether
	// it asked for a warp estimate (which comes after the answer), and
	// whether it was decoded under the speaker's transform.
	hasMean, estimate, warp := opt.Prior != nil && opt.Prior.Mean != nil, opt.Prior != nil && opt.Prior.Estimate, 1.0
	adapted := res.Adaptation
	if opt.Prior != nil && opt.Prior.Warp != 0 {
		warp = opt.Prior.Warp
	}
	decodedWarp := warp
	if rate == 8000 {
		decodedWarp = 1 // the recogniser keeps the model's filters at 8 kHz
	}
	if strings.TrimSpace(res.Text) == "" {
		a.Logger.Info("recognised", "request_id", httpapi.RequestID(r.Context()), "source", res.Source,
			"audio_ms", res.Audio.Milliseconds(), "margin", res.Margin, "prior", hasMean, "warp", warp, "estimate", estimate, "adapted", adapted)
		return a.Engine.NotHeard(lang, req.Ref), lang, nil
	}
	h, err := chooseHeard(r.Context(), a.Engine, req, res)
	if err != nil {
		return dialogue.Response{}, "", err
	}
	a.Logger.Info("recognised", "request_id", httpapi.RequestID(r.Context()), "source", res.Source,
		"audio_ms", res.Audio.Milliseconds(), "margin", res.Margin, "prior", hasMean, "warp", warp, "estimate", estimate, "adapted", adapted,
		"readings", len(h.hyps), "chosen", h.chosen, "speech_wait_ms", waited.Milliseconds())
	if heard != nil && !heard.over {
		a.Priors.AddHeard(key, heard.b, h.Text(), decodedWarp)
	}
	req.Query = h.Text()
	req.Explain = explainRequested(r) // as on /query/text, for the console's explain view
	resp, err := a.Engine.Answer(r.Context(), req)
	if err == nil && resp.Explain != nil {
		resp.Explain.Hypotheses = h.explain()
		resp.Explain.SpeechWaitMs = waited.Milliseconds()
		resp.Explain.Speaker = &dialogue.SpeakerReading{Warp: decodedWarp, Adapted: adapted}
	}
	absoluteURLs(r, &resp)
	return resp, lang, err
}

// heardAudio keeps an upload for speaker adaptation (speech.Priors.AddHeard),
// up to the longest it takes.
type heardAudio struct {
	b    []byte
	over bool
}

func (h *heardAudio) Write(p []byte) (int, error) {
	if !h.over && len(h.b)+len(p) > speech.MaxHeardBytes {
		h.over, h.b = true, nil
	}
	if !h.over {
		h.b = append(h.b, p...)
	}
	return len(p), nil
}

// priorKey names the speaker whose cepstral mean seeds an utterance
// (speech.Priors): the user, or for a signed request (which acts for the
// whole workspace, so possibly for many people) the conversation it
// continues; "" (no prior) for a signed request's first turn. The rate
// is part of the key: 8 kHz audio has another spectrum, and a mean from
// one channel misleads on the other.
func priorKey(req dialogue.Request, rate int) string {
	switch {
	case req.UserID != 0:
		return fmt.Sprintf("user/%d/%d/%d", req.Workspace, req.UserID, rate)
	case req.Ref != 0:
		return fmt.Sprintf("conversation/%d/%d/%d", req.Workspace, req.Ref, rate)
	}
	return ""
}

func (a *Audio) data(w http.ResponseWriter, r *http.Request) error {
	resp, lang, err := a.recognise(w, r, r.Body, 0)
	if err != nil {
		return err
	}
	if err := a.Speak(r, lang, &resp); err != nil {
		return err
	}
	return httpapi.WriteJSON(w, http.StatusOK, resp)
}

// stream recognises the body while it arrives, then streams the spoken
// answer as MP3, flushing as frames are encoded, with the dialogue JSON in
// Service-Response-Info.
func (a *Audio) stream(w http.ResponseWriter, r *http.Request) error {
	start := time.Now()
	synth, err := a.Synthesizer(r.Context())
	if err != nil {
		return err
	}
	rc := http.NewResponseController(w)
	body := &idleReader{r: r.Body, rc: rc, idle: a.IdleTimeout}
	resp, lang, err := a.recognise(w, r, body, time.Since(start))
	rc.SetReadDeadline(time.Time{})
	if err != nil {
		if body.timedOut {
			return apierr.BadRequestf("the upload stalled for more than %s", a.IdleTimeout)
		}
		return err
	}
	id, err := a.speak(r, lang, &resp)
	if err != nil {
		return err
	}
	info, err := jsonLine(resp)
	if err != nil {
		return err
	}
	h := w.Header()
	h.Set("Chunked", "1")
	h.Set("Content-Type", "application/octet-stream")
	h.Set("Service-Response-Info", info)
	w.WriteHeader(http.StatusOK)
	rc.Flush()

	save, commit, abort, err := io.Writer(io.Discard), func() error { return nil }, func() {}, error(nil)
	if id != 0 {
		save, commit, abort, err = a.Spoken.Writer(id)
	}
	if err != nil {
		a.Logger.Warn("answer audio not kept", "err", err)
		save, commit, abort = io.Discard, func() error { return nil }, func() {}
	}
	out := &flushWriter{w: w, rc: rc, save: save}
	if err := synth.Stream(r.Context(), lang, resp.Responses.Speech, out); err != nil {
		abort()
		if r.Context().Err() == nil {
			a.Logger.Warn("answer stream ended early", "request_id", httpapi.RequestID(r.Context()), "err", err)
		}
		return nil // the status is sent; the client sees a short stream
	}
	if out.saveErr != nil {
		// a partial copy must not become the answer's audio: GET
		// synthesises it again instead
		abort()
		a.Logger.Warn("answer audio not kept", "err", out.saveErr)
		return nil
	}
	if err := commit(); err != nil {
		a.Logger.Warn("answer audio not kept", "err", err)
	}
	return nil
}

// jsonLine encodes v on one line for a header.
func jsonLine(v any) (string, error) {
	var b strings.Builder
	if err := jsonEncoder(&b).Encode(v); err != nil {
		return "", err
	}
	return strings.TrimSpace(b.String()), nil
}

// flushWriter sends each write to the client at once and keeps a copy.
type flushWriter struct {
	w       io.Writer
	rc      *http.ResponseController
	save    io.Writer
	saveErr error // the first failed copy (a full disk): the copy is dropped
}

func (f *flushWriter) Write(p []byte) (int, error) {
	n, err := f.w.Write(p)
	if err != nil {
		return n, err
	}
	if f.saveErr == nil {
		_, f.saveErr = f.save.Write(p)
	}
	return n, f.rc.Flush()
}

// idleReader gives up on an upload that stops sending: each read must
// bring data within idle, so a stalled client cannot hold a decoder.
type idleReader struct {
	r        io.Reader
	rc       *http.ResponseController
	idle     time.Duration
	timedOut bool
}

func (i *idleReader) Read(p []byte) (int, error) {
	if i.idle > 0 {
		i.rc.SetReadDeadline(time.Now().Add(i.idle))
	}
	n, err := i.r.Read(p)
	if err != nil && errors.Is(err, os.ErrDeadlineExceeded) {
		i.timedOut = true
	}
	return n, err
}

func (a *Audio) file(w http.ResponseWriter, r *http.Request) error {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || id <= 0 {
		return apierr.BadRequestf("the audio id must be a positive integer, not %q", r.PathValue("id"))
	}
	audio, err := a.Spoken.Open(r.Context(), id)
	if err != nil {
		return apierr.OrDiskFull(err)
	}
	if audio == nil {
		w.WriteHeader(http.StatusNoContent)
		return nil
	}
	defer audio.Close()
	w.Header().Set("Content-Type", "audio/mpeg")
	w.Header().Set("Cache-Control", "private, max-age=86400")
	http.ServeContent(w, r, "", audio.ModTime, audio)
	return nil
}
