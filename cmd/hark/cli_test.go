package main

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// openPTY returns the two ends of a new pseudo-terminal.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	t.Cleanup(func() { m.Close() })
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	s, err := os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return m, s
}

// Progress is drawn on a terminal and only there.
func TestProgressLine(t *testing.T) {
	var buf bytes.Buffer
	if progress, done := progressLine(&buf, "uploading", "a.bin"); progress != nil {
		t.Fatal("progress drawn on a writer that is not a terminal")
	} else {
		done()
	}
	master, slave := openPTY(t)
	progress, done := progressLine(slave, "uploading", "a.bin")
	if progress == nil {
		t.Fatal("no progress on a terminal")
	}
	progress(512<<10, 1<<20)
	progress(600<<10, 1<<20) // within 100 ms of the last: not drawn
	progress(1<<20, 1<<20)   // the end is always drawn
	done()
	want := "\r\033[Kuploading a.bin   50%  512.0 KiB of 1.0 MiB\r\033[Kuploading a.bin  100%  1.0 MiB of 1.0 MiB\r\033[K"
	got := make([]byte, 0, len(want))
	master.SetReadDeadline(time.Now().Add(5 * time.Second))
	for len(got) < len(want) {
		b := make([]byte, 256)
		n, err := master.Read(b)
		if err != nil {
			t.Fatalf("read %q so far: %v", got, err)
		}
		got = append(got, b[:n]...)
	}
	if string(got) != want {
		t.Fatalf("drew %q, want %q", got, want)
	}
}

func TestHumanBytes(t *testing.T) {
	for n, want := range map[int64]string{0: "0 B", 1023: "1023 B", 1024: "1.0 KiB", 3000: "2.9 KiB", 5 << 30: "5.0 GiB"} {
		if got := humanBytes(n); got != want {
			t.Errorf("humanBytes(%d) = %q, want %q", n, got, want)
		}
	}
}

// Flags may follow the arguments; "--" ends them.
func TestCommandFlagsAnywhere(t *testing.T) {
	var out, errb bytes.Buffer
	f := newCommandFlags("storage ls", "[FOLDER]", "Lists.", &out, &errb)
	asJSON := f.Bool("json", false, "print JSON")
	rest, err := f.parse([]string{"docs", "--json", "--", "--bytes"})
	if err != nil || !*asJSON || strings.Join(rest, " ") != "docs --bytes" {
		t.Fatalf("parse: %v %v %q", err, *asJSON, rest)
	}
	if _, err := f.parse([]string{"-h"}); err != errHelpShown || !strings.HasPrefix(out.String(), "usage: hark storage ls [FOLDER]\n") || errb.Len() != 0 {
		t.Fatalf("help: %v %q %q", err, out.String(), errb.String())
	}
}
