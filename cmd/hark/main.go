// Command hark is the terminal console of the hark platform. With no
// command it opens the full-screen console; the commands serve scripts
// (`hark --help` lists them):
//
//	hark [global flags] [say | ask | login | register | logout | storage ... |
//	      recomm ... | mic | version | help [COMMAND]]
//
// With no --base-url (nor HARK_BASE_URL nor config file entry) hark starts
// the platform in-process on a loopback port, its data under the XDG data
// home.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/harkhq/hark/client"
)

// processStart is when the process began, for the start-up log lines.
var processStart = time.Now()

// version is set with -ldflags "-X main.version=..." by release builds.
var version = ""

const about = `hark is the terminal console of the hark assistant platform. With no command
it opens the full-screen console; the commands below do the same work from
scripts.`

const aboutPlatform = `With no --base-url (nor HARK_BASE_URL, nor base_url in the config file) hark
runs the platform in-process, its data under $XDG_DATA_HOME/hark/harkd.
Global flags go before the command. Run 'hark help COMMAND' for a command's
arguments and flags.`

func main() {
	if len(os.Args) > 1 && os.Args[1] == speechWorkerCommand {
		os.Exit(runSpeechWorker(os.Args[2:]))
	}
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// exitError carries a specific exit status; what went wrong is printed.
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit %d", e.code) }

// configError is a configuration hark cannot use: exit status 2.
type configError struct{ error }

func newFlagSet() *flag.FlagSet { return flag.NewFlagSet("hark", flag.ContinueOnError) }

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet()
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	resolve := configFlags(fs)
	showVersion := fs.Bool("version", false, "print the version")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			printUsage(stdout, fs)
			return 0
		}
		fmt.Fprintf(stderr, "hark: %s\nRun 'hark --help' for usage.\n", flagError(err))
		return 2
	}
	if *showVersion {
		fmt.Fprintln(stdout, "hark version", buildVersion())
		return 0
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	e := &cliEnv{ctx: ctx, stdin: stdin, stdout: stdout, stderr: stderr, resolve: resolve, globals: fs}
	rest := fs.Args()
	if len(rest) == 0 {
		cfg, err := e.config()
		if err == nil {
			err = runConsole(ctx, cfg, nil)
		}
		return report(err, stderr)
	}
	c := findCommand(commands, rest[0])
	if c == nil {
		fmt.Fprintf(stderr, "hark: unknown command %q\nRun 'hark --help' for the list of commands.\n", rest[0])
		return 2
	}
	return report(e.finish(c.exec(e, rest[1:])), stderr)
}

// printUsage is hark --help.
func printUsage(w io.Writer, globals *flag.FlagSet) {
	fmt.Fprintf(w, "%s\n\nusage:\n  hark [flags]                   open the console\n  hark [flags] COMMAND [ARGS]    run one command\n\ncommands:\n", about)
	listCommands(w, commands)
	fmt.Fprintln(w, "\nflags:")
	printFlags(w, globals)
	fmt.Fprintf(w, "\n%s\n", aboutPlatform)
}

// report prints err the way scripts can rely on and returns the exit
// status: 0 for none (or help asked for), 2 for usage and configuration
// mistakes, 1 for everything else.
func report(err error, stderr io.Writer) int {
	if err == nil || errors.Is(err, errHelpShown) {
		return 0
	}
	var ee exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	var ce configError
	if errors.As(err, &ce) {
		fmt.Fprintln(stderr, "hark:", ce.error)
		return 2
	}
	var api *client.APIError
	if errors.As(err, &api) {
		fmt.Fprintf(stderr, "hark: %s (HTTP %d): %s\n", api.Code, api.Status, api.Description)
		return 1
	}
	fmt.Fprintln(stderr, "hark:", err)
	return 1
}

// buildVersion is the release version, else the module version and the
// VCS revision the binary was built from, when the build recorded them.
func buildVersion() string {
	if version != "" {
		return version
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "dev"
	}
	return versionOf(bi)
}

// versionOf reads a version from the build information: the module's
// version when it has one (go install ...@v1.2.0), with the VCS revision,
// its date and whether the tree was modified, when recorded.
func versionOf(bi *debug.BuildInfo) string {
	v := "dev"
	if mv := bi.Main.Version; mv != "" && mv != "(devel)" {
		v = mv
	}
	var rev, at string
	dirty := false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return v
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if dirty {
		rev += "-dirty"
	}
	if t, err := time.Parse(time.RFC3339, at); err == nil {
		rev += ", " + t.UTC().Format("2006-01-02")
	}
	return v + " (" + rev + ")"
}

// cliEnv is what a command runs with. The configuration and the platform
// are taken only when a command needs them, so help and usage mistakes
// never start a platform.
type cliEnv struct {
	ctx            context.Context
	stdin          io.Reader
	stdout, stderr io.Writer
	resolve        func() (config, error)
	globals        *flag.FlagSet

	cfg     *config
	p       *platform
	logFile *os.File
}

func (e *cliEnv) flags(path, synopsis, about string) *commandFlags {
	return newCommandFlags(path, synopsis, about, e.stdout, e.stderr)
}

func (e *cliEnv) config() (config, error) {
	if e.cfg == nil {
		c, err := e.resolve()
		if err != nil {
			return c, configError{err}
		}
		e.cfg = &c
	}
	return *e.cfg, nil
}

// platform connects once; the embedded platform logs to the state
// directory so stdout stays the command's answer.
func (e *cliEnv) platform() (*platform, error) {
	if e.p != nil {
		return e.p, nil
	}
	cfg, err := e.config()
	if err != nil {
		return nil, err
	}
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	if err := os.MkdirAll(cfg.StateDir, 0o700); err == nil {
		if f, err := os.OpenFile(filepath.Join(cfg.StateDir, "hark.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600); err == nil {
			e.logFile = f
			logger = slog.New(slog.NewTextHandler(f, nil))
		}
	}
	p, err := connect(e.ctx, cfg, logger)
	if err != nil {
		return nil, err
	}
	e.p = p
	return p, nil
}

// finish explains err in the platform's terms and closes what the command
// opened.
func (e *cliEnv) finish(err error) error {
	if e.p != nil {
		err = e.p.explain(err)
		if cerr := e.p.Close(); cerr != nil && err == nil && e.ctx.Err() == nil {
			err = cerr
		}
	}
	if e.logFile != nil {
		e.logFile.Close()
	}
	return err
}

// platform is a connected client and what it takes to close it.
type platform struct {
	Client   *client.Client
	Label    string // shown in the console header
	Secrets  secrets
	Sessions *sessionStore
	// Ready, for the embedded platform, yields once it serves (or fails).
	Ready <-chan error
	// SpeechReady, for the embedded platform, waits until its speech
	// engines have started; nil for a remote platform.
	SpeechReady func(context.Context) error
	close       func() error

	baseURL string
	key     privateKey
}

// privateKey is the workspace's private key of a remote platform and where
// it came from. A key is remembered (in the secrets store) only once the
// platform has accepted a request signed with it, and a remembered key the
// platform refuses is forgotten.
type privateKey struct {
	public     string
	secretName string
	given      string // from --private-key, HARK_PRIVATE_KEY or the config file
	remembered string // from the secrets store
	watch      *signatureWatch
}

// Close stops the embedded platform, and remembers or forgets the private
// key by what the platform said of it.
func (p *platform) Close() error {
	p.settleKey()
	if p.close != nil {
		return p.close()
	}
	return nil
}

func (p *platform) settleKey() {
	k := p.key
	if k.watch == nil {
		return
	}
	worked, refused := k.watch.outcome()
	switch {
	case worked && k.given != "" && k.given != k.remembered:
		p.Secrets.Set(k.secretName, k.given)
	case refused && k.given == "" && k.remembered != "":
		p.Secrets.Delete(k.secretName)
	}
}

// explain turns the platform's refusals of the workspace keys and of the
// address into what to do about them.
func (p *platform) explain(err error) error {
	var api *client.APIError
	if err == nil || !errors.As(err, &api) {
		var op *net.OpError
		if errors.As(err, &op) && op.Op == "dial" {
			cause := op.Err.Error()
			if se, ok := op.Err.(*os.SyscallError); ok {
				cause = se.Err.Error()
			}
			return fmt.Errorf("cannot reach the platform at %s (%s): is harkd running there?", p.baseURL, cause)
		}
		return err
	}
	k := p.key
	switch api.Code {
	case "TokenExpired":
		return fmt.Errorf("the session has ended (%s): run hark login, or hark register", api.Description)
	case "InvalidSignature":
		switch {
		case k.watch == nil:
			return err
		case k.given == "" && k.remembered == "":
			return fmt.Errorf("this command needs the private key of workspace %s: give it with --private-key "+
				"(or HARK_PRIVATE_KEY); hark keeps it once the platform accepts it", k.public)
		case k.given != "":
			return fmt.Errorf("the platform at %s refused the private key given for workspace %s (the request "+
				"signature does not match): check --private-key or HARK_PRIVATE_KEY; the key was not kept", p.baseURL, k.public)
		default:
			return fmt.Errorf("the platform at %s refused the private key hark remembered for workspace %s; it is "+
				"forgotten now: give the right one with --private-key", p.baseURL, k.public)
		}
	case "UnknownApiKey":
		if k.watch != nil {
			return fmt.Errorf("the platform at %s has no workspace with the public key %s: check --api-key (or HARK_API_KEY)", p.baseURL, k.public)
		}
	}
	if api.Status == http.StatusNotFound && (api.Code == "Not Found" || strings.HasPrefix(api.Description, "no such endpoint")) {
		if u, perr := url.Parse(p.baseURL); perr == nil && !strings.HasSuffix(strings.TrimSuffix(u.Path, "/"), "/v2") {
			return fmt.Errorf("the platform at %s answered 404 (%s): its base URL ends in the version segment /v2, "+
				"e.g. http://127.0.0.1:8700/v2", p.baseURL, api.Description)
		}
	}
	return err
}

// signatureWatch sees the answers to signed requests: whether the
// platform accepted the private key, or refused it.
type signatureWatch struct {
	base http.RoundTripper
	mu   sync.Mutex
	ok   bool
	bad  bool
}

func (w *signatureWatch) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := w.base.RoundTrip(req)
	if err != nil || req.Header.Get("X-Service-hmac") == "" {
		return resp, err
	}
	switch {
	case resp.StatusCode < 400:
		w.mu.Lock()
		w.ok = true
		w.mu.Unlock()
	case resp.StatusCode == http.StatusUnauthorized:
		body, rerr := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		resp.Body.Close()
		resp.Body = io.NopCloser(bytes.NewReader(body))
		if rerr == nil && bytes.Contains(body, []byte(`"InvalidSignature"`)) {
			w.mu.Lock()
			w.bad = true
			w.mu.Unlock()
		}
	}
	return resp, nil
}

func (w *signatureWatch) outcome() (worked, refused bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.ok, w.bad
}

// withVersion adds the version segment to a platform URL given without a
// path ("http://host:8700" means "http://host:8700/v2"); other paths are
// taken as given.
func withVersion(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || (u.Path != "" && u.Path != "/") {
		return raw
	}
	u.Path = "/v2"
	return u.String()
}

// connect starts the embedded platform or points at the configured one,
// and restores a remembered session.
func connect(ctx context.Context, cfg config, logger *slog.Logger) (*platform, error) {
	sec := openSecrets(cfg.ConfigDir)
	p := &platform{Secrets: sec}
	ccfg := client.Config{BaseURL: withVersion(cfg.BaseURL), PublicKey: cfg.APIKey, PrivateKey: cfg.PrivateKey, Language: cfg.Language}
	if cfg.StorageURL != "" {
		ccfg.StorageURL = withVersion(cfg.StorageURL)
	}
	ccfg.RecommURL = cfg.RecommURL
	if cfg.BaseURL == "" {
		emb, err := startEmbedded(ctx, cfg.DataDir, sec, logger)
		if err != nil {
			return nil, err
		}
		ccfg.BaseURL, ccfg.PublicKey, ccfg.PrivateKey = emb.BaseURL, emb.PublicKey, emb.PrivateKey
		p.Label = "embedded platform"
		p.close = emb.Close
		p.Ready = emb.Ready
		p.SpeechReady = emb.SpeechReady
	} else {
		p.Label = ccfg.BaseURL
		k := privateKey{public: cfg.APIKey, secretName: "private-key:" + cfg.BaseURL + ":" + cfg.APIKey,
			given: cfg.PrivateKey, watch: &signatureWatch{base: client.NewTransport()}}
		if v, ok, err := sec.Get(k.secretName); err == nil && ok {
			k.remembered = v
		}
		if ccfg.PrivateKey == "" {
			ccfg.PrivateKey = k.remembered
		}
		ccfg.HTTPClient = &http.Client{Transport: k.watch}
		p.key = k
	}
	p.baseURL = ccfg.BaseURL
	c, err := client.New(ccfg)
	if err != nil {
		p.Close()
		return nil, configError{err}
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
