package main

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// forYou is the block of recommendations the For you tab shows, for comparing two screens.
func forYou(scr string) string {
	i := strings.Index(scr, "Recommended")
	if i < 0 {
		return ""
	}
	var rows []string
	for _, l := range strings.Split(scr[i:], "\n")[1:] {
		left, _, _ := strings.Cut(l, "│")
		row := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(left), ">"))
		// A recommendation's row starts with its match score; anything else (the empty
		// list's hint, "because ...") ends the list.
		if row == "" || row[0] < '0' || row[0] > '9' {
			break
		}
		rows = append(rows, row)
	}
	return strings.Join(rows, "\n")
}

// TestRecommendationsForANewcomerInTmux is the newcomer's path on a fresh HOME: sign up, open
// Recommendations, load the sample catalog from the empty state, rate three films and see their
// recommendations change.
func TestRecommendationsForANewcomerInTmux(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	bin := buildHark(t)
	isolate(t)
	s := &tmuxSession{t: t, socket: fmt.Sprintf("hark-recomm-e2e-%d", os.Getpid())}
	var env []string
	for _, v := range []string{"XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "HOME", "HARK_KEYRING"} {
		env = append(env, v+"="+os.Getenv(v))
	}
	s.tmux("new-session", "-d", "-s", "hark", "-x", "120", "-y", "40", "-c", t.TempDir(),
		"env "+strings.Join(env, " ")+" TERM=xterm-256color "+bin+"; sleep 30")
	t.Cleanup(func() { exec.Command("tmux", "-L", s.socket, "kill-server").Run() })

	s.waitFor("Continue anonymously")
	s.keys("C-n")
	s.waitFor("[Register]")
	s.text("rate@example.com")
	s.keys("Tab")
	s.text("correct horse battery")
	s.keys("Tab")
	s.text("Rae")
	s.keys("Enter")
	s.waitFor("I accept")
	s.keys("Enter")
	s.waitFor("What should I call you?")
	s.text("Rae")
	s.keys("Enter")
	s.waitFor("Nice to meet you")
	s.keys("Enter")
	s.waitFor("Location:")
	s.keys("Enter")
	s.waitFor("at least 2")
	s.keys("Space", "Down", "Space", "Enter")
	s.waitFor("Console]")

	s.keys("M-r")
	s.waitFor("Press s to load the sample catalog")
	s.keys("s")
	// Three tables train in the background; under -race on a loaded
	// 2-core machine that has taken more than 20 s.
	s.waitWithin("sandbox-news trained", 2*time.Minute)
	s.keys("j", "Enter")
	s.waitFor("The Last Lighthouse")
	s.keys("5")
	s.waitFor("rated The Last Lighthouse: 5")
	s.keys("Tab", "Tab")
	scr := s.waitFor("History, newest first")
	// Until the list has rows, the tab shows why not (the engine still training on a
	// loaded machine); a rating key there has nothing to rate.
	deadline := time.Now().Add(time.Minute)
	for forYou(scr) == "" && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
		scr = s.screen()
	}
	before := forYou(scr)
	if before == "" {
		t.Fatalf("no recommendations after a rating:\n%s", scr)
	}
	for _, v := range []string{"4", "3"} {
		s.keys(v)
		// The toast of the rating before may still show "rated"; this one names its value. A
		// loaded machine has made a rating take seconds; every toast seen on the way is kept, so
		// a failure says whether the rating failed (its toast lives 5 s) or never came.
		s.waitNoting(": "+v, time.Minute)
	}
	deadline = time.Now().Add(20 * time.Second)
	for forYou(s.screen()) == before && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	after := forYou(s.screen())
	if after == before {
		t.Fatalf("the recommendations did not change after three ratings:\n%s", s.screen())
	}
	if scr := s.screen(); strings.Count(scr[strings.Index(scr, "History, newest first"):], "\n") < 3 {
		t.Errorf("the history does not list the ratings:\n%s", scr)
	}
}
