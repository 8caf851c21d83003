package recommend

import (
	"bufio"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/harkhq/hark/server/recomm/engines"
	"github.com/harkhq/hark/server/store"
)

// Sharing models between harkd processes (README "Several harkd processes"). With PostgreSQL every
// process mounts the same data directory, so a model file one process saves is there for all; what
// the others need is to hear of it. Every trained model's save and every table deletion is
// announced on the PostgreSQL channel ModelsChannel; each process listens (Watch) and, for each notice, loads the
// model file named and swaps it in the way a local save does (the candidates are rebuilt), the
// model it held serving until then. The file is the truth, the notice only a hint: each file starts
// with a random version token, a process skips its own notices and a file whose token it already
// holds (a stale notice), and after every (re)connection to the database it rescans the directory,
// because notices sent while it was not listening are lost. Online updates travel as the
// interactions themselves (EventsChannel), each process folding them in. Not exact yet: a process
// that loads another's file (a late notice, a rescan) after that one saved an online update, and only
// then receives the interaction the file already holds, folds it in twice, since the two channels
// keep no order between them; exact would need each file to record the interactions folded into it.

// ModelsChannel is the PostgreSQL notification channel of model saves and deletions.
const ModelsChannel = "harkd_recomm_models"

// notice is the payload of a ModelsChannel notice: a saved model (Engine set, Version its file's
// token), or a deleted table (Engine empty).
type notice struct {
	// From is the Models.id of the announcing process, which skips its own notices: one that comes
	// late, after the process's own online saves (or another's) replaced the file it announces, would
	// otherwise load that newer file over the model the process has been folding interactions into,
	// and the interactions it then folds in again would count twice.
	From    string `json:"from,omitempty"`
	WS      int64  `json:"ws"`
	Table   string `json:"table"`
	Engine  string `json:"engine,omitempty"`
	Version string `json:"version,omitempty"`
}

// fileVersion identifies the content of a model file: the token written at its head, or for a file
// saved before tokens existed, its file system identity (inode, size, modification time).
type fileVersion struct {
	token string
	info  os.FileInfo
}

func (a fileVersion) same(b fileVersion) bool {
	if a.token != "" || b.token != "" {
		return a.token == b.token
	}
	return a.info != nil && b.info != nil && os.SameFile(a.info, b.info) &&
		a.info.Size() == b.info.Size() && a.info.ModTime().Equal(b.info.ModTime())
}

// versionMagic starts a model file, followed by 16 hex digits of token and a newline, then the
// engine's own format (engines.Save).
const versionMagic = "harkd-model-file "

func newToken() string {
	var b [8]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func writeVersioned(w io.Writer, token string, m engines.Model) error {
	if _, err := io.WriteString(w, versionMagic+token+"\n"); err != nil {
		return err
	}
	return m.Save(w)
}

// readToken reads the token at the head of a model file, or "" for a file without one (saved by an
// older harkd), leaving r at the engine's data.
func readToken(r *bufio.Reader) (string, error) {
	head, err := r.Peek(len(versionMagic))
	if err != nil || string(head) != versionMagic {
		return "", nil // not versioned: engines.Load judges the content
	}
	line, err := r.ReadString('\n')
	if err != nil {
		return "", err
	}
	return strings.TrimSuffix(strings.TrimPrefix(line, versionMagic), "\n"), nil
}

// syncDir makes a rename in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	return nil
}

func (ms *Models) path(k modelKey) string {
	return filepath.Join(ms.dir, strconv.FormatInt(k.ws, 10), k.table, k.engine+".model")
}

// onDisk lists the models whose files are in the directory.
func (ms *Models) onDisk() []modelKey {
	files, _ := filepath.Glob(filepath.Join(ms.dir, "*", "*", "*.model"))
	var out []modelKey
	for _, path := range files {
		rel, _ := filepath.Rel(ms.dir, path)
		parts := strings.Split(rel, string(filepath.Separator))
		if len(parts) != 3 {
			continue
		}
		ws, err := strconv.ParseInt(parts[0], 10, 64)
		if err != nil {
			continue
		}
		out = append(out, modelKey{ws, parts[1], strings.TrimSuffix(parts[2], ".model")})
	}
	return out
}

// sync brings the model held for k in line with its file: loads and swaps in a file it does not
// hold yet, forgets a model whose file is gone. A file that does not load leaves the model held
// serving and is reported.
func (ms *Models) sync(k modelKey) error {
	path := ms.path(k)
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		ms.write.Lock()
		defer ms.write.Unlock()
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			ms.forget(k)
		}
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return err
	}
	r := bufio.NewReader(f)
	token, err := readToken(r)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	v := fileVersion{token: token, info: info}
	if ms.holds(k, v) {
		return nil
	}
	// Loading runs outside the lock: a large model takes a while, and local saves go on meanwhile.
	m, err := engines.Load(r)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	ms.write.Lock()
	defer ms.write.Unlock()
	if cur, err := os.Stat(path); err != nil || !os.SameFile(cur, info) {
		return nil // replaced while loading: a local save holds the newer one, or its notice follows
	}
	if v0, ok := ms.files[k]; ok && v0.same(v) {
		return nil
	}
	ms.install(k, m, v)
	return nil
}

func (ms *Models) holds(k modelKey, v fileVersion) bool {
	ms.write.Lock()
	defer ms.write.Unlock()
	v0, ok := ms.files[k]
	return ok && v0.same(v)
}

// forget drops a model whose file was removed (its table deleted by another process), under write.
func (ms *Models) forget(k modelKey) {
	ms.mu.Lock()
	_, held := ms.m[k]
	delete(ms.m, k)
	ms.mu.Unlock()
	delete(ms.files, k)
	if held {
		ms.cands.drop(func(s *candidateSet) bool { return ms.current(s.ws, s.table, s.model) })
	}
}

// announce tells the other processes of a save or deletion; a failure is logged, not returned: the
// change is made here and on disk, and the others pick it up at their next resync.
func (ms *Models) announce(n notice) {
	ms.mu.Lock()
	db := ms.db
	ms.mu.Unlock()
	if db == nil {
		return
	}
	n.From = ms.id
	payload, _ := json.Marshal(n)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := store.Notify(ctx, db, ModelsChannel, string(payload)); err != nil {
		slog.Warn("recomm: telling the other processes of a model failed; they load it when they next resync",
			"table", n.Table, "engine", n.Engine, "err", err)
	}
}

// Watch shares this process's models with every other harkd process on db, a PostgreSQL database
// whose processes all use the same data directory: from its return on, every model this process
// trains (Put) and every table it deletes (DeleteTable) is announced, and until ctx
// ends a goroutine loads the models the others announce, swapping each in for the one it replaces,
// which serves until then. The goroutine also rescans the directory at once and after every lost
// connection. Call it once, after OpenModels and before any training runs; at shutdown, end ctx
// before WaitSaves, which waits for the goroutine. On SQLite it does nothing: one process.
func (ms *Models) Watch(ctx context.Context, db *sql.DB) {
	if store.EngineOf(db) != store.Postgres {
		return
	}
	ms.mu.Lock()
	ms.db = db
	ms.mu.Unlock()
	ms.watching.Add(1)
	go func() {
		defer ms.watching.Done()
		store.Listen(ctx, db, ModelsChannel, ms.heard)
	}()
}

// heard handles one notice, or with "" a (re)connection.
func (ms *Models) heard(payload string) {
	if payload == "" {
		ms.resync()
		return
	}
	var n notice
	if err := json.Unmarshal([]byte(payload), &n); err != nil {
		slog.Warn("recomm: ignoring a malformed model notice", "payload", payload, "err", err)
		return
	}
	if n.From == ms.id {
		return // this process's own save or deletion, already in place here
	}
	var keys []modelKey
	if n.Engine != "" {
		k := modelKey{n.WS, n.Table, n.Engine}
		if n.Version != "" && ms.holds(k, fileVersion{token: n.Version}) {
			return // this process's own save, or one it already loaded
		}
		keys = []modelKey{k}
	} else {
		for _, k := range ms.keys() {
			if k.ws == n.WS && k.table == n.Table {
				keys = append(keys, k)
			}
		}
	}
	for _, k := range keys {
		if err := ms.sync(k); err != nil {
			slog.Warn("recomm: a model saved by another process did not load; the previous one keeps serving", "err", err)
		}
	}
}

// resync loads every model file that changed since this process last read it and forgets the
// models whose files are gone.
func (ms *Models) resync() {
	defer ms.resyncs.Add(1)
	seen := map[modelKey]bool{}
	keys := ms.onDisk()
	for _, k := range keys {
		seen[k] = true
	}
	for _, k := range ms.keys() {
		if !seen[k] && ms.Get(k.ws, k.table, k.engine) != nil {
			keys = append(keys, k)
		}
	}
	for _, k := range keys {
		if err := ms.sync(k); err != nil {
			slog.Warn("recomm: a saved model did not load; the previous one keeps serving", "err", err)
		}
	}
}

// EventsChannel is the PostgreSQL notification channel of the interactions folded into the models
// that learn online (isvd): each process folds in those recorded by the others, so that every
// process serves every recorded interaction at once, as a single process does.
const EventsChannel = "harkd_recomm_events"

// eventNotice is the payload of an EventsChannel notice.
type eventNotice struct {
	From  string        `json:"from"` // the Models.id of the process that recorded it and folded it in already
	WS    int64         `json:"ws"`
	Table string        `json:"table"`
	Event engines.Event `json:"event"`
}

// announceEvent tells the other processes of an interaction folded in here. It runs in the request
// that recorded the interaction, after the record was stored: one statement, on tables that have a
// model learning online only. A failure is logged: the others learn it at the next training.
func (ms *Models) announceEvent(ws int64, table string, ev engines.Event) {
	ms.mu.Lock()
	db := ms.db
	ms.mu.Unlock()
	if db == nil {
		return
	}
	payload, _ := json.Marshal(eventNotice{From: ms.id, WS: ws, Table: table, Event: ev})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := store.Notify(ctx, db, EventsChannel, string(payload)); err != nil {
		slog.Warn("recomm: telling the other processes of an online update failed; they learn it at the next training",
			"table", table, "err", err)
	}
}

// Watch shares the models (Models.Watch) and their online updates with every other harkd process
// on db: it also folds into this process's models the interactions the others record, until ctx
// ends. Call it instead of Models.Watch, under the same conditions. On SQLite it does nothing.
func (r *Recommender) Watch(ctx context.Context, db *sql.DB) {
	if store.EngineOf(db) != store.Postgres {
		return
	}
	ms := r.Models
	ms.Watch(ctx, db)
	ms.watching.Add(1)
	go func() {
		defer ms.watching.Done()
		store.Listen(ctx, db, EventsChannel, r.heardEvent)
	}()
}

// heardEvent folds in an interaction another process recorded; with "" (a (re)connection, after
// which the interactions recorded meanwhile are lost) it reloads the model files saved since, which
// hold the online updates of the processes that saved them.
func (r *Recommender) heardEvent(payload string) {
	if payload == "" {
		r.Models.resync()
		return
	}
	var n eventNotice
	if err := json.Unmarshal([]byte(payload), &n); err != nil {
		slog.Warn("recomm: ignoring a malformed online update notice", "payload", payload, "err", err)
		return
	}
	if n.From == r.Models.id {
		return // folded in when it was recorded
	}
	r.fold(n.WS, n.Table, n.Event, false)
}
