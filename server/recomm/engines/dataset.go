// Package engines holds harkd's recommendation engines: content_based, hybrid, fm, isvd, popular and
// ensemble. It is pure Go with no HTTP or SQL: the catalog layer builds a Dataset, calls Train, stores
// the Model with Save, reads it back with Load and asks it for recommendations through Query, whose
// predicates let the caller apply RSQL filters, leave out already-interacted or popular entities,
// page with afterId and multiply scores by a numeric attribute.
//
// Entities are named by their string ids at the API boundary (Subject, Query predicates, Scored), so
// a model keeps working when the catalog grows after training and an ensemble can mix models trained
// on different snapshots. Inside a Dataset and a model they are dense int32 indices.
//
// Engines and their percent match (details on each model type):
//
//	popular        decayed distinct-user count; match = 100·raw/max
//	hybrid         iALS + attribute priors (+ item neighbours); match = 100·tanh(2·max(raw, 0)), cosine for similar
//	content_based  BM25 text vectors and profiles; match = 100·max(cos, 0)
//	fm             BPR factorisation machine; match = 100·σ(raw), cosine for similar
//	isvd           PureSVD with fold-in updates; match = 100·tanh(max(raw,0)/mean |entry|)
//	ensemble       weighted min-max normalised relevances; match = 100·mix
//
// Warm-up keywords: content_based matches them against item text and tokens; hybrid and fm fold in,
// for a cold user, the items whose category tokens match them.
//
// Interactions of a user-item pair are combined into one net strength, Σ weight·value over positive
// interactions minus the same over negative ones; every engine but popular learns from it, so
// negative polarity subtracts everywhere. Training is deterministic for a given seed, dataset and
// Workers count (parallel sums are split by worker).
package engines

import (
	"errors"
	"fmt"
	"math"
)

// Interaction is one user-item event of a Dataset, by dense index.
type Interaction struct {
	User, Item int32
	Value      float64 // magnitude (1 for unary interactions)
	Weight     float64 // the interaction definition's weight, 0 to 10
	Positive   bool    // polarity: false for disinterest
	Timestamp  int64   // UTC epoch milliseconds
	Type       string  // interactionId; share one string per type to keep memory lean
}

// Attributes holds the attribute values of one kind of entity (items or users) column by column,
// indexed by the entity's dense index. Columns are created by the Set/Add methods of Dataset.
type Attributes struct {
	// Numeric holds int, double, boolean (0/1) and timestamp (epoch ms) attributes; NaN means missing.
	Numeric map[string][]float64
	// Tokens holds category, categoryList and set values: each entity has zero or more tokens.
	Tokens map[string][][]string
	// Text holds long string attributes, used by the content-based engine.
	Text map[string][]string
}

// Dataset is what an engine trains on. Build it with NewDataset, then fill interactions, attributes and
// keywords; UserIDs and ItemIDs must be unique.
type Dataset struct {
	UserIDs      []string
	ItemIDs      []string
	Interactions []Interaction
	ItemAttrs    Attributes
	UserAttrs    Attributes
	// Keywords holds the warm-up keywords of users, by user index.
	Keywords map[int32][]string
}

// NewDataset returns an empty dataset over the given users and items.
func NewDataset(userIDs, itemIDs []string) *Dataset {
	return &Dataset{UserIDs: userIDs, ItemIDs: itemIDs, Keywords: map[int32][]string{}}
}

// Add appends one interaction by index.
func (d *Dataset) Add(user, item int32, value, weight float64, positive bool, timestamp int64, typ string) {
	d.Interactions = append(d.Interactions, Interaction{User: user, Item: item, Value: value,
		Weight: weight, Positive: positive, Timestamp: timestamp, Type: typ})
}

// SetItemNumber sets a numeric attribute of an item.
func (d *Dataset) SetItemNumber(attr string, item int32, v float64) {
	d.ItemAttrs.setNumber(attr, len(d.ItemIDs), item, v)
}

// AddItemTokens adds category/categoryList/set tokens to an item's attribute.
func (d *Dataset) AddItemTokens(attr string, item int32, tokens ...string) {
	d.ItemAttrs.addTokens(attr, len(d.ItemIDs), item, tokens)
}

// SetItemText sets a long text attribute of an item.
func (d *Dataset) SetItemText(attr string, item int32, s string) {
	d.ItemAttrs.setText(attr, len(d.ItemIDs), item, s)
}

// SetUserNumber sets a numeric attribute of a user.
func (d *Dataset) SetUserNumber(attr string, user int32, v float64) {
	d.UserAttrs.setNumber(attr, len(d.UserIDs), user, v)
}

// AddUserTokens adds category/categoryList/set tokens to a user's attribute.
func (d *Dataset) AddUserTokens(attr string, user int32, tokens ...string) {
	d.UserAttrs.addTokens(attr, len(d.UserIDs), user, tokens)
}

// SetUserText sets a long text attribute of a user.
func (d *Dataset) SetUserText(attr string, user int32, s string) {
	d.UserAttrs.setText(attr, len(d.UserIDs), user, s)
}

// SetKeywords replaces the warm-up keywords of a user.
func (d *Dataset) SetKeywords(user int32, keywords []string) {
	if d.Keywords == nil {
		d.Keywords = map[int32][]string{}
	}
	d.Keywords[user] = keywords
}

func (a *Attributes) setNumber(attr string, n int, idx int32, v float64) {
	if a.Numeric == nil {
		a.Numeric = map[string][]float64{}
	}
	col, ok := a.Numeric[attr]
	if !ok {
		col = make([]float64, n)
		for i := range col {
			col[i] = math.NaN()
		}
		a.Numeric[attr] = col
	}
	col[idx] = v
}

func (a *Attributes) addTokens(attr string, n int, idx int32, tokens []string) {
	if a.Tokens == nil {
		a.Tokens = map[string][][]string{}
	}
	col, ok := a.Tokens[attr]
	if !ok {
		col = make([][]string, n)
		a.Tokens[attr] = col
	}
	col[idx] = append(col[idx], tokens...)
}

func (a *Attributes) setText(attr string, n int, idx int32, s string) {
	if a.Text == nil {
		a.Text = map[string][]string{}
	}
	col, ok := a.Text[attr]
	if !ok {
		col = make([]string, n)
		a.Text[attr] = col
	}
	col[idx] = s
}

// entity returns the attribute values of entity i as an EntityAttrs.
func (a *Attributes) entity(i int32) EntityAttrs {
	var e EntityAttrs
	for k, col := range a.Numeric {
		if !math.IsNaN(col[i]) {
			if e.Numeric == nil {
				e.Numeric = map[string]float64{}
			}
			e.Numeric[k] = col[i]
		}
	}
	for k, col := range a.Tokens {
		if len(col[i]) > 0 {
			if e.Tokens == nil {
				e.Tokens = map[string][]string{}
			}
			e.Tokens[k] = col[i]
		}
	}
	for k, col := range a.Text {
		if col[i] != "" {
			if e.Text == nil {
				e.Text = map[string]string{}
			}
			e.Text[k] = col[i]
		}
	}
	return e
}

// Errors the caller maps to job or request errors.
var (
	// ErrNoInteractions: training needs at least one usable interaction (caller: job status error).
	ErrNoInteractions = errors.New("engines: no interactions to train on")
	// ErrUnknownEngine: the engine name is not one of the engines of this package.
	ErrUnknownEngine = errors.New("engines: unknown engine")
	// ErrNoSignal: the subject is unknown to the model and the query carries nothing the engine can
	// use for a cold start (no attributes, keywords or history it understands).
	ErrNoSignal = errors.New("engines: nothing known about the subject")
)

// validate checks the indices and values of a dataset before training.
func (d *Dataset) validate() error {
	if d == nil || len(d.Interactions) == 0 {
		return ErrNoInteractions
	}
	for kind, ids := range map[string][]string{"user": d.UserIDs, "item": d.ItemIDs} {
		seen := make(map[string]bool, len(ids))
		for _, id := range ids {
			if seen[id] {
				return fmt.Errorf("engines: duplicate %s id %q", kind, id)
			}
			seen[id] = true
		}
	}
	nu, ni := int32(len(d.UserIDs)), int32(len(d.ItemIDs))
	for k, in := range d.Interactions {
		if in.User < 0 || in.User >= nu || in.Item < 0 || in.Item >= ni {
			return fmt.Errorf("engines: interaction %d: user %d or item %d out of range", k, in.User, in.Item)
		}
		if math.IsNaN(in.Value) || math.IsInf(in.Value, 0) || math.IsNaN(in.Weight) || in.Weight < 0 {
			return fmt.Errorf("engines: interaction %d: bad value %v or weight %v", k, in.Value, in.Weight)
		}
	}
	check := func(kind string, a *Attributes, n int) error {
		for k, c := range a.Numeric {
			if len(c) != n {
				return fmt.Errorf("engines: %s attribute %q has %d values for %d entities", kind, k, len(c), n)
			}
		}
		for k, c := range a.Tokens {
			if len(c) != n {
				return fmt.Errorf("engines: %s attribute %q has %d values for %d entities", kind, k, len(c), n)
			}
		}
		for k, c := range a.Text {
			if len(c) != n {
				return fmt.Errorf("engines: %s attribute %q has %d values for %d entities", kind, k, len(c), n)
			}
		}
		return nil
	}
	if err := check("item", &d.ItemAttrs, int(ni)); err != nil {
		return err
	}
	return check("user", &d.UserAttrs, int(nu))
}
