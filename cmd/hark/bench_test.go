package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// BenchmarkStartToFirstFrame times process start to the first full frame
// (the sign-in screen drawn) with the embedded platform, in tmux. "fresh"
// starts on an empty data directory (migrations, workspace creation);
// "warm" on the one an earlier run left. It also reports the peak RSS of
// the process (VmHWM) once the frame is up.
func BenchmarkStartToFirstFrame(b *testing.B) {
	if _, err := exec.LookPath("tmux"); err != nil {
		b.Skip("tmux is not installed")
	}
	bin := filepath.Join(b.TempDir(), "hark")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		b.Fatalf("build: %v\n%s", err, out)
	}
	socket := fmt.Sprintf("hark-bench-%d", os.Getpid())
	b.Cleanup(func() { exec.Command("tmux", "-L", socket, "kill-server").Run() })
	tmux := func(args ...string) (string, error) {
		out, err := exec.Command("tmux", append([]string{"-L", socket}, args...)...).CombinedOutput()
		return string(out), err
	}
	// A session that stays up so starting hark does not pay for a tmux server.
	if out, err := tmux("new-session", "-d", "-s", "idle", "sleep 600"); err != nil {
		b.Fatalf("tmux: %v %s", err, out)
	}
	for _, mode := range []string{"fresh", "warm"} {
		b.Run(mode, func(b *testing.B) {
			home := b.TempDir()
			var rss []float64
			for i := 0; b.Loop(); i++ {
				dataHome := filepath.Join(home, "data")
				if mode == "fresh" {
					dataHome = filepath.Join(home, fmt.Sprintf("data-%d", i))
				}
				env := fmt.Sprintf("env HOME=%s XDG_CONFIG_HOME=%s/config XDG_STATE_HOME=%s/state XDG_DATA_HOME=%s HARK_KEYRING=off TERM=xterm-256color",
					home, home, home, dataHome)
				name := fmt.Sprintf("run%d", i)
				if out, err := tmux("new-session", "-d", "-s", name, "-x", "100", "-y", "30", "exec "+env+" "+bin); err != nil {
					b.Fatalf("tmux: %v %s", err, out)
				}
				start := time.Now()
				deadline := start.Add(20 * time.Second)
				for {
					scr, _ := tmux("capture-pane", "-p", "-t", name)
					if strings.Contains(scr, "Continue anonymously") && strings.Contains(scr, "ctrl+c quit") {
						break
					}
					if time.Now().After(deadline) {
						b.Fatalf("no first frame; screen:\n%s", scr)
					}
					time.Sleep(2 * time.Millisecond)
				}
				b.StopTimer()
				if pid, err := tmux("display", "-p", "-t", name, "#{pane_pid}"); err == nil {
					if status, err := os.ReadFile("/proc/" + strings.TrimSpace(pid) + "/status"); err == nil {
						for _, l := range strings.Split(string(status), "\n") {
							if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmHWM:" {
								kb, _ := strconv.ParseFloat(f[1], 64)
								rss = append(rss, kb/1024)
							}
						}
					}
				}
				tmux("kill-session", "-t", name)
				b.StartTimer()
			}
			if len(rss) > 0 {
				peak := 0.0
				for _, r := range rss {
					peak = max(peak, r)
				}
				b.ReportMetric(peak, "peak-RSS-MB")
			}
		})
	}
}
