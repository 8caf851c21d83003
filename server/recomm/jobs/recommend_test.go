package jobs

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/harkhq/hark/server/apierr"
	"github.com/harkhq/hark/server/recomm/catalog"
	"github.com/harkhq/hark/server/recomm/recommend"
	"github.com/harkhq/hark/server/recomm/rsql"
)

type world struct {
	cat    *catalog.Catalog
	q      *Queue
	tr     *Trainer
	rec    *recommend.Recommender
	models *recommend.Models
	dir    string
}

// newWorld builds a catalog of 40 items in two genres and 30 users who
// each view items of one genre, wired to a queue with a trainer.
func newWorld(t *testing.T, budget time.Duration) *world {
	t.Helper()
	db, _ := openDB(t)
	ctx := context.Background()
	cat, err := catalog.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "recomm")
	models, problems := recommend.OpenModels(dir)
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	tr := &Trainer{Catalog: cat, Models: models, DB: db, MinInteractions: 50,
		Budget: func(int64) time.Duration { return budget }}
	q, err := Open(ctx, db, map[string]Runner{Train: tr.Run}, 1)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(q.Close)
	cat.Busy = q.Busy
	w := &world{cat: cat, q: q, tr: tr, rec: &recommend.Recommender{Catalog: cat, Models: models}, models: models, dir: dir}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(cat.CreateTable(ctx, 1, "shop", nil, []catalog.Attribute{
		{ID: "genre", Type: rsql.Category, Indexed: true}, {ID: "price", Type: rsql.Double}}))
	must(cat.AddAttributes(ctx, 1, catalog.Users, []catalog.Attribute{{ID: "age", Type: rsql.Int}}))
	must(cat.CreateInteraction(ctx, 1, "shop", catalog.InteractionDef{ID: "view", Weight: 1, Type: catalog.Unary}))
	must(cat.CreateInteraction(ctx, 1, "shop", catalog.InteractionDef{ID: "buy", Weight: 5, Type: catalog.Unary}))
	// bulk-load through the importers: one transaction instead of hundreds
	var items, users, records strings.Builder
	items.WriteString("itemId,genre,price\n")
	for i := 0; i < 40; i++ {
		fmt.Fprintf(&items, "i%02d,%s,%d\n", i, []string{"rock", "jazz"}[i%2], i)
	}
	users.WriteString("userId,age\n")
	records.WriteString("userId,itemId,timestamp,interactionName,value\n")
	for u := 0; u < 30; u++ {
		fmt.Fprintf(&users, "u%02d,%d\n", u, 20+u)
		for k := 0; k < 14; k++ {
			fmt.Fprintf(&records, "u%02d,i%02d,%d,view,\n", u, (u%2+2*((u+k)%20))%40, 1000+k)
		}
	}
	opts := catalog.ImportOptions{Format: catalog.FormatCSV, Logging: true}
	for _, load := range []func() (catalog.ImportResult, error){
		func() (catalog.ImportResult, error) {
			return cat.ImportEntities(ctx, 1, "shop", strings.NewReader(items.String()), opts)
		},
		func() (catalog.ImportResult, error) {
			return cat.ImportEntities(ctx, 1, catalog.Users, strings.NewReader(users.String()), opts)
		},
		func() (catalog.ImportResult, error) {
			return cat.ImportInteractions(ctx, 1, "shop", strings.NewReader(records.String()), opts)
		},
	} {
		res, err := load()
		must(err)
		if res.NotAddedCount > 0 {
			t.Fatalf("fixture rows refused: %+v", res.NotAdded)
		}
	}
	ts := int64(5)
	must(cat.AddRecord(ctx, 1, "shop", "buy", "u00", "i02", &ts, nil))
	return w
}

func (w *world) train(t *testing.T, engine string, cfg map[string]any) Job {
	t.Helper()
	ctx := context.Background()
	req := TrainRequest{Engine: engine, Configuration: cfg}
	if err := w.tr.Check(ctx, 1, "shop", req); err != nil {
		t.Fatal(err)
	}
	j, err := w.q.Submit(ctx, 1, "shop", Train, req)
	if err != nil {
		t.Fatal(err)
	}
	return waitStatus(t, w.q, 1, "shop", Train, j.ID)
}

func resultIDs(rs []recommend.Result) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.ID)
	}
	return out
}

func TestTrainAndRecommend(t *testing.T) {
	w := newWorld(t, 0)
	ctx := context.Background()
	j := w.train(t, "hybrid", nil)
	if j.Status != CompletedWithErrors { // buy has 1 record, under the minimum of 50
		t.Fatalf("training = %s %s", j.Status, j.Result)
	}
	tb, _ := w.cat.Table(ctx, 1, "shop")
	if len(tb.TrainConfig) != 1 || tb.TrainConfig[0].Engine != "hybrid" {
		t.Errorf("train config = %+v", tb.TrainConfig)
	}
	recs, err := w.rec.Recommend(ctx, 1, "shop", recommend.Query{Slot: catalog.SlotItemsToUser, SubjectID: "u00", Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	hist, _ := w.cat.History(ctx, 1, "shop", catalog.Users, "u00")
	seen := map[string]bool{}
	for _, e := range hist {
		seen[e.ItemID] = true
	}
	rock := 0
	for _, r := range recs {
		if seen[r.ID] {
			t.Errorf("recommended %s which u00 already interacted with", r.ID)
		}
		if r.Match < 0 || r.Match > 100 {
			t.Errorf("match %v out of 0..100", r.Match)
		}
		v, _ := w.cat.Entity(ctx, 1, "shop", r.ID)
		if v.Values["genre"] == "rock" {
			rock++
		}
	}
	if len(recs) == 0 || rock*2 < len(recs) {
		t.Errorf("u00 views rock; recommendations %v have %d rock items", resultIDs(recs), rock)
	}
	// interactionFilter asks for already-viewed items back
	again, err := w.rec.Recommend(ctx, 1, "shop", recommend.Query{Slot: catalog.SlotItemsToUser, SubjectID: "u00", InteractionFilter: "view==true"})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range again {
		if !seen[r.ID] {
			t.Errorf("view==true returned unseen %s", r.ID)
		}
	}
	if len(again) == 0 {
		t.Error("view==true returned nothing")
	}
	// filter, expiration, similar items without self, sort and paging
	jazz, _ := w.rec.Recommend(ctx, 1, "shop", recommend.Query{Slot: catalog.SlotItemsToUser, SubjectID: "u00", Filter: "genre==jazz"})
	for _, r := range jazz {
		if v, _ := w.cat.Entity(ctx, 1, "shop", r.ID); v.Values["genre"] != "jazz" {
			t.Errorf("filter genre==jazz returned %s", r.ID)
		}
	}
	similar, _ := w.rec.Recommend(ctx, 1, "shop", recommend.Query{Slot: catalog.SlotItemsToItem, SubjectID: "i04", Limit: 50})
	if slices.Contains(resultIDs(similar), "i04") || len(similar) == 0 {
		t.Errorf("similar items of i04 = %v", resultIDs(similar))
	}
	top := similar[0].ID
	if err := w.cat.UpdateEntity(ctx, 1, "shop", top, map[string]any{"expiration": 1000.0}); err != nil {
		t.Fatal(err)
	}
	similar2, _ := w.rec.Recommend(ctx, 1, "shop", recommend.Query{Slot: catalog.SlotItemsToItem, SubjectID: "i04", Limit: 50})
	if slices.Contains(resultIDs(similar2), top) {
		t.Errorf("expired item %s recommended", top)
	}
	users, _ := w.rec.Recommend(ctx, 1, "shop", recommend.Query{Slot: catalog.SlotUsersToUser, SubjectID: "u00", Sort: "age==DESC", Limit: 5})
	if slices.Contains(resultIDs(users), "u00") || len(users) != 5 {
		t.Errorf("similar users = %v", resultIDs(users))
	}
	for i := 1; i < len(users); i++ {
		a, _ := w.cat.Entity(ctx, 1, catalog.Users, users[i-1].ID)
		b, _ := w.cat.Entity(ctx, 1, catalog.Users, users[i].ID)
		if a.Values["age"].(int64) < b.Values["age"].(int64) {
			t.Errorf("sort age==DESC broken: %v", resultIDs(users))
		}
	}
	page2, err := w.rec.Recommend(ctx, 1, "shop", recommend.Query{Slot: catalog.SlotUsersToUser, SubjectID: "u00", Sort: "age==DESC", Limit: 5, AfterID: users[4].ID})
	if err != nil || len(page2) == 0 || slices.Contains(resultIDs(page2), users[4].ID) {
		t.Errorf("page 2 = %v, %v", resultIDs(page2), err)
	}
	pop, _ := w.rec.Recommend(ctx, 1, "shop", recommend.Query{Slot: catalog.SlotUsersToItem, SubjectID: "i01", PopularFilter: "50%", Limit: 100})
	if len(pop) == 0 || len(pop) > 15 {
		t.Errorf("users for i01 without the most active half = %d", len(pop))
	}

	bad := []struct {
		q      recommend.Query
		status int
	}{
		{recommend.Query{Slot: catalog.SlotItemsToUser, SubjectID: "nobody"}, 404},
		{recommend.Query{Slot: catalog.SlotItemsToItem, SubjectID: "nothing"}, 404},
		{recommend.Query{Slot: catalog.SlotItemsToUser, SubjectID: "u00", AfterID: "zz"}, 400},
		{recommend.Query{Slot: catalog.SlotItemsToUser, SubjectID: "u00", Filter: "colour==red"}, 400},
		{recommend.Query{Slot: catalog.SlotItemsToItem, SubjectID: "i01", InteractionFilter: "view==true"}, 400},
		{recommend.Query{Slot: catalog.SlotItemsToUser, SubjectID: "u00", InteractionFilter: "like==true"}, 400},
		{recommend.Query{Slot: catalog.SlotItemsToUser, SubjectID: "u00", Limit: 1001}, 400},
		{recommend.Query{Slot: catalog.SlotItemsToUser, SubjectID: "u00", Diversity: 1.5}, 400},
		{recommend.Query{Slot: catalog.SlotItemsToUser, SubjectID: "u00", Engine: "popular"}, 404},
		{recommend.Query{Slot: catalog.SlotItemsToUser, SubjectID: "u00", AttributeID: "price"}, 400},
		{recommend.Query{Slot: catalog.SlotItemsToUser, SubjectID: "u00", AttributeID: "genre", InteractionID: "view"}, 400},
		{recommend.Query{Slot: catalog.SlotItemsToUser, SubjectID: "u00", InteractionID: "like"}, 400},
		{recommend.Query{Slot: catalog.SlotItemsToUser, SubjectID: "u00", PopularFilter: "lots"}, 400},
	}
	for _, b := range bad {
		_, err := w.rec.Recommend(ctx, 1, "shop", b.q)
		if e, ok := apierr.As(err); !ok || e.Status != b.status {
			t.Errorf("%+v: %v, want %d", b.q, err, b.status)
		}
	}
	byPrice, err := w.rec.Recommend(ctx, 1, "shop", recommend.Query{Slot: catalog.SlotItemsToUser, SubjectID: "u00", AttributeID: "price", InteractionID: "view"})
	if err != nil || len(byPrice) == 0 {
		t.Errorf("attributeId multiplier: %v %v", byPrice, err)
	}

	// the model was saved and loads back at start
	reloaded, problems := recommend.OpenModels(w.dir)
	if len(problems) > 0 || reloaded.Get(1, "shop", "hybrid") == nil {
		t.Errorf("saved model did not load: %v", problems)
	}
	// an ensemble of trained engines
	if j := w.train(t, "popular", nil); j.Status != CompletedWithErrors {
		t.Fatalf("popular training = %s", j.Status)
	}
	if _, err := w.cat.SetEnsemble(ctx, 1, "shop", []catalog.EnsembleWeight{{Engine: "hybrid", Value: 2}, {Engine: "popular", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	ens, err := w.rec.Recommend(ctx, 1, "shop", recommend.Query{Slot: catalog.SlotItemsToUser, SubjectID: "u01", Engine: "ensemble", Limit: 5})
	if err != nil || len(ens) != 5 {
		t.Errorf("ensemble = %v, %v", ens, err)
	}
}

func TestTrainingRules(t *testing.T) {
	w := newWorld(t, 0)
	ctx := context.Background()
	// a model trained on one interaction answers requests naming it
	req := TrainRequest{Engine: "popular", InteractionsFilter: []string{"view"}}
	j, _ := w.q.Submit(ctx, 1, "shop", Train, req)
	if j := waitStatus(t, w.q, 1, "shop", Train, j.ID); j.Status != Completed {
		t.Fatalf("training on view = %s %s", j.Status, j.Result)
	}
	if w.models.Get(1, "shop", "popular@view") == nil {
		t.Error("no popular@view model stored")
	}
	if _, err := w.rec.Recommend(ctx, 1, "shop", recommend.Query{Slot: catalog.SlotItemsToUser, SubjectID: "u01", Engine: "popular", InteractionID: "view"}); err != nil {
		t.Errorf("recommend with interactionId view: %v", err)
	}
	// without interactionId, the engine's only model answers (the vendor's tutorial relies on it)
	if _, err := w.rec.Recommend(ctx, 1, "shop", recommend.Query{Slot: catalog.SlotItemsToUser, SubjectID: "u01", Engine: "popular"}); err != nil {
		t.Errorf("the only popular model did not answer: %v", err)
	}
	_, err := w.rec.Recommend(ctx, 1, "shop", recommend.Query{Slot: catalog.SlotItemsToUser, SubjectID: "u01", Engine: "fm"})
	if e, ok := apierr.As(err); !ok || e.Status != 404 {
		t.Errorf("an engine never trained = %v, want 404", err)
	}
	w.tr.MinInteractions = 1000
	if j := w.train(t, "hybrid", nil); j.Status != Error {
		t.Errorf("training under the minimum = %s %s", j.Status, j.Result)
	}
	w.tr.MinInteractions = 10
	if j := w.train(t, "popular", map[string]any{"itemFilter": "genre==jazz", "before": 1003.0, "itemAttributes": []any{}}); j.Status != Completed {
		t.Errorf("filtered training = %s %s", j.Status, j.Result)
	}
	for _, cfg := range []map[string]any{
		{"colour": 1.0}, {"itemFilter": "nope==1"}, {"before": "yesterday"}, {"popularFilter": "-3"},
		{"itemAttributes": "genre"}, {"userFilter": 3.0},
	} {
		if err := w.tr.Check(ctx, 1, "shop", TrainRequest{Engine: "hybrid", Configuration: cfg}); err == nil {
			t.Errorf("configuration %v accepted", cfg)
		}
	}
	if err := w.tr.Check(ctx, 1, "shop", TrainRequest{Engine: "magic"}); err == nil {
		t.Error("unknown engine accepted")
	}
	if err := w.tr.Check(ctx, 1, "shop", TrainRequest{Engine: "hybrid", InteractionsFilter: []string{"like"}}); err == nil {
		t.Error("unknown interaction in interactionsFilter accepted")
	}
}

func TestTrainingBudget(t *testing.T) {
	w := newWorld(t, time.Nanosecond)
	ctx := context.Background()
	req := TrainRequest{Engine: "hybrid"}
	if err := w.tr.Check(ctx, 1, "shop", req); err != nil {
		t.Fatal(err) // nothing spent yet
	}
	j, _ := w.q.Submit(ctx, 1, "shop", Train, req)
	if j := waitStatus(t, w.q, 1, "shop", Train, j.ID); j.Status != TrainingTimeOut {
		t.Errorf("status with a 1 ns budget = %s", j.Status)
	}
	err := w.tr.Check(ctx, 1, "shop", req)
	if e, ok := apierr.As(err); !ok || e.Status != 403 || e.Code != apierr.TrainingTimeOut {
		t.Errorf("train after the budget = %v, want 403 TrainingTimeOut", err)
	}
}
