package components

import (
	"os"
	"path/filepath"
	"strings"
)

// ExpandHome reads a leading "~/" as the home directory.
func ExpandHome(p string) string {
	if strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, p[2:])
		}
	}
	return p
}

// CompletePath extends a local path to the longest unambiguous prefix of
// the directory's entries (a directory gets its trailing slash).
func CompletePath(typed string) string {
	expanded := typed
	if strings.HasPrefix(typed, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			expanded = filepath.Join(home, typed[2:])
		}
	}
	dir, prefix := filepath.Split(expanded)
	readDir := dir
	if readDir == "" {
		readDir = "."
	}
	ents, err := os.ReadDir(readDir)
	if err != nil {
		return typed
	}
	var matches []os.DirEntry
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), prefix) {
			matches = append(matches, e)
		}
	}
	if len(matches) == 0 {
		return typed
	}
	common := matches[0].Name()
	for _, m := range matches[1:] {
		for !strings.HasPrefix(m.Name(), common) {
			common = common[:len(common)-1]
		}
	}
	out := dir + common
	if len(matches) == 1 && matches[0].IsDir() {
		out += string(filepath.Separator)
	}
	if strings.HasPrefix(typed, "~/") && expanded != typed {
		if home, err := os.UserHomeDir(); err == nil {
			out = "~" + strings.TrimPrefix(out, home)
		}
	}
	return out
}
