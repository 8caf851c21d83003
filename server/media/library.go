package media

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/harkhq/hark/server/apierr"
	"github.com/harkhq/hark/server/speech/mp3enc"
)

// renderVersion is part of the cache file names: bump it when the
// synthesis changes so stale renders are not served.
const renderVersion = "v1"

// Library renders tracks on demand and caches the MP3 files.
type Library struct {
	dir   string
	mu    sync.Mutex
	locks map[string]*sync.Mutex // one per track: concurrent requests render once
}

// New returns a library caching into cacheDir (created if missing).
func New(cacheDir string) (*Library, error) {
	if cacheDir == "" {
		return nil, fmt.Errorf("media: empty cache directory")
	}
	if err := os.MkdirAll(cacheDir, 0o755); err != nil {
		return nil, fmt.Errorf("media: %w", err)
	}
	return &Library{dir: cacheDir, locks: map[string]*sync.Mutex{}}, nil
}

// Music returns the MP3 of a track, rendering it on first use. An unknown
// id is a 404 EntityNotFound.
func (l *Library) Music(id string) ([]byte, error) {
	path, err := l.File(id)
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("media: %w", err)
	}
	return data, nil
}

// File returns the path of a track's cached MP3, rendering it on first
// use, for callers that serve byte ranges from the file.
func (l *Library) File(id string) (string, error) {
	t, ok := Lookup(id)
	if !ok {
		return "", apierr.NotFoundf("no music track %q", id)
	}
	lock := l.lock(id)
	lock.Lock()
	defer lock.Unlock()
	// The id is a catalogue key (letters, digits, underscores), never a
	// path from the request.
	path := filepath.Join(l.dir, t.ID+"."+renderVersion+".mp3")
	if _, err := os.Stat(path); err == nil {
		return path, nil
	}
	data, err := mp3enc.Encode(render(t), SampleRate, Bitrate)
	if err != nil {
		return "", fmt.Errorf("media: encode %s: %w", id, err)
	}
	tmp, err := os.CreateTemp(l.dir, t.ID+".*.tmp")
	if err != nil {
		return "", fmt.Errorf("media: %w", err)
	}
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(tmp.Name(), path)
	}
	if werr != nil {
		os.Remove(tmp.Name())
		return "", fmt.Errorf("media: cache %s: %w", id, werr)
	}
	return path, nil
}

func (l *Library) lock(id string) *sync.Mutex {
	l.mu.Lock()
	defer l.mu.Unlock()
	m, ok := l.locks[id]
	if !ok {
		m = &sync.Mutex{}
		l.locks[id] = m
	}
	return m
}
