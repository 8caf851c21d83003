package catalog

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"
	"time"

	"github.com/harkhq/hark/server/apierr"
	eng "github.com/harkhq/hark/server/recomm/engines"
	"github.com/harkhq/hark/server/recomm/rsql"
)

// Engine slots of a table: default plus the four recommendation kinds.
const (
	SlotDefault     = "default"
	SlotItemsToUser = "items-to-user"
	SlotUsersToUser = "users-to-user"
	SlotUsersToItem = "users-to-item"
	SlotItemsToItem = "items-to-item"
)

var specificSlots = []string{SlotItemsToUser, SlotUsersToUser, SlotUsersToItem, SlotItemsToItem}

// Trainable reports whether engine is an engine that can be trained
// (DECISIONS §12).
func Trainable(engine string) bool { return slices.Contains(eng.Trainable, engine) }

// Engines maps slots to engine names.
type Engines map[string]string

// For returns the engine of a slot, falling back to default.
func (e Engines) For(slot string) string {
	if v, ok := e[slot]; ok {
		return v
	}
	return e[SlotDefault]
}

// validate checks slot names and values; ensembleReady says whether the
// table has an ensemble configuration, which "ensemble" needs.
func (e Engines) validate(ensembleReady bool) error {
	for slot, engine := range e {
		if slot != SlotDefault && !slices.Contains(specificSlots, slot) {
			return apierr.InvalidArgumentf("engines: unknown key %q (default, items-to-user, users-to-user, users-to-item, items-to-item)", slot)
		}
		if engine == eng.Ensemble {
			if !ensembleReady {
				return apierr.InvalidArgumentf("engines: %s is ensemble but the table has no ensemble configuration (POST /{tableId}/ensemble first)", slot)
			}
			continue
		}
		if !Trainable(engine) {
			return apierr.InvalidArgumentf("engines: %s has unknown engine %q", slot, engine)
		}
	}
	if _, ok := e[SlotDefault]; !ok {
		for _, s := range specificSlots {
			if _, ok := e[s]; !ok {
				return apierr.InvalidArgumentf("engines: default is required unless all of items-to-user, users-to-user, users-to-item and items-to-item are set")
			}
		}
	}
	return nil
}

// Table is a table's description.
type Table struct {
	ID      string
	Engines Engines
	// Display is the attribute chosen to name the table's items ("" = chosen automatically, see
	// DisplayAttribute).
	Display     string
	Ensemble    []EnsembleWeight
	TrainConfig []TrainConfig
}

// TrainConfig records the last completed training of one engine for one
// interaction ("" when trained on all interactions).
type TrainConfig struct {
	InteractionID string
	Engine        string
	Finished      time.Time
	Configuration map[string]any
}

// EnsembleWeight is one element of an ensemble configuration.
type EnsembleWeight struct {
	Engine string  `json:"engine"`
	Value  float64 `json:"value"`
}

// CreateTable creates a table with its engines (nil means default hybrid)
// and its first attributes; every table also gets `expiration`.
func (c *Catalog) CreateTable(ctx context.Context, ws int64, id string, engines Engines, attrs []Attribute) error {
	if err := validateTableID(id); err != nil {
		return err
	}
	if engines == nil {
		engines = Engines{SlotDefault: eng.Hybrid}
	}
	if err := engines.validate(false); err != nil {
		return err
	}
	if err := c.checkUnlocked(ws, id); err != nil {
		return err
	}
	for _, a := range attrs {
		if a.ID == ExpirationAttribute {
			return apierr.InvalidArgumentf("attribute %q is created automatically", ExpirationAttribute)
		}
	}
	tx, err := c.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	enc, _ := json.Marshal(engines)
	if _, err := tx.ExecContext(ctx, `INSERT INTO recomm_tables(ws, id, engines) VALUES($1, $2, $3)`, ws, id, string(enc)); err != nil {
		if isUniqueViolation(err) {
			return apierr.Conflictf("table %q already exists", id)
		}
		return fmt.Errorf("create table %s: %w", id, err)
	}
	all := append([]Attribute{{ID: ExpirationAttribute, Type: rsql.Timestamp}}, attrs...)
	if err := c.addAttributes(ctx, tx, ws, id, all); err != nil {
		return err
	}
	return c.commit(ctx, tx, ws, id)
}

// SetEngines replaces a table's engines.
func (c *Catalog) SetEngines(ctx context.Context, ws int64, id string, engines Engines) error {
	t, err := c.Table(ctx, ws, id)
	if err != nil {
		return err
	}
	if err := engines.validate(len(t.Ensemble) > 0); err != nil {
		return err
	}
	enc, _ := json.Marshal(engines)
	// the cached table description (definitions.go)
	_, err = c.execRecords(ctx, ws, `UPDATE recomm_tables SET engines = $1 WHERE ws = $2 AND id = $3`, string(enc), ws, id)
	return err
}

// SetEnsemble stores a table's ensemble configuration: weights >= 0 with a
// positive sum, normalised to sum 1, each engine trainable and at most once.
func (c *Catalog) SetEnsemble(ctx context.Context, ws int64, id string, weights []EnsembleWeight) ([]EnsembleWeight, error) {
	if err := c.tableExists(ctx, c.db, ws, id); err != nil {
		return nil, err
	}
	if len(weights) == 0 {
		return nil, apierr.InvalidArgumentf("data: at least one engine is required")
	}
	var sum float64
	seen := map[string]bool{}
	for _, w := range weights {
		if !Trainable(w.Engine) {
			return nil, apierr.InvalidArgumentf("data: unknown engine %q", w.Engine)
		}
		if seen[w.Engine] {
			return nil, apierr.InvalidArgumentf("data: engine %q appears twice", w.Engine)
		}
		seen[w.Engine] = true
		if w.Value < 0 || math.IsNaN(w.Value) || math.IsInf(w.Value, 0) {
			return nil, apierr.InvalidArgumentf("data: weight of %s must be a number >= 0", w.Engine)
		}
		sum += w.Value
	}
	if sum <= 0 {
		return nil, apierr.InvalidArgumentf("data: the weights must have a positive sum")
	}
	norm := make([]EnsembleWeight, len(weights))
	for i, w := range weights {
		norm[i] = EnsembleWeight{Engine: w.Engine, Value: w.Value / sum}
	}
	enc, _ := json.Marshal(norm)
	// the cached table description (definitions.go)
	_, err := c.execRecords(ctx, ws, `UPDATE recomm_tables SET ensemble = $1 WHERE ws = $2 AND id = $3`, string(enc), ws, id)
	return norm, err
}

// Table describes a table, with its training configurations; from memory while the workspace has
// had no write since it was read (definitions.go).
func (c *Catalog) Table(ctx context.Context, ws int64, id string) (Table, error) {
	if err := validateTableID(id); err != nil {
		return Table{}, err
	}
	if c.NoHistoryCache {
		return c.loadTable(ctx, ws, id)
	}
	k := tableKey{ws, id}
	gen, err := c.generation(ctx, ws, recordsScope)
	if err != nil {
		return Table{}, err
	}
	if t, ok := c.cachedTable(k, gen); ok {
		return t, nil
	}
	t, err := c.loadTable(ctx, ws, id)
	if err != nil {
		return Table{}, err
	}
	c.keepTable(k, gen, t)
	return cloneTable(t), nil
}

func (c *Catalog) loadTable(ctx context.Context, ws int64, id string) (Table, error) {
	var engines string
	var ensemble, display sql.NullString
	err := c.db.QueryRowContext(ctx, `SELECT engines, ensemble, display FROM recomm_tables WHERE ws = $1 AND id = $2`, ws, id).Scan(&engines, &ensemble, &display)
	if err == sql.ErrNoRows {
		return Table{}, apierr.NotFoundf("table %q not found", id)
	}
	if err != nil {
		return Table{}, err
	}
	t := Table{ID: id, Display: display.String}
	if err := json.Unmarshal([]byte(engines), &t.Engines); err != nil {
		return Table{}, fmt.Errorf("table %s engines: %w", id, err)
	}
	if ensemble.Valid {
		if err := json.Unmarshal([]byte(ensemble.String), &t.Ensemble); err != nil {
			return Table{}, fmt.Errorf("table %s ensemble: %w", id, err)
		}
	}
	rows, err := c.db.QueryContext(ctx, `SELECT interaction, engine, finished, config FROM recomm_train_configs
		WHERE ws = $1 AND tbl = $2 ORDER BY interaction, engine`, ws, id)
	if err != nil {
		return Table{}, err
	}
	defer rows.Close()
	for rows.Next() {
		var tc TrainConfig
		var finished int64
		var cfg string
		if err := rows.Scan(&tc.InteractionID, &tc.Engine, &finished, &cfg); err != nil {
			return Table{}, err
		}
		tc.Finished = time.UnixMilli(finished).UTC()
		if err := json.Unmarshal([]byte(cfg), &tc.Configuration); err != nil {
			return Table{}, fmt.Errorf("table %s train config: %w", id, err)
		}
		t.TrainConfig = append(t.TrainConfig, tc)
	}
	return t, rows.Err()
}

// RecordTraining stores the configuration of a completed training.
func (c *Catalog) RecordTraining(ctx context.Context, ws int64, table string, tc TrainConfig) error {
	cfg, err := json.Marshal(tc.Configuration)
	if err != nil {
		return err
	}
	// the cached table description (definitions.go)
	_, err = c.execRecords(ctx, ws, `INSERT INTO recomm_train_configs(ws, tbl, interaction, engine, finished, config)
		VALUES($1, $2, $3, $4, $5, $6) ON CONFLICT(ws, tbl, interaction, engine) DO UPDATE SET
		finished = excluded.finished, config = excluded.config`,
		ws, table, tc.InteractionID, tc.Engine, tc.Finished.UnixMilli(), string(cfg))
	return err
}

// Tables lists a workspace's table ids in order.
func (c *Catalog) Tables(ctx context.Context, ws int64) ([]string, error) {
	rows, err := c.db.QueryContext(ctx, `SELECT id FROM recomm_tables WHERE ws = $1 ORDER BY id`, ws)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	ids := []string{}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids, rows.Err()
}

// DeleteTable deletes a table with its attributes, items, interaction
// definitions and records, and training configurations. The jobs package
// deletes the table's jobs.
func (c *Catalog) DeleteTable(ctx context.Context, ws int64, id string) error {
	if err := c.tableExists(ctx, c.db, ws, id); err != nil {
		return err
	}
	if err := c.checkUnlocked(ws, id); err != nil {
		return err
	}
	tx, err := c.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, q := range []string{
		`DELETE FROM recomm_interactions WHERE def IN (SELECT key FROM recomm_interaction_defs WHERE ws = $1 AND tbl = $2)`,
		`DELETE FROM recomm_interaction_defs WHERE ws = $1 AND tbl = $2`,
		`DELETE FROM recomm_index WHERE attr IN (SELECT key FROM recomm_attributes WHERE ws = $1 AND scope = $2)`,
		`DELETE FROM recomm_attributes WHERE ws = $1 AND scope = $2`,
		`DELETE FROM recomm_entities WHERE ws = $1 AND scope = $2`,
		`DELETE FROM recomm_train_configs WHERE ws = $1 AND tbl = $2`,
		`DELETE FROM recomm_tables WHERE ws = $1 AND id = $2`,
	} {
		if _, err := tx.ExecContext(ctx, q, ws, id); err != nil {
			return fmt.Errorf("delete table %s: %w", id, err)
		}
	}
	return c.commit(ctx, tx, ws, id)
}
