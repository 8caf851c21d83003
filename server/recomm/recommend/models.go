package recommend

import (
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/harkhq/hark/server/recomm/engines"
)

// Models holds the trained models of every workspace and table, one per
// engine, on disk at <dir>/<ws>/<table>/<engine>.model and in memory.
// A new model replaces the old one with an atomic pointer swap, so
// recommendations never pause for a training.
type Models struct {
	dir   string
	write sync.Mutex // serialises saves, so that a save never undoes a newer one
	// saving holds the models with a background save running; a flag set asks for one more.
	saving map[modelKey]*bool
	saves  sync.WaitGroup
	mu     sync.Mutex
	m      map[modelKey]*atomic.Pointer[modelBox]
	// replaced, when set, is told of every new model swapped in (a training), after it is saved.
	replaced func(ws int64, table string, m engines.Model)
	cands    candidateStore
	// files holds the version of the file each model held was loaded from or saved to (under write).
	files map[modelKey]fileVersion
	// db, once Watch has run on PostgreSQL, is where saves and deletions are announced (under mu).
	db *sql.DB
	// id names this process in the notices of online updates, so that it skips its own.
	id string
	// watching counts the goroutines of Watch.
	watching sync.WaitGroup
	// resyncs counts the rescans done, so that tests can wait for the listeners to be listening.
	resyncs atomic.Int64
}

type modelKey struct {
	ws     int64
	table  string
	engine string
}

type modelBox struct{ model engines.Model }

// OpenModels loads every saved model under dir (data dir/recomm). A file
// that does not load is reported, not fatal: its table needs a new training.
func OpenModels(dir string) (*Models, []error) {
	ms := &Models{dir: dir, m: map[modelKey]*atomic.Pointer[modelBox]{}, files: map[modelKey]fileVersion{},
		id: newToken()}
	var problems []error
	for _, k := range ms.onDisk() {
		if err := ms.sync(k); err != nil {
			problems = append(problems, err)
		}
	}
	return ms, problems
}

func (ms *Models) holder(k modelKey) *atomic.Pointer[modelBox] {
	ms.mu.Lock()
	defer ms.mu.Unlock()
	p := ms.m[k]
	if p == nil {
		p = &atomic.Pointer[modelBox]{}
		ms.m[k] = p
	}
	return p
}

// Get returns the current model of an engine, or nil.
func (ms *Models) Get(ws int64, table, engine string) engines.Model {
	if b := ms.holder(modelKey{ws, table, engine}).Load(); b != nil {
		return b.model
	}
	return nil
}

// Only returns the one model trained with an engine, whatever interactions it was restricted to,
// or nil when there is none or more than one: a request naming the engine then finds a model trained
// with an interactionsFilter when it is the engine's only one.
func (ms *Models) Only(ws int64, table, engine string) engines.Model {
	ms.mu.Lock()
	defer ms.mu.Unlock()
	var found engines.Model
	for k, p := range ms.m {
		if k.ws != ws || k.table != table || (k.engine != engine && !strings.HasPrefix(k.engine, engine+"@")) {
			continue
		}
		if b := p.Load(); b != nil {
			if found != nil {
				return nil
			}
			found = b.model
		}
	}
	return found
}

// Table returns the current models of a table by stored name (engine, or engine@interactions).
func (ms *Models) Table(ws int64, table string) map[string]engines.Model {
	ms.mu.Lock()
	defer ms.mu.Unlock()
	out := map[string]engines.Model{}
	for k, p := range ms.m {
		if k.ws == ws && k.table == table {
			if b := p.Load(); b != nil {
				out[k.engine] = b.model
			}
		}
	}
	return out
}

// Put saves a model (temporary file, then rename, so a crash never leaves
// a torn file) and swaps it in. With Watch running, every other harkd
// process on the database loads it too.
func (ms *Models) Put(ws int64, table, engine string, m engines.Model) error {
	ms.write.Lock()
	defer ms.write.Unlock()
	return ms.save(ws, table, engine, m, true)
}

// SaveSoon saves a model changed in place in the background: a request that changed it does not
// wait for the disk, and changes that arrive while a save runs are written by one more save, so a
// burst of changes costs two saves, not one each.
func (ms *Models) SaveSoon(ws int64, table, engine string, m engines.Model, failed func(error)) {
	k := modelKey{ws, table, engine}
	ms.mu.Lock()
	if again := ms.saving[k]; again != nil {
		*again = true
		ms.mu.Unlock()
		return
	}
	if ms.saving == nil {
		ms.saving = map[modelKey]*bool{}
	}
	again := new(bool)
	ms.saving[k] = again
	ms.saves.Add(1)
	ms.mu.Unlock()
	go func() {
		defer ms.saves.Done()
		for {
			if err := ms.Resave(ws, table, engine, m); err != nil && failed != nil {
				failed(err)
			}
			ms.mu.Lock()
			if !*again {
				delete(ms.saving, k)
				ms.mu.Unlock()
				return
			}
			*again = false
			ms.mu.Unlock()
		}
	}()
}

// WaitSaves returns once the background saves and the goroutine of Watch have finished (at
// shutdown, after the context given to Watch has ended).
func (ms *Models) WaitSaves() {
	ms.saves.Wait()
	ms.watching.Wait()
}

// Resave saves a model changed in place (an online update), unless a training replaced it meanwhile.
func (ms *Models) Resave(ws int64, table, engine string, m engines.Model) error {
	ms.write.Lock()
	defer ms.write.Unlock()
	if ms.Get(ws, table, engine) != m {
		return nil
	}
	return ms.save(ws, table, engine, m, false)
}

// save writes a model to its file and swaps it in, under ms.write. Only a training (create) makes
// the table's directory: an online update finding it gone lost a race with the table's deletion,
// possibly by another process, and must not bring the model back.
func (ms *Models) save(ws int64, table, engine string, m engines.Model, create bool) error {
	k := modelKey{ws, table, engine}
	dir := filepath.Dir(ms.path(k))
	if create {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	tmp, err := os.CreateTemp(dir, engine+".*.tmp")
	if err != nil {
		if !create && errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return err
	}
	defer os.Remove(tmp.Name())
	v := fileVersion{token: newToken()}
	if err := writeVersioned(tmp, v.token, m); err != nil {
		tmp.Close()
		return fmt.Errorf("save %s model: %w", engine, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), ms.path(k)); err != nil {
		if !create && errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return err
	}
	// The rename is durable only once the directory is: without this a
	// crash could bring back the previous model, or none, after other
	// processes were told of this one.
	if err := syncDir(dir); err != nil {
		return err
	}
	ms.install(k, m, v)
	if create {
		// An online update is not announced: the other processes fold the interaction in
		// themselves (Recommender.Watch) and read this file only at their next resync.
		ms.announce(notice{WS: ws, Table: table, Engine: engine, Version: v.token})
	}
	return nil
}

// install swaps a model in, under ms.write, and has the candidates of a new one built.
func (ms *Models) install(k modelKey, m engines.Model, v fileVersion) {
	ms.files[k] = v
	old := ms.holder(k).Swap(&modelBox{m})
	ms.mu.Lock()
	replaced := ms.replaced
	ms.mu.Unlock()
	if replaced != nil && (old == nil || old.model != m) {
		replaced(k.ws, k.table, m)
	}
}

func (ms *Models) setReplaced(fn func(ws int64, table string, m engines.Model)) {
	ms.mu.Lock()
	defer ms.mu.Unlock()
	ms.replaced = fn
}

// keys lists the models held.
func (ms *Models) keys() []modelKey {
	ms.mu.Lock()
	defer ms.mu.Unlock()
	out := make([]modelKey, 0, len(ms.m))
	for k := range ms.m {
		out = append(out, k)
	}
	return out
}

// current reports whether m is one of a table's current models.
func (ms *Models) current(ws int64, table string, m engines.Model) bool {
	for _, cur := range ms.Table(ws, table) {
		if cur == m {
			return true
		}
	}
	return false
}

// DeleteTable forgets and removes the models of a deleted table; with
// Watch running, the other processes forget them too.
func (ms *Models) DeleteTable(ws int64, table string) error {
	ms.write.Lock() // a background save of the table must not recreate what is removed
	defer ms.write.Unlock()
	ms.mu.Lock()
	for k := range ms.m {
		if k.ws == ws && k.table == table {
			delete(ms.m, k)
			delete(ms.files, k)
		}
	}
	ms.mu.Unlock()
	ms.cands.drop(func(s *candidateSet) bool { return s.ws != ws || s.table != table })
	err := os.RemoveAll(filepath.Join(ms.dir, strconv.FormatInt(ws, 10), table))
	ms.announce(notice{WS: ws, Table: table})
	return err
}
