package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/harkhq/hark/client"
)

// The test binary doubles as harkd: with HARKD_AS_MAIN set it runs main
// with the remaining arguments, so tests can start, kill and restart a
// real server process.
func TestMain(m *testing.M) {
	speechOnDemand = true // here and in the harkd processes the tests start from this binary
	if os.Getenv("HARKD_AS_MAIN") == "1" {
		if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
			os.Stderr.WriteString(err.Error() + "\n")
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

type harkd struct {
	cmd  *exec.Cmd
	addr string
}

func startHarkd(t testing.TB, args ...string) *harkd {
	t.Helper()
	return startHarkdLogging(t, nil, args...)
}

// startHarkdLogging starts harkd with its log (stderr) going to log; nil
// drops it.
func startHarkdLogging(t testing.TB, log io.Writer, args ...string) *harkd {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "HARKD_AS_MAIN=1")
	cmd.Stderr = log
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("harkd printed nothing: %v", err)
	}
	addr, ok := strings.CutPrefix(strings.TrimSpace(line), "harkd is serving on http://")
	if !ok {
		t.Fatalf("harkd said %q", line)
	}
	go io.Copy(io.Discard, out)
	return &harkd{cmd: cmd, addr: addr}
}

func serveArgs(data string) []string {
	return []string{"serve", "--addr", "127.0.0.1:0", "--data", data, "--public-key", "pk_crash", "--private-key", "sk_crash",
		"--print-keys", "--rate", "1e9", "--burst", "1e9"}
}

func (h *harkd) client(t testing.TB) *client.Client {
	c, err := client.New(client.Config{BaseURL: "http://" + h.addr + "/v2", PublicKey: "pk_crash", PrivateKey: "sk_crash", MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Killing the server mid-upload leaves a store that opens cleanly, with
// the previous version of the file and no partial file visible.
func TestCrashMidUpload(t *testing.T) {
	data := t.TempDir()
	h := startHarkd(t, serveArgs(data)...)
	c := h.client(t)
	ctx := context.Background()
	if _, err := c.Storage.Upload(ctx, "", "doc.txt", strings.NewReader("original"), 8, nil); err != nil {
		t.Fatal(err)
	}
	pr, pw := io.Pipe()
	sent := make(chan struct{})
	go func() {
		pw.Write(bytes.Repeat([]byte("x"), 4<<20))
		close(sent)
		pw.Write(bytes.Repeat([]byte("y"), 4<<20)) // blocks until the pipe breaks
	}()
	uploadErr := make(chan error, 1)
	go func() {
		_, err := c.Storage.Upload(ctx, "", "doc.txt", pr, 64<<20, nil)
		uploadErr <- err
	}()
	<-sent
	// Wait until the partial upload is on disk, then kill without warning.
	deadline := time.Now().Add(10 * time.Second)
	for {
		matches, _ := filepath.Glob(filepath.Join(data, "storage", "*", "tmp", "upload-*"))
		if len(matches) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no upload in progress on disk")
		}
		time.Sleep(10 * time.Millisecond)
	}
	h.cmd.Process.Signal(syscall.SIGKILL)
	h.cmd.Wait()
	pw.CloseWithError(io.ErrClosedPipe)
	if err := <-uploadErr; err == nil {
		t.Fatal("the interrupted upload reported success")
	}

	h2 := startHarkd(t, serveArgs(data)...)
	c2 := h2.client(t)
	var got bytes.Buffer
	if _, err := c2.Storage.Download(ctx, "", "doc.txt", &got, nil); err != nil || got.String() != "original" {
		t.Fatalf("after the crash: %q %v", got.String(), err)
	}
	list, err := c2.Storage.List(ctx, "", client.ListOptions{})
	if err != nil || len(list) != 1 {
		t.Fatalf("listing after the crash: %+v %v", list, err)
	}
	if matches, _ := filepath.Glob(filepath.Join(data, "storage", "*", "tmp", "*")); len(matches) != 0 {
		t.Fatalf("partial uploads left: %v", matches)
	}
}

// SIGTERM drains and exits cleanly.
func TestGracefulShutdown(t *testing.T) {
	h := startHarkd(t, serveArgs(t.TempDir())...)
	resp, err := http.Get("http://" + h.addr + "/healthz")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("healthz: %v %v", resp, err)
	}
	resp.Body.Close()
	h.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- h.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("harkd exited with %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("harkd did not stop on SIGTERM")
	}
}

func TestWorkspaceCreate(t *testing.T) {
	var out bytes.Buffer
	data := t.TempDir()
	if err := run([]string{"workspace", "create", "--data", data, "--name", "demo"}, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	var keys map[string]string
	if err := json.Unmarshal(out.Bytes(), &keys); err != nil || !strings.HasPrefix(keys["publicKey"], "pk_") || len(keys["privateKey"]) < 32 {
		t.Fatalf("workspace create printed %q", out.String())
	}
	if err := run([]string{"workspace", "create", "--data", data}, io.Discard, io.Discard); err == nil {
		t.Fatal("workspace create without --name succeeded")
	}
	if err := run([]string{"bogus"}, io.Discard, io.Discard); err == nil {
		t.Fatal("an unknown command succeeded")
	}
	if err := run([]string{"serve", "--data", data, "--public-key", "only-one"}, io.Discard, io.Discard); err == nil {
		t.Fatal("serve with a public key and no private key succeeded")
	}
}

// harkd --help prints every command on stdout and succeeds; an unknown
// command or stray arguments print the same on stderr and fail.
func TestUsage(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"-h"}, {"help"}} {
		var stdout, stderr bytes.Buffer
		if err := run(args, &stdout, &stderr); err != nil || !strings.Contains(stdout.String(), "harkd speech-models") || stderr.Len() != 0 {
			t.Errorf("%v: %v, stdout %q, stderr %q", args, err, stdout.String(), stderr.String())
		}
	}
	for _, args := range [][]string{{}, {"serve-all"}, {"speech-models", "now"}} {
		var stdout, stderr bytes.Buffer
		if err := run(args, &stdout, &stderr); err == nil || stdout.Len() != 0 || !strings.Contains(stderr.String(), "usage:") {
			t.Errorf("%v: %v, stdout %q, stderr %q", args, err, stdout.String(), stderr.String())
		}
	}
}
