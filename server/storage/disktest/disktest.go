// Package disktest gives tests a small file system of their own, to see
// what harkd does when the disk is full.
package disktest

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

// Small mounts a tmpfs of size (as mount takes it: "2m") on a new
// directory and unmounts it when the test ends. Where the test cannot
// mount one (not root, no mount(8), a container without the capability)
// it skips the test, saying why.
func Small(t testing.TB, size string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "disk")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size, "tmpfs", dir).CombinedOutput()
	if err != nil {
		t.Skipf("a full disk needs a small tmpfs, which this test cannot mount (it needs root or CAP_SYS_ADMIN): %v: %s", err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", "-l", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", dir, err, out)
		}
	})
	return dir
}

// Fill writes a file into dir until the file system has no room left,
// and returns a function that removes it.
func Fill(t testing.TB, dir string) (free func()) {
	t.Helper()
	p := filepath.Join(dir, "filler")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	block := make([]byte, 64<<10)
	for {
		if _, err := f.Write(block); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatalf("filling %s: %v", dir, err)
			}
			break
		}
	}
	// the last partial block may leave a few bytes: take them too
	for {
		if _, err := f.Write(block[:1]); err != nil {
			break
		}
	}
	return func() { os.Remove(p) }
}
