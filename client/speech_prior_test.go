package client_test

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/harkhq/hark/client"
	"github.com/harkhq/hark/server"
	"github.com/harkhq/hark/server/servertest"
)

// twoSpeakers starts a platform with cfg logging into the returned buffer,
// and signs two users in: Sam and Kim. It skips under the race detector:
// these tests are speech-bound, and make test runs them without it.
func twoSpeakers(t *testing.T, cfg server.Config) (sam, kim *client.Client, log *servertest.LogBuffer) {
	t.Helper()
	if raceEnabled {
		t.Skip("speech-bound: run without the race detector (make test runs it so)")
	}
	log = &servertest.LogBuffer{}
	cfg.Logger = log.Logger()
	sam, p := voiceClient(t, cfg)
	kim = clientFor(t, p, p.PublicKey, p.PrivateKey)
	if _, _, err := kim.Auth.Anonymous(ctxT(t), "listener", "phone", "Kim"); err != nil {
		t.Fatal(err)
	}
	return sam, kim, log
}

// TestSpeechPriorIsPerUser: the server seeds a speaker's utterance with
// the cepstral mean of that speaker's earlier ones (speech.Priors), keyed
// by user and never shared between users; a first utterance, without a
// prior, is still recognised. (Without speaker normalisation, which drops
// the mean once when a speaker's warp changes: TestSpeechWarpIsPerUser.)
func TestSpeechPriorIsPerUser(t *testing.T) {
	sam, kim, log := twoSpeakers(t, server.Config{SpeechNoWarp: true})
	turns := []struct {
		who        *client.Client
		name, text string
		prior      bool
	}{
		{sam, "Sam", "what time is it", false}, // Sam's first: no prior
		{sam, "Sam", "call mom", true},         // Sam's own mean from then on
		{kim, "Kim", "what time is it", false}, // never Sam's
		{kim, "Kim", "thank you", true},
		{sam, "Sam", "set a timer for five minutes", true},
	}
	for i, turn := range turns {
		ans, err := turn.who.Dialogue.Stream(ctxT(t), bytes.NewReader(flite(t, turn.text)), 16000, 0)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, ans.Audio)
		ans.Audio.Close()
		if got := ans.Answer.Responses.Query; got != turn.text {
			t.Errorf("%s said %q, heard %q", turn.name, turn.text, got)
		}
		priors := log.Values("recognised", "prior")
		if len(priors) != i+1 {
			t.Fatalf("%d recognised lines logged after %d turns", len(priors), i+1)
		}
		if want := fmt.Sprint(turn.prior); priors[i] != want {
			t.Errorf("%s's %q: started from a prior %s, want %s", turn.name, turn.text, priors[i], want)
		}
	}
}

// TestSpeechWarpIsPerUser: the server learns each speaker's frequency
// warp from their own utterances and never another user's: Kim (flite's
// slt, a woman's voice) is decoded under a warp above 1 once her first
// commands are in, Sam (kal16) never under hers, and her first utterance
// under the model's own filters although Sam spoke before.
func TestSpeechWarpIsPerUser(t *testing.T) {
	sam, kim, log := twoSpeakers(t, server.Config{})
	turns := []struct {
		who         *client.Client
		voice, text string
	}{
		{sam, "kal16", "set an alarm for seven thirty tomorrow morning"},
		{sam, "kal16", "what's the weather like in london tomorrow"},
		{kim, "slt", "set an alarm for seven thirty tomorrow morning"},
		{kim, "slt", "what's the weather like in london tomorrow"},
		{kim, "slt", "remind me to call my mother on sunday"},
		{sam, "kal16", "remind me to call my mother on sunday"},
	}
	var explained []float64 // the warp each turn's explanation gives
	for _, turn := range turns {
		ans, err := turn.who.Dialogue.Stream(ctxT(t), bytes.NewReader(fliteVoice(t, turn.voice, turn.text)), 16000, 0, client.Explain())
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, ans.Audio)
		ans.Audio.Close()
		if x := ans.Answer.Explain; x == nil || x.Speaker == nil {
			t.Fatalf("%q: the explanation says nothing of the speaker", turn.text)
		} else {
			explained = append(explained, x.Speaker.Warp)
		}
	}
	warps := log.Values("recognised", "warp")
	if len(warps) != len(turns) {
		t.Fatalf("%d recognised lines logged after %d turns", len(warps), len(turns))
	}
	w := make([]float64, len(warps))
	for i, s := range warps {
		var err error
		if w[i], err = strconv.ParseFloat(s, 64); err != nil {
			t.Fatalf("turn %d logged warp %q", i, s)
		}
	}
	t.Logf("warps per turn: %v", w)
	if fmt.Sprint(w) != fmt.Sprint(explained) {
		t.Errorf("the explanations give warps %v, the log %v", explained, w)
	}
	if w[0] != 1 || w[2] != 1 {
		t.Errorf("first utterances of Sam and Kim under warps %g and %g, want the model's own (1)", w[0], w[2])
	}
	if w[4] <= 1 {
		t.Errorf("Kim's third utterance under warp %g, want one above 1 (slt is a higher voice than the model's average)", w[4])
	}
	if w[5] > 1 || w[1] > 1 {
		t.Errorf("Sam's later utterances under warps %g and %g, want at most 1", w[1], w[5])
	}
}

// TestSpeakerAdaptationIsPerUser: from a speaker's fifth recognised
// utterance on, harkd estimates a transform of the acoustic model for
// them (speech.Priors.AddHeard, sphinxtrain in child processes), and their
// next utterances are decoded under it, as their explanation says;
// another user's never are.
func TestSpeakerAdaptationIsPerUser(t *testing.T) {
	sam, kim, log := twoSpeakers(t, server.Config{SpeechNoWarp: true})
	texts := []string{"what time is it", "call mom", "stop the music", "turn the volume up", "thank you"}
	say := func(c *client.Client, text string) *client.SpeakerReading {
		t.Helper()
		ans, err := c.Dialogue.Stream(ctxT(t), bytes.NewReader(flite(t, text)), 16000, 0, client.Explain())
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, ans.Audio)
		ans.Audio.Close()
		if ans.Answer.Explain == nil || ans.Answer.Explain.Speaker == nil {
			t.Fatalf("%q: the explanation says nothing of the speaker", text)
		}
		return ans.Answer.Explain.Speaker
	}
	const first = 5 // speech's adaptFirst
	for i := range first {
		if s := say(sam, texts[i%len(texts)]); s.Adapted != "" || s.Warp != 1 {
			t.Errorf("Sam's utterance %d: %s, before harkd had heard %d", i+1, s, first)
		}
	}
	// The estimate runs after the fifth answer; on a loaded machine it can
	// outlast the next turn's wait for it (5 s), so the test waits for it.
	for deadline := time.Now().Add(time.Minute); len(log.Values(`"speaker adapted"`, "utterances")) == 0; {
		if time.Now().After(deadline) {
			t.Fatalf("no estimate a minute after Sam's fifth utterance (log: %v)", log.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if s := say(sam, "set a timer for five minutes"); s.Adapted != "speaker" {
		t.Errorf("Sam's utterance %d: %s (log: %v)", first+1, s, log.Values(`"speaker adapted"`, "utterances"))
	}
	if s := say(kim, "what time is it"); s.Adapted != "" {
		t.Errorf("Kim's first utterance: %s", s)
	}
	adapted := log.Values("recognised", "adapted")
	if want := []string{`""`, `""`, `""`, `""`, `""`, "speaker", `""`}; strings.Join(adapted, " ") != strings.Join(want, " ") {
		t.Errorf("logged adapted %v, want %v", adapted, want)
	}
}
