//go:build unix

package audio

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// RedirectStderr points fd 2 of the whole process at the file path (created 0600 or appended
// to), so that what native audio libraries print never reaches a full-screen terminal UI.
// restore puts the original fd 2 back and closes the file.
func RedirectStderr(path string) (restore func(), err error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("redirect stderr: %w", err)
	}
	saved, err := unix.Dup(2)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("redirect stderr: save fd 2: %w", err)
	}
	if err := unix.Dup2(int(f.Fd()), 2); err != nil {
		unix.Close(saved)
		f.Close()
		return nil, fmt.Errorf("redirect stderr: %w", err)
	}
	unix.CloseOnExec(saved)
	restored := false
	return func() {
		if restored {
			return
		}
		restored = true
		unix.Dup2(saved, 2)
		unix.Close(saved)
		f.Close()
	}, nil
}
