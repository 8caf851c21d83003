package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// runBinary runs the built hark with args in dir, the environment being
// the test's (isolate points it at a temporary home).
func runBinary(t *testing.T, bin, dir string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("hark %v: %v", args, err)
	}
	return code, out.String(), errb.String()
}

// TestCLIConventions drives the built binary as a script would: help on
// stdout with exit 0, usage mistakes as one line on stderr with exit 2
// (and no platform started for either), data on stdout, diagnostics on
// stderr, and valid JSON from every list command.
func TestCLIConventions(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildHark(t)
	home := isolate(t)
	work := t.TempDir()

	cases := []struct {
		args       []string
		code       int
		out, notIn string // stdout contains out and not notIn
		errOut     string // stderr contains errOut ("" = stderr empty)
	}{
		{[]string{"--help"}, 0, "\ncommands:\n  say", "", ""},
		{[]string{"-h"}, 0, "run one command", "", ""},
		{[]string{"help"}, 0, "\ncommands:\n  say", "", ""},
		{[]string{"help", "help"}, 0, "usage: hark help [COMMAND [SUBCOMMAND]]", "", ""},
		{[]string{"help", "storage"}, 0, "usage: hark storage COMMAND", "", ""},
		{[]string{"help", "storage", "ls"}, 0, "usage: hark storage ls [FOLDER]", "", ""},
		{[]string{"storage", "--help"}, 0, "  clear", "", ""},
		{[]string{"storage"}, 0, "  ls", "", ""},
		{[]string{"storage", "ls", "--help"}, 0, "  --json", "--force", ""},
		{[]string{"storage", "get", "-h"}, 0, "  --force", "--json", ""},
		{[]string{"say", "--help"}, 0, "  --ref N", "--base-url", ""},
		{[]string{"recomm", "--help"}, 0, "  recommend", "", ""},
		{[]string{"help", "recomm"}, 0, "  tables", "", ""},
		{[]string{"mic", "--help"}, 0, "  --json", "", ""},
		{[]string{"--version"}, 0, "hark version ", "", ""},
		{[]string{"version"}, 0, "hark version ", "", ""},
		{[]string{"frobnicate"}, 2, "", "", "hark: unknown command \"frobnicate\"\n"},
		{[]string{"--frobnicate"}, 2, "", "", "hark: unknown flag --frobnicate\n"},
		{[]string{"help", "frobnicate"}, 2, "", "", "unknown command \"frobnicate\""},
		{[]string{"storage", "frobnicate"}, 2, "", "", "hark storage: unknown command \"frobnicate\""},
		{[]string{"recomm", "frobnicate"}, 2, "", "", "hark recomm: unknown command \"frobnicate\""},
		{[]string{"storage", "ls", "--frobnicate"}, 2, "", "", "hark storage ls: unknown flag --frobnicate\n"},
		{[]string{"storage", "ls", "--base-url", "http://x/v2"}, 2, "", "", "hark storage ls: --base-url is a global flag: put it before the command"},
		{[]string{"storage", "ls", "a", "b"}, 2, "", "", "hark storage ls: give at most one FOLDER"},
		{[]string{"say"}, 2, "", "", "hark say: give the TEXT to say"},
		{[]string{"say", "--ref", "x", "hi"}, 2, "", "", "invalid value \"x\" for flag --ref"},
		{[]string{"storage", "clear"}, 2, "", "", "add --yes"},
		{[]string{"mic", "--json", "USB"}, 2, "", "", "--json goes with the list"},
	}
	for _, c := range cases {
		code, out, errOut := runBinary(t, bin, work, c.args...)
		if code != c.code || !strings.Contains(out, c.out) || (c.notIn != "" && strings.Contains(out, c.notIn)) ||
			(c.errOut == "" && errOut != "") || !strings.Contains(errOut, c.errOut) || (c.code == 2 && out != "") {
			t.Errorf("hark %v: exit %d\nstdout:\n%s\nstderr:\n%s", c.args, code, out, errOut)
		}
	}
	if _, err := os.Stat(filepath.Join(os.Getenv("XDG_DATA_HOME"), "hark", "harkd")); err == nil {
		t.Error("help or a usage mistake started the platform")
	}

	// On the embedded platform: lists, empty and not, as text and JSON.
	t.Setenv("HARK_PASSWORD", "correct horse")
	if code, out, errOut := runBinary(t, bin, work, "register", "--email", "cli@example.com"); code != 0 || out != "" || !strings.Contains(errOut, "signed in as cli@example.com") {
		t.Fatalf("register: %d %q %q", code, out, errOut)
	}
	code, out, errOut := runBinary(t, bin, work, "storage", "ls")
	if code != 0 || out != "" || !strings.Contains(errOut, "no files or folders yet") {
		t.Errorf("empty ls: %d %q %q", code, out, errOut)
	}
	if code, out, errOut := runBinary(t, bin, work, "storage", "ls", "--json"); code != 0 || strings.TrimSpace(out) != "[]" || errOut != "" {
		t.Errorf("empty ls --json: %d %q %q", code, out, errOut)
	}
	code, out, errOut = runBinary(t, bin, work, "mic", "--json")
	var mics []map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &mics) != nil || mics == nil {
		t.Errorf("mic --json: %d %q %q", code, out, errOut)
	}
	for _, m := range mics {
		if _, ok := m["name"].(string); !ok || m["default"] == nil || m["chosen"] == nil {
			t.Errorf("mic --json entry %v", m)
		}
	}

	local := filepath.Join(home, "notes.txt")
	os.WriteFile(local, bytes.Repeat([]byte("x"), 3000), 0o644)
	if code, out, errOut := runBinary(t, bin, work, "storage", "mkdir", "docs"); code != 0 || out != "" || errOut != "created docs/\n" {
		t.Fatalf("mkdir: %d %q %q", code, out, errOut)
	}
	code, out, errOut = runBinary(t, bin, work, "storage", "put", local, "docs/notes.txt")
	if code != 0 || out != "" || errOut != "uploaded docs/notes.txt (2.9 KiB)\n" {
		t.Fatalf("put: %d %q %q", code, out, errOut)
	}
	code, out, _ = runBinary(t, bin, work, "storage", "ls", "--json", "docs")
	var files []struct {
		Type, Name, Folder, Path, Modified string
		Size                               *int64
	}
	if code != 0 || json.Unmarshal([]byte(out), &files) != nil || len(files) != 1 || files[0].Type != "file" ||
		files[0].Path != "docs/notes.txt" || files[0].Size == nil || *files[0].Size != 3000 || files[0].Modified == "" {
		t.Errorf("ls --json docs: %d %s", code, out)
	}

	// A question answered by a second run of hark, each with its own
	// embedded platform on the same data.
	code, out, errOut = runBinary(t, bin, work, "say", "set an alarm")
	ref := regexp.MustCompile(`(?m)^ref (\d+)$`).FindStringSubmatch(errOut)
	if code != 0 || out != "For what time?\n" || !strings.Contains(errOut, "action OPEN_ASR") || ref == nil {
		t.Fatalf("say: %d %q %q", code, out, errOut)
	}
	code, out, errOut = runBinary(t, bin, work, "say", "--ref", ref[1], "seven am")
	if code != 0 || !strings.HasPrefix(out, "Alarm set for") || !strings.Contains(errOut, "action SET_ALARM {\"time\":") {
		t.Fatalf("say --ref in a second process: %d %q %q", code, out, errOut)
	}
}
