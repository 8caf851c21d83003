package client

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
)

func audioContentType(rate int) (string, error) {
	if rate != 8000 && rate != 16000 {
		return "", fmt.Errorf("audio rate %d: the platform takes 8000 or 16000 Hz", rate)
	}
	return "audio/x-wav;codec=pcm;bit=16;rate=" + strconv.Itoa(rate), nil
}

// Audio sends a whole WAV (PCM 16-bit mono at rate) and returns the
// answer, whose Responses.Query holds what was recognised. size is the
// WAV's length, or -1 to send it chunked. With Explain, the answer tells
// how the audio was read, each reading of it weighed (Hypotheses).
func (s *DialogueService) Audio(ctx context.Context, wav io.Reader, size int64, rate int, ref int64, opts ...QueryOption) (*DialogueResponse, error) {
	ct, err := audioContentType(rate)
	if err != nil {
		return nil, err
	}
	var out DialogueResponse
	err = s.c.doJSON(ctx, &request{method: http.MethodPost, path: "/query/audio/data", auth: authToken,
		body: func() (io.Reader, error) { return wav, nil }, length: size, contentType: ct, requestInfo: true,
		ref: ref, noRetry: true, header: queryHeader(opts, nil)}, &out)
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// StreamAnswer is the answer to a streamed query: the dialogue JSON from
// Service-Response-Info, and the spoken answer as an MP3 stream to be read
// (and played) while it arrives. Close the Audio when done.
type StreamAnswer struct {
	Answer DialogueResponse
	Audio  io.ReadCloser
}

// Stream sends wav, a WAV stream (header, then PCM as it is produced, as a
// microphone gives it), as the chunked body of /query/audio/stream, so the
// server recognises while the user speaks. It returns once the answer
// starts: the MP3 keeps arriving through StreamAnswer.Audio.
func (s *DialogueService) Stream(ctx context.Context, wav io.Reader, rate int, ref int64, opts ...QueryOption) (*StreamAnswer, error) {
	ct, err := audioContentType(rate)
	if err != nil {
		return nil, err
	}
	resp, err := s.c.do(ctx, &request{method: http.MethodPost, path: "/query/audio/stream", auth: authToken,
		body: func() (io.Reader, error) { return wav, nil }, length: -1, contentType: ct, requestInfo: true,
		ref: ref, noRetry: true, header: queryHeader(opts, http.Header{"Accept": {"application/octet-stream"}})})
	if err != nil {
		return nil, err
	}
	info := resp.Header.Get("Service-Response-Info")
	var ans StreamAnswer
	if err := json.Unmarshal([]byte(info), &ans.Answer); err != nil {
		resp.Body.Close()
		return nil, fmt.Errorf("stream answer: malformed Service-Response-Info: %w", err)
	}
	ans.Answer.Lang = answerLanguage(resp.Header)
	ans.Audio = resp.Body
	return &ans, nil
}

// AudioFile opens the MP3 at an answer's Responses.Audio URL. An answer
// without speech gives an empty reader.
func (s *DialogueService) AudioFile(ctx context.Context, url string) (io.ReadCloser, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := s.c.hc.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode >= 400 {
		return nil, readAPIError(resp)
	}
	return resp.Body, nil
}
