package main

import (
	"encoding/json"
	"encoding/xml"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/harkhq/hark/server"
	"github.com/harkhq/hark/server/servertest"
)

func TestFlowRunUsage(t *testing.T) {
	isolate(t)
	dir := t.TempDir()
	good := filepath.Join(dir, "good.yaml")
	os.WriteFile(good, []byte("turns:\n  - type: hello\n"), 0o600)
	bad1 := filepath.Join(dir, "bad1.yaml")
	os.WriteFile(bad1, []byte("turns:\n  - type: hello\n    expect: {action: SET_ALARMS}\n"), 0o600)
	bad2 := filepath.Join(dir, "bad2.yaml")
	os.WriteFile(bad2, []byte("name: x\n  oops: [\n"), 0o600)

	for _, args := range [][]string{{"flow", "run", "--help"}, {"flow", "run", "-h"}, {"flow", "--help"}} {
		code, out, errOut := hark(t, "", args...)
		if code != 0 || !strings.HasPrefix(out, "usage: hark [global flags] flow run [flags] FILE...") ||
			!strings.Contains(out, "-voices") || !strings.Contains(out, "-pace") || errOut != "" {
			t.Errorf("%v: exit %d\nstdout %q\nstderr %q", args, code, out, errOut)
		}
	}
	for _, args := range [][]string{{"flow", "record", "--help"}, {"flow", "record", "-h"}} {
		code, out, errOut := hark(t, "", args...)
		if code != 0 || !strings.HasPrefix(out, "usage: hark [global flags] flow record [--force] FILE") ||
			!strings.Contains(out, "-force") || errOut != "" {
			t.Errorf("%v: exit %d\nstdout %q\nstderr %q", args, code, out, errOut)
		}
	}
	cases := []struct {
		args []string
		want []string
	}{
		{[]string{"flow"}, []string{"usage: hark flow record [--force] FILE | hark flow run"}},
		{[]string{"flow", "record", good}, []string{"good.yaml exists; --force overwrites it"}},
		{[]string{"flow", "record"}, []string{"give one flow file to write", "usage: hark flow record [--force] FILE"}},
		{[]string{"flow", "record", "a.yaml", "b.yaml"}, []string{"give one flow file to write"}},
		{[]string{"flow", "record", "--frobnicate", "a.yaml"}, []string{"flag provided but not defined", "usage: hark flow record"}},
		{[]string{"flow", "record", filepath.Join(dir, "no", "x.yaml")}, []string{"no directory"}},
		{[]string{"flow", "run"}, []string{"no flow file given"}},
		{[]string{"flow", "run", "--frobnicate", good}, []string{"flag provided but not defined"}},
		{[]string{"flow", "run", "--voices", "kal16,bob", good}, []string{`unknown voice "bob"`}},
		{[]string{"flow", "run", "--rate", "44100", good}, []string{"--rate 44100"}},
		{[]string{"flow", "run", "--pace", "slow", good}, []string{`--pace "slow"`}},
		{[]string{"flow", "run", "--timeout", "0s", good}, []string{"--timeout 0s"}},
		{[]string{"flow", "run", "--junit", filepath.Join(dir, "no", "such", "r.xml"), good}, []string{"its directory does not exist"}},
		{[]string{"flow", "run", good, filepath.Join(dir, "missing.yaml")}, []string{"missing.yaml: no such file"}},
		// Every broken file is reported, each problem at its line, and nothing runs.
		{[]string{"flow", "run", bad1, good, bad2}, []string{bad1 + `:3: unknown action code "SET_ALARMS"`, bad2 + ":2: mapping values are not allowed"}},
	}
	for _, c := range cases {
		code, out, errOut := hark(t, "", c.args...)
		if code != 2 || out != "" {
			t.Errorf("%v: exit %d, stdout %q; want 2 and nothing", c.args, code, out)
		}
		for _, w := range c.want {
			if !strings.Contains(errOut, w) {
				t.Errorf("%v: stderr %q lacks %q", c.args, errOut, w)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(os.Getenv("XDG_DATA_HOME"), "hark", "harkd")); err == nil {
		t.Fatal("a usage error started the embedded platform")
	}
}

// slowTurn is the flows' per-turn timeout here: the first spoken turn waits
// for a race-built speech worker to load its models, which took more than
// the default 30 s on 2 busy cores; these tests are about expectations.
const slowTurn = "3m"

func needFlite(t *testing.T) {
	if _, err := exec.LookPath("flite"); err != nil {
		t.Skip("flite is not installed (make test installs it)")
	}
}

// TestFlowExamplesPass runs examples/flows on the embedded platform of a fresh home, as on
// a fresh clone: no session (flows sign in as the console's anonymous user), no data. The
// upload is fast-paced to keep the suite short; flow's own tests cover real-time pace.
func TestFlowExamplesPass(t *testing.T) {
	if raceEnabled {
		t.Skip("speech-bound: run without the race detector (make test runs it so)")
	}
	needFlite(t)
	isolate(t)
	paths, err := filepath.Glob("../../examples/flows/*.yaml")
	if err != nil || len(paths) < 7 {
		t.Fatalf("examples: %v %v", paths, err)
	}
	// The default turn timeout: the run waits for the speech engines to start before its first
	// spoken turn, however long they take, and says so when it has to wait.
	code, out, errOut := hark(t, "", append([]string{"flow", "run", "--pace", "fast"}, paths...)...)
	if code != 0 || !strings.HasSuffix(out, "7 of 7 flow runs passed; 13 of 13 turns\n") {
		t.Fatalf("exit %d\n%s\nstderr: %s", code, out, errOut)
	}
	if errOut != "" && !regexp.MustCompile(`^hark flow run: starting the speech engines \(.*\)\nhark flow run: speech engines ready after \d+\.\d s\n$`).MatchString(errOut) {
		t.Fatalf("stderr: %q", errOut)
	}
	// Where TestFlowRunUsage checks that a usage error started nothing.
	if _, err := os.Stat(filepath.Join(os.Getenv("XDG_DATA_HOME"), "hark", "harkd")); err != nil {
		t.Fatalf("the embedded platform's data: %v", err)
	}
}

// TestFlowWrongExpectationFails: one wrong expectation makes the run fail with its reason
// and exit status 1, in text, JSON and JUnit, on a remote platform (--base-url).
func TestFlowWrongExpectationFails(t *testing.T) {
	needFlite(t)
	isolate(t)
	dir := t.TempDir()
	wrong := filepath.Join(dir, "wrong.yaml")
	os.WriteFile(wrong, []byte(`name: jazz is not an alarm
turns:
  - type: set a timer for five minutes
    expect: {action: SET_TIMER}
  - say: play some jazz
    expect:
      heard: play some jazz
      action: SET_ALARM
`), 0o600)
	r := remote(t)

	code, out, errOut := hark(t, "", append(r, "flow", "run", "--pace", "fast", "--timeout", slowTurn, wrong)...)
	if code != 1 || !strings.Contains(out, "FAIL jazz is not an alarm") ||
		!strings.Contains(out, "  FAIL turn 2 (line 5) say \"play some jazz\"\n       reason:  action SET_ALARM expected, got PLAY_MUSIC\n") ||
		!strings.Contains(out, "  pass turn 1 (line 3) type") || !strings.HasSuffix(out, "0 of 1 flow runs passed; 1 of 2 turns\n") {
		t.Fatalf("text: exit %d\n%s\nstderr: %s", code, out, errOut)
	}

	report := filepath.Join(dir, "report.xml")
	code, out, errOut = hark(t, "", append(r, "flow", "run", "--pace", "fast", "--timeout", slowTurn, "--json", "--junit", report, "--voices", "slt,awb", wrong)...)
	if code != 1 {
		t.Fatalf("--json: exit %d\n%s\nstderr: %s", code, out, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 {
		t.Fatalf("--json printed %d lines for a flow in two voices:\n%s", len(lines), out)
	}
	for i, voice := range []string{"slt", "awb"} {
		var res struct {
			Name, Voice string
			Pass        bool
			Turns       []struct {
				Pass     bool
				Heard    string
				Failures []string
				Actions  []struct{ Action string }
			}
		}
		if err := json.Unmarshal([]byte(lines[i]), &res); err != nil {
			t.Fatalf("--json line %d: %v\n%s", i+1, err, lines[i])
		}
		if res.Voice != voice || res.Pass || len(res.Turns) != 2 || !res.Turns[0].Pass || res.Turns[1].Pass ||
			len(res.Turns[1].Failures) != 1 || res.Turns[1].Failures[0] != "action SET_ALARM expected, got PLAY_MUSIC" ||
			len(res.Turns[1].Actions) != 1 || res.Turns[1].Actions[0].Action != "PLAY_MUSIC" {
			t.Fatalf("--json line %d: %+v", i+1, res)
		}
	}
	b, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	var junit struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Suites   []struct {
			Name  string `xml:"name,attr"`
			Cases []struct {
				Name    string `xml:"name,attr"`
				Failure *struct {
					Message string `xml:"message,attr"`
				} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(b, &junit); err != nil {
		t.Fatalf("JUnit report: %v\n%s", err, b)
	}
	if junit.Tests != 4 || junit.Failures != 2 || len(junit.Suites) != 2 || junit.Suites[1].Name != "jazz is not an alarm [awb]" ||
		junit.Suites[0].Cases[1].Failure == nil || junit.Suites[0].Cases[1].Failure.Message != "action SET_ALARM expected, got PLAY_MUSIC" {
		t.Fatalf("JUnit report: %+v", junit)
	}
}

// TestFlowVoicesAreSpeakersOfTheirOwn: with --voices, each voice speaks as a speaker of its
// own, so what harkd learnt of one voice (here kal16's frequency warp, below the model's own
// filters after its first command) never decides how the next voice's first turn is heard.
func TestFlowVoicesAreSpeakersOfTheirOwn(t *testing.T) {
	if raceEnabled {
		t.Skip("speech-bound: run without the race detector (make test runs it so)")
	}
	needFlite(t)
	isolate(t)
	var log servertest.LogBuffer
	p := servertest.Start(t, server.Config{Logger: log.Logger()})
	f := filepath.Join(t.TempDir(), "two.yaml")
	os.WriteFile(f, []byte(`turns:
  - say: set an alarm for seven thirty tomorrow morning
  - say: what's the weather like in london tomorrow
`), 0o600)
	code, out, errOut := hark(t, "", "--base-url", p.BaseURL, "--api-key", p.PublicKey, "--private-key", p.PrivateKey,
		"flow", "run", "--pace", "fast", "--timeout", slowTurn, "--voices", "kal16,slt", f)
	if code != 0 || errOut != "" {
		t.Fatalf("exit %d\n%s\nstderr: %s", code, out, errOut)
	}
	warps := log.Values("recognised", "warp")
	if len(warps) != 4 {
		t.Fatalf("%d recognised lines for 4 spoken turns:\n%s", len(warps), log.String())
	}
	if warps[0] != "1" || warps[1] == "1" {
		t.Fatalf("kal16's turns under warps %v: want the model's own filters first, then its estimate", warps[:2])
	}
	if warps[2] != "1" {
		t.Errorf("slt's first turn under warp %s after kal16's %s: want the model's own filters (1)", warps[2], warps[1])
	}
	// A second run meets its voices afresh: it hears its flows as the first did.
	code, out, errOut = hark(t, "", "--base-url", p.BaseURL, "--api-key", p.PublicKey, "--private-key", p.PrivateKey,
		"flow", "run", "--pace", "fast", "--timeout", slowTurn, "--voices", "kal16", f)
	if code != 0 || errOut != "" {
		t.Fatalf("second run: exit %d\n%s\nstderr: %s", code, out, errOut)
	}
	if again := log.Values("recognised", "warp"); len(again) != 6 || again[4] != "1" || again[5] != warps[1] {
		t.Errorf("the second run's kal16 turns under warps %v, the first run's %v", again[4:], warps[:2])
	}
}

// TestFlowUnreachablePlatform: a platform that does not answer fails every turn with the
// reason, and every turn is tried.
func TestFlowUnreachablePlatform(t *testing.T) {
	isolate(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String() + "/v2"
	ln.Close()
	f := filepath.Join(t.TempDir(), "two.yaml")
	os.WriteFile(f, []byte("turns:\n  - type: hello\n  - type: what time is it\n"), 0o600)
	code, out, errOut := hark(t, "", "--base-url", url, "--api-key", "k", "--private-key", "s", "flow", "run", f)
	if code != 1 || strings.Count(out, "connection refused") != 2 || !strings.HasSuffix(out, "0 of 1 flow runs passed; 0 of 2 turns\n") ||
		!strings.Contains(errOut, "could not sign in") {
		t.Fatalf("exit %d\n%s\nstderr: %s", code, out, errOut)
	}
}
