package storage

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harkhq/hark/server/apierr"
	"github.com/harkhq/hark/server/storage/disktest"
)

// An upload that finds the disk full answers 507 InsufficientStorage
// naming the cause (it was a bare 500 "internal error"), leaves no partial
// file, keeps the previous version, and reads go on working.
func TestPutOnFullDisk(t *testing.T) {
	disk := disktest.Small(t, "2m")
	st, err := New(filepath.Join(disk, "storage"))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := st.Put(ctx, 1, "", "doc.txt", strings.NewReader("original"), 0); err != nil {
		t.Fatal(err)
	}
	big := bytes.Repeat([]byte("x"), 3<<20)
	_, err = st.Put(ctx, 1, "", "doc.txt", bytes.NewReader(big), 0)
	e, ok := apierr.As(err)
	if !ok || e.Status != 507 || e.Code != apierr.InsufficientStorage || !strings.Contains(e.Description, "disk is full") {
		t.Fatalf("upload larger than the disk: %v, want 507 InsufficientStorage", err)
	}
	if left, _ := os.ReadDir(filepath.Join(disk, "storage", "1", "tmp")); len(left) != 0 {
		t.Errorf("partial upload left: %v", left)
	}
	f, _, err := st.Open(1, "", "doc.txt")
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(f)
	f.Close()
	if string(got) != "original" {
		t.Errorf("previous version = %q", got)
	}

	// a disk filled by something else: creating the file fails the same way
	free := disktest.Fill(t, disk)
	_, err = st.Put(ctx, 1, "", "new.txt", strings.NewReader(strings.Repeat("y", 64<<10)), 0)
	if e, ok := apierr.As(err); !ok || e.Status != 507 {
		t.Fatalf("upload to a filled disk: %v, want 507", err)
	}
	if list, err := st.List(1, "", Filter{}); err != nil || len(list) != 1 {
		t.Errorf("listing on a full disk: %v %v", list, err)
	}
	free()
	if _, err := st.Put(ctx, 1, "", "new.txt", strings.NewReader("room again"), 0); err != nil {
		t.Errorf("upload once there is room: %v", err)
	}
}
