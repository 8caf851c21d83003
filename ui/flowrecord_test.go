//go:build cgo && linux

package ui

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/teatest"

	"github.com/harkhq/hark/actions"
	"github.com/harkhq/hark/audio"
	"github.com/harkhq/hark/client"
	"github.com/harkhq/hark/flow"
	"github.com/harkhq/hark/ui/internal/uitest"
)

// hark flow record's round trip: a session in the console (a spoken turn through the
// microphone seam, then typed turns) is recorded to a flow file, which then replays
// against the same platform and passes. The microphone is the real PortAudio capture over
// ALSA's file plugin reading flite's speech (the ui/voice tests' configuration, see
// ../shared/design/AUDIO-NOTES.md); the platform is a real in-process one.
func TestFlowRecordRoundTrip(t *testing.T) {
	if _, err := exec.LookPath("flite"); err != nil {
		t.Skip("flite is not installed (make test installs it)")
	}
	conf, err := filepath.Abs("voice/testdata/voice/asound.conf")
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("ALSA_CONFIG_PATH", conf)
	dir := t.TempDir()
	wav := filepath.Join(dir, "say.wav")
	if b, err := exec.Command("flite", "-voice", "kal16", "-t", "what's the weather in london", "-o", wav).CombinedOutput(); err != nil {
		t.Fatalf("flite: %v %s", err, b)
	}
	fh, err := os.Open(wav)
	if err != nil {
		t.Fatal(err)
	}
	pcm, rate, err := audio.DecodeWAV(fh)
	fh.Close()
	if err != nil {
		t.Fatal(err)
	}
	pcm = audio.ResampleMono(pcm, rate, audio.CaptureRate)
	// Silence after the words: the recording stops on it (the file plugin repeats the
	// file's last periods at its end).
	mic := filepath.Join(dir, "mic.raw")
	if err := os.WriteFile(mic, append(pcm, make([]byte, 4*audio.CaptureRate*2)...), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HARK_TEST_MIC", mic)

	c := uitest.PlatformClient(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if _, _, err := c.Auth.Anonymous(ctx, "flow-recorder", "test", ""); err != nil {
		t.Fatal(err)
	}
	finishOnboarding(t, ctx, c)
	reg, err := actions.New(actions.Config{StatePath: filepath.Join(dir, "schedule.json"), Clock: actions.NewManualClock(time.Now()),
		Location: time.UTC})
	if err != nil {
		t.Fatal(err)
	}
	defer reg.Close()
	out := filepath.Join(dir, "flows", "session.yaml")
	if err := os.Mkdir(filepath.Dir(out), 0o755); err != nil {
		t.Fatal(err)
	}
	rec, err := flow.NewRecorder(out, false)
	if err != nil {
		t.Fatal(err)
	}
	opt := testOptions(c, true)
	opt.Session.Token = c.Token()
	opt.Now = time.Now
	opt.Voice = &Voice{Actions: reg, Mic: audio.CaptureConfig{SilenceStop: DefaultSilenceStop, MaxDuration: 10 * time.Second}}
	opt.Recorder = rec
	tm := teatest.NewTestModel(t, New(opt), teatest.WithInitialTermSize(120, 40))
	turns := func(n int) {
		t.Helper()
		deadline := time.Now().Add(90 * time.Second)
		for rec.Turns() < n {
			if time.Now().After(deadline) {
				t.Fatalf("%d turns recorded, waiting for %d", rec.Turns(), n)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	// Once: the output is read as it goes. The hint names ctrl+t once the microphone is found.
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
		return bytes.Contains(b, []byte("recording to "+out)) && bytes.Contains(b, []byte("press ctrl+t and speak"))
	}, teatest.WithDuration(20*time.Second), teatest.WithCheckInterval(10*time.Millisecond))
	send(tm, "ctrl+t")
	turns(1)
	for i, q := range []string{"set a timer for five minutes", "what time is it"} {
		tm.Type(q)
		send(tm, "enter")
		turns(2 + i)
	}
	tm.Send(keyMsg("ctrl+c"))
	tm.WaitFinished(t, teatest.WithFinalTimeout(10*time.Second))

	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	t.Logf("recorded:\n%s", text)
	for _, want := range []string{"wav: session-turn-1.wav", "type: set a timer for five minutes", "action: SET_TIMER", "answer: ^Timer set for -?\\d+", "type: what time is it"} {
		if !strings.Contains(text, want) {
			t.Errorf("the recorded flow lacks %q", want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "flows", "session-turn-1.wav")); err != nil {
		t.Fatal(err)
	}
	f, err := flow.Load(out) // the strict parser
	if err != nil {
		t.Fatal(err)
	}
	if f.Turns[0].Kind != flow.WAV || f.Turns[0].Expect.Heard == nil {
		t.Fatalf("the spoken turn was recorded as %+v", f.Turns[0])
	}
	r := (&flow.Runner{Client: c, Pace: flow.Fast}).Run(ctx, f, "", 0)
	if !r.Pass {
		var b strings.Builder
		flow.WriteResult(&b, r)
		t.Fatalf("the recorded flow does not replay:\n%s", b.String())
	}
	if _, err := flow.NewRecorder(out, false); err == nil {
		t.Error("recording over an existing flow without --force was allowed")
	}
}

// finishOnboarding answers the new user's set-up through the API, so the console opens
// on the transcript (the set-up is not what is recorded).
func finishOnboarding(t *testing.T, ctx context.Context, c *client.Client) {
	t.Helper()
	steps, err := c.Onboarding.Start(ctx)
	for range 20 {
		if err != nil {
			t.Fatal(err)
		}
		if len(steps) == 0 || steps[len(steps)-1].Type == "END" {
			return
		}
		s := steps[len(steps)-1]
		var data any
		switch s.Type {
		case "WAIT_INPUT":
			data = map[string]string{s.Payload.Parameter: "Ann"}
		case "WAIT_SELECTION":
			key := s.Payload.Parameter
			if key == "" {
				key = s.Payload.Preference
			}
			data = map[string]string{key: s.Payload.Options[0].Key}
		case "WAIT_PERMISSION":
			perms := map[string]bool{}
			for _, p := range s.Payload.Permissions {
				perms[p] = false
			}
			data = perms
		case "SHOW_SURVEY":
			var ids []string
			for _, it := range s.Payload.Items[:max(s.Payload.MinOptions, 2)] {
				ids = append(ids, strconv.Itoa(it.ID))
			}
			data = map[string]string{"survey_id": string(s.Payload.SurveyID), "item_id_list": strings.Join(ids, ",")}
		}
		steps, err = c.Onboarding.Answer(ctx, s.ID, data)
	}
	t.Fatal("the set-up did not end")
}
