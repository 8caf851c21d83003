package actions

import (
	"context"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestAlarmTone(t *testing.T) {
	rate := AlarmToneRate
	pcm := AlarmTonePCM(rate)
	n := len(pcm) / 2
	wantSeconds := toneBursts * (toneBeeps*(toneBeep+toneGap) + toneRest)
	if got := float64(n) / float64(rate); got < wantSeconds-0.01 || got > wantSeconds+0.01 {
		t.Fatalf("length %.3f s, want %.3f s", got, wantSeconds)
	}
	sample := func(i int) int16 { return int16(binary.LittleEndian.Uint16(pcm[2*i:])) }
	if sample(0) != 0 || sample(n-1) != 0 {
		t.Fatal("the tone does not start and end in silence")
	}
	// Loud in the beeps, silent in the gaps, and never clipped.
	var peak int16
	for i := 0; i < int(toneBeep*float64(rate)); i++ {
		peak = max(peak, sample(i), -sample(i))
	}
	if peak < 10000 || peak > 30000 {
		t.Fatalf("beep peak %d", peak)
	}
	gap := int((toneBeep + toneGap/2) * float64(rate))
	if sample(gap) != 0 {
		t.Fatalf("sample %d in a gap is %d", gap, sample(gap))
	}
	// The pitch: zero crossings of the first beep's middle 100 ms.
	from, to := int(0.025*float64(rate)), int(0.125*float64(rate))
	crossings := 0
	for i := from + 1; i < to; i++ {
		if (sample(i-1) < 0) != (sample(i) < 0) {
			crossings++
		}
	}
	if hz := float64(crossings) / 2 / 0.1; hz < toneHz*0.9 || hz > toneHz*1.1 {
		t.Fatalf("pitch about %.0f Hz, want %.0f", hz, toneHz)
	}
	if got := float64(len(AlarmTonePCM(16000))/2) / 16000; got < wantSeconds-0.01 || got > wantSeconds+0.01 {
		t.Fatalf("16 kHz tone lasts %.3f s, want %.3f s", got, wantSeconds)
	}
	if len(AlarmTonePCM(1)) != len(AlarmTonePCM(8000)) {
		t.Fatal("rates below 8 kHz are not clamped")
	}
}

func TestConversationLoopsWhileAsked(t *testing.T) {
	var c Conversation
	asks := []Outcome{{Kind: Continue, Ref: 5}}
	if !c.Answered(5, asks) || c.Ref() != 5 || !c.Asking() {
		t.Fatal("OPEN_ASR did not re-open")
	}
	if c.Answered(5, []Outcome{{Kind: Done}}) || c.Asking() || c.Ref() != 5 {
		t.Fatal("the loop went on after the dialogue stopped asking")
	}
	// A new conversation's ref replaces the old one.
	c.Answered(9, nil)
	if c.Ref() != 9 {
		t.Fatalf("ref %d", c.Ref())
	}
	// Bounded: a dialogue that keeps asking stops re-opening after MaxFollowUps.
	reopened := 0
	for i := 0; i < 3*MaxFollowUps; i++ {
		if c.Answered(9, asks) {
			reopened++
		} else {
			break
		}
	}
	if reopened != MaxFollowUps {
		t.Fatalf("re-opened %d times, want %d", reopened, MaxFollowUps)
	}
	c.Answered(9, asks)
	c.Stop()
	if c.Asking() {
		t.Fatal("Stop did not end the loop")
	}
}

func TestConversationWithRegistry(t *testing.T) {
	g := newRig(t, "")
	var c Conversation
	// "set an alarm" -> "For what time?" (OPEN_ASR) -> "seven am" -> SET_ALARM.
	turn1 := g.DispatchAll(context.Background(), []Action{{Code: "OPEN_ASR", Data: []byte(`""`)}}, 77)
	if !c.Answered(77, turn1) || c.Ref() != 77 {
		t.Fatal("first turn should ask")
	}
	turn2 := g.DispatchAll(context.Background(), []Action{{Code: "SET_ALARM", Data: []byte(`{"time":` + in(22*time.Hour) + `}`)}}, c.Ref())
	if c.Answered(77, turn2) {
		t.Fatal("second turn should end the loop")
	}
	if len(g.Scheduled()) != 1 {
		t.Fatal("alarm not set")
	}
}

func TestCleanText(t *testing.T) {
	cases := []struct {
		in   string
		max  int
		want string
	}{
		{"  a\n\tb  ", 100, "a b"},
		{"x\x1b[31my\x07", 100, "x [31my"},
		{"\u202eevil\u202c", 100, "evil"},
		{"bad\xffutf8", 100, "bad\uFFFDutf8"},
		{strings.Repeat("é", 10), 5, strings.Repeat("é", 5) + "…"},
	}
	for _, c := range cases {
		if got := cleanText(c.in, c.max); got != c.want {
			t.Errorf("cleanText(%q, %d) = %q, want %q", c.in, c.max, got, c.want)
		}
	}
}

// fakeHelpers puts shell scripts named after the desktop helpers first on PATH; each writes
// its arguments, one per line, to a file named after it.
func fakeHelpers(t *testing.T, names ...string) string {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("shell scripts")
	}
	dir := t.TempDir()
	for _, name := range names {
		script := "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\"; done > " + filepath.Join(dir, name+".args") + "\n"
		if name == "failing-open" {
			script = "#!/bin/sh\necho 'no handler for this' >&2\nexit 4\n"
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", dir)
	return dir
}

func readArgs(t *testing.T, dir, name string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name+".args"))
	if err != nil {
		t.Fatalf("%s was not run: %v", name, err)
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

func TestDesktopOpenerRunsXdgOpen(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("xdg-open is the Linux opener")
	}
	dir := fakeHelpers(t, "xdg-open")
	u := "mailto:?subject=a%20b&body=$(reboot)"
	if err := (DesktopOpener{}).OpenURL(context.Background(), u); err != nil {
		t.Fatal(err)
	}
	if got := readArgs(t, dir, "xdg-open"); len(got) != 1 || got[0] != u {
		t.Fatalf("xdg-open got %q", got)
	}
}

func TestDesktopOpenerReportsFailures(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("xdg-open is the Linux opener")
	}
	dir := fakeHelpers(t, "failing-open")
	if err := os.Rename(filepath.Join(dir, "failing-open"), filepath.Join(dir, "xdg-open")); err != nil {
		t.Fatal(err)
	}
	err := (DesktopOpener{}).OpenURL(context.Background(), "https://example.com")
	if err == nil || !strings.Contains(err.Error(), "no handler for this") {
		t.Fatalf("got %v", err)
	}
	t.Setenv("PATH", t.TempDir())
	if err := (DesktopOpener{}).OpenURL(context.Background(), "https://example.com"); !errors.Is(err, ErrNoDesktop) {
		t.Fatalf("with no xdg-open: %v", err)
	}
}

func TestDesktopOpenerStartsApps(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("Linux app launching")
	}
	dir := fakeHelpers(t, "gtk-launch")
	if err := (DesktopOpener{}).OpenApp(context.Background(), "Text Editor"); err != nil {
		t.Fatal(err)
	}
	if got := readArgs(t, dir, "gtk-launch"); len(got) != 1 || got[0] != "text-editor" {
		t.Fatalf("gtk-launch got %q", got)
	}
	for _, bad := range []string{"/bin/sh", "-x", `..\x`} {
		if err := (DesktopOpener{}).OpenApp(context.Background(), bad); err == nil {
			t.Fatalf("%q started", bad)
		}
	}
	t.Setenv("PATH", t.TempDir())
	if err := (DesktopOpener{}).OpenApp(context.Background(), "nothing-here"); !errors.Is(err, ErrNoDesktop) {
		t.Fatalf("unknown app: %v", err)
	}
}

func TestDesktopNotifier(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("shell scripts")
	}
	t.Setenv("PATH", t.TempDir())
	if err := (DesktopNotifier{}).Notify(context.Background(), "t", "b"); !errors.Is(err, ErrNoDesktop) {
		t.Fatalf("without notify-send: %v", err)
	}
	dir := fakeHelpers(t, "notify-send")
	if err := (DesktopNotifier{}).Notify(context.Background(), "-title", "body"); err != nil {
		t.Fatal(err)
	}
	got := readArgs(t, dir, "notify-send")
	if strings.Join(got, "|") != "--app-name=hark|--|-title|body" {
		t.Fatalf("notify-send got %q", got)
	}
}
