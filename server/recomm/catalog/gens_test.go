package catalog

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/harkhq/hark/server/store/storetest"
)

// TestCachesFollowOtherProcessWrites opens two catalogs on one PostgreSQL
// database through two connection pools, as two harkd processes behind a
// load balancer do. Each step writes through one and then reads through
// the other, whose snapshots, histories, table descriptions and interaction
// types were cached before the write: every read must show the write
// (read-your-writes across processes), and a read with no write since must
// come from the cache. With generations in process memory only, the reader
// would answer from its stale cache and the test fails.
func TestCachesFollowOtherProcessWrites(t *testing.T) {
	if storetest.Engine() != "postgres" {
		t.Skip("one harkd process writes a SQLite store; run with HARK_TEST_STORE=postgres")
	}
	ctx := context.Background()
	dir := t.TempDir()
	open := func() *Catalog {
		db, err := storetest.Open(t, dir)
		must(t, err)
		c, err := Open(ctx, db)
		must(t, err)
		return c
	}
	w, r := open(), open()
	seedMovies(t, w, 5)
	must(t, w.CreateInteraction(ctx, ws, "movies", InteractionDef{ID: "rating", Weight: 1, Type: Categorical, Min: fptr(1), Max: fptr(5)}))
	must(t, w.AddEntity(ctx, ws, Users, "u1", nil))
	ts := func(n int64) *int64 { return &n }

	// read fills r's caches and checks them against SQL
	read := func(step string) {
		t.Helper()
		h, err := r.History(ctx, ws, "movies", Users, "u1")
		must(t, err)
		wantH, err := r.loadHistory(ctx, ws, "movies", Users, "u1")
		must(t, err)
		if !reflect.DeepEqual(h, wantH) {
			t.Errorf("%s: history %+v, SQL has %+v", step, h, wantH)
		}
		tb, err := r.Table(ctx, ws, "movies")
		must(t, err)
		wantT, err := r.loadTable(ctx, ws, "movies")
		must(t, err)
		if !reflect.DeepEqual(tb, wantT) {
			t.Errorf("%s: table %+v, SQL has %+v", step, tb, wantT)
		}
		defs, err := r.Interactions(ctx, ws, "movies")
		must(t, err)
		sqlDefs, err := r.loadInteractionDefs(ctx, r.db, ws, "movies")
		must(t, err)
		if len(defs) != len(sqlDefs) {
			t.Errorf("%s: %d interaction types, SQL has %d", step, len(defs), len(sqlDefs))
		}
		for i := range min(len(defs), len(sqlDefs)) {
			if !reflect.DeepEqual(defs[i], sqlDefs[i].InteractionDef) {
				t.Errorf("%s: interaction type %+v, SQL has %+v", step, defs[i], sqlDefs[i].InteractionDef)
			}
		}
		snap, err := r.Snapshot(ctx, ws, "movies")
		must(t, err)
		list, err := r.List(ctx, ws, "movies", ListQuery{})
		must(t, err)
		if len(snap.IDs) != len(list) {
			t.Errorf("%s: snapshot of %d items, SQL has %d", step, len(snap.IDs), len(list))
		}
		for _, e := range list {
			if v, ok := snap.Values(e.ID); !ok || !reflect.DeepEqual(map[string]any(v), e.Values) {
				t.Errorf("%s: snapshot has %s = %v, SQL %v", step, e.ID, v, e.Values)
			}
		}
		// unchanged since: from memory
		if again, _ := r.Snapshot(ctx, ws, "movies"); again != snap {
			t.Errorf("%s: a second snapshot read without a write was rebuilt", step)
		}
		r.mu.Lock()
		_, kept := r.histories[historyKey{ws, "movies", Users, "u1"}]
		r.mu.Unlock()
		if !kept {
			t.Errorf("%s: history not kept", step)
		}
	}
	read("seeded")
	must(t, w.AddRecord(ctx, ws, "movies", "rating", "u1", "m0001", ts(1000), fptr(4)))
	read("record added")
	must(t, w.AddRecord(ctx, ws, "movies", "rating", "u1", "m0001", ts(1000), fptr(2)))
	read("record replaced")
	must(t, w.SetEngines(ctx, ws, "movies", Engines{SlotDefault: "popular"}))
	read("engines set")
	must(t, w.SetDisplay(ctx, ws, "movies", "title"))
	read("display set")
	must(t, w.CreateInteraction(ctx, ws, "movies", InteractionDef{ID: "view", Weight: 1, Type: Unary}))
	read("interaction type created")
	must(t, w.UpdateInteraction(ctx, ws, "movies", "rating", fptr(7), ""))
	read("weight changed")
	must(t, w.UpdateEntity(ctx, ws, "movies", "m0002", map[string]any{"year": float64(2001)}))
	read("item changed")
	must(t, w.AddEntity(ctx, ws, "movies", "m0100", map[string]any{"title": "new"}))
	read("item added")
	csv := "itemId,title\nm0200,imported\nm0201,imported too\n"
	_, err := w.ImportEntities(ctx, ws, "movies", strings.NewReader(csv), importOpts(FormatCSV))
	must(t, err)
	read("items imported")
	csv = "userId,itemId,timestamp,interactionName,value\nu1,m0003,4000,rating,3\nu1,m0004,5000,view,\n"
	_, err = w.ImportInteractions(ctx, ws, "movies", strings.NewReader(csv), importOpts(FormatCSV))
	must(t, err)
	read("records imported")
	must(t, w.DeleteAttribute(ctx, ws, "movies", "score"))
	read("attribute deleted")
	must(t, w.DeleteEntity(ctx, ws, "movies", "m0003"))
	read("item deleted")
	must(t, w.DeleteRecord(ctx, ws, "movies", "rating", "u1", "m0001", 1000))
	read("record deleted")
	must(t, w.DeleteInteraction(ctx, ws, "movies", "view"))
	read("interaction type deleted")
	must(t, w.RecordTraining(ctx, ws, "movies", TrainConfig{Engine: "popular", Configuration: map[string]any{"k": 1.0}}))
	read("training recorded")
}

// A NUL character, which PostgreSQL keeps in no text or JSON value, is
// refused with a 400 on both engines alike, wherever a value comes in.
func TestNULRefusedOnBothEngines(t *testing.T) {
	ctx := context.Background()
	c := newCatalog(t)
	seedMovies(t, c, 2)
	must(t, c.AddEntity(ctx, ws, Users, "u1", nil))
	wantStatus(t, c.AddEntity(ctx, ws, "movies", "m9", map[string]any{"title": "a\x00b"}), 400, "NUL in a string value")
	wantStatus(t, c.AddEntity(ctx, ws, "movies", "m9", map[string]any{"tags": []any{"x\x00"}}), 400, "NUL in a list member")
	wantStatus(t, c.UpdateEntity(ctx, ws, "movies", itemID(1), map[string]any{"title": "\x00"}), 400, "NUL in an update")
	_, err := c.List(ctx, ws, "movies", ListQuery{Filter: "title==\"a\x00\""})
	wantStatus(t, err, 400, "NUL in a filter")
	wantStatus(t, c.AddKeywords(ctx, ws, "u1", []string{"k\x00"}), 400, "NUL in a keyword")
	res, err := c.ImportEntities(ctx, ws, "movies", strings.NewReader("itemId,title\nm10,\"a\x00\"\nm11,fine\n"), importOpts(FormatCSV))
	must(t, err)
	if res.Added != 1 || res.NotAddedCount != 1 {
		t.Errorf("import with a NUL in one row: %+v", res)
	}
}

// Under ReadOnce a request reads the generations once: a write by another
// process after that read is seen by the next request, not by this one.
func TestReadOnce(t *testing.T) {
	if storetest.Engine() != "postgres" {
		t.Skip("generations are read from the database on PostgreSQL only")
	}
	ctx := context.Background()
	dir := t.TempDir()
	open := func() *Catalog {
		db, err := storetest.Open(t, dir)
		must(t, err)
		c, err := Open(ctx, db)
		must(t, err)
		return c
	}
	w, r := open(), open()
	seedMovies(t, w, 3)
	engines := func(ctx context.Context) string {
		t.Helper()
		tb, err := r.Table(ctx, ws, "movies")
		must(t, err)
		return tb.Engines.For(SlotDefault)
	}
	req := ReadOnce(ctx)
	if got := engines(req); got != "hybrid" {
		t.Fatalf("engine %s, want hybrid", got)
	}
	must(t, w.SetEngines(ctx, ws, "movies", Engines{SlotDefault: "popular"}))
	if got := engines(req); got != "hybrid" {
		t.Errorf("the same request saw a write made after its generations were read: %s", got)
	}
	if got := engines(ReadOnce(ctx)); got != "popular" {
		t.Errorf("the next request did not see the write: %s", got)
	}
	if got := engines(ctx); got != "popular" {
		t.Errorf("a read without ReadOnce did not see the write: %s", got)
	}
	// scopes with no generation row yet read as generation 0 under the memo too
	snap, err := r.Snapshot(ReadOnce(ctx), ws+1, Users)
	must(t, err)
	if len(snap.IDs) != 0 {
		t.Errorf("users of an empty workspace: %v", snap.IDs)
	}
}
