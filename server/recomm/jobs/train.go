package jobs

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/harkhq/hark/server/apierr"
	"github.com/harkhq/hark/server/recomm/catalog"
	"github.com/harkhq/hark/server/recomm/engines"
	"github.com/harkhq/hark/server/recomm/recommend"
	"github.com/harkhq/hark/server/recomm/rsql"
	"github.com/harkhq/hark/server/recomm/tune"
)

// DefaultMinInteractions is the document's rule: an interaction with
// fewer records is ignored by training.
const DefaultMinInteractions = 500

// TrainRequest is the body of POST /{tableId}/train, as stored.
type TrainRequest struct {
	Engine             string         `json:"engine"`
	InteractionsFilter []string       `json:"interactionsFilter,omitempty"`
	Configuration      map[string]any `json:"configuration,omitempty"`
}

// Trainer builds datasets from the catalog and trains models.
type Trainer struct {
	Catalog *catalog.Catalog
	Models  *recommend.Models
	DB      *sql.DB // for the per-workspace training-time usage
	// MinInteractions overrides DefaultMinInteractions (--min-interactions).
	MinInteractions int
	// Budget is the training time a workspace may spend; 0 is unlimited.
	Budget func(ws int64) time.Duration
	// TuningBudget is the hyperparameter search time of one training unless the request's
	// tuningBudget says otherwise; 0 trains with the engines' defaults.
	TuningBudget time.Duration
}

// trainOptions are the checked configuration keys of a training.
type trainOptions struct {
	from, until                *int64
	itemFilter, userFilter     *rsql.Filter
	itemAttrs, userAttrs       []string
	itemAttrsSet, userAttrsSet bool
	popular                    recommend.PopularCut
	interactions               []string
}

func int64Key(cfg map[string]any, key string) (*int64, error) {
	v, ok := cfg[key]
	if !ok || v == nil {
		return nil, nil
	}
	switch x := v.(type) {
	case float64:
		n := int64(x)
		return &n, nil
	case string:
		n, err := strconv.ParseInt(x, 10, 64)
		if err == nil {
			return &n, nil
		}
	}
	return nil, apierr.InvalidArgumentf("configuration.%s must be epoch milliseconds", key)
}

func stringListKey(cfg map[string]any, key string) ([]string, bool, error) {
	v, ok := cfg[key]
	if !ok || v == nil {
		return nil, false, nil
	}
	list, ok := v.([]any)
	if !ok {
		return nil, false, apierr.InvalidArgumentf("configuration.%s must be a list of attribute ids", key)
	}
	out := []string{}
	for _, x := range list {
		s, ok := x.(string)
		if !ok {
			return nil, false, apierr.InvalidArgumentf("configuration.%s must be a list of attribute ids", key)
		}
		out = append(out, s)
	}
	return out, true, nil
}

var trainKeys = []string{"before", "after", "itemFilter", "userFilter", "itemAttributes", "userAttributes", "popularFilter"}

// options checks a request against the catalog.
func (t *Trainer) options(ctx context.Context, ws int64, table string, req TrainRequest) (*trainOptions, error) {
	if !catalog.Trainable(req.Engine) {
		return nil, apierr.InvalidArgumentf("engine must be content_based, hybrid, fm, isvd or popular, not %q", req.Engine)
	}
	defs, err := t.Catalog.Interactions(ctx, ws, table)
	if err != nil {
		return nil, err
	}
	for _, id := range req.InteractionsFilter {
		if !slices.ContainsFunc(defs, func(d catalog.InteractionDef) bool { return d.ID == id }) {
			return nil, apierr.InvalidArgumentf("interactionsFilter: interaction %q does not exist in table %q", id, table)
		}
	}
	cfg := req.Configuration
	if _, err := tuningOptions(cfg); err != nil {
		return nil, err
	}
	for k := range cfg {
		if !slices.Contains(trainKeys, k) && !slices.Contains(tuningKeys, k) {
			return nil, apierr.InvalidArgumentf("configuration: unknown key %q", k)
		}
	}
	o := &trainOptions{interactions: req.InteractionsFilter}
	if o.from, err = int64Key(cfg, "before"); err != nil {
		return nil, err
	}
	if o.until, err = int64Key(cfg, "after"); err != nil {
		return nil, err
	}
	items, err := t.Catalog.Snapshot(ctx, ws, table)
	if err != nil {
		return nil, err
	}
	users, err := t.Catalog.Snapshot(ctx, ws, catalog.Users)
	if err != nil {
		return nil, err
	}
	if o.itemFilter, err = filterKey(cfg, "itemFilter", items.Schema); err != nil {
		return nil, err
	}
	if o.userFilter, err = filterKey(cfg, "userFilter", users.Schema); err != nil {
		return nil, err
	}
	if o.itemAttrs, o.itemAttrsSet, err = stringListKey(cfg, "itemAttributes"); err != nil {
		return nil, err
	}
	if o.userAttrs, o.userAttrsSet, err = stringListKey(cfg, "userAttributes"); err != nil {
		return nil, err
	}
	if o.popular, err = recommend.ParsePopular(cfg["popularFilter"]); err != nil {
		return nil, err
	}
	return o, nil
}

func filterKey(cfg map[string]any, key string, schema rsql.Schema) (*rsql.Filter, error) {
	v, ok := cfg[key]
	if !ok || v == nil || v == "" {
		return nil, nil
	}
	s, ok := v.(string)
	if !ok {
		return nil, apierr.InvalidArgumentf("configuration.%s must be an RSQL string", key)
	}
	f, err := rsql.ParseChecked(s, schema)
	if err != nil {
		return nil, apierr.InvalidArgumentf("configuration.%s: %v", key, err)
	}
	return f, nil
}

// Check validates a training request before it is queued; a workspace
// whose training time is spent gets 403 TrainingTimeOut.
func (t *Trainer) Check(ctx context.Context, ws int64, table string, req TrainRequest) error {
	if _, err := t.options(ctx, ws, table, req); err != nil {
		return err
	}
	if left, limited := t.remaining(ctx, ws); limited && left <= 0 {
		return apierr.New(http.StatusForbidden, apierr.TrainingTimeOut, "the training time of this workspace is over")
	}
	return nil
}

func (t *Trainer) remaining(ctx context.Context, ws int64) (time.Duration, bool) {
	if t.Budget == nil {
		return 0, false
	}
	budget := t.Budget(ws)
	if budget <= 0 {
		return 0, false
	}
	var used int64
	t.DB.QueryRowContext(ctx, `SELECT training_ms FROM recomm_usage WHERE ws = $1`, ws).Scan(&used)
	return budget - time.Duration(used)*time.Millisecond, true
}

func (t *Trainer) spend(ws int64, d time.Duration) {
	t.DB.ExecContext(context.Background(), `INSERT INTO recomm_usage(ws, training_ms) VALUES($1, $2)
		ON CONFLICT(ws) DO UPDATE SET training_ms = recomm_usage.training_ms + excluded.training_ms`, ws,
		int64((d+time.Millisecond-1)/time.Millisecond))
}

// TrainResult is the stored result of a training job.
type TrainResult struct {
	Engine       string   `json:"engine"`
	Interactions int      `json:"interactions"`
	Ignored      []string `json:"ignoredInteractions,omitempty"`
	Message      string   `json:"message,omitempty"`
	// Tuning is what the hyperparameter search chose and measured (see package tune).
	Tuning *tune.Report `json:"tuning,omitempty"`
}

// Run is the Runner of training jobs.
func (t *Trainer) Run(ctx context.Context, j Job) (string, any, error) {
	var req TrainRequest
	if err := json.Unmarshal(j.Request, &req); err != nil {
		return "", nil, fmt.Errorf("decode request: %w", err)
	}
	o, err := t.options(ctx, j.WS, j.Scope, req)
	if err != nil {
		return "", nil, err
	}
	left, limited := t.remaining(ctx, j.WS)
	if limited && left <= 0 {
		return TrainingTimeOut, TrainResult{Engine: req.Engine, Message: "the training time of this workspace is over"}, nil
	}
	start := time.Now()
	tctx := ctx
	if limited {
		var cancel context.CancelFunc
		tctx, cancel = context.WithTimeout(ctx, left)
		defer cancel()
	}
	ds, ignored, err := t.dataset(tctx, j.WS, j.Scope, o)
	var (
		model  engines.Model
		tuning *tune.Report
	)
	if err == nil {
		model, tuning, err = t.trainTuned(tctx, req.Engine, ds, req.Configuration, left, limited)
	}
	if limited {
		t.spend(j.WS, time.Since(start))
	}
	res := TrainResult{Engine: req.Engine, Ignored: ignored, Tuning: tuning}
	if ds != nil {
		res.Interactions = len(ds.Interactions)
	}
	switch {
	case limited && errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil:
		res.Message = "the training time of this workspace ran out"
		return TrainingTimeOut, res, nil
	case errors.Is(err, engines.ErrNoInteractions):
		res.Message = fmt.Sprintf("no interactions to train on (interactions with fewer than %d records are ignored)", t.min())
		return Error, res, nil
	case err != nil:
		return "", nil, err
	}
	if err := t.Models.Put(j.WS, j.Scope, recommend.ModelName(req.Engine, req.InteractionsFilter), model); err != nil {
		return "", nil, err
	}
	cfg := req.Configuration
	if cfg == nil {
		cfg = map[string]any{}
	}
	if err := t.Catalog.RecordTraining(ctx, j.WS, j.Scope, catalog.TrainConfig{
		InteractionID: strings.Join(req.InteractionsFilter, ","), Engine: req.Engine, Finished: time.Now(), Configuration: cfg,
	}); err != nil {
		return "", nil, err
	}
	if len(ignored) > 0 {
		res.Message = fmt.Sprintf("interactions with fewer than %d records were ignored: %s", t.min(), strings.Join(ignored, ", "))
		return CompletedWithErrors, res, nil
	}
	return Completed, res, nil
}

func (t *Trainer) min() int {
	if t.MinInteractions > 0 {
		return t.MinInteractions
	}
	return DefaultMinInteractions
}

// pairKey identifies the folded records of one interaction of a pair.
type pairKey struct{ def, user, item string }

// dataset builds the training set: filtered users and items with their
// attributes and keywords, and one interaction per (definition, user,
// item): the sum of the values when the definition is cumulative, the
// latest value otherwise.
func (t *Trainer) dataset(ctx context.Context, ws int64, table string, o *trainOptions) (*engines.Dataset, []string, error) {
	items, err := t.Catalog.Snapshot(ctx, ws, table)
	if err != nil {
		return nil, nil, err
	}
	users, err := t.Catalog.Snapshot(ctx, ws, catalog.Users)
	if err != nil {
		return nil, nil, err
	}
	keepUser := func(id string) bool {
		v, ok := users.Values(id)
		return ok && (o.userFilter == nil || o.userFilter.Eval(v))
	}
	keepItem := func(id string) bool {
		v, ok := items.Values(id)
		return ok && (o.itemFilter == nil || o.itemFilter.Eval(v))
	}
	type folded struct {
		def   catalog.InteractionDef
		value float64
		ts    int64
	}
	agg := map[pairKey]*folded{}
	var order []pairKey
	counts := map[string]int{}
	itemCounts := map[string]int{}
	err = t.Catalog.EachRecord(ctx, ws, table, func(e catalog.Event) error {
		if len(o.interactions) > 0 && !slices.Contains(o.interactions, e.Def.ID) {
			return nil
		}
		if (o.from != nil && e.Timestamp < *o.from) || (o.until != nil && e.Timestamp > *o.until) {
			return nil
		}
		if !keepUser(e.UserID) || !keepItem(e.ItemID) {
			return nil
		}
		counts[e.Def.ID]++
		k := pairKey{e.Def.ID, e.UserID, e.ItemID}
		f := agg[k]
		if f == nil {
			f = &folded{def: e.Def, ts: e.Timestamp}
			agg[k] = f
			order = append(order, k)
			itemCounts[e.ItemID]++
		}
		if e.Def.Cumulative {
			f.value += e.Value
		} else if e.Timestamp >= f.ts {
			f.value = e.Value
		}
		f.ts = max(f.ts, e.Timestamp)
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	var ignored []string
	for def, n := range counts {
		if n < t.min() {
			ignored = append(ignored, def)
		}
	}
	sort.Strings(ignored)
	popular := o.popular.Excluded(itemCounts)

	var userIDs, itemIDs []string
	for _, id := range users.IDs {
		if keepUser(id) {
			userIDs = append(userIDs, id)
		}
	}
	for _, id := range items.IDs {
		if keepItem(id) && !popular[id] {
			itemIDs = append(itemIDs, id)
		}
	}
	ds := engines.NewDataset(userIDs, itemIDs)
	uix := indexOf(userIDs)
	iix := indexOf(itemIDs)
	for _, k := range order {
		if slices.Contains(ignored, k.def) {
			continue
		}
		i, ok := iix[k.item]
		if !ok {
			continue // a popular item left out
		}
		f := agg[k]
		ds.Add(uix[k.user], i, f.value, f.def.Weight, f.def.Polarity != catalog.Negative, f.ts, f.def.ID)
	}
	if err := ctx.Err(); err != nil {
		return nil, ignored, err
	}
	fillAttributes(ds, items, itemIDs, o.itemAttrs, o.itemAttrsSet, true)
	fillAttributes(ds, users, userIDs, o.userAttrs, o.userAttrsSet, false)
	kw, err := t.Catalog.AllKeywords(ctx, ws)
	if err != nil {
		return nil, ignored, err
	}
	for u, words := range kw {
		if i, ok := uix[u]; ok {
			ds.SetKeywords(i, words)
		}
	}
	return ds, ignored, nil
}

func indexOf(ids []string) map[string]int32 {
	m := make(map[string]int32, len(ids))
	for i, id := range ids {
		m[id] = int32(i)
	}
	return m
}

// fillAttributes copies the attribute values engines use (recommend.FeatureOf) into the dataset,
// attribute by attribute so that features are numbered in schema order.
func fillAttributes(ds *engines.Dataset, snap *catalog.Snapshot, ids []string, only []string, onlySet, items bool) {
	for _, a := range snap.Attributes {
		if onlySet && !slices.Contains(only, a.ID) {
			continue
		}
		for i, id := range ids {
			v, _ := snap.Values(id)
			x, ok := v[a.ID]
			if !ok {
				continue
			}
			f, ok := recommend.FeatureOf(a, !items, x)
			if !ok {
				continue
			}
			idx := int32(i)
			switch f.Kind {
			case recommend.NumberFeature:
				if items {
					ds.SetItemNumber(a.ID, idx, f.Number)
				} else {
					ds.SetUserNumber(a.ID, idx, f.Number)
				}
			case recommend.TokenFeature:
				if items {
					ds.AddItemTokens(a.ID, idx, f.Tokens...)
				} else {
					ds.AddUserTokens(a.ID, idx, f.Tokens...)
				}
			case recommend.TextFeature:
				if items {
					ds.SetItemText(a.ID, idx, f.Text)
				} else {
					ds.SetUserText(a.ID, idx, f.Text)
				}
			}
		}
	}
}
