//go:build unix

package audio

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

func TestRedirectStderr(t *testing.T) {
	var before unix.Stat_t
	if err := unix.Fstat(2, &before); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "hark.log")
	restore, err := RedirectStderr(path)
	if err != nil {
		t.Fatal(err)
	}
	// What a C library would do: write straight to fd 2.
	if _, err := unix.Write(2, []byte("ALSA lib pcm.c: noise\n")); err != nil {
		restore()
		t.Fatal(err)
	}
	restore()
	restore() // a second call does nothing
	var after unix.Stat_t
	if err := unix.Fstat(2, &after); err != nil {
		t.Fatal(err)
	}
	if after.Dev != before.Dev || after.Ino != before.Ino {
		t.Errorf("fd 2 not restored")
	}
	logged, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(logged), "ALSA lib pcm.c: noise") {
		t.Errorf("log file holds %q", logged)
	}
	if _, err := RedirectStderr(filepath.Join(t.TempDir(), "missing", "dir", "x.log")); err == nil {
		t.Errorf("redirect into a missing directory succeeded")
	}
}
