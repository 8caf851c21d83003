package storage

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/harkhq/hark/server/apierr"
)

// FuzzCheckName: whatever the name, an accepted one is a single path
// element that stays inside its directory.
func FuzzCheckName(f *testing.F) {
	for _, s := range []string{"a.txt", "..", ".", "a/b", `a\b`, "a\x00", "%2e%2e", "ñandú.png", strings.Repeat("x", 255), " ", "..."} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		if CheckName("file", name) != nil {
			return
		}
		if name == "" || len(name) > 255 || !utf8.ValidString(name) || strings.ContainsAny(name, "/\\\x00") || name == "." || name == ".." {
			t.Fatalf("accepted %q", name)
		}
		base := "/root/ws/files"
		if p := filepath.Join(base, name); filepath.Dir(p) != base {
			t.Fatalf("%q escapes to %q", name, p)
		}
	})
}

func TestStartRemovesCrashLeftovers(t *testing.T) {
	root := t.TempDir()
	st, err := New(root)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Put(context.Background(), 3, "", "a.txt", strings.NewReader("whole"), 0); err != nil {
		t.Fatal(err)
	}
	leftover := filepath.Join(root, "3", "tmp", "upload-123")
	if err := os.WriteFile(leftover, []byte("partial"), 0o600); err != nil {
		t.Fatal(err)
	}
	long := time.Now().Add(-staleTmp - time.Minute)
	if err := os.Chtimes(leftover, long, long); err != nil {
		t.Fatal(err)
	}
	// another process sharing the directory is writing this one now
	inFlight := filepath.Join(root, "3", "tmp", "upload-456")
	if err := os.WriteFile(inFlight, []byte("arriving"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := NewShared(root); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(leftover); !os.IsNotExist(err) {
		t.Fatal("a leftover upload survived the restart")
	}
	if _, err := os.Stat(inFlight); err != nil {
		t.Fatalf("a store starting beside other processes removed an upload in progress: %v", err)
	}
	// alone, a starting store knows every entry of tmp/ is a leftover
	if _, err := New(root); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(inFlight); !os.IsNotExist(err) {
		t.Fatal("a leftover upload survived the restart of the only process")
	}
	f, _, err := st.Open(3, "", "a.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var b bytes.Buffer
	b.ReadFrom(f)
	if b.String() != "whole" {
		t.Fatalf("file after restart: %q", b.String())
	}
}

func TestRootFileAndFolderMayShareAName(t *testing.T) {
	st, _ := New(t.TempDir())
	ctx := context.Background()
	if err := st.CreateFolder(1, "x"); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Put(ctx, 1, "", "x", strings.NewReader("file"), 0); err != nil {
		t.Fatal(err)
	}
	if ok, _ := st.FolderExists(1, "x"); !ok {
		t.Fatal("the folder went")
	}
	if ok, _ := st.Exists(1, "", "x"); !ok {
		t.Fatal("the file is missing")
	}
}

// A clear token older than 60 s deletes nothing and is refused.
func TestClearTokenExpires(t *testing.T) {
	st, _ := New(t.TempDir())
	now := time.Unix(1_700_000_000, 0)
	st.now = func() time.Time { return now }
	if _, err := st.Put(context.Background(), 1, "", "keep.txt", strings.NewReader("x"), 0); err != nil {
		t.Fatal(err)
	}
	tok, exp := st.ClearToken(1)
	if exp.Sub(now) != time.Minute {
		t.Fatalf("token lives %s", exp.Sub(now))
	}
	now = now.Add(61 * time.Second)
	_, _, err := st.Clear(1, tok)
	if e, ok := apierr.As(err); !ok || e.Status != 400 || e.Code != apierr.InvalidConfirmationToken {
		t.Fatalf("expired token: %v", err)
	}
	if ok, _ := st.Exists(1, "", "keep.txt"); !ok {
		t.Fatal("an expired token deleted files")
	}
}
