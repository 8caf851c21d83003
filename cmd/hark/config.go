package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// config is where hark finds its platform. Each field is taken from the
// first of: flag, HARK_* environment variable, config file. An empty
// BaseURL means "start the embedded platform".
type config struct {
	BaseURL    string `json:"base_url,omitempty"`
	StorageURL string `json:"storage_url,omitempty"`
	RecommURL  string `json:"recomm_url,omitempty"`
	APIKey     string `json:"api_key,omitempty"`
	PrivateKey string `json:"private_key,omitempty"`
	Language   string `json:"language,omitempty"`
	// Mic is the input device's name ("" = the default); `hark mic NAME`
	// stores it in the config file so the choice persists.
	Mic string `json:"mic,omitempty"`

	// The XDG places, resolved once.
	ConfigDir string `json:"-"`
	DataDir   string `json:"-"`
	StateDir  string `json:"-"`
}

// xdgDir is $<env>/hark, else $HOME/<fallback>/hark.
func xdgDir(env, fallback string) string {
	if d := os.Getenv(env); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "hark")
	}
	home, err := os.UserHomeDir()
	if err != nil {
		home = os.TempDir()
	}
	return filepath.Join(home, fallback, "hark")
}

// configFlags registers the global flags on fs and returns a function that
// resolves the final configuration once fs has been parsed.
func configFlags(fs *flag.FlagSet) func() (config, error) {
	var f config
	fs.StringVar(&f.BaseURL, "base-url", "", "platform base `URL`, e.g. http://127.0.0.1:8700/v2 (env HARK_BASE_URL); none starts the embedded platform")
	fs.StringVar(&f.StorageURL, "storage-url", "", "storage service `URL` (env HARK_STORAGE_URL; default: the base URL)")
	fs.StringVar(&f.RecommURL, "recomm-url", "", "recommendation service `URL` (env HARK_RECOMM_URL; default: base URL + /recomm)")
	fs.StringVar(&f.APIKey, "api-key", "", "workspace public `KEY` (env HARK_API_KEY)")
	fs.StringVar(&f.PrivateKey, "private-key", "", "workspace private `KEY` (env HARK_PRIVATE_KEY; remembered once the platform accepts it)")
	fs.StringVar(&f.Language, "lang", "", "answer `LANGUAGE`: en or es (env HARK_LANG)")
	fs.StringVar(&f.Mic, "mic", "", "microphone for this run, by `NAME` (env HARK_MIC; hark mic NAME remembers one)")
	return func() (config, error) {
		c := config{
			ConfigDir: xdgDir("XDG_CONFIG_HOME", ".config"),
			DataDir:   xdgDir("XDG_DATA_HOME", ".local/share"),
			StateDir:  xdgDir("XDG_STATE_HOME", ".local/state"),
		}
		file, err := readConfigFile(filepath.Join(c.ConfigDir, "config.json"))
		if err != nil {
			return c, err
		}
		pick := func(flagValue, env, fileValue string) string {
			if flagValue != "" {
				return flagValue
			}
			if v := os.Getenv(env); v != "" {
				return v
			}
			return fileValue
		}
		c.BaseURL = pick(f.BaseURL, "HARK_BASE_URL", file.BaseURL)
		c.StorageURL = pick(f.StorageURL, "HARK_STORAGE_URL", file.StorageURL)
		c.RecommURL = pick(f.RecommURL, "HARK_RECOMM_URL", file.RecommURL)
		c.APIKey = pick(f.APIKey, "HARK_API_KEY", file.APIKey)
		c.PrivateKey = pick(f.PrivateKey, "HARK_PRIVATE_KEY", file.PrivateKey)
		c.Language = pick(f.Language, "HARK_LANG", file.Language)
		c.Mic = pick(f.Mic, "HARK_MIC", file.Mic)
		if c.BaseURL == "" && (c.StorageURL != "" || c.RecommURL != "") {
			return c, errors.New("--storage-url and --recomm-url need --base-url as well")
		}
		if c.BaseURL != "" && c.APIKey == "" {
			return c, errors.New("a remote platform (--base-url) needs --api-key")
		}
		return c, nil
	}
}

func readConfigFile(path string) (config, error) {
	var c config
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return c, err
	}
	if err := json.Unmarshal(b, &c); err != nil {
		return c, fmt.Errorf("config file %s: %w", path, err)
	}
	return c, nil
}

// saveMic stores the microphone choice in the config file, keeping the
// file's other settings; "" goes back to the default device.
func saveMic(configDir, name string) error {
	path := filepath.Join(configDir, "config.json")
	c, err := readConfigFile(path)
	if err != nil {
		return err
	}
	c.Mic = name
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(configDir, 0o700); err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
