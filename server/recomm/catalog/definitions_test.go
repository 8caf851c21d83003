package catalog

import (
	"context"
	"reflect"
	"testing"
	"time"

	eng "github.com/harkhq/hark/server/recomm/engines"
)

// TestDefinitionsCacheFollowsWrites checks that the table description and the interaction types
// served from memory equal what SQL holds after every kind of write of them, and that they are
// kept in memory between writes. Removing any of the generation bumps makes a step fail.
func TestDefinitionsCacheFollowsWrites(t *testing.T) {
	ctx := context.Background()
	c := newCatalog(t)
	seedMovies(t, c, 3)
	check := func(step string) {
		t.Helper()
		for range 2 { // the second read comes from memory
			got, err := c.Table(ctx, ws, "movies")
			must(t, err)
			want, err := c.loadTable(ctx, ws, "movies")
			must(t, err)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s: table = %+v, SQL has %+v", step, got, want)
			}
			gotDefs, err := c.interactionDefs(ctx, c.db, ws, "movies")
			must(t, err)
			wantDefs, err := c.loadInteractionDefs(ctx, c.db, ws, "movies")
			must(t, err)
			if !reflect.DeepEqual(gotDefs, wantDefs) {
				t.Errorf("%s: interaction types = %+v, SQL has %+v", step, gotDefs, wantDefs)
			}
			// a caller's change stays its own
			got.Engines[SlotDefault] = "changed"
			if len(gotDefs) > 0 {
				gotDefs[0].Weight = 99
			}
		}
		c.mu.Lock()
		e := c.tableDefs[tableKey{ws, "movies"}]
		c.mu.Unlock()
		if !e.hasTable || !e.hasDefs {
			t.Errorf("%s: definitions not kept in memory", step)
		}
	}
	check("created")
	must(t, c.CreateInteraction(ctx, ws, "movies", InteractionDef{ID: "rating", Weight: 1, Type: Categorical, Min: fptr(1), Max: fptr(5)}))
	check("interaction type created")
	must(t, c.UpdateInteraction(ctx, ws, "movies", "rating", fptr(2), ""))
	check("weight changed")
	must(t, c.UpdateInteraction(ctx, ws, "movies", "rating", nil, "stars"))
	check("interaction type renamed")
	must(t, c.CreateInteraction(ctx, ws, "movies", InteractionDef{ID: "view", Weight: 1, Type: Unary}))
	must(t, c.DeleteInteraction(ctx, ws, "movies", "view"))
	check("interaction type deleted")
	_, err := c.SetEnsemble(ctx, ws, "movies", []EnsembleWeight{{Engine: eng.Hybrid, Value: 1}})
	must(t, err)
	check("ensemble set")
	must(t, c.SetEngines(ctx, ws, "movies", Engines{SlotDefault: eng.Hybrid, SlotItemsToUser: eng.Ensemble}))
	check("engines set")
	must(t, c.SetDisplay(ctx, ws, "movies", "title"))
	check("display set")
	must(t, c.RecordTraining(ctx, ws, "movies", TrainConfig{Engine: eng.Hybrid, Finished: time.UnixMilli(1000).UTC(), Configuration: map[string]any{"k": 1.0}}))
	check("training recorded")
	must(t, c.RecordTraining(ctx, ws, "movies", TrainConfig{Engine: eng.Hybrid, Finished: time.UnixMilli(2000).UTC(), Configuration: map[string]any{"k": 2.0}}))
	check("training recorded again")
	must(t, c.DeleteTable(ctx, ws, "movies"))
	if _, err := c.Table(ctx, ws, "movies"); err == nil {
		t.Errorf("a deleted table is still described")
	}
	if _, err := c.Interactions(ctx, ws, "movies"); err == nil {
		t.Errorf("a deleted table still has interaction types")
	}
	seedMovies(t, c, 1)
	check("created again")
}
