// Package storetest gives tests a store on the engine they ask for: SQLite
// in a temporary directory, or a fresh database in a throwaway PostgreSQL
// cluster that this test binary starts once and that dies with it.
//
// HARK_TEST_STORE=postgres switches the tests that take their store from
// Open (and servertest) to PostgreSQL, so one suite proves both engines.
package storetest

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/harkhq/hark/server/store"
)

// EnvEngine is the environment variable naming the engine of Open.
const EnvEngine = "HARK_TEST_STORE"

// Engine is the engine HARK_TEST_STORE asks for, SQLite by default.
func Engine() store.Engine {
	if os.Getenv(EnvEngine) == string(store.Postgres) {
		return store.Postgres
	}
	return store.SQLite
}

// Open stands in for store.Open(dir) in tests: SQLite at dir, or on
// PostgreSQL a database of its own per dir, so that opening the same dir
// again (a restarted harkd) reaches the same data. The database closes when
// the test ends.
func Open(t testing.TB, dir string) (*sql.DB, error) {
	t.Helper()
	if Engine() != store.Postgres {
		return store.Open(dir)
	}
	dirsMu.Lock()
	url, ok := dirs[dir]
	if !ok {
		url = PostgresURL(t)
		dirs[dir] = url
	}
	dirsMu.Unlock()
	db, err := store.OpenPostgres(context.Background(), url)
	if err == nil {
		t.Cleanup(func() { db.Close() })
	}
	return db, err
}

// Spec returns the store spec of a new, empty store on Engine for a
// server.Config: "" (SQLite under its data directory) or the URL of a new
// PostgreSQL database.
func Spec(t testing.TB) string {
	t.Helper()
	if Engine() == store.Postgres {
		return PostgresURL(t)
	}
	return ""
}

// Reopen opens the store spec and dir name, closing it when the test ends.
func Reopen(t testing.TB, spec, dir string) *sql.DB {
	t.Helper()
	db, err := store.Connect(context.Background(), spec, dir)
	if err != nil {
		t.Fatalf("open store: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

var (
	dirsMu sync.Mutex
	dirs   = map[string]string{}
)

// PostgresURL creates a new database in this binary's cluster and returns
// its URL; it skips the test when PostgreSQL is not installed.
func PostgresURL(t testing.TB) string {
	t.Helper()
	c, err := shared()
	if err != nil {
		if err == errNoBinaries {
			t.Skipf("PostgreSQL is not installed (no initdb on PATH or under /usr/lib/postgresql/*/bin): install the Debian package postgresql to run the tests on PostgreSQL")
		}
		t.Fatalf("start PostgreSQL: %v", err)
	}
	name := "t" + strconv.FormatInt(time.Now().UnixNano()%1e9, 10) + "_" + strconv.FormatInt(seq.Add(1), 10)
	if _, err := c.admin.Exec(`CREATE DATABASE ` + name); err != nil {
		t.Fatalf("create database: %v", err)
	}
	t.Cleanup(func() {
		// FORCE ends connections a failed test left open, so a database
		// per test does not pile up on the disk of a long run.
		c.admin.Exec(`DROP DATABASE IF EXISTS ` + name + ` WITH (FORCE)`)
	})
	return c.url(name)
}

var (
	seq        atomic.Int64
	once       sync.Once
	cluster    *pgCluster
	clusterErr error

	errNoBinaries = fmt.Errorf("PostgreSQL binaries not found")
)

func shared() (*pgCluster, error) {
	once.Do(func() { cluster, clusterErr = start() })
	return cluster, clusterErr
}

type pgCluster struct {
	dir   string // holds the data directory and the unix socket
	admin *sql.DB
}

func (c *pgCluster) url(db string) string {
	return "postgres://hark@/" + db + "?host=" + c.dir + "&sslmode=disable"
}

// binDir finds the directory of initdb and postgres: PATH first, then
// Debian's versioned directories, newest version first.
func binDir() (string, error) {
	if p, err := exec.LookPath("initdb"); err == nil {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			p = real
		}
		return filepath.Dir(p), nil
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool {
		a, _ := strconv.Atoi(filepath.Base(filepath.Dir(dirs[i])))
		b, _ := strconv.Atoi(filepath.Base(filepath.Dir(dirs[j])))
		return a > b
	})
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
			return d, nil
		}
	}
	return "", errNoBinaries
}

// start runs initdb and postgres in a new temporary directory. PostgreSQL
// refuses to run as root, so as root both run as the postgres user (the
// Debian package creates it) or else nobody, owning the directory.
//
// postgres runs under a shell that holds a pipe from this process: when
// the test binary exits, however it exits, the pipe closes, and the shell
// stops the server at once and removes the directory. No cluster outlives
// its tests and no TestMain is needed.
func start() (*pgCluster, error) {
	bin, err := binDir()
	if err != nil {
		return nil, err
	}
	// The unix socket lives in dir, and socket paths are short (107
	// bytes); the unprivileged user must also reach dir, which a TMPDIR
	// under root's home would forbid. /tmp satisfies both.
	dir, err := os.MkdirTemp("/tmp", "harkpg")
	if err != nil {
		return nil, err
	}
	var cred *syscall.Credential
	if os.Geteuid() == 0 {
		cred, err = unprivileged()
		if err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
		if err := os.Chown(dir, int(cred.Uid), int(cred.Gid)); err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
	}
	initdb := exec.Command(filepath.Join(bin, "initdb"), "-D", filepath.Join(dir, "data"), "-U", "hark",
		"-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync")
	initdb.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	if out, err := initdb.CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("initdb: %v: %s", err, out)
	}
	// Durability is worthless in a cluster that dies with the tests;
	// without fsync, database creation and commits cost far less.
	script := `"$1/postgres" -D "$2/data" -k "$2" -c listen_addresses= -c fsync=off -c synchronous_commit=off \
		-c full_page_writes=off -c max_connections=300 -c shared_buffers=32MB >"$2/log" 2>&1 &
pid=$!
cat >/dev/null
kill -QUIT $pid 2>/dev/null
wait $pid
rm -rf "$2"`
	sh := exec.Command("/bin/sh", "-c", script, "sh", bin, dir)
	sh.SysProcAttr = &syscall.SysProcAttr{Credential: cred, Setpgid: true}
	stdin, err := sh.StdinPipe()
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	if err := sh.Start(); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	// Kept open for the life of the process: its close is the signal.
	keepOpen = stdin
	c := &pgCluster{dir: dir}
	deadline := time.Now().Add(30 * time.Second)
	for {
		db, err := store.OpenPostgres(context.Background(), c.url("postgres"))
		if err == nil {
			db.SetMaxOpenConns(2)
			c.admin = db
			return c, nil
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(filepath.Join(dir, "log"))
			stdin.Close()
			return nil, fmt.Errorf("postgres did not accept connections in 30s: %v; log: %s", err, log)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

var keepOpen io.WriteCloser

func unprivileged() (*syscall.Credential, error) {
	for _, name := range []string{"postgres", "nobody"} {
		u, err := user.Lookup(name)
		if err != nil {
			continue
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
	}
	return nil, fmt.Errorf("running as root and found neither a postgres nor a nobody user to run PostgreSQL as")
}
