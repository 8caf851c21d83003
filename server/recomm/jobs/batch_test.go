package jobs

import (
	"context"
	"encoding/json"
	"io"
	"sync"
	"testing"

	"github.com/harkhq/hark/server/apierr"
	"github.com/harkhq/hark/server/recomm/catalog"
)

type memWriter struct {
	mu      sync.Mutex
	folders map[string]bool
	files   map[string][]byte
}

func (m *memWriter) CreateFolder(_ context.Context, ws int64, folder string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.folders[folder] = true
	return nil
}

func (m *memWriter) Put(_ context.Context, ws int64, folder, name string, r io.Reader) error {
	b, err := io.ReadAll(r)
	m.mu.Lock()
	defer m.mu.Unlock()
	m.files[folder+"/"+name] = b
	return err
}

func TestBatchRecommendations(t *testing.T) {
	w := newWorld(t, 0)
	ctx := context.Background()
	if j := w.train(t, "hybrid", nil); j.Status != CompletedWithErrors {
		t.Fatalf("training = %s", j.Status)
	}
	store := &memWriter{folders: map[string]bool{}, files: map[string][]byte{}}
	quota := int64(40)
	b := &Batcher{Rec: w.rec, Storage: store, DB: w.tr.DB, Quota: func(int64) int64 { return quota }}
	// a second queue shares the database; this one runs batches
	q, err := Open(ctx, w.tr.DB, map[string]Runner{Recommend: b.Run, Train: w.tr.Run}, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	req := BatchRequest{Slot: catalog.SlotItemsToUser, Configuration: map[string]any{
		"recipientsFilter": "age=lt=25", "limit": 3.0, "recommendationsFilter": "genre==rock"}}
	j, count, err := b.Schedule(ctx, q, 1, "shop", req)
	if err != nil {
		t.Fatal(err)
	}
	if count != 15 { // 5 recipients × min(3, 20 rock items)
		t.Errorf("recommendationsCount = %d, want 15", count)
	}
	done := waitStatus(t, q, 1, "shop", Recommend, j.ID)
	if done.Status != Completed {
		t.Fatalf("batch = %s %s", done.Status, done.Result)
	}
	if !store.folders[j.ID] || len(store.files) != 5 {
		t.Fatalf("folders %v, %d files", store.folders, len(store.files))
	}
	var entries []map[string]any
	if err := json.Unmarshal(store.files[j.ID+"/u00.json"], &entries); err != nil || len(entries) != 3 {
		t.Fatalf("u00.json = %s", store.files[j.ID+"/u00.json"])
	}
	if _, ok := entries[0]["itemId"].(string); !ok {
		t.Errorf("entry = %v", entries[0])
	}
	if m, ok := entries[0]["match"].(float64); !ok || m < 0 || m > 100 {
		t.Errorf("entry match = %v", entries[0])
	}
	// 15 used of 40: a second order of 15 fits, a third does not
	if _, _, err := b.Schedule(ctx, q, 1, "shop", req); err != nil {
		t.Fatal(err)
	}
	_, _, err = b.Schedule(ctx, q, 1, "shop", req)
	if e, ok := apierr.As(err); !ok || e.Status != 403 || e.Code != apierr.QuotaExceeded {
		t.Errorf("over quota = %v", err)
	}
	for _, cfg := range []map[string]any{{"limit": 1.5}, {"colour": "red"}, {"recipientsFilter": "nope==1"},
		{"interactionFilter": "view==true", "x": 1.0}, {"sort": 3.0}, {"diversity": "lots"}} {
		if _, _, err := b.Schedule(ctx, q, 1, "shop", BatchRequest{Slot: catalog.SlotItemsToUser, Configuration: cfg}); err == nil {
			t.Errorf("configuration %v accepted", cfg)
		}
	}
	if _, _, err := b.Schedule(ctx, q, 1, "shop", BatchRequest{Slot: catalog.SlotItemsToItem,
		Configuration: map[string]any{"interactionFilter": "view==true"}}); err == nil {
		t.Error("interactionFilter accepted on items-to-items")
	}
}

// TestBatchCancelRefunds holds the workspace's queue with a training so a
// batch order stays queued, cancels it, and checks the quota got its
// count back.
func TestBatchCancelRefunds(t *testing.T) {
	w := newWorld(t, 0)
	ctx := context.Background()
	if j := w.train(t, "popular", nil); j.Status != CompletedWithErrors {
		t.Fatalf("training = %s", j.Status)
	}
	gate := make(chan struct{})
	hold := func(ctx context.Context, j Job) (string, any, error) {
		<-gate
		return Completed, nil, nil
	}
	b := &Batcher{Rec: w.rec, Storage: &memWriter{folders: map[string]bool{}, files: map[string][]byte{}}, DB: w.tr.DB,
		Quota: func(int64) int64 { return 100 }}
	q, err := Open(ctx, w.tr.DB, map[string]Runner{Train: hold, Recommend: b.Run}, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	defer close(gate)
	if _, err := q.Submit(ctx, 1, "shop", Train, TrainRequest{Engine: "popular"}); err != nil {
		t.Fatal(err)
	}
	req := BatchRequest{Slot: catalog.SlotUsersToUser, Engine: "popular", Configuration: map[string]any{"limit": 2.0}}
	j, count, err := b.Schedule(ctx, q, 1, "shop", req)
	if err != nil || count != 60 { // 30 users × 2
		t.Fatalf("schedule = %d, %v", count, err)
	}
	if _, _, err := b.Schedule(ctx, q, 1, "shop", req); err == nil {
		t.Fatal("a second order of 60 fits a quota of 100")
	}
	c, err := b.Cancel(ctx, q, 1, "shop", j.ID)
	if err != nil || c.Status != Canceled {
		t.Fatalf("cancel = %+v, %v", c, err)
	}
	if _, _, err := b.Schedule(ctx, q, 1, "shop", req); err != nil {
		t.Errorf("after the refund the order does not fit: %v", err)
	}
}
