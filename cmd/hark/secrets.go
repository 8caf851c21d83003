package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/zalando/go-keyring"
)

// secrets keeps tokens and private keys: in the OS keyring when one
// answers, else in a 0600 JSON file beside the config.
type secrets interface {
	Get(name string) (string, bool, error)
	Set(name, value string) error
	Delete(name string) error
	Where() string
}

const keyringService = "hark"

// openSecrets probes the keyring once; HARK_KEYRING=off skips it (tests,
// headless machines where a locked keyring would prompt).
func openSecrets(configDir string) secrets {
	file := &fileSecrets{path: filepath.Join(configDir, "secrets.json")}
	if os.Getenv("HARK_KEYRING") == "off" {
		return file
	}
	// A keyring daemon that never answers must not hang start-up.
	done := make(chan error, 1)
	go func() {
		_, err := keyring.Get(keyringService, "probe")
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || errors.Is(err, keyring.ErrNotFound) {
			return osKeyring{}
		}
	case <-time.After(time.Second):
	}
	return file
}

type osKeyring struct{}

func (osKeyring) Get(name string) (string, bool, error) {
	v, err := keyring.Get(keyringService, name)
	if errors.Is(err, keyring.ErrNotFound) {
		return "", false, nil
	}
	return v, err == nil, err
}
func (osKeyring) Set(name, value string) error { return keyring.Set(keyringService, name, value) }
func (osKeyring) Delete(name string) error {
	if err := keyring.Delete(keyringService, name); err != nil && !errors.Is(err, keyring.ErrNotFound) {
		return err
	}
	return nil
}
func (osKeyring) Where() string { return "the OS keyring" }

type fileSecrets struct {
	mu   sync.Mutex
	path string
}

func (f *fileSecrets) Where() string { return f.path }

func (f *fileSecrets) load() (map[string]string, error) {
	m := map[string]string{}
	b, err := os.ReadFile(f.path)
	if errors.Is(err, fs.ErrNotExist) {
		return m, nil
	}
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("secrets file %s: %w", f.path, err)
	}
	return m, nil
}

func (f *fileSecrets) save(m map[string]string) error {
	if err := os.MkdirAll(filepath.Dir(f.path), 0o700); err != nil {
		return err
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	tmp := f.path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, f.path)
}

func (f *fileSecrets) Get(name string) (string, bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	m, err := f.load()
	if err != nil {
		return "", false, err
	}
	v, ok := m[name]
	return v, ok, nil
}

func (f *fileSecrets) Set(name, value string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	m, err := f.load()
	if err != nil {
		return err
	}
	m[name] = value
	return f.save(m)
}

func (f *fileSecrets) Delete(name string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	m, err := f.load()
	if err != nil {
		return err
	}
	if _, ok := m[name]; !ok {
		return nil
	}
	delete(m, name)
	return f.save(m)
}
