package jobs

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"

	"github.com/harkhq/hark/server/apierr"
	"github.com/harkhq/hark/server/recomm/recommend"
	"github.com/harkhq/hark/server/recomm/rsql"
)

// StorageWriter writes batch results into a workspace's storage; the lead
// wires it to the storage service.
type StorageWriter interface {
	CreateFolder(ctx context.Context, workspaceID int64, folder string) error
	Put(ctx context.Context, workspaceID int64, folder, name string, r io.Reader) error
}

// DefaultQuota is the per-workspace request quota batch recommendations
// are charged against (DECISIONS §12).
const DefaultQuota = 10_000_000

// BatchRequest is a batch recommendation order, as stored.
type BatchRequest struct {
	Slot          string         `json:"slot"`
	Engine        string         `json:"engine,omitempty"`
	Configuration map[string]any `json:"configuration,omitempty"`
	// Count is recommendationsCount, computed when the order is accepted.
	Count int64 `json:"recommendationsCount"`
}

// BatchResult is the stored result of a batch recommendation job.
type BatchResult struct {
	Written int64  `json:"written"`
	Message string `json:"message,omitempty"`
}

// Batcher schedules and runs batch recommendations.
type Batcher struct {
	Rec     *recommend.Recommender
	Storage StorageWriter
	DB      *sql.DB
	// Quota gives a workspace's request quota; nil means DefaultQuota.
	Quota func(ws int64) int64
}

var batchKeys = []string{"recipientsFilter", "recommendationsFilter", "interactionFilter", "popularFilter",
	"attributeId", "interactionId", "limit", "sort", "diversity"}

// batchPlan is a checked order: the plan of one recipient's query and the recipients.
type batchPlan struct {
	plan       *recommend.Plan
	recipients []string
	candidates int
}

func stringKey(cfg map[string]any, key string) (string, error) {
	switch v := cfg[key].(type) {
	case nil:
		return "", nil
	case string:
		return v, nil
	}
	return "", apierr.InvalidArgumentf("configuration.%s must be a string", key)
}

func (b *Batcher) plan(ctx context.Context, ws int64, table string, req BatchRequest) (*batchPlan, error) {
	cfg := req.Configuration
	for k := range cfg {
		if !slices.Contains(batchKeys, k) {
			return nil, apierr.InvalidArgumentf("configuration: unknown key %q", k)
		}
	}
	q := recommend.Query{Slot: req.Slot, Engine: req.Engine}
	var err error
	fields := map[string]*string{"recommendationsFilter": &q.Filter, "interactionFilter": &q.InteractionFilter,
		"attributeId": &q.AttributeID, "interactionId": &q.InteractionID, "sort": &q.Sort}
	for k, dst := range fields {
		if *dst, err = stringKey(cfg, k); err != nil {
			return nil, err
		}
	}
	if v, ok := cfg["popularFilter"]; ok {
		switch x := v.(type) {
		case string:
			q.PopularFilter = x
		case float64:
			q.PopularFilter = strconv.FormatFloat(x, 'f', -1, 64)
		default:
			return nil, apierr.InvalidArgumentf("configuration.popularFilter is N or N%%")
		}
	}
	if v, ok := cfg["limit"]; ok {
		f, ok := v.(float64)
		if !ok || f != float64(int(f)) {
			return nil, apierr.InvalidArgumentf("configuration.limit must be an integer")
		}
		if q.Limit = int(f); q.Limit == 0 {
			return nil, apierr.InvalidArgumentf("configuration.limit must be at least 1")
		}
	}
	if v, ok := cfg["diversity"]; ok {
		f, ok := v.(float64)
		if !ok {
			return nil, apierr.InvalidArgumentf("configuration.diversity must be a number")
		}
		q.Diversity = f
	}
	p, err := b.Rec.Prepare(ctx, ws, table, q)
	if err != nil {
		return nil, err
	}
	recipientsFilter, err := stringKey(cfg, "recipientsFilter")
	if err != nil {
		return nil, err
	}
	var rf *rsql.Filter
	if recipientsFilter != "" {
		if rf, err = rsql.ParseChecked(recipientsFilter, p.Subjects().Schema); err != nil {
			return nil, apierr.InvalidArgumentf("configuration.recipientsFilter: %v", err)
		}
	}
	bp := &batchPlan{plan: p}
	for _, id := range p.Subjects().IDs {
		v, _ := p.Subjects().Values(id)
		if rf == nil || rf.Eval(v) {
			bp.recipients = append(bp.recipients, id)
		}
	}
	bp.candidates = p.Eligible()
	return bp, nil
}

// Schedule checks an order, charges its recommendationsCount to the
// workspace's quota (403 QuotaExceeded when it does not fit) and queues it.
func (b *Batcher) Schedule(ctx context.Context, q *Queue, ws int64, table string, req BatchRequest) (Job, int64, error) {
	bp, err := b.plan(ctx, ws, table, req)
	if err != nil {
		return Job{}, 0, err
	}
	req.Count = int64(len(bp.recipients)) * int64(min(bp.plan.Limit(), bp.candidates))
	if err := b.charge(ctx, ws, req.Count); err != nil {
		return Job{}, 0, err
	}
	j, err := q.Submit(ctx, ws, table, Recommend, req)
	if err != nil {
		b.charge(ctx, ws, -req.Count)
		return Job{}, 0, err
	}
	return j, req.Count, nil
}

func (b *Batcher) quota(ws int64) int64 {
	if b.Quota != nil {
		return b.Quota(ws)
	}
	return DefaultQuota
}

// charge adds n (negative refunds) to the workspace's request counter.
func (b *Batcher) charge(ctx context.Context, ws int64, n int64) error {
	tx, err := b.DB.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var used int64
	if err := tx.QueryRowContext(ctx, `SELECT requests FROM recomm_usage WHERE ws = $1`, ws).Scan(&used); err != nil && err != sql.ErrNoRows {
		return err
	}
	if n > 0 && used+n > b.quota(ws) {
		return apierr.New(http.StatusForbidden, apierr.QuotaExceeded,
			"%d recommendations exceed the %d requests left in this workspace's quota", n, max(0, b.quota(ws)-used))
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO recomm_usage(ws, requests) VALUES($1, $2)
		ON CONFLICT(ws) DO UPDATE SET requests = CASE WHEN recomm_usage.requests + excluded.requests < 0 THEN 0
			ELSE recomm_usage.requests + excluded.requests END`, ws, n); err != nil {
		return err
	}
	return tx.Commit()
}

// Cancel cancels a queued order and gives its count back to the quota.
func (b *Batcher) Cancel(ctx context.Context, q *Queue, ws int64, table, id string) (Job, error) {
	j, err := q.Cancel(ctx, ws, table, Recommend, id)
	if err != nil {
		return Job{}, err
	}
	var req BatchRequest
	if json.Unmarshal(j.Request, &req) == nil {
		b.charge(ctx, ws, -req.Count)
	}
	return j, nil
}

// Run is the Runner of batch recommendation jobs: one file
// <recipientId>.json per recipient in the folder named by the request id.
func (b *Batcher) Run(ctx context.Context, j Job) (string, any, error) {
	var req BatchRequest
	if err := json.Unmarshal(j.Request, &req); err != nil {
		return "", nil, fmt.Errorf("decode request: %w", err)
	}
	if b.Storage == nil {
		return "", nil, apierr.Unavailablef("batch recommendation storage is not configured")
	}
	bp, err := b.plan(ctx, j.WS, j.Scope, req)
	if err != nil {
		return "", nil, err
	}
	if err := b.Storage.CreateFolder(ctx, j.WS, j.ID); err != nil {
		return "", nil, fmt.Errorf("create folder %s: %w", j.ID, err)
	}
	key := "itemId"
	if bp.plan.AnswersUsers() {
		key = "userId"
	}
	var res BatchResult
	var buf bytes.Buffer
	for _, id := range bp.recipients {
		if err := ctx.Err(); err != nil {
			return "", nil, err
		}
		recs, err := bp.plan.Run(ctx, id, true)
		if err != nil {
			return "", nil, fmt.Errorf("recipient %s: %w", id, err)
		}
		entries := make([]map[string]any, len(recs))
		for i, r := range recs {
			entries[i] = map[string]any{key: r.ID, "match": r.Match}
		}
		buf.Reset()
		if err := json.NewEncoder(&buf).Encode(entries); err != nil {
			return "", nil, err
		}
		if err := b.Storage.Put(ctx, j.WS, j.ID, id+".json", &buf); err != nil {
			return "", nil, fmt.Errorf("write %s.json: %w", id, err)
		}
		res.Written += int64(len(recs))
	}
	return Completed, res, nil
}
