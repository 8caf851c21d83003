package catalog

import (
	"context"
	"reflect"
	"strings"
	"testing"
)

// TestHistoryCacheFollowsWrites checks that a history served from memory equals the one read from
// SQL after every kind of write of records, and that a history read twice without a write between
// comes from memory.
func TestHistoryCacheFollowsWrites(t *testing.T) {
	ctx := context.Background()
	c := newCatalog(t)
	seedMovies(t, c, 5)
	must(t, c.CreateInteraction(ctx, ws, "movies", InteractionDef{ID: "rating", Weight: 1, Type: Categorical, Min: fptr(1), Max: fptr(5)}))
	must(t, c.CreateInteraction(ctx, ws, "movies", InteractionDef{ID: "view", Weight: 1, Type: Unary}))
	must(t, c.AddEntity(ctx, ws, Users, "u1", nil))
	must(t, c.AddEntity(ctx, ws, Users, "u2", nil))
	ts := func(n int64) *int64 { return &n }
	check := func(step string, wantLen int) {
		t.Helper()
		for _, k := range []struct{ scope, id string }{{Users, "u1"}, {"movies", "m0001"}} {
			got, err := c.History(ctx, ws, "movies", k.scope, k.id)
			must(t, err)
			want, err := c.loadHistory(ctx, ws, "movies", k.scope, k.id)
			must(t, err)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s: history of %s = %+v, SQL has %+v", step, k.id, got, want)
			}
			if k.scope == Users && len(got) != wantLen {
				t.Errorf("%s: %d records of u1, want %d", step, len(got), wantLen)
			}
			c.mu.Lock()
			_, kept := c.histories[historyKey{ws, "movies", k.scope, k.id}]
			c.mu.Unlock()
			if !kept {
				t.Errorf("%s: history of %s not kept", step, k.id)
			}
			// the caller's copy is its own: sorting or changing it leaves the cache alone
			if len(got) > 0 {
				got[0].ItemID = "changed"
				again, _ := c.History(ctx, ws, "movies", k.scope, k.id)
				if !reflect.DeepEqual(again, want) {
					t.Errorf("%s: a caller's change reached the cache", step)
				}
			}
		}
	}
	check("empty", 0)
	must(t, c.AddRecord(ctx, ws, "movies", "rating", "u1", "m0001", ts(1000), fptr(4)))
	check("one record", 1)
	must(t, c.AddRecord(ctx, ws, "movies", "rating", "u1", "m0002", ts(2000), fptr(2)))
	must(t, c.AddRecord(ctx, ws, "movies", "view", "u1", "m0001", ts(3000), nil))
	check("three records", 3)
	must(t, c.AddRecord(ctx, ws, "movies", "rating", "u1", "m0001", ts(1000), fptr(5)))
	check("a value replaced", 3)
	must(t, c.DeleteRecord(ctx, ws, "movies", "rating", "u1", "m0002", 2000))
	check("record deleted", 2)
	must(t, c.UpdateInteraction(ctx, ws, "movies", "view", fptr(3), ""))
	check("weight changed", 2)
	if h, _ := c.History(ctx, ws, "movies", Users, "u1"); !(h[0].Def.Weight == 3 || h[1].Def.Weight == 3) {
		t.Errorf("the new weight is not in the history: %+v", h)
	}
	csv := "userId,itemId,timestamp,interactionName,value\nu1,m0003,4000,rating,3\nu1,m0004,5000,rating,1\nu2,m0001,1,rating,2\n"
	if _, err := c.ImportInteractions(ctx, ws, "movies", strings.NewReader(csv), importOpts(FormatCSV)); err != nil {
		t.Fatal(err)
	}
	check("imported", 4)
	must(t, c.DeleteEntity(ctx, ws, "movies", "m0003"))
	check("item deleted", 3)
	must(t, c.DeleteInteraction(ctx, ws, "movies", "view"))
	check("interaction type deleted", 2)
}

// Popularity counts records per item and per user, every interaction type of the table together.
func TestPopularity(t *testing.T) {
	ctx := context.Background()
	c := newCatalog(t)
	seedMovies(t, c, 3)
	must(t, c.CreateInteraction(ctx, ws, "movies", InteractionDef{ID: "view", Weight: 1, Type: Unary}))
	must(t, c.CreateInteraction(ctx, ws, "movies", InteractionDef{ID: "like", Weight: 1, Type: Unary}))
	must(t, c.AddEntity(ctx, ws, Users, "u1", nil))
	must(t, c.AddEntity(ctx, ws, Users, "u2", nil))
	for i, r := range []struct{ def, user, item string }{
		{"view", "u1", "m0000"}, {"view", "u1", "m0000"}, {"like", "u1", "m0000"}, {"view", "u2", "m0000"}, {"view", "u2", "m0001"},
	} {
		ts := int64(i)
		must(t, c.AddRecord(ctx, ws, "movies", r.def, r.user, r.item, &ts, nil))
	}
	items, users, err := c.Popularity(ctx, ws, "movies")
	must(t, err)
	if !reflect.DeepEqual(items, map[string]int{"m0000": 4, "m0001": 1}) || !reflect.DeepEqual(users, map[string]int{"u1": 3, "u2": 2}) {
		t.Errorf("popularity: items %v, users %v", items, users)
	}
}
