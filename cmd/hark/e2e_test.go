package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// buildHark builds the hark binary into a temporary directory. Call it
// before isolate: the build uses the real Go caches, found through HOME.
func buildHark(t *testing.T) string {
	t.Helper()
	goEnv, err := exec.Command("go", "env", "GOCACHE", "GOMODCACHE", "GOPATH").Output()
	if err != nil {
		t.Fatal(err)
	}
	goVars := strings.Fields(string(goEnv))
	bin := filepath.Join(t.TempDir(), "hark")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Env = append(os.Environ(), "GOCACHE="+goVars[0], "GOMODCACHE="+goVars[1], "GOPATH="+goVars[2])
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	return bin
}

// tmuxSession drives the built hark in a real terminal on a private tmux
// server (its own socket, so nothing else is touched).
type tmuxSession struct {
	t      *testing.T
	socket string
}

func (s *tmuxSession) tmux(args ...string) string {
	s.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-L", s.socket}, args...)...).CombinedOutput()
	if err != nil {
		s.t.Fatalf("tmux %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func (s *tmuxSession) screen() string { return s.tmux("capture-pane", "-p", "-t", "hark") }

// waitFor polls the screen until it shows text (bounded).
func (s *tmuxSession) waitFor(text string) string {
	s.t.Helper()
	return s.waitWithin(text, 20*time.Second)
}

// waitWithin is waitFor for a step whose time is the machine's, not the
// program's: background work such as training a catalog.
func (s *tmuxSession) waitWithin(text string, limit time.Duration) string {
	s.t.Helper()
	deadline := time.Now().Add(limit)
	for {
		scr := s.screen()
		if strings.Contains(scr, text) {
			return scr
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("the screen never showed %q; it shows:\n%s", text, scr)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// waitNoting is waitWithin that keeps every distinct line of the screen's
// last three (where toasts and job lines appear) while waiting, and reports
// them on failure.
func (s *tmuxSession) waitNoting(text string, limit time.Duration) string {
	s.t.Helper()
	deadline := time.Now().Add(limit)
	var seen []string
	for {
		scr := s.screen()
		if strings.Contains(scr, text) {
			return scr
		}
		lines := strings.Split(strings.TrimRight(scr, "\n "), "\n")
		for _, l := range lines[max(0, len(lines)-3):] {
			if l = strings.TrimSpace(l); !slices.Contains(seen, l) {
				seen = append(seen, l)
			}
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("the screen never showed %q; last lines seen on the way:\n%s\nit shows:\n%s", text, strings.Join(seen, "\n"), scr)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (s *tmuxSession) keys(keys ...string) {
	s.tmux(append([]string{"send-keys", "-t", "hark"}, keys...)...)
}
func (s *tmuxSession) text(text string) { s.tmux("send-keys", "-t", "hark", "-l", text) }

// TestEndToEndInTmux builds hark, runs it with its embedded platform in
// tmux, registers, walks the onboarding, asks a question, uploads and
// downloads a file, and reads what the screen shows.
func TestEndToEndInTmux(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	bin := buildHark(t)
	home := isolate(t)
	work := t.TempDir()
	payload := bytes.Repeat([]byte("end to end "), 3000)
	local := filepath.Join(home, "upload-me.txt")
	if err := os.WriteFile(local, payload, 0o644); err != nil {
		t.Fatal(err)
	}
	s := &tmuxSession{t: t, socket: fmt.Sprintf("hark-e2e-%d", os.Getpid())}
	env := []string{}
	t.Setenv("XDG_DOWNLOAD_DIR", work) // where storage offers to save
	for _, v := range []string{"XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_DOWNLOAD_DIR", "HOME", "HARK_KEYRING"} {
		env = append(env, v+"="+os.Getenv(v))
	}
	s.tmux("new-session", "-d", "-s", "hark", "-x", "100", "-y", "30", "-c", work,
		"env "+strings.Join(env, " ")+" TERM=xterm-256color "+bin+"; sleep 30")
	t.Cleanup(func() { exec.Command("tmux", "-L", s.socket, "kill-server").Run() })

	s.waitFor("Continue anonymously")
	s.keys("C-n")
	s.waitFor("[Register]")
	s.text("e2e@example.com")
	s.keys("Tab")
	s.text("correct horse battery")
	s.keys("Tab")
	s.text("Eve")
	s.keys("Enter")

	s.waitFor("I accept")
	s.keys("Enter")
	s.waitFor("What should I call you?")
	s.text("Evie")
	s.keys("Enter")
	s.waitFor("Nice to meet you, Evie!")
	s.keys("Enter") // metric
	s.waitFor("Location:")
	s.keys("Enter")
	s.waitFor("at least 2")
	s.keys("Space", "Down", "Space", "Enter")
	scr := s.waitFor("Console]") // the tab bar marks the screen shown
	if !strings.Contains(scr, "Evie @ embedded platform") {
		t.Errorf("the status line does not name the user:\n%s", scr)
	}
	// Every screen opens with the key the tab bar names for it.
	for _, tab := range []struct{ key, name string }{{"M-i", "Items"}, {"M-u", "Surveys"}, {"M-r", "Recommendations"},
		{"M-p", "Places"}, {"M-s", "Storage"}, {"M-c", "Console"}} {
		if !strings.Contains(s.screen(), strings.TrimPrefix(tab.key, "M-")+" "+tab.name) {
			t.Errorf("the tab bar does not name %s with its key:\n%s", tab.name, s.screen())
		}
		s.keys(tab.key)
		s.waitFor(tab.name + "]")
	}

	s.text("what's the weather tomorrow")
	s.keys("Enter")
	scr = s.waitFor("you: what's the weather tomorrow")
	deadline := time.Now().Add(20 * time.Second)
	for strings.Contains(scr, "  …") && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
		scr = s.screen()
	}
	after := scr[strings.Index(scr, "you: what's the weather tomorrow"):]
	lines := strings.Split(after, "\n")
	if len(lines) < 2 || strings.TrimSpace(lines[1]) == "" || strings.Contains(lines[1], "…") {
		t.Fatalf("no answer under the question:\n%s", scr)
	}

	s.keys("M-s")
	s.waitFor("in the workspace")
	s.keys("u")
	s.waitFor("upload local file:")
	s.text(filepath.Join(home, "upload-m"))
	s.keys("Tab")
	s.waitFor("upload-me.txt")
	s.keys("Enter")
	scr = s.waitFor("uploaded upload-me.txt")
	if !strings.Contains(scr, "32.2 KiB") {
		t.Errorf("size not shown:\n%s", scr)
	}
	s.keys("d")
	s.waitFor("save upload-me.txt in:")
	s.keys("Enter")
	s.waitFor("downloaded upload-me.txt")
	got, err := os.ReadFile(filepath.Join(work, "upload-me.txt"))
	if err != nil || !bytes.Equal(got, payload) {
		t.Fatalf("downloaded file: %v (%d bytes)", err, len(got))
	}
	s.keys("C-c")
	deadline = time.Now().Add(10 * time.Second)
	for strings.Contains(s.screen(), "Storage]") {
		if time.Now().After(deadline) {
			t.Fatal("ctrl+c did not quit")
		}
		time.Sleep(100 * time.Millisecond)
	}
	if log, err := os.ReadFile(filepath.Join(os.Getenv("XDG_STATE_HOME"), "hark", "hark.log")); err != nil || !bytes.Contains(log, []byte("embedded platform ready")) {
		t.Errorf("log file: %v", err)
	}
}
