package recommend

import (
	"fmt"
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
	ms := &Models{dir: dir, m: map[modelKey]*atomic.Pointer[modelBox]{}}
	var problems []error
	files, _ := filepath.Glob(filepath.Join(dir, "*", "*", "*.model"))
	for _, path := range files {
		rel, _ := filepath.Rel(dir, path)
		parts := strings.Split(rel, string(filepath.Separator))
		ws, err := strconv.ParseInt(parts[0], 10, 64)
		if err != nil || len(parts) != 3 {
			continue
		}
		f, err := os.Open(path)
		if err != nil {
			problems = append(problems, err)
			continue
		}
		m, err := engines.Load(f)
		f.Close()
		if err != nil {
			problems = append(problems, fmt.Errorf("%s: %w", path, err))
			continue
		}
		ms.holder(modelKey{ws, parts[1], strings.TrimSuffix(parts[2], ".model")}).Store(&modelBox{m})
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
// a torn file) and swaps it in.
func (ms *Models) Put(ws int64, table, engine string, m engines.Model) error {
	ms.write.Lock()
	defer ms.write.Unlock()
	return ms.save(ws, table, engine, m)
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

// WaitSaves returns once the background saves have finished (at shutdown).
func (ms *Models) WaitSaves() { ms.saves.Wait() }

// Resave saves a model changed in place (an online update), unless a training replaced it meanwhile.
func (ms *Models) Resave(ws int64, table, engine string, m engines.Model) error {
	ms.write.Lock()
	defer ms.write.Unlock()
	if ms.Get(ws, table, engine) != m {
		return nil
	}
	return ms.save(ws, table, engine, m)
}

func (ms *Models) save(ws int64, table, engine string, m engines.Model) error {
	dir := filepath.Join(ms.dir, strconv.FormatInt(ws, 10), table)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, engine+".*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := m.Save(tmp); err != nil {
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
	if err := os.Rename(tmp.Name(), filepath.Join(dir, engine+".model")); err != nil {
		return err
	}
	old := ms.holder(modelKey{ws, table, engine}).Swap(&modelBox{m})
	ms.mu.Lock()
	replaced := ms.replaced
	ms.mu.Unlock()
	if replaced != nil && (old == nil || old.model != m) {
		replaced(ws, table, m)
	}
	return nil
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

// DeleteTable forgets and removes the models of a deleted table.
func (ms *Models) DeleteTable(ws int64, table string) error {
	ms.write.Lock() // a background save of the table must not recreate what is removed
	defer ms.write.Unlock()
	ms.mu.Lock()
	for k := range ms.m {
		if k.ws == ws && k.table == table {
			delete(ms.m, k)
		}
	}
	ms.mu.Unlock()
	ms.cands.drop(func(s *candidateSet) bool { return s.ws != ws || s.table != table })
	return os.RemoveAll(filepath.Join(ms.dir, strconv.FormatInt(ws, 10), table))
}
