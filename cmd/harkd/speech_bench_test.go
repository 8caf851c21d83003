package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/harkhq/hark/client"
)

// soakTurns is how many spoken turns BenchmarkSpeechSoak runs: 2,000, or
// HARK_SOAK_TURNS for a quick look.
func soakTurns() int {
	if n, err := strconv.Atoi(os.Getenv("HARK_SOAK_TURNS")); err == nil && n > 0 {
		return n
	}
	return 2000
}

// BenchmarkSpeechSoak runs 2,000 spoken turns against a real harkd process
// (four at a time): text queries in English and Spanish whose answer audio
// is fetched (synthesis in the workers), and every tenth turn a spoken
// English query streamed through recognition, whose streamed answer and
// audio URL are both read. It reports the speech workers that died
// (counted as harkd's child processes that ended and were replaced) and
// the answers whose audio could not be fetched or was empty, and fails if
// either is not zero. It runs only in make bench (-benchtime 1x).
func BenchmarkSpeechSoak(b *testing.B) {
	if _, err := exec.LookPath("flite"); err != nil {
		b.Skip("flite is not installed: no spoken queries")
	}
	dir := b.TempDir()
	h := startHarkd(b, serveArgs(filepath.Join(dir, "data"))...)
	var spoken [][]byte
	for i, text := range []string{"what time is it", "set an alarm for seven thirty am", "tell me a joke", "turn on the kitchen lights"} {
		out := filepath.Join(dir, strconv.Itoa(i)+".wav")
		if msg, err := exec.Command("flite", "-voice", "kal16", "-t", text, "-o", out).CombinedOutput(); err != nil {
			b.Fatalf("flite: %v %s", err, msg)
		}
		wav, err := os.ReadFile(out)
		if err != nil {
			b.Fatal(err)
		}
		spoken = append(spoken, wav)
	}
	queries := map[string][]string{
		"en": {"what time is it", "set an alarm", "tell me a joke", "hello", "how are you", "what's the weather in Madrid",
			"set a timer", "turn on the lights", "call mom", "play some jazz", "send a message"},
		"es": {"qué hora es", "pon una alarma", "cuéntame un chiste", "hola", "cómo estás", "qué tiempo hace en Madrid",
			"pon un temporizador", "enciende la luz", "llama a mamá", "pon música", "envía un mensaje"},
	}
	ctx := context.Background()
	clients := map[string]*client.Client{}
	for _, lang := range []string{"en", "es"} {
		c, err := client.New(client.Config{BaseURL: "http://" + h.addr + "/v2", PublicKey: "pk_crash", PrivateKey: "sk_crash",
			MaxRetries: -1, Language: lang})
		if err != nil {
			b.Fatal(err)
		}
		if _, _, err := c.Auth.Anonymous(ctx, "soak-"+lang, "bench", "Soak"); err != nil {
			b.Fatal(err)
		}
		clients[lang] = c
	}
	workers := watchChildren(h.cmd.Process.Pid)
	var lost, turns, spokenTurns atomic.Int64
	var mu sync.Mutex
	var firstLoss string
	loss := func(what string, err error) {
		lost.Add(1)
		mu.Lock()
		if firstLoss == "" {
			firstLoss = fmt.Sprintf("%s: %v", what, err)
		}
		mu.Unlock()
	}
	fetch := func(c *client.Client, url, what string) {
		body, err := c.Dialogue.AudioFile(ctx, url)
		if err != nil {
			loss(what, err)
			return
		}
		n, err := io.Copy(io.Discard, body)
		body.Close()
		if err != nil || n == 0 {
			loss(what, fmt.Errorf("%d bytes, %v", n, err))
		}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		next := make(chan int)
		var wg sync.WaitGroup
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for n := range next {
					turns.Add(1)
					if n%10 == 0 {
						spokenTurns.Add(1)
						c := clients["en"]
						ans, err := c.Dialogue.Stream(ctx, bytes.NewReader(spoken[n/10%len(spoken)]), 16000, 0)
						if err != nil {
							loss("spoken query", err)
							continue
						}
						m, err := io.Copy(io.Discard, ans.Audio)
						ans.Audio.Close()
						if err != nil || m == 0 {
							loss("streamed answer "+ans.Answer.Responses.Speech, fmt.Errorf("%d bytes, %v", m, err))
						}
						fetch(c, ans.Answer.Responses.Audio, "audio of spoken answer "+ans.Answer.Responses.Speech)
						continue
					}
					lang := []string{"en", "es"}[n%2]
					q := queries[lang][n/2%len(queries[lang])]
					a, err := clients[lang].Dialogue.Text(ctx, q, 0)
					if err != nil {
						loss("text query "+q, err)
						continue
					}
					if strings.TrimSpace(a.Responses.Speech) == "" {
						continue
					}
					fetch(clients[lang], a.Responses.Audio, "audio of "+strconv.Quote(a.Responses.Speech))
				}
			}()
		}
		for n := range soakTurns() {
			next <- n
		}
		close(next)
		wg.Wait()
	}
	b.StopTimer()
	died, seen := workers.stop()
	b.ReportMetric(float64(turns.Load())/b.Elapsed().Seconds(), "turns/s")
	b.ReportMetric(float64(spokenTurns.Load()), "spoken-turns")
	b.ReportMetric(float64(seen), "worker-processes")
	b.ReportMetric(float64(died), "worker-crashes")
	b.ReportMetric(float64(lost.Load()), "lost-audio")
	if died > 0 || lost.Load() > 0 {
		b.Fatalf("%d speech workers died, %d answers lost their audio (first: %s)", died, lost.Load(), firstLoss)
	}
}

// children watches a process's children: every speech worker that dies is
// replaced by a new process, so the processes seen minus those alive at
// the end is the number that died.
type children struct {
	done chan struct{}
	wg   sync.WaitGroup
	pid  int
	seen map[int]bool
}

func watchChildren(pid int) *children {
	c := &children{done: make(chan struct{}), pid: pid, seen: map[int]bool{}}
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		for {
			for _, p := range childPIDs(pid) {
				c.seen[p] = true
			}
			select {
			case <-c.done:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	return c
}

// stop returns how many children died and how many were seen.
func (c *children) stop() (died, seen int) {
	close(c.done)
	c.wg.Wait()
	return len(c.seen) - len(childPIDs(c.pid)), len(c.seen)
}

func childPIDs(pid int) []int {
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
	var out []int
	for _, t := range tasks {
		b, _ := os.ReadFile(t)
		for _, f := range strings.Fields(string(b)) {
			if n, err := strconv.Atoi(f); err == nil {
				out = append(out, n)
			}
		}
	}
	return out
}
