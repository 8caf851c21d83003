package common

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// DownloadDir is where downloads go unless the person chooses: the XDG
// download directory ($XDG_DOWNLOAD_DIR, else what xdg-user-dir says,
// else ~/Downloads). Never the working directory, which is wherever hark
// happened to be started.
func DownloadDir() string {
	if d := os.Getenv("XDG_DOWNLOAD_DIR"); d != "" {
		return d
	}
	home, _ := os.UserHomeDir()
	if out, err := exec.Command("xdg-user-dir", "DOWNLOAD").Output(); err == nil {
		// Unconfigured, xdg-user-dir answers the home directory itself.
		if d := strings.TrimSpace(string(out)); d != "" && filepath.Clean(d) != filepath.Clean(home) {
			return d
		}
	}
	if home == "" {
		return "Downloads"
	}
	return filepath.Join(home, "Downloads")
}
