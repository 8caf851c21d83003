// Command hark is the terminal console of the hark platform. With no
// arguments it opens the full-screen console; the subcommands serve scripts:
//
//	hark [global flags] [say [--json] TEXT | login | register | logout |
//	      storage ls|put|get|rm|mkdir|rmdir|du|clear |
//	      recomm tables|import|train|recommend | version]
//
// With no --base-url (nor HARK_BASE_URL nor config file entry) hark starts
// the platform in-process on a loopback port, its data under the XDG data
// home.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"syscall"
	"time"

	"github.com/harkhq/hark/client"
)

// processStart is when the process began, for the start-up log lines.
var processStart = time.Now()

// version is set with -ldflags "-X main.version=..." by release builds.
var version = "dev"

const usage = `usage: hark [flags] [command]

With no command, hark opens the console.

commands:
  say [--json] TEXT                 one turn with the assistant
  ask [--json] FILE.wav             one spoken turn (16-bit mono WAV, 16 or 8 kHz)
  login [--email E]                 log in (password from HARK_PASSWORD or the terminal)
  register --email E [--name N]     create an account
  logout                            end the remembered session
  storage ls [FOLDER]               list folders, or the files of FOLDER
  storage put LOCAL [FOLDER[/NAME]] upload a file
  storage get FOLDER/NAME [LOCAL]   download a file ("-" writes to stdout)
  storage rm FOLDER/NAME...         delete files
  storage mkdir FOLDER | rmdir FOLDER
  storage du                        total size of the workspace
  storage clear [--yes]             delete every file and folder
  recomm tables                     list the recommendation tables
  recomm import --table T --kind K --url U [--wait]
  recomm train --table T --engine E [--wait]
  recomm recommend --table T (--user U | --item I) [--want items|users] [--engine E] [--filter F] [--diversity D]
  mic [NAME|default]                list microphones, or remember one by name
  version                           print the version

flags:
`

func main() {
	if len(os.Args) > 1 && os.Args[1] == speechWorkerCommand {
		os.Exit(runSpeechWorker(os.Args[2:]))
	}
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// exitError carries a specific exit status.
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit %d", e.code) }

func newFlagSet() *flag.FlagSet { return flag.NewFlagSet("hark", flag.ContinueOnError) }

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet()
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, usage); fs.PrintDefaults() }
	resolve := configFlags(fs)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	rest := fs.Args()
	if len(rest) > 0 && rest[0] == "version" {
		fmt.Fprintln(stdout, "hark", buildVersion())
		return 0
	}
	cfg, err := resolve()
	if err != nil {
		fmt.Fprintln(stderr, "hark:", err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	switch {
	case len(rest) == 0:
		err = runConsole(ctx, cfg)
	case rest[0] == "mic":
		err = cmdMic(cfg, rest[1:], stdout)
	default:
		err = runCommand(ctx, cfg, rest, stdin, stdout, stderr)
	}
	return report(err, stderr)
}

// report prints err the way scripts can rely on: the server's code and
// description for platform errors, and returns the exit status.
func report(err error, stderr io.Writer) int {
	if err == nil {
		return 0
	}
	var ee exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	var api *client.APIError
	if errors.As(err, &api) {
		fmt.Fprintf(stderr, "hark: %s (HTTP %d): %s\n", api.Code, api.Status, api.Description)
		return 1
	}
	fmt.Fprintln(stderr, "hark:", err)
	return 1
}

func buildVersion() string {
	if version != "dev" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && len(s.Value) >= 12 {
				return "dev-" + s.Value[:12]
			}
		}
	}
	return version
}

// platform is a connected client and what it takes to close it.
type platform struct {
	Client   *client.Client
	Label    string // shown in the console header
	Secrets  secrets
	Sessions *sessionStore
	// Ready, for the embedded platform, yields once it serves (or fails).
	Ready <-chan error
	close func() error
}

func (p *platform) Close() error {
	if p.close != nil {
		return p.close()
	}
	return nil
}

// connect starts the embedded platform or points at the configured one,
// and restores a remembered session.
func connect(ctx context.Context, cfg config, logger *slog.Logger) (*platform, error) {
	sec := openSecrets(cfg.ConfigDir)
	p := &platform{Secrets: sec}
	ccfg := client.Config{BaseURL: cfg.BaseURL, StorageURL: cfg.StorageURL, RecommURL: cfg.RecommURL,
		PublicKey: cfg.APIKey, PrivateKey: cfg.PrivateKey, Language: cfg.Language}
	if cfg.BaseURL == "" {
		emb, err := startEmbedded(ctx, cfg.DataDir, sec, logger)
		if err != nil {
			return nil, err
		}
		ccfg.BaseURL, ccfg.PublicKey, ccfg.PrivateKey = emb.BaseURL, emb.PublicKey, emb.PrivateKey
		p.Label = "embedded platform"
		p.close = emb.Close
		p.Ready = emb.Ready
	} else {
		p.Label = cfg.BaseURL
		keyName := "private-key:" + cfg.BaseURL + ":" + cfg.APIKey
		if ccfg.PrivateKey != "" {
			if err := sec.Set(keyName, ccfg.PrivateKey); err != nil {
				logger.Warn("could not keep the private key", "where", sec.Where(), "err", err)
			}
		} else if v, ok, err := sec.Get(keyName); err == nil && ok {
			ccfg.PrivateKey = v
		}
	}
	c, err := client.New(ccfg)
	if err != nil {
		p.Close()
		return nil, err
	}
	p.Client = c
	// Sessions are per platform and workspace; the embedded one is keyed by
	// its data directory since its port changes on every run.
	place := cfg.BaseURL
	if place == "" {
		place = filepath.Join(cfg.DataDir, "harkd")
	}
	p.Sessions = &sessionStore{sec: sec, key: place + ":" + ccfg.PublicKey}
	if s, ok, err := p.Sessions.Load(); err != nil {
		logger.Warn("could not read the remembered session", "err", err)
	} else if ok {
		c.SetToken(s.Token)
	}
	return p, nil
}
