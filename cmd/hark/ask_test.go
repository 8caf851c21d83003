package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harkhq/hark/audio"
	"github.com/harkhq/hark/server/speech"
	"github.com/harkhq/hark/server/store"
)

// fliteWAV synthesises a 16 kHz mono WAV into dir (never committed).
func fliteWAV(t *testing.T, dir, text string) string {
	t.Helper()
	if _, err := exec.LookPath("flite"); err != nil {
		t.Skip("flite is not installed (make test installs it)")
	}
	out := filepath.Join(dir, strings.ReplaceAll(text, " ", "-")+".wav")
	if b, err := exec.Command("flite", "-voice", "kal16", "-t", text, "-o", out).CombinedOutput(); err != nil {
		t.Fatalf("flite: %v %s", err, b)
	}
	return out
}

// TestAskOnTheEmbeddedPlatform sends spoken turns from files to the platform hark starts
// in-process: what was heard, the answer, the actions and the ref, or the JSON.
func TestAskOnTheEmbeddedPlatform(t *testing.T) {
	isolate(t)
	dir := t.TempDir()
	timer := fliteWAV(t, dir, "set a timer for five minutes")
	ask := fliteWAV(t, dir, "please set an alarm")
	if code, _, errOut := hark(t, "", "ask", timer); code != 1 || !strings.Contains(errOut, "not signed in") {
		t.Fatalf("ask before signing in: %d %q", code, errOut)
	}
	t.Setenv("HARK_PASSWORD", "correct horse")
	if code, _, errOut := hark(t, "", "register", "--email", "sam@example.com"); code != 0 {
		t.Fatalf("register: %s", errOut)
	}
	code, out, errOut := hark(t, "", "ask", timer)
	if code != 0 {
		t.Fatalf("ask: %d %q %q", code, out, errOut)
	}
	// The answer is the data; what was heard, the actions and the ref are diagnostics.
	lines := strings.Split(strings.TrimSpace(errOut), "\n")
	if strings.TrimSpace(out) != "Timer set for 5 minutes." || len(lines) != 3 || lines[0] != "heard: set a timer for five minutes" ||
		!strings.HasPrefix(lines[1], "action SET_TIMER {") || !strings.Contains(lines[1], `"duration":300000`) || !strings.HasPrefix(lines[2], "ref ") {
		t.Fatalf("ask printed:\n%s\nand on stderr:\n%s", out, errOut)
	}

	// What the platform learnt of the voice (its warp, estimated after the answer) is
	// kept when the command ends, and the next hark's platform starts from it.
	kept := keptWarp(t)

	// Each hark starts its embedded platform afresh, whose speech engines load after it
	// starts: the turn waits for them, and the explanation says so.
	code, out, errOut = hark(t, "", "ask", "--json", "--explain", ask)
	if code != 0 {
		t.Fatalf("ask --json: %d %q", code, errOut)
	}
	var resp struct {
		Context     struct{ Ref int64 }
		Responses   struct{ Query string }
		NextActions []struct{ Action string }
		Explain     struct {
			SpeechWaitMs int64
			Speaker      struct{ Warp float64 }
		}
	}
	if err := json.Unmarshal([]byte(out), &resp); err != nil {
		t.Fatalf("ask --json printed no JSON: %v\n%s", err, out)
	}
	if resp.Responses.Query != "please set an alarm" || len(resp.NextActions) != 1 || resp.NextActions[0].Action != "OPEN_ASR" || resp.Context.Ref == 0 {
		t.Fatalf("ask --json: %+v", resp)
	}
	if resp.Explain.SpeechWaitMs <= 0 {
		t.Fatalf("the first spoken turn of a new platform reports no wait for its speech engines: %s", out)
	}
	if resp.Explain.Speaker.Warp != kept {
		t.Fatalf("the second hark ask decoded under warp %g, the first kept %g", resp.Explain.Speaker.Warp, kept)
	}
}

// keptWarp is the warp of the one speaker profile the embedded platform kept
// (server/speakers), the grid warp of the highest score.
func keptWarp(t *testing.T) float64 {
	t.Helper()
	db, err := store.Open(filepath.Join(os.Getenv("XDG_DATA_HOME"), "hark", "harkd"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var text string
	if err := db.QueryRow(`SELECT profile FROM speech_speakers`).Scan(&text); err != nil {
		t.Fatalf("no speaker profile kept: %v", err)
	}
	var p speech.Profile
	if err := json.Unmarshal([]byte(text), &p); err != nil || p.WarpFrames == 0 || len(p.WarpScores) != len(speech.WarpGrid) {
		t.Fatalf("kept profile %s: %v", text, err)
	}
	best := 0
	for i, s := range p.WarpScores {
		if s > p.WarpScores[best] {
			best = i
		}
	}
	return speech.WarpGrid[best]
}

// TestAskFollowUpOnARemotePlatform answers the question of one spoken turn with another,
// continuing the conversation with --ref.
func TestAskFollowUpOnARemotePlatform(t *testing.T) {
	isolate(t)
	dir := t.TempDir()
	r := remote(t)
	t.Setenv("HARK_PASSWORD", "correct horse")
	if code, _, errOut := hark(t, "", append(r, "register", "--email", "sam@example.com")...); code != 0 {
		t.Fatalf("register: %s", errOut)
	}
	code, out, errOut := hark(t, "", append(r, "ask", fliteWAV(t, dir, "please set an alarm"))...)
	if code != 0 || !strings.Contains(errOut, "action OPEN_ASR") {
		t.Fatalf("ask: %d %q %q", code, out, errOut)
	}
	ref := errOut[strings.LastIndex(errOut, "ref ")+4:]
	code, out, errOut = hark(t, "", append(r, "ask", "--ref", strings.TrimSpace(ref), fliteWAV(t, dir, "seven thirty am"))...)
	if code != 0 || !strings.Contains(errOut, "heard: seven thirty am") || !strings.Contains(errOut, "action SET_ALARM") {
		t.Fatalf("ask --ref: %d %q %q", code, out, errOut)
	}
}

func TestAskRefusesBadFiles(t *testing.T) {
	isolate(t)
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	stereo := audio.EncodeWAV(make([]byte, 64), 16000)
	stereo[22] = 2 // channels
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"ask"}, 2, "usage: hark ask"},
		{[]string{"ask", "a.wav", "b.wav"}, 2, "usage: hark ask"},
		{[]string{"ask", "--frobnicate", "a.wav"}, 2, "hark ask: unknown flag --frobnicate"},
		{[]string{"ask", filepath.Join(dir, "missing.wav")}, 1, "no such file"},
		{[]string{"ask", dir}, 1, "is a directory"},
		{[]string{"ask", write("text.wav", []byte("hello, not audio"))}, 1, "not a 16-bit PCM mono WAV"},
		{[]string{"ask", write("stereo.wav", stereo)}, 1, "2 channels of 16 bits"},
		{[]string{"ask", write("cd.wav", audio.EncodeWAV(make([]byte, 64), 44100))}, 1, "sampled at 44100 Hz"},
		{[]string{"ask", write("empty.wav", audio.EncodeWAV(nil, 16000))}, 1, "holds no audio"},
	}
	for _, c := range cases {
		code, _, errOut := hark(t, "", c.args...)
		if code != c.code || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d %q, want %d and %q", c.args, code, errOut, c.code, c.want)
		}
	}
}
