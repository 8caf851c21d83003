package storage

import (
	"github.com/harkhq/hark/ui/internal/uitest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func storageApp(t *testing.T) (*uitest.Host, *Model, string) {
	pc := uitest.Context(uitest.SignedInClient(t), true)
	pc.DownloadDir = t.TempDir()
	s := New(pc)
	return uitest.NewHost(t, s, 120, 40), s, pc.DownloadDir
}

func upload(t *testing.T, a *uitest.Host, path string) {
	t.Helper()
	press(t, a, "u")
	typeText(t, a, path)
	press(t, a, "enter")
}

func TestStorageUploadDownloadDelete(t *testing.T) {
	a, s, downloads := storageApp(t)
	local := t.TempDir()

	upload(t, a, filepath.Join(local, "missing.txt"))
	if !strings.Contains(a.View(), "does not exist") {
		t.Fatalf("missing path not reported:\n%s", a.View())
	}
	upload(t, a, local)
	if !strings.Contains(a.View(), "is a directory") {
		t.Fatalf("directory not refused:\n%s", a.View())
	}

	// mkdir, enter it, upload with tab completion, download.
	press(t, a, "n")
	typeText(t, a, "docs")
	press(t, a, "enter")
	if !strings.Contains(a.View(), "docs/") {
		t.Fatalf("folder not listed:\n%s", a.View())
	}
	press(t, a, "enter")
	if s.folder != "docs" {
		t.Fatalf("enter did not open the folder (in %q)", s.folder)
	}
	body := strings.Repeat("hark ", 1000)
	if err := os.WriteFile(filepath.Join(local, "notes-2026.txt"), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(local, "other.txt"), []byte("x"), 0o644)
	press(t, a, "u")
	typeText(t, a, filepath.Join(local, "no"))
	press(t, a, "tab")
	if got := s.input.Value(); got != filepath.Join(local, "notes-2026.txt") {
		t.Fatalf("completion gave %q", got)
	}
	press(t, a, "enter")
	if v := a.View(); !strings.Contains(v, "notes-2026.txt") || !strings.Contains(v, "4.9 KiB") {
		t.Fatalf("uploaded file not listed with its size:\n%s", v)
	}
	// d asks where, offering the download directory; nothing is written first.
	press(t, a, "d")
	if v := a.View(); !strings.Contains(v, "save notes-2026.txt in: ") || !strings.Contains(v, downloads) {
		t.Fatalf("d did not ask where, offering the download directory:\n%s", v)
	}
	if _, err := os.Stat(filepath.Join(downloads, "notes-2026.txt")); err == nil {
		t.Fatal("written before the destination was confirmed")
	}
	press(t, a, "esc")
	if _, err := os.Stat(filepath.Join(downloads, "notes-2026.txt")); err == nil {
		t.Fatal("esc still downloaded")
	}
	press(t, a, "d")
	press(t, a, "enter")
	got, err := os.ReadFile(filepath.Join(downloads, "notes-2026.txt"))
	if err != nil || string(got) != body {
		t.Fatalf("download: %v (%d bytes)", err, len(got))
	}
	press(t, a, "d") // a second download never overwrites
	press(t, a, "enter")
	if _, err := os.Stat(filepath.Join(downloads, "notes-2026 (2).txt")); err != nil {
		t.Fatalf("second download: %v", err)
	}
	// Elsewhere: a new directory is made; a file name names the copy; tab completes.
	other := filepath.Join(t.TempDir(), "saved")
	press(t, a, "d")
	s.input.SetValue(other + "/")
	press(t, a, "enter")
	if _, err := os.Stat(filepath.Join(other, "notes-2026.txt")); err != nil {
		t.Fatalf("download into a new directory: %v", err)
	}
	press(t, a, "d")
	if !strings.Contains(s.input.Value(), other) {
		t.Fatalf("the last directory is not offered again: %q", s.input.Value())
	}
	s.input.SetValue(filepath.Join(other, "renamed.txt"))
	press(t, a, "enter")
	if got, err := os.ReadFile(filepath.Join(other, "renamed.txt")); err != nil || string(got) != body {
		t.Fatalf("download under a new name: %v", err)
	}
	// "~/" is the home directory, and a new directory there is made.
	home := t.TempDir()
	t.Setenv("HOME", home)
	press(t, a, "d")
	s.input.SetValue("~/Downloads/")
	press(t, a, "enter")
	if _, err := os.Stat(filepath.Join(home, "Downloads", "notes-2026.txt")); err != nil {
		t.Fatalf("download into ~/Downloads/ (missing before): %v", err)
	}
	press(t, a, "d")
	s.input.SetValue(filepath.Join(filepath.Dir(other), "sa"))
	press(t, a, "tab")
	if got := s.input.Value(); got != other+string(filepath.Separator) {
		t.Fatalf("completion of the destination gave %q", got)
	}
	press(t, a, "esc")

	// Delete asks first, naming the file; n keeps it, y deletes it.
	press(t, a, "x")
	if !strings.Contains(a.View(), `Delete file "notes-2026.txt" from docs/?`) {
		t.Fatalf("confirmation does not name the file:\n%s", a.View())
	}
	press(t, a, "n")
	if s.list.Len() != 1 {
		t.Fatal("n deleted the file")
	}
	press(t, a, "x")
	press(t, a, "y")
	if s.list.Len() != 0 {
		t.Fatalf("y did not delete:\n%s", a.View())
	}
}

func TestStorageMultiSelectFilterAndClear(t *testing.T) {
	a, s, _ := storageApp(t)
	local := t.TempDir()
	for _, n := range []string{"a.csv", "b.csv", "c.txt"} {
		p := filepath.Join(local, n)
		os.WriteFile(p, []byte(n), 0o644)
		upload(t, a, p)
	}
	if s.list.Len() != 3 {
		t.Fatalf("%d rows after three uploads:\n%s", s.list.Len(), a.View())
	}
	press(t, a, "/")
	typeText(t, a, "csv")
	press(t, a, "enter")
	if s.list.VisibleLen() != 2 {
		t.Fatalf("filter csv shows %d rows", s.list.VisibleLen())
	}
	press(t, a, " ")
	press(t, a, " ")
	press(t, a, "x")
	if !strings.Contains(a.View(), `files "a.csv", "b.csv" from the top level`) {
		t.Fatalf("multi-select confirmation:\n%s", a.View())
	}
	press(t, a, "y")
	press(t, a, "esc") // clear the filter
	if s.list.Len() != 1 || s.list.Current().Key != "f:c.txt" {
		t.Fatalf("after deleting the selection: %+v", s.list.Rows())
	}
	// Clear: two confirmations; a "no" at the second keeps everything.
	press(t, a, "C")
	press(t, a, "y")
	if !strings.Contains(a.View(), "Second confirmation") {
		t.Fatalf("no second confirmation:\n%s", a.View())
	}
	press(t, a, "n")
	if s.list.Len() != 1 {
		t.Fatal("clear went ahead after a no")
	}
	press(t, a, "C")
	press(t, a, "y")
	press(t, a, "y")
	if s.list.Len() != 0 || !strings.Contains(a.View(), "cleared 1 files") {
		t.Fatalf("clear did not empty the workspace:\n%s", a.View())
	}
}

func TestStorageServerFilter(t *testing.T) {
	a, s, _ := storageApp(t)
	local := t.TempDir()
	for name, size := range map[string]int{"report-a.csv": 3000, "report-b.txt": 10, "notes.csv": 10} {
		p := filepath.Join(local, name)
		os.WriteFile(p, []byte(strings.Repeat("x", size)), 0o644)
		upload(t, a, p)
	}
	press(t, a, "f")
	typeText(t, a, "prefix=report min=1KiB")
	press(t, a, "enter")
	if s.list.Len() != 1 || s.list.Rows()[0].Key != "f:report-a.csv" || !strings.Contains(a.View(), "only prefix=report") {
		t.Fatalf("server filter: %+v\n%s", s.list.Rows(), a.View())
	}
	press(t, a, "f")
	s.input.SetValue("size=big")
	press(t, a, "enter")
	if !strings.Contains(a.View(), "unknown filter") {
		t.Fatalf("bad filter not refused:\n%s", a.View())
	}
	press(t, a, "f")
	s.input.SetValue("")
	press(t, a, "enter")
	if s.list.Len() != 3 {
		t.Fatalf("clearing the filter shows %d rows", s.list.Len())
	}
}

func FuzzParseListFilter(f *testing.F) {
	for _, s := range []string{"prefix=a", "min=1KiB max=2.5MiB", "since=2026-01-02 until=2026-02-01", "x", "min=-1", "min=1e30GiB", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		opt, err := parseListFilter(s, time.UTC)
		if err == nil && opt.MinSize != nil && *opt.MinSize < 0 {
			t.Fatalf("negative size from %q", s)
		}
	})
}
