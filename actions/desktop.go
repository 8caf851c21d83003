package actions

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"time"
)

// Opener hands things to the desktop. Tests pass a recorder so that nothing opens.
type Opener interface {
	// OpenURL opens a URL (https:, mailto:, tel:, sms:) with the desktop's handler for it.
	OpenURL(ctx context.Context, url string) error
	// OpenApp starts an application by name.
	OpenApp(ctx context.Context, name string) error
}

// Notifier shows a desktop notification.
type Notifier interface {
	Notify(ctx context.Context, title, body string) error
}

// ErrNoDesktop is returned when the machine has no program to carry a desktop request.
var ErrNoDesktop = errors.New("no desktop handler on this machine")

// DesktopOpener opens through xdg-open on Linux and the BSDs, open on macOS and the URL
// handler of Windows. Apps start with gtk-launch (desktop entries) or, failing that, the
// program of that name on PATH, with no arguments.
type DesktopOpener struct{}

func (DesktopOpener) OpenURL(ctx context.Context, url string) error {
	var name string
	var args []string
	switch runtime.GOOS {
	case "darwin":
		name, args = "open", []string{url}
	case "windows":
		name, args = "rundll32", []string{"url.dll,FileProtocolHandler", url}
	default:
		name, args = "xdg-open", []string{url}
	}
	return runHelper(ctx, name, args...)
}

func (DesktopOpener) OpenApp(ctx context.Context, name string) error {
	if !appName(name) {
		return fmt.Errorf("%q is not an application name", name)
	}
	switch runtime.GOOS {
	case "darwin":
		return runHelper(ctx, "open", "-a", name)
	case "windows":
		return runHelper(ctx, "cmd", "/c", "start", "", name)
	}
	if _, err := exec.LookPath("gtk-launch"); err == nil {
		// gtk-launch knows desktop entries by id ("firefox", "org.gnome.Calculator").
		if err := runHelper(ctx, "gtk-launch", strings.ToLower(strings.ReplaceAll(name, " ", "-"))); err == nil {
			return nil
		}
	}
	path, err := exec.LookPath(strings.ToLower(strings.ReplaceAll(name, " ", "-")))
	if err != nil {
		return fmt.Errorf("no application named %q: %w", name, ErrNoDesktop)
	}
	cmd := exec.Command(path)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", name, err)
	}
	// The app outlives the request; reap it when it exits so it leaves no zombie.
	go func() { _ = cmd.Wait() }()
	return nil
}

// DesktopNotifier sends notifications with notify-send when it is on PATH; elsewhere
// Notify reports ErrNoDesktop and the caller carries on.
type DesktopNotifier struct{}

func (DesktopNotifier) Notify(ctx context.Context, title, body string) error {
	if _, err := exec.LookPath("notify-send"); err != nil {
		return ErrNoDesktop
	}
	// "--" keeps a title starting with "-" from being read as an option.
	return runHelper(ctx, "notify-send", "--app-name=hark", "--", title, body)
}

// handover is how long a helper gets to fail before it is taken to have passed the request
// on: xdg-open may stay alive as long as the browser it started.
const handover = 3 * time.Second

func runHelper(ctx context.Context, name string, args ...string) error {
	path, err := exec.LookPath(name)
	if err != nil {
		return fmt.Errorf("%s: %w", name, ErrNoDesktop)
	}
	var out limitedBuffer
	cmd := exec.Command(path, args...)
	cmd.Stdout, cmd.Stderr = &out, &out
	// A started browser can inherit the output pipe; Wait must not wait for it.
	cmd.WaitDelay = time.Second
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	timer := time.NewTimer(handover)
	defer timer.Stop()
	select {
	case err := <-done:
		if err != nil {
			if msg := cleanText(out.String(), 200); msg != "" {
				return fmt.Errorf("%s: %w: %s", name, err, msg)
			}
			return fmt.Errorf("%s: %w", name, err)
		}
		return nil
	case <-timer.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// limitedBuffer keeps the first few hundred bytes a helper writes, for its error message.
type limitedBuffer struct {
	mu  sync.Mutex
	buf []byte
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if room := 512 - len(b.buf); room > 0 {
		b.buf = append(b.buf, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

func (b *limitedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return string(b.buf)
}
