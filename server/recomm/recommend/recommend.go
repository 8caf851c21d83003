// Package recommend answers recommendation queries synchronously: it checks a query against the
// catalog, picks the trained model (or builds the ensemble), filters the candidates and ranks them.
// It also holds the trained models (Models) and folds new interactions into the models that learn
// online (isvd). Training and batch recommendations run as jobs (package jobs) on top of it.
package recommend

import (
	"context"
	"errors"
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/harkhq/hark/server/apierr"
	"github.com/harkhq/hark/server/recomm/catalog"
	"github.com/harkhq/hark/server/recomm/engines"
	"github.com/harkhq/hark/server/recomm/rsql"
)

// Recommender answers recommendation requests from the trained models,
// filtering candidates in memory against catalog snapshots.
type Recommender struct {
	Catalog *catalog.Catalog
	Models  *Models
	Now     func() time.Time // default time.Now; decides which items have expired
	// Candidates is N, the items-to-user candidates precomputed per user beyond the user's records
	// (candidates.go): 0 means DefaultCandidates, a negative value none: every request ranks every
	// item, walking all of them (no pruning by filter either), as before candidates existed.
	Candidates int

	mu        sync.Mutex
	ensembles map[ensembleKey]*builtEnsemble
	eligible  map[eligibleKey]*eligibility
	watchOnce sync.Once
	// served counts the answers ranked from candidates and those that ranked every item although
	// the model has candidates (the list missing or too short).
	served, fellBack atomic.Int64
}

// eligibility is the result of the request-independent checks: by position in the snapshot, and as
// the subset the engines walk instead of every entity.
type eligibility struct {
	ok    []bool
	among *engines.Subset
}

// eligibleKey names one computation of the candidates that pass the
// request-independent checks (existence, expiry, filter, popularFilter):
// requests repeating a filter reuse it until the snapshot changes or the
// minute turns, so expiry and popularity are at most a minute stale.
type eligibleKey struct {
	snap    *catalog.Snapshot
	filter  string
	popular string
	minute  int64
}

// maxEligible bounds the cache; it is cleared when full.
const maxEligible = 64

type ensembleKey struct {
	ws    int64
	table string
}

type builtEnsemble struct {
	parts   []engines.Model
	weights []catalog.EnsembleWeight
	model   engines.Model
}

// Query is one recommendation request: the slot says which of the
// four kinds (catalog.SlotItemsToUser, ...), the rest are the query
// parameters of the document plus engine.
type Query struct {
	Slot              string
	SubjectID         string
	Engine            string
	Filter            string
	InteractionFilter string
	PopularFilter     string
	InteractionID     string
	AttributeID       string
	Sort              string
	AfterID           string
	Limit             int
	Diversity         float64
	// Explain asks, for items for a user, which of the user's past items drove each result
	// (Result.Because).
	Explain bool
}

// slotKinds maps the table's engine slots to the engines' query kinds.
var slotKinds = map[string]engines.Kind{
	catalog.SlotItemsToUser: engines.ItemsToUser,
	catalog.SlotUsersToUser: engines.UsersToUser,
	catalog.SlotItemsToItem: engines.ItemsToItem,
	catalog.SlotUsersToItem: engines.UsersToItem,
}

// Result is one recommendation entry.
type Result struct {
	ID    string
	Match float64
	// Because lists, when the query asked to Explain and the engine can say, the subject's past items
	// most like this result, best first, with the engine's items-to-item match.
	Because []Reason
}

// Reason is one past item behind a recommendation.
type Reason struct {
	ID    string
	Match float64
}

// Plan is a checked query, ready to run for one or many subjects (batch recommendations run one
// plan for every recipient).
type Plan struct {
	r             *Recommender
	ws            int64
	table         string
	slot          string
	kind          engines.Kind
	model         engines.Model
	items, users  *catalog.Snapshot
	subjects      *catalog.Snapshot // the subject's kind
	candidates    *catalog.Snapshot // the results' kind
	subjectIsUser bool
	filter        *rsql.Filter
	interFilter   *rsql.Filter
	defIDs        []string
	popular       map[string]bool
	attribute     string
	sort          []rsql.SortKey
	afterID       string
	limit         int
	diversity     float64
	explain       bool
	now           int64
	eligible      []bool // by position in candidates: passes expiry, popularFilter and filter
	among         *engines.Subset
	precomputed   *candidateSet // the model's items-to-user candidates, when they can answer
}

// Recommend answers one request.
func (r *Recommender) Recommend(ctx context.Context, ws int64, table string, q Query) ([]Result, error) {
	// one read of the catalog's write generations for the whole request (PostgreSQL)
	ctx = catalog.ReadOnce(ctx)
	p, err := r.Prepare(ctx, ws, table, q)
	if err != nil {
		return nil, err
	}
	return p.Run(ctx, q.SubjectID, true)
}

// Prepare checks a query against the catalog and the trained models.
func (r *Recommender) Prepare(ctx context.Context, ws int64, table string, q Query) (*Plan, error) {
	r.watch()
	t, err := r.Catalog.Table(ctx, ws, table)
	if err != nil {
		return nil, err
	}
	p := &Plan{r: r, ws: ws, table: table, slot: q.Slot, afterID: q.AfterID, diversity: q.Diversity, explain: q.Explain}
	kind, ok := slotKinds[q.Slot]
	if !ok {
		return nil, apierr.InvalidArgumentf("unknown recommendation kind %q", q.Slot)
	}
	p.kind, p.subjectIsUser = kind, kind.SubjectIsUser()
	engine := q.Engine
	if engine == "" {
		engine = t.Engines.For(q.Slot)
	}
	if p.model, err = r.model(ws, t, engine, q.InteractionID); err != nil {
		return nil, err
	}
	if q.Diversity < 0 || q.Diversity > 1 || math.IsNaN(q.Diversity) {
		return nil, apierr.InvalidArgumentf("diversity must be between 0 and 1")
	}
	if q.Diversity > 0 && engine != engines.Hybrid {
		return nil, apierr.InvalidArgumentf("diversity is available only with the hybrid engine, not %s", engine)
	}
	if p.limit, err = catalog.CheckLimit(q.Limit); err != nil {
		return nil, err
	}
	if p.items, err = r.Catalog.Snapshot(ctx, ws, table); err != nil {
		return nil, err
	}
	if p.users, err = r.Catalog.Snapshot(ctx, ws, catalog.Users); err != nil {
		return nil, err
	}
	p.subjects, p.candidates = p.items, p.items
	if p.subjectIsUser {
		p.subjects = p.users
	}
	if q.Slot == catalog.SlotUsersToUser || q.Slot == catalog.SlotUsersToItem {
		p.candidates = p.users
	}
	if q.Filter != "" {
		if p.filter, err = rsql.ParseChecked(q.Filter, p.candidates.Schema); err != nil {
			return nil, apierr.InvalidArgumentf("filter: %v", err)
		}
	}
	defs, err := r.Catalog.Interactions(ctx, ws, table)
	if err != nil {
		return nil, err
	}
	interSchema := rsql.Schema{}
	for _, d := range defs {
		p.defIDs = append(p.defIDs, d.ID)
		interSchema[d.ID] = rsql.Boolean
	}
	if q.InteractionFilter != "" {
		if q.Slot != catalog.SlotItemsToUser && q.Slot != catalog.SlotUsersToItem {
			return nil, apierr.InvalidArgumentf("interactionFilter applies only to /users/{userId}/items and /items/{itemId}/users")
		}
		if p.interFilter, err = rsql.ParseChecked(q.InteractionFilter, interSchema); err != nil {
			return nil, apierr.InvalidArgumentf("interactionFilter: %v", err)
		}
	}
	if q.InteractionID != "" && !slices.Contains(p.defIDs, q.InteractionID) {
		return nil, apierr.InvalidArgumentf("interactionId: interaction %q does not exist in table %q", q.InteractionID, table)
	}
	if q.AttributeID != "" {
		typ, ok := p.candidates.Schema[q.AttributeID]
		if !ok || (typ != rsql.Int && typ != rsql.Double) {
			return nil, apierr.InvalidArgumentf("attributeId %q is not a numeric attribute of the returned entities", q.AttributeID)
		}
		if len(defs) > 1 && q.InteractionID == "" {
			return nil, apierr.InvalidArgumentf("attributeId needs interactionId when the table has more than one interaction")
		}
		p.attribute = q.AttributeID
	}
	if q.Sort != "" {
		if p.sort, err = rsql.ParseSort(q.Sort, p.candidates.Schema); err != nil {
			return nil, apierr.InvalidArgumentf("sort: %v", err)
		}
	}
	cut, err := ParsePopular(q.PopularFilter)
	if err != nil {
		return nil, err
	}
	if cut != (PopularCut{}) {
		itemCounts, userCounts, err := r.Catalog.Popularity(ctx, ws, table)
		if err != nil {
			return nil, err
		}
		if p.candidates == p.users {
			p.popular = cut.Excluded(userCounts)
		} else {
			p.popular = cut.Excluded(itemCounts)
		}
	}
	now := time.Now
	if r.Now != nil {
		now = r.Now
	}
	p.now = now().UnixMilli()
	e := r.eligibleFor(p, eligibleKey{p.candidates, q.Filter, q.PopularFilter, p.now / 60000})
	p.eligible, p.among = e.ok, e.among
	if r.candidateN() > 0 && p.kind == engines.ItemsToUser && p.attribute == "" && p.diversity == 0 {
		// the precomputed ranking is the model's with no multiplier and no re-ranking
		p.precomputed = r.Models.cands.get(p.model)
	}
	return p, nil
}

func (r *Recommender) eligibleFor(p *Plan, k eligibleKey) *eligibility {
	r.mu.Lock()
	if e, ok := r.eligible[k]; ok {
		r.mu.Unlock()
		return e
	}
	r.mu.Unlock()
	ok := make([]bool, len(p.candidates.IDs))
	for i, id := range p.candidates.IDs {
		if p.candidates == p.items && p.items.Expired(id, p.now) || p.popular[id] {
			continue
		}
		ok[i] = p.filter == nil || p.filter.Eval(p.candidates.At(i))
	}
	snap := p.candidates
	e := &eligibility{ok: ok, among: engines.NewSubset(func(id string) bool {
		i, found := snap.Index(id)
		return found && ok[i]
	})}
	r.mu.Lock()
	if r.eligible == nil || len(r.eligible) >= maxEligible {
		r.eligible = map[eligibleKey]*eligibility{}
	}
	r.eligible[k] = e
	r.mu.Unlock()
	return e
}

// model returns the table's model for an engine, building ensembles from
// their trained parts. With interactionId, a model trained on that
// interaction alone (interactionsFilter of one id) scores the request;
// otherwise the model trained on the weighted mix of interactions does,
// or, when there is none, the engine's only model (trained with an
// interactionsFilter).
func (r *Recommender) model(ws int64, t catalog.Table, engine, interaction string) (engines.Model, error) {
	get := func(engine string) engines.Model {
		if interaction != "" {
			if m := r.Models.Get(ws, t.ID, ModelName(engine, []string{interaction})); m != nil {
				return m
			}
		}
		if m := r.Models.Get(ws, t.ID, engine); m != nil {
			return m
		}
		return r.Models.Only(ws, t.ID, engine)
	}
	if engine != engines.Ensemble {
		if !catalog.Trainable(engine) {
			return nil, apierr.InvalidArgumentf("unknown engine %q", engine)
		}
		m := get(engine)
		if m == nil {
			return nil, apierr.NotFoundf("table %q has no trained %s model (POST /%s/train first)", t.ID, engine, t.ID)
		}
		return m, nil
	}
	if len(t.Ensemble) == 0 {
		return nil, apierr.InvalidArgumentf("table %q has no ensemble configuration", t.ID)
	}
	parts := make([]engines.Model, len(t.Ensemble))
	for i, w := range t.Ensemble {
		if parts[i] = get(w.Engine); parts[i] == nil {
			return nil, apierr.InvalidArgumentf("engine %s of the ensemble is not trained", w.Engine)
		}
	}
	key := ensembleKey{ws, t.ID}
	r.mu.Lock()
	defer r.mu.Unlock()
	if b := r.ensembles[key]; b != nil && slices.Equal(b.parts, parts) && slices.Equal(b.weights, t.Ensemble) {
		return b.model, nil
	}
	in := make([]engines.EnsemblePart, len(parts))
	for i, m := range parts {
		in[i] = engines.EnsemblePart{Model: m, Weight: t.Ensemble[i].Value}
	}
	m, err := engines.NewEnsemble(in)
	if err != nil {
		return nil, err
	}
	if r.ensembles == nil {
		r.ensembles = map[ensembleKey]*builtEnsemble{}
	}
	r.ensembles[key] = &builtEnsemble{parts: parts, weights: slices.Clone(t.Ensemble), model: m}
	return m, nil
}

// Run recommends for one subject; paged applies sort and afterId.
func (p *Plan) Run(ctx context.Context, subjectID string, paged bool) ([]Result, error) {
	values, ok := p.subjects.Values(subjectID)
	if !ok {
		kind := "item"
		if p.subjectIsUser {
			kind = "user"
		}
		return nil, apierr.NotFoundf("%s %q not found", kind, subjectID)
	}
	scope := p.table
	if p.subjectIsUser {
		scope = catalog.Users
	}
	history, err := p.r.Catalog.History(ctx, p.ws, p.table, scope, subjectID)
	if err != nil {
		return nil, err
	}
	sub := engines.Subject{ID: subjectID, Attrs: EntityAttrs(p.subjects, p.subjectIsUser, values)}
	// the candidates interacted with, and with an interactionFilter by which definitions
	had := make(map[string]bool, len(history))
	past := map[string]map[string]bool{}
	sub.History = make([]engines.Event, 0, len(history))
	for _, e := range history {
		sub.History = append(sub.History, engines.Event{UserID: e.UserID, ItemID: e.ItemID, Value: e.Value,
			Weight: e.Def.Weight, Positive: e.Def.Polarity != catalog.Negative, Timestamp: e.Timestamp, Type: e.Def.ID})
		other := e.ItemID
		if !p.subjectIsUser {
			other = e.UserID
		}
		had[other] = true
		if p.interFilter == nil {
			continue
		}
		if past[other] == nil {
			past[other] = map[string]bool{}
		}
		past[other][e.Def.ID] = true
	}
	pairsApply := p.slot == catalog.SlotItemsToUser || p.slot == catalog.SlotUsersToItem
	q := engines.Query{Limit: p.limit, Diversity: p.diversity}
	if paged && (p.sort != nil || p.afterID != "") {
		q.Limit = engines.MaxLimit
	}
	// admit is the per-subject check; the engines walk only the eligible entities (p.among)
	admit := func(id string) bool {
		if id == subjectID && p.candidates == p.subjects {
			return false
		}
		if pairsApply {
			if p.interFilter == nil {
				return !had[id]
			}
			seen := rsql.MapValues{}
			for _, d := range p.defIDs {
				seen[d] = past[id][d]
			}
			return p.interFilter.Eval(seen)
		}
		return true
	}
	q.Accept = admit
	if p.r.candidateN() > 0 {
		q.Among = p.among
	} else {
		// without candidates, every request walks every entity, as before they existed (the
		// benchmarks' baseline)
		q.Accept = func(id string) bool {
			i, ok := p.candidates.Index(id)
			return ok && p.eligible[i] && admit(id)
		}
	}
	if p.attribute != "" {
		q.Multiplier = func(id string) float64 {
			v, _ := p.candidates.Values(id)
			switch x := v[p.attribute].(type) {
			case int64:
				return float64(x)
			case float64:
				return x
			}
			return 0
		}
	}
	scored, ok := p.fromCandidates(subjectID, q.Limit, admit)
	if !ok {
		if p.subjectIsUser {
			if sub.Keywords, err = p.r.Catalog.Keywords(ctx, p.ws, subjectID); err != nil {
				return nil, err
			}
		}
		scored, err = p.model.Recommend(p.kind, sub, q)
		if errors.Is(err, engines.ErrNoSignal) {
			scored, err = nil, nil // nothing known about a cold subject: no recommendations
		}
		if err != nil {
			return nil, err
		}
	}
	out := make([]Result, len(scored))
	for i, s := range scored {
		out[i] = Result{ID: s.ID, Match: s.Match}
	}
	if !paged || (p.sort == nil && p.afterID == "") {
		p.explainAll(out, sub.History)
		return out, nil
	}
	if p.sort != nil {
		// look each result's values up once, not at every comparison
		type keyed struct {
			r Result
			v rsql.MapValues
		}
		ks := make([]keyed, len(out))
		for i, r := range out {
			ks[i].r = r
			ks[i].v, _ = p.candidates.Values(r.ID)
		}
		slices.SortStableFunc(ks, func(a, b keyed) int { return rsql.Compare(p.sort, a.v, b.v) })
		for i := range ks {
			out[i] = ks[i].r
		}
	}
	start := 0
	if p.afterID != "" {
		i := slices.IndexFunc(out, func(r Result) bool { return r.ID == p.afterID })
		if i < 0 {
			return nil, apierr.InvalidArgumentf("afterId %q is not in the result", p.afterID)
		}
		start = i + 1
	}
	out = out[start:min(start+p.limit, len(out))]
	p.explainAll(out, sub.History)
	return out, nil
}

// fromCandidates answers from the subject's precomputed candidates when they can (see
// candidates.go); ok is false when the model must rank every item.
func (p *Plan) fromCandidates(subjectID string, limit int, admit func(id string) bool) ([]engines.Scored, bool) {
	if p.precomputed == nil {
		return nil, false
	}
	l := p.precomputed.list(subjectID)
	if l == nil {
		p.r.fellBack.Add(1)
		return nil, false
	}
	out, ok := fromCandidates(l, limit, func(id string) bool {
		i, ok := p.candidates.Index(id)
		return ok && p.eligible[i] && admit(id)
	})
	if ok {
		p.r.served.Add(1)
	} else {
		p.r.fellBack.Add(1)
	}
	return out, ok
}

// CandidateStats counts the items-to-user answers taken from precomputed candidates and those that
// ranked every item although the model has candidates.
func (r *Recommender) CandidateStats() (served, fellBack int64) {
	return r.served.Load(), r.fellBack.Load()
}

// Explanations: at most maxExplained results of a page get reasons, each at most maxReasons.
const (
	maxExplained = 50
	maxReasons   = 3
)

// explainAll fills Because for items recommended to a user: the past items the user liked (positive
// interactions valued at least at the user's median for their type, so a two-star rating is no
// reason) that the model finds most like each result. popular has no notion of alike, so it never
// explains.
func (p *Plan) explainAll(out []Result, history []engines.Event) {
	if !p.explain || p.kind != engines.ItemsToUser || p.model.Engine() == engines.Popular {
		return
	}
	values := map[string][]float64{}
	for _, e := range history {
		if e.Positive {
			values[e.Type] = append(values[e.Type], e.Value)
		}
	}
	median := map[string]float64{}
	for typ, v := range values {
		slices.Sort(v)
		median[typ] = v[(len(v)-1)/2]
	}
	liked := map[string]bool{}
	for _, e := range history {
		if e.Positive && e.Value >= median[e.Type] {
			liked[e.ItemID] = true
		}
	}
	if len(liked) == 0 {
		return
	}
	q := engines.Query{Limit: maxReasons, Accept: func(id string) bool { return liked[id] }}
	for i := range out[:min(len(out), maxExplained)] {
		alike, err := p.model.Recommend(engines.ItemsToItem, engines.Subject{ID: out[i].ID}, q)
		if err != nil {
			continue // an item the model cannot compare (ErrNoSignal): no reasons
		}
		for _, a := range alike {
			if a.Match > 0 {
				out[i].Because = append(out[i].Because, Reason{ID: a.ID, Match: a.Match})
			}
		}
	}
}

// Subjects is the snapshot of the subjects' kind (the recipients of a batch).
func (p *Plan) Subjects() *catalog.Snapshot { return p.subjects }

// Eligible counts the candidates that pass the request-independent checks (expiry, filter,
// popularFilter): an upper bound of the answer of any subject.
func (p *Plan) Eligible() int {
	n := 0
	for _, ok := range p.eligible {
		if ok {
			n++
		}
	}
	return n
}

// Limit is the checked limit of the query.
func (p *Plan) Limit() int { return p.limit }

// AnswersUsers reports whether the answer ranks users.
func (p *Plan) AnswersUsers() bool { return p.kind.AnswersUsers() }
