package common

import (
	"path/filepath"
	"testing"
)

func TestDownloadDirIsTheXDGOneNeverTheWorkingDirectory(t *testing.T) {
	t.Setenv("XDG_DOWNLOAD_DIR", "/data/ann/dl")
	if got := DownloadDir(); got != "/data/ann/dl" {
		t.Errorf("with XDG_DOWNLOAD_DIR: %q", got)
	}
	home := t.TempDir()
	t.Setenv("XDG_DOWNLOAD_DIR", "")
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config")) // no user-dirs.dirs there
	if got := DownloadDir(); got != filepath.Join(home, "Downloads") {
		t.Errorf("without any setting: %q, want ~/Downloads", got)
	}
}
