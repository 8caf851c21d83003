package flow

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/harkhq/hark/audio"
	"github.com/harkhq/hark/client"
	"github.com/harkhq/hark/server"
	"github.com/harkhq/hark/server/servertest"
)

func needTool(t *testing.T, name string) {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		t.Skipf("%s is not installed (make test installs it)", name)
	}
}

// writeFlow writes a flow file into dir and loads it.
func writeFlow(t *testing.T, dir, yaml string) *Flow {
	t.Helper()
	p := filepath.Join(dir, "test.yaml")
	if err := os.WriteFile(p, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// fliteFixture synthesises a recorded turn's WAV file (never committed).
func fliteFixture(t *testing.T, dir, name, text string) {
	t.Helper()
	pcm, rate, err := flite(context.Background(), "kal16", text)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), audio.EncodeWAV(pcm, rate), 0o600); err != nil {
		t.Fatal(err)
	}
}

// slowTurn is the turn timeout of these tests but the one about timeouts: the first spoken
// turn of a race-built platform waits for a speech worker to load its models (30 s was
// passed on 2 busy cores); these tests are about expectations and pace, not time.
const slowTurn = 3 * time.Minute

// TestRunOnThePlatform plays flows against a real in-process platform, sharing it so the
// speech models load once.
func TestRunOnThePlatform(t *testing.T) {
	needTool(t, "flite")
	p := servertest.Start(t, server.Config{})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if _, err := p.Server.Recognizer(ctx); err != nil {
		t.Skipf("speech recognition is not available here: %v", err)
	}
	// Each flow is a tester of its own: harkd learns a speaker's voice from their earlier
	// utterances, and the subtests run in no fixed order.
	for name, fn := range map[string]func(*testing.T, *client.Client){
		"AConversationPasses": testConversationPasses, "WrongExpectationsFail": testWrongExpectationsFail,
		"BadAudioIsReportedPerTurn": testBadAudioIsReportedPerTurn, "TimeoutIsPerTurn": testTimeoutIsPerTurn,
		"RealTimePace": testRealTimePace, "SpanishSpeechIsRefusedPerTurn": testSpanishSpeechIsRefusedPerTurn,
	} {
		t.Run(name, func(t *testing.T) {
			c, err := client.New(client.Config{BaseURL: p.BaseURL, PublicKey: p.PublicKey, PrivateKey: p.PrivateKey})
			if err != nil {
				t.Fatal(err)
			}
			if _, _, err := c.Auth.Anonymous(t.Context(), "flow-tester-"+name, "test", ""); err != nil {
				t.Fatal(err)
			}
			fn(t, c)
		})
	}
}

// testConversationPasses: a said turn, a recorded one and a typed one in one conversation.
// The second turn only sets an alarm if the first turn's ref went with it.
func testConversationPasses(t *testing.T, c *client.Client) {
	dir := t.TempDir()
	fliteFixture(t, dir, "seven-thirty.wav", "seven thirty am")
	f := writeFlow(t, dir, `name: two-turn alarm
turns:
  - say: please set an alarm
    expect: {heard: ^please set an alarm$, action: OPEN_ASR, answer: "(?i)what time"}
  - wav: seven-thirty.wav
    expect:
      heard: SEVEN THIRTY
      action: SET_ALARM
      data: {time: '^\d{13}$', label: ^$}
      answer: "7:30 AM"
  - type: what time is it
    expect: {answer: "\\d+:\\d\\d"}
`)
	r := (&Runner{Client: c, Pace: Fast, Timeout: slowTurn}).Run(context.Background(), f, "", 0)
	if !r.Pass || len(r.Turns) != 3 {
		t.Fatalf("the flow failed:\n%s", text(r))
	}
	if r.Name != "two-turn alarm" || r.Voice != "kal16" || r.Rate != 16000 || r.Pace != Fast || r.Lang != "en" {
		t.Fatalf("result header %+v", r)
	}
	for i, tr := range r.Turns[:2] {
		w := tr.Timing
		if w.AudioMs < 500 || w.UploadEndMs <= 0 || w.RecognisedMs <= 0 || w.FirstByteMs < w.RecognisedMs ||
			w.AnswerEndMs < w.FirstByteMs || w.AnswerBytes == 0 || w.AnsweredMs != 0 {
			t.Errorf("turn %d waterfall %+v", i+1, w)
		}
		if tr.Ref == 0 || tr.Heard == "" || len(tr.Actions) != 1 {
			t.Errorf("turn %d: %+v", i+1, tr)
		}
	}
	if r.Turns[2].Timing.AnsweredMs <= 0 || r.Turns[2].Timing.UploadEndMs != 0 {
		t.Errorf("a typed turn's timing: %+v", r.Turns[2].Timing)
	}
}

func testWrongExpectationsFail(t *testing.T, c *client.Client) {
	f := writeFlow(t, t.TempDir(), `turns:
  - say: set a timer for five minutes
    expect:
      heard: ten minutes
      action: SET_TIMER
      data: {duration: ^600000$, label: x, missing: .}
      answer: hours
  - type: play some jazz
    expect: {action: SET_ALARM}
  - type: what's the weather in london
    expect: {action: NAVIGATE}
`)
	r := (&Runner{Client: c, Pace: Fast, Timeout: slowTurn}).Run(context.Background(), f, "", 0)
	if r.Pass || len(r.Turns) != 3 {
		t.Fatalf("wrong expectations passed:\n%s", text(r))
	}
	want := [][]string{
		{`heard "set a timer for five minutes", expected /ten minutes/ (any case)`,
			`SET_TIMER data duration is "300000", expected /^600000$/`,
			`SET_TIMER data label is "", expected /x/`,
			`SET_TIMER data has no "missing": {"duration":300000,"label":""}`,
			`answered "Timer set for 5 minutes.", expected /hours/`},
		{"action SET_ALARM expected, got PLAY_MUSIC"},
		{"action NAVIGATE expected, got no action"},
	}
	for i, w := range want {
		tr := r.Turns[i]
		if tr.Pass || tr.Error != "" || strings.Join(tr.Failures, "\n") != strings.Join(w, "\n") {
			t.Errorf("turn %d failures:\n%s\nwant:\n%s", i+1, strings.Join(tr.Failures, "\n"), strings.Join(w, "\n"))
		}
	}
}

// testBadAudioIsReportedPerTurn: each bad file fails its own turn and the run goes on.
func testBadAudioIsReportedPerTurn(t *testing.T, c *client.Client) {
	dir := t.TempDir()
	stereo := audio.EncodeWAV(make([]byte, 3200), 16000)
	stereo[22] = 2 // channels
	os.WriteFile(filepath.Join(dir, "stereo.wav"), stereo, 0o600)
	eight := audio.EncodeWAV(make([]byte, 3200), 16000)
	eight[34] = 8 // bits per sample
	os.WriteFile(filepath.Join(dir, "8bit.wav"), eight, 0o600)
	os.WriteFile(filepath.Join(dir, "text.wav"), []byte("hello, not audio"), 0o600)
	os.WriteFile(filepath.Join(dir, "empty.wav"), audio.EncodeWAV(nil, 16000), 0o600)
	f := writeFlow(t, dir, `turns:
  - wav: missing.wav
  - wav: stereo.wav
  - wav: 8bit.wav
  - wav: text.wav
  - wav: empty.wav
  - type: set a timer for five minutes
    expect: {action: SET_TIMER}
`)
	r := (&Runner{Client: c, Pace: Fast, Timeout: slowTurn}).Run(context.Background(), f, "", 0)
	want := []string{"missing.wav: no such file or directory", "stereo.wav: audio: not a 16-bit PCM mono WAV: 2 channels of 16 bits",
		"8bit.wav: audio: not a 16-bit PCM mono WAV: 1 channels of 8 bits", "text.wav: audio: not a 16-bit PCM mono WAV: no RIFF/WAVE signature",
		"empty.wav holds no audio"}
	if r.Pass || len(r.Turns) != 6 {
		t.Fatalf("result:\n%s", text(r))
	}
	for i, w := range want {
		if tr := r.Turns[i]; tr.Pass || !strings.Contains(tr.Error, w) {
			t.Errorf("turn %d: error %q, want %q", i+1, tr.Error, w)
		}
	}
	if !r.Turns[5].Pass {
		t.Fatalf("the turn after the bad files did not run: %+v", r.Turns[5])
	}
}

func testTimeoutIsPerTurn(t *testing.T, c *client.Client) {
	dir := t.TempDir()
	fliteFixture(t, dir, "long.wav", "set a timer for five minutes and then play some jazz")
	f := writeFlow(t, dir, `turns:
  - wav: long.wav
  - type: set a timer for five minutes
    expect: {action: SET_TIMER}
`)
	r := (&Runner{Client: c, Pace: RealTime, Timeout: 400 * time.Millisecond}).Run(context.Background(), f, "", 0)
	if r.Pass || r.Turns[0].Error != "timed out after 400ms, while uploading the audio" {
		t.Fatalf("a turn longer than its timeout: %+v", r.Turns[0])
	}
	if !r.Turns[1].Pass {
		t.Fatalf("the turn after a timeout: %+v", r.Turns[1])
	}
}

// testRealTimePace: at real-time pace the last frame leaves no earlier than it would be
// spoken (a lower bound the pacing guarantees, whatever the machine's load); at 8 kHz the
// recogniser still hears the command.
func testRealTimePace(t *testing.T, c *client.Client) {
	f := writeFlow(t, t.TempDir(), `voice: slt
turns:
  - say: directions to madrid
    expect: {heard: directions to madrid, action: NAVIGATE, data: {destination: ^Madrid$}}
`)
	for _, rate := range []int{16000, 8000} {
		r := (&Runner{Client: c, Timeout: slowTurn}).Run(context.Background(), f, "", rate)
		if !r.Pass || r.Pace != RealTime || r.Rate != rate || r.Voice != "slt" {
			t.Fatalf("%d Hz:\n%s", rate, text(r))
		}
		if w := r.Turns[0].Timing; w.UploadEndMs < w.AudioMs {
			t.Fatalf("%d Hz: %.0f ms of audio uploaded in %.0f ms", rate, w.AudioMs, w.UploadEndMs)
		}
	}
}

func testSpanishSpeechIsRefusedPerTurn(t *testing.T, c *client.Client) {
	needTool(t, "espeak-ng")
	f := writeFlow(t, t.TempDir(), `lang: es
turns:
  - say: pon una alarma
  - type: pon un temporizador de diez minutos
    expect: {action: SET_TIMER, answer: minutos}
`)
	r := (&Runner{Client: c, Pace: Fast, Timeout: slowTurn}).Run(context.Background(), f, "", 0)
	if r.Voice != "espeak-ng" || r.Pass || !strings.Contains(r.Turns[0].Error, "the platform refused: Unavailable (HTTP 503): Spanish speech recognition is not available") {
		t.Fatalf("a Spanish spoken turn:\n%s", text(r))
	}
	if !r.Turns[1].Pass {
		t.Fatalf("the Spanish typed turn:\n%s", text(r))
	}
}

// TestUnreachablePlatform: every turn says why it could not run, and every turn is tried.
func TestUnreachablePlatform(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	c, f := toneFlow(t, "http://"+addr, "turns:\n  - type: hello\n  - wav: tone.wav\n  - type: bye\n")
	r := (&Runner{Client: c, Pace: Fast}).Run(context.Background(), f, "", 0)
	if r.Pass || len(r.Turns) != 3 {
		t.Fatalf("result %+v", r)
	}
	for _, tr := range r.Turns {
		if tr.Pass || !strings.Contains(tr.Error, "connection refused") {
			t.Errorf("turn %d: %q", tr.N, tr.Error)
		}
	}
}

func TestInterruptedRunMarksTheRest(t *testing.T) {
	c, err := client.New(client.Config{BaseURL: "http://127.0.0.1:1/v2"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	f := writeFlow(t, t.TempDir(), "turns:\n  - type: hello\n  - type: bye\n")
	r := (&Runner{Client: c}).Run(ctx, f, "", 0)
	for _, tr := range r.Turns {
		if tr.Pass || tr.Error != "not run: interrupted" {
			t.Fatalf("turn %d of a cancelled run: %+v", tr.N, tr)
		}
	}
}

func text(r *Result) string {
	var b strings.Builder
	WriteResult(&b, r)
	return b.String()
}

// TestFirstSpokenTimeoutSaysWhy: a platform still starting its speech engines keeps the first
// spoken turn waiting after its upload; until a spoken turn is answered, a timeout says so and
// how to allow for it.
func TestFirstSpokenTimeoutSaysWhy(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body) // the whole upload, then no answer
		<-r.Context().Done()
	}))
	defer srv.Close()
	c, f := toneFlow(t, srv.URL, "turns:\n  - wav: tone.wav\n  - wav: tone.wav\n")
	r := (&Runner{Client: c, Pace: Fast, Timeout: 300 * time.Millisecond}).Run(context.Background(), f, "", 0)
	want := "timed out after 300ms, while waiting for the answer after the upload (a platform's first spoken turn " +
		"waits for its speech engines to start, longer on a new machine; --timeout gives each turn more time)"
	for _, tr := range r.Turns {
		if tr.Pass || tr.Error != want {
			t.Errorf("turn %d: %q", tr.N, tr.Error)
		}
	}
}

// toneFlow is a client of the platform at base that never retries, with made-up keys and token
// (the platforms of these tests answer nothing or do not listen), and a flow of the given turns
// beside a short silent tone.wav.
func toneFlow(t *testing.T, base, turns string) (*client.Client, *Flow) {
	t.Helper()
	c, err := client.New(client.Config{BaseURL: base + "/v2", PublicKey: "pk", PrivateKey: "sk", MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	c.SetToken("token")
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "tone.wav"), audio.EncodeWAV(make([]byte, 1600), 8000), 0o600)
	return c, writeFlow(t, dir, turns)
}
