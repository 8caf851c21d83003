package main

import (
	"bytes"
	"flag"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/harkhq/hark/server"
	"github.com/harkhq/hark/server/servertest"
)

// isolate points every XDG place but the cache, and the secrets, at a
// temporary home. The cache stays the machine's: it holds what is built
// once per machine, such as the speech models (built in tens of seconds on
// a loaded machine, longer than a flow turn may wait).
func isolate(t testing.TB) string {
	if cache, err := os.UserCacheDir(); err == nil {
		t.Setenv("XDG_CACHE_HOME", cache)
	}
	home := t.TempDir()
	for _, v := range []string{"XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME"} {
		t.Setenv(v, filepath.Join(home, strings.ToLower(v)))
	}
	t.Setenv("HOME", home)
	t.Setenv("HARK_KEYRING", "off")
	for _, v := range []string{"HARK_BASE_URL", "HARK_STORAGE_URL", "HARK_RECOMM_URL", "HARK_API_KEY", "HARK_PRIVATE_KEY", "HARK_PASSWORD", "HARK_LANG"} {
		t.Setenv(v, "")
	}
	return home
}

func hark(t testing.TB, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(args, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

func remote(t *testing.T) []string {
	p := servertest.Start(t, server.Config{})
	return []string{"--base-url", p.BaseURL, "--api-key", p.PublicKey, "--private-key", p.PrivateKey}
}

func TestConfigPrecedence(t *testing.T) {
	home := isolate(t)
	cfgDir := filepath.Join(home, "xdg_config_home", "hark")
	os.MkdirAll(cfgDir, 0o700)
	os.WriteFile(filepath.Join(cfgDir, "config.json"), []byte(`{"base_url":"http://file/v2","api_key":"file-key","language":"es"}`), 0o600)
	t.Setenv("HARK_API_KEY", "env-key")
	fs := newFlagSet()
	resolve := configFlags(fs)
	fs.Parse([]string{"--base-url", "http://flag/v2"})
	c, err := resolve()
	if err != nil {
		t.Fatal(err)
	}
	if c.BaseURL != "http://flag/v2" || c.APIKey != "env-key" || c.Language != "es" {
		t.Fatalf("precedence wrong: %+v", c)
	}
	os.WriteFile(filepath.Join(cfgDir, "config.json"), []byte(`{not json`), 0o600)
	if code, _, errOut := hark(t, "", "storage", "du"); code != 2 || !strings.Contains(errOut, "config file") {
		t.Fatalf("a broken config file: exit %d, %q", code, errOut)
	}
}

func TestSecretsFileIsPrivate(t *testing.T) {
	home := isolate(t)
	s := openSecrets(filepath.Join(home, "c"))
	if err := s.Set("session:x", "tok"); err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(filepath.Join(home, "c", "secrets.json"))
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("secrets file: %v %v", info.Mode(), err)
	}
	if v, ok, _ := s.Get("session:x"); !ok || v != "tok" {
		t.Fatal("secret not read back")
	}
	s.Delete("session:x")
	if _, ok, _ := s.Get("session:x"); ok {
		t.Fatal("secret not deleted")
	}
}

func TestSubcommandsAgainstAPlatform(t *testing.T) {
	isolate(t)
	r := remote(t)
	t.Setenv("HARK_PASSWORD", "correct horse")
	if code, out, errOut := hark(t, "", append(r, "register", "--email", "ann@example.com", "--name", "Ann")...); code != 0 {
		t.Fatalf("register: %d %s %s", code, out, errOut)
	}
	code, _, errOut := hark(t, "", append(r, "register", "--email", "ann@example.com")...)
	if code != 1 || !strings.Contains(errOut, "EntityAlreadyExists (HTTP 409)") {
		t.Fatalf("second register: %d %q", code, errOut)
	}
	code, out, errOut := hark(t, "", append(r, "say", "hello")...)
	if code != 0 || strings.TrimSpace(out) == "" {
		t.Fatalf("say: %d %q %q", code, out, errOut)
	}
	code, out, _ = hark(t, "", append(r, "say", "--json", "what time is it")...)
	if code != 0 || !strings.Contains(out, `"responses"`) {
		t.Fatalf("say --json: %d %q", code, out)
	}

	local := filepath.Join(t.TempDir(), "notes.txt")
	os.WriteFile(local, []byte("hello storage"), 0o644)
	for _, args := range [][]string{{"storage", "mkdir", "docs"}, {"storage", "put", local, "docs"}} {
		if code, out, errOut := hark(t, "", append(r, args...)...); code != 0 {
			t.Fatalf("%v: %d %s %s", args, code, out, errOut)
		}
	}
	if _, out, _ := hark(t, "", append(r, "storage", "ls", "docs")...); !regexp.MustCompile(`^13 B  \d{4}-\d\d-\d\d \d\d:\d\d  notes\.txt\n$`).MatchString(out) {
		t.Fatalf("ls docs: %q", out)
	}
	if _, out, _ := hark(t, "", append(r, "storage", "ls", "docs", "--bytes")...); !strings.HasPrefix(out, "13  ") {
		t.Fatalf("ls docs --bytes: %q", out)
	}
	if _, out, _ := hark(t, "", append(r, "storage", "ls")...); out != "-  -  docs/\n" {
		t.Fatalf("ls: %q", out)
	}
	code, _, errOut = hark(t, "", append(r, "storage", "put", local, "nowhere/")...)
	if code != 1 || errOut != "hark: there is no folder nowhere/ in the workspace: hark storage mkdir nowhere creates it\n" {
		t.Fatalf("put into a missing folder: %d %q", code, errOut)
	}
	if code, _, errOut := hark(t, "", append(r, "storage", "rm", "docs/nothing.txt")...); code != 1 || errOut != "hark: rm docs/nothing.txt: there is no such file\n" {
		t.Fatalf("rm of a missing file: %d %q", code, errOut)
	}
	if code, _, errOut := hark(t, "", append(r, "storage", "rmdir", "nowhere")...); code != 1 || errOut != "hark: there is no folder nowhere/ in the workspace\n" {
		t.Fatalf("rmdir of a missing folder: %d %q", code, errOut)
	}
	if code, out, errOut := hark(t, "", append(r, "storage", "ls", "nowhere")...); code != 1 || out != "" || !strings.Contains(errOut, "no folder nowhere/") {
		t.Fatalf("ls of a missing folder: %d %q %q", code, out, errOut)
	}
	if _, out, _ := hark(t, "", append(r, "storage", "get", "docs/notes.txt", "-")...); out != "hello storage" {
		t.Fatalf("get -: %q", out)
	}
	if _, out, _ := hark(t, "", append(r, "storage", "du")...); strings.TrimSpace(out) != "13 B" {
		t.Fatalf("du: %q", out)
	}
	if _, out, _ := hark(t, "", append(r, "storage", "du", "--bytes")...); strings.TrimSpace(out) != "13" {
		t.Fatalf("du --bytes: %q", out)
	}
	if code, _, errOut := hark(t, "", append(r, "storage", "put", t.TempDir())...); code != 1 || !strings.Contains(errOut, "is a directory") {
		t.Fatalf("put a directory: %d %q", code, errOut)
	}
	if code, _, _ := hark(t, "", append(r, "storage", "put", "/nonexistent/file")...); code != 1 {
		t.Fatal("put of a missing file succeeded")
	}
	if code, _, _ := hark(t, "", append(r, "storage", "clear")...); code != 2 {
		t.Fatal("clear without --yes ran")
	}
	// storage get keeps an existing file unless --force.
	dest := t.TempDir()
	if code, _, errOut := hark(t, "", append(r, "storage", "get", "docs/notes.txt", dest)...); code != 0 ||
		!strings.Contains(errOut, "downloaded docs/notes.txt (13 B) to "+filepath.Join(dest, "notes.txt")) {
		t.Fatalf("get into a directory: %d %q", code, errOut)
	}
	os.WriteFile(filepath.Join(dest, "notes.txt"), []byte("mine"), 0o644)
	code, _, errOut = hark(t, "", append(r, "storage", "get", "docs/notes.txt", dest)...)
	if b, _ := os.ReadFile(filepath.Join(dest, "notes.txt")); code != 1 || string(b) != "mine" || !strings.Contains(errOut, "already exists: add --force") {
		t.Fatalf("get over an existing file: %d %q, the file holds %q", code, errOut, b)
	}
	if code, _, errOut := hark(t, "", append(r, "storage", "get", "--force", "docs/notes.txt", dest)...); code != 0 {
		t.Fatalf("get --force: %d %q", code, errOut)
	}
	if b, _ := os.ReadFile(filepath.Join(dest, "notes.txt")); string(b) != "hello storage" {
		t.Fatalf("get --force left %q", b)
	}
	if entries, _ := os.ReadDir(dest); len(entries) != 1 {
		t.Fatalf("get left %d files behind", len(entries))
	}
	if _, out, errOut := hark(t, "", append(r, "storage", "clear", "--yes")...); out != "" || !strings.Contains(errOut, "cleared 1 files and 1 folders") {
		t.Fatalf("clear: %q %q", out, errOut)
	}
	if code, out, errOut := hark(t, "", append(r, "logout")...); code != 0 || out != "" || !strings.Contains(errOut, "logged out") {
		t.Fatalf("logout: %d %q", code, out)
	}
	if code, _, errOut := hark(t, "", append(r, "say", "hello")...); code != 1 || !strings.Contains(errOut, "not signed in") {
		t.Fatalf("say after logout: %d %q", code, errOut)
	}
}

func TestBadPlatforms(t *testing.T) {
	home := isolate(t)
	p := servertest.Start(t, server.Config{})
	secretsFile := filepath.Join(home, "xdg_config_home", "hark", "secrets.json")
	kept := func() string { b, _ := os.ReadFile(secretsFile); return string(b) }
	at := []string{"--base-url", p.BaseURL, "--api-key", p.PublicKey}
	code, _, errOut := hark(t, "", append(at, "storage", "du")...)
	if code != 1 || !strings.Contains(errOut, "needs the private key of workspace "+p.PublicKey) || strings.Contains(errOut, "does not match") {
		t.Fatalf("no private key: %d %q", code, errOut)
	}
	code, _, errOut = hark(t, "", append(at, "--private-key", "wrong", "storage", "du")...)
	if code != 1 || !strings.Contains(errOut, "refused the private key given") || strings.Contains(kept(), "wrong") {
		t.Fatalf("wrong private key: %d %q; kept: %s", code, errOut, kept())
	}
	// A key is remembered once the platform accepts it...
	if code, _, errOut := hark(t, "", append(at, "--private-key", p.PrivateKey, "storage", "du")...); code != 0 || !strings.Contains(kept(), p.PrivateKey) {
		t.Fatalf("right private key: %d %q; kept: %s", code, errOut, kept())
	}
	if code, _, errOut := hark(t, "", append(at, "storage", "du")...); code != 0 {
		t.Fatalf("the remembered key: %d %q", code, errOut)
	}
	// ... and forgotten once it fails (here: the workspace's key changed).
	os.WriteFile(secretsFile, []byte(strings.ReplaceAll(kept(), p.PrivateKey, "stale")), 0o600)
	code, _, errOut = hark(t, "", append(at, "storage", "du")...)
	if code != 1 || !strings.Contains(errOut, "refused the private key hark remembered") || strings.Contains(kept(), "stale") {
		t.Fatalf("a stale remembered key: %d %q; kept: %s", code, errOut, kept())
	}
	code, _, errOut = hark(t, "", "--base-url", p.BaseURL, "--api-key", "pk_nobody", "--private-key", "x", "storage", "du")
	if code != 1 || !strings.Contains(errOut, "no workspace with the public key pk_nobody") {
		t.Fatalf("unknown public key: %d %q", code, errOut)
	}
	// The version segment: added when the URL has no path, explained when the path is another.
	root := strings.TrimSuffix(p.BaseURL, "/v2")
	if code, out, errOut := hark(t, "", "--base-url", root, "--api-key", p.PublicKey, "--private-key", p.PrivateKey, "storage", "du"); code != 0 {
		t.Fatalf("base URL without /v2: %d %q %q", code, out, errOut)
	}
	code, _, errOut = hark(t, "", "--base-url", root+"/api", "--api-key", p.PublicKey, "--private-key", p.PrivateKey, "storage", "du")
	if code != 1 || !strings.Contains(errOut, "ends in the version segment /v2") {
		t.Fatalf("base URL with another path: %d %q", code, errOut)
	}
	code, _, errOut = hark(t, "", "--base-url", "http://127.0.0.1:1/v2", "--api-key", "k", "storage", "du")
	if code != 1 || !strings.Contains(errOut, "cannot reach the platform at http://127.0.0.1:1/v2 (connection refused)") {
		t.Fatalf("unreachable: %d %q", code, errOut)
	}
	if code, _, errOut := hark(t, "", "--base-url", "ftp://x", "--api-key", "k", "storage", "du"); code != 2 || !strings.Contains(errOut, "http(s)") {
		t.Fatalf("bad URL: %d %q", code, errOut)
	}
	if code, _, _ := hark(t, "", "frobnicate"); code != 2 {
		t.Fatal("unknown command accepted")
	}
	if code, out, _ := hark(t, "", "version"); code != 0 || !strings.HasPrefix(out, "hark ") {
		t.Fatalf("version: %d %q", code, out)
	}
}

func TestEmbeddedPlatformIsRemembered(t *testing.T) {
	isolate(t)
	t.Setenv("HARK_PASSWORD", "correct horse")
	if code, _, errOut := hark(t, "", "register", "--email", "kim@example.com"); code != 0 {
		t.Fatalf("register on the embedded platform: %s", errOut)
	}
	// A second run finds the same workspace and the remembered session.
	if code, out, errOut := hark(t, "", "say", "hello"); code != 0 || out == "" {
		t.Fatalf("say on the second run: %d %q %q", code, out, errOut)
	}
	if code, _, errOut := hark(t, "", "login", "--email", "kim@example.com"); code != 0 {
		t.Fatalf("login on a later run: %s", errOut)
	}
}

func TestCrashReport(t *testing.T) {
	dir := t.TempDir()
	where := writeCrashReport(dir, "boom", []byte("goroutine 1 [running]:\nmain.explode()"), slogDiscard())
	b, err := os.ReadFile(where)
	if err != nil || !strings.Contains(string(b), "panic: boom") || !strings.Contains(string(b), "main.explode") {
		t.Fatalf("report %s: %v %q", where, err, b)
	}
	if info, _ := os.Stat(where); info.Mode().Perm() != 0o600 {
		t.Fatalf("report mode %v", info.Mode())
	}
	if got := writeCrashReport(filepath.Join(dir, "missing", "dir"), "boom", nil, slogDiscard()); got != "the log" {
		t.Fatalf("unwritable report place gave %q", got)
	}
}

func slogDiscard() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// `hark mic NAME` remembers the microphone in the config file, keeping the
// file's other settings; the environment and --mic still win for one run.
func TestMicChoicePersists(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", dir)
	t.Setenv("HARK_MIC", "")
	if err := os.MkdirAll(filepath.Join(dir, "hark"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "hark", "config.json"), []byte(`{"language": "es"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	resolveWith := func(args ...string) config {
		fs := flag.NewFlagSet("hark", flag.ContinueOnError)
		resolve := configFlags(fs)
		if err := fs.Parse(args); err != nil {
			t.Fatal(err)
		}
		c, err := resolve()
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	cfg := resolveWith()
	var out strings.Builder
	if err := chooseMic(cfg, "USB Headset", &out); err != nil {
		t.Fatal(err)
	}
	if got := resolveWith(); got.Mic != "USB Headset" || got.Language != "es" {
		t.Fatalf("after hark mic: %+v", got)
	}
	if got := resolveWith("-mic", "other"); got.Mic != "other" {
		t.Fatalf("--mic did not win: %q", got.Mic)
	}
	if err := chooseMic(cfg, "default", &out); err != nil {
		t.Fatal(err)
	}
	if got := resolveWith(); got.Mic != "" {
		t.Fatalf("after hark mic default: %q", got.Mic)
	}
}

func TestVersionOf(t *testing.T) {
	for _, c := range []struct {
		bi   debug.BuildInfo
		want string
	}{
		{debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "dev"},
		{debug.BuildInfo{Main: debug.Module{Version: "v1.2.0"}}, "v1.2.0"},
		{debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "145805d0123456789abcdef"}, {Key: "vcs.time", Value: "2026-11-24T09:00:00Z"},
			{Key: "vcs.modified", Value: "true"}}}, "dev (145805d01234-dirty, 2026-11-24)"},
		{debug.BuildInfo{Main: debug.Module{Version: "v1.2.0"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "145805d"}}}, "v1.2.0 (145805d)"},
	} {
		if got := versionOf(&c.bi); got != c.want {
			t.Errorf("versionOf(%+v) = %q, want %q", c.bi, got, c.want)
		}
	}
}

// A remembered session the platform no longer knows asks for a new login.
func TestEndedSession(t *testing.T) {
	home := isolate(t)
	p := servertest.Start(t, server.Config{})
	sec := openSecrets(filepath.Join(home, "xdg_config_home", "hark"))
	if err := sec.Set("session:"+p.BaseURL+":"+p.PublicKey, `{"token": "revoked-long-ago"}`); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := hark(t, "", "--base-url", p.BaseURL, "--api-key", p.PublicKey, "say", "hello")
	if code != 1 || out != "" || !strings.HasPrefix(errOut, "hark: the session has ended (") || !strings.HasSuffix(errOut, "run hark login, or hark register\n") {
		t.Fatalf("say with an ended session: %d %q %q", code, out, errOut)
	}
}
