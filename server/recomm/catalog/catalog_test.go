package catalog

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/harkhq/hark/server/apierr"
	"github.com/harkhq/hark/server/recomm/rsql"
	"github.com/harkhq/hark/server/store/storetest"
)

const ws = int64(7)

// newCatalog opens a catalog on a new test store: SQLite, or PostgreSQL
// with HARK_TEST_STORE=postgres.
func newCatalog(t testing.TB) *Catalog {
	t.Helper()
	db, err := storetest.Open(t, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	c, err := Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// wantStatus fails unless err is an *apierr.Error with that status.
func wantStatus(t *testing.T, err error, status int, what string) {
	t.Helper()
	e, ok := apierr.As(err)
	if !ok || e.Status != status {
		t.Errorf("%s: got %v, want status %d", what, err, status)
	}
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

var movieAttrs = []Attribute{
	{ID: "title", Type: rsql.String},
	{ID: "year", Type: rsql.Int, Indexed: true},
	{ID: "genres", Type: rsql.CategoryList, Indexed: true, Values: []string{"Comedy", "Drama", "Horror"}},
	{ID: "score", Type: rsql.Double},
	{ID: "kids", Type: rsql.Boolean},
	{ID: "tags", Type: rsql.Set},
}

func TestTables(t *testing.T) {
	ctx := context.Background()
	c := newCatalog(t)
	must(t, c.CreateTable(ctx, ws, "movies", nil, movieAttrs))
	wantStatus(t, c.CreateTable(ctx, ws, "movies", nil, nil), http.StatusConflict, "duplicate table")
	wantStatus(t, c.CreateTable(ctx, ws, "a-very-long-table-id", nil, nil), 400, "16-char table id")
	wantStatus(t, c.CreateTable(ctx, ws, "", nil, nil), 400, "empty table id")
	for _, bad := range []string{`a/b`, `a.b`, `a$`, `a:b`, `a"b`, `a#`, `a%`, `a&`, `a*`, `a?`, `a|b`, `{a}`, `a\b`, `<a>`, "a\x01", "users", "tables"} {
		wantStatus(t, c.CreateTable(ctx, ws, bad, nil, nil), 400, "table id "+bad)
	}
	wantStatus(t, c.CreateTable(ctx, ws, "t2", Engines{"items-to-user": "hybrid"}, nil), 400, "engines without default")
	wantStatus(t, c.CreateTable(ctx, ws, "t2", Engines{"default": "magic"}, nil), 400, "unknown engine")
	wantStatus(t, c.CreateTable(ctx, ws, "t2", Engines{"sideways": "hybrid", "default": "hybrid"}, nil), 400, "unknown slot")
	wantStatus(t, c.CreateTable(ctx, ws, "t2", Engines{"default": "ensemble"}, nil), 400, "ensemble before configuration")
	must(t, c.CreateTable(ctx, ws, "t2", Engines{"items-to-user": "hybrid", "users-to-user": "popular",
		"users-to-item": "fm", "items-to-item": "content_based"}, nil))
	wantStatus(t, c.CreateTable(ctx, ws, "t3", nil, []Attribute{{ID: "expiration", Type: rsql.Timestamp}}), 400, "explicit expiration")

	tb, err := c.Table(ctx, ws, "movies")
	must(t, err)
	if tb.Engines.For(SlotItemsToItem) != "hybrid" {
		t.Errorf("default engine = %v", tb.Engines)
	}
	ids, err := c.Tables(ctx, ws)
	must(t, err)
	if !slices.Equal(ids, []string{"movies", "t2"}) {
		t.Errorf("Tables = %v", ids)
	}
	if other, _ := c.Tables(ctx, ws+1); len(other) != 0 {
		t.Errorf("tables leak across workspaces: %v", other)
	}
	_, err = c.Table(ctx, ws+1, "movies")
	wantStatus(t, err, 404, "table of another workspace")

	norm, err := c.SetEnsemble(ctx, ws, "movies", []EnsembleWeight{{"hybrid", 3}, {"popular", 1}})
	must(t, err)
	if norm[0].Value != 0.75 || norm[1].Value != 0.25 {
		t.Errorf("normalised ensemble = %v", norm)
	}
	_, err = c.SetEnsemble(ctx, ws, "movies", []EnsembleWeight{{"hybrid", 0}})
	wantStatus(t, err, 400, "zero-sum ensemble")
	_, err = c.SetEnsemble(ctx, ws, "movies", []EnsembleWeight{{"hybrid", -1}, {"popular", 2}})
	wantStatus(t, err, 400, "negative weight")
	_, err = c.SetEnsemble(ctx, ws, "movies", []EnsembleWeight{{"ensemble", 1}})
	wantStatus(t, err, 400, "ensemble inside ensemble")
	must(t, c.SetEngines(ctx, ws, "movies", Engines{"default": "ensemble"}))
	wantStatus(t, c.SetEngines(ctx, ws, "t2", Engines{"default": "ensemble"}), 400, "ensemble on a table without one")

	must(t, c.AddEntity(ctx, ws, "movies", "m1", map[string]any{"year": 1999.0}))
	must(t, c.DeleteTable(ctx, ws, "movies"))
	wantStatus(t, c.DeleteTable(ctx, ws, "movies"), 404, "deleted table")
	must(t, c.CreateTable(ctx, ws, "movies", nil, nil))
	if _, err := c.Entity(ctx, ws, "movies", "m1"); err == nil {
		t.Error("an item survived the deletion of its table")
	}
}

func TestAttributes(t *testing.T) {
	ctx := context.Background()
	c := newCatalog(t)
	must(t, c.CreateTable(ctx, ws, "movies", nil, movieAttrs))
	attrs, err := c.Attributes(ctx, ws, "movies")
	must(t, err)
	if len(attrs) != len(movieAttrs)+1 || attrs[0].ID != ExpirationAttribute || attrs[0].Type != rsql.Timestamp {
		t.Errorf("attributes = %+v", attrs)
	}
	wantStatus(t, c.AddAttributes(ctx, ws, "movies", []Attribute{{ID: "title", Type: rsql.String}}), 409, "duplicate attribute")
	wantStatus(t, c.AddAttributes(ctx, ws, "movies", []Attribute{{ID: "s", Type: rsql.Set, Indexed: true}}), 400, "indexed set")
	wantStatus(t, c.AddAttributes(ctx, ws, "movies", []Attribute{{ID: "s", Type: rsql.ImageList, Indexed: true}}), 400, "indexed imageList")
	wantStatus(t, c.AddAttributes(ctx, ws, "movies", []Attribute{{ID: "s"}}), 400, "no type")
	wantStatus(t, c.AddAttributes(ctx, ws, "movies", []Attribute{{ID: "s", Type: rsql.Int, Values: []string{"a"}}}), 400, "values on int")
	wantStatus(t, c.AddAttributes(ctx, ws, "nope", []Attribute{{ID: "s", Type: rsql.Int}}), 404, "unknown table")
	wantStatus(t, c.AddAttributes(ctx, ws, "movies", nil), 400, "no attributes")
	var many []Attribute
	for i := 0; i < MaxIndexed-1; i++ { // year and genres are already indexed
		many = append(many, Attribute{ID: "n" + itoa(i), Type: rsql.Int, Indexed: true})
	}
	wantStatus(t, c.AddAttributes(ctx, ws, "movies", many), 400, "33 indexed attributes")
	must(t, c.AddAttributes(ctx, ws, "movies", many[:MaxIndexed-2]))
	wantStatus(t, c.AddAttributes(ctx, ws, "movies", []Attribute{{ID: "last", Type: rsql.Int, Indexed: true}}), 400, "33rd indexed attribute")

	wantStatus(t, c.AddEntity(ctx, ws, "movies", "m1", map[string]any{"genres": []any{"Western"}}), 400, "value outside categories")
	must(t, c.AddAttributeValues(ctx, ws, "movies", "genres", []string{"Western"}))
	must(t, c.AddEntity(ctx, ws, "movies", "m1", map[string]any{"genres": []any{"Western"}}))
	wantStatus(t, c.AddAttributeValues(ctx, ws, "movies", "year", []string{"x"}), 400, "values on int")
	wantStatus(t, c.AddAttributeValues(ctx, ws, "movies", "nope", []string{"x"}), 404, "values on unknown attribute")

	wantStatus(t, c.DeleteAttribute(ctx, ws, "movies", ExpirationAttribute), 400, "delete expiration")
	must(t, c.DeleteAttribute(ctx, ws, "movies", "genres"))
	e, err := c.Entity(ctx, ws, "movies", "m1")
	must(t, err)
	if len(e.Values) != 0 {
		t.Errorf("values of a deleted attribute survived: %v", e.Values)
	}
	_, err = c.Attribute(ctx, ws, "movies", "genres")
	wantStatus(t, err, 404, "deleted attribute")

	// user attributes: a category declared without values accepts anything
	must(t, c.AddAttributes(ctx, ws, Users, []Attribute{{ID: "city", Type: rsql.Category, Indexed: true}}))
	must(t, c.AddEntity(ctx, ws, Users, "u1", map[string]any{"city": "Madrid"}))

	c.Busy = func(w int64, scope string) bool { return w == ws && scope == "movies" }
	wantStatus(t, c.AddAttributes(ctx, ws, "movies", []Attribute{{ID: "z", Type: rsql.Int}}), http.StatusLocked, "schema change during import")
	wantStatus(t, c.DeleteAttribute(ctx, ws, "movies", "title"), http.StatusLocked, "attribute delete during import")
	wantStatus(t, c.DeleteTable(ctx, ws, "movies"), http.StatusLocked, "table delete during import")
	must(t, c.AddAttributes(ctx, ws, Users, []Attribute{{ID: "z", Type: rsql.Int}}))
}

func TestEntities(t *testing.T) {
	ctx := context.Background()
	c := newCatalog(t)
	must(t, c.CreateTable(ctx, ws, "movies", nil, movieAttrs))
	must(t, c.AddEntity(ctx, ws, "movies", "m1", map[string]any{"title": "Toy Story", "year": 1995.0,
		"genres": []any{"Comedy"}, "score": "8.5", "kids": "yes", "tags": []any{"pixar"}, "expiration": "2030-01-01T00:00:00Z"}))
	wantStatus(t, c.AddEntity(ctx, ws, "movies", "m1", nil), 409, "duplicate item")
	bad := []map[string]any{
		{"year": "old"}, {"year": 1.5}, {"score": true}, {"kids": "perhaps"}, {"tags": "pixar"},
		{"nope": 1.0}, {"title": 3.0}, {"expiration": "tomorrow"}, {"year": nil},
	}
	for _, b := range bad {
		wantStatus(t, c.AddEntity(ctx, ws, "movies", "m2", b), 400, "bad values")
	}
	wantStatus(t, c.AddEntity(ctx, ws, "movies", strings.Repeat("x", 256), nil), 400, "long id")
	wantStatus(t, c.AddEntity(ctx, ws, "movies", "a/b", nil), 400, "bad id")
	e, err := c.Entity(ctx, ws, "movies", "m1")
	must(t, err)
	if e.Values["year"] != int64(1995) || e.Values["score"] != 8.5 || e.Values["kids"] != true ||
		e.Values["expiration"] != int64(1893456000000) || !slices.Equal(e.Values["tags"].([]string), []string{"pixar"}) {
		t.Errorf("stored values = %#v", e.Values)
	}
	must(t, c.UpdateEntity(ctx, ws, "movies", "m1", map[string]any{"year": 1996.0, "title": nil}))
	e, _ = c.Entity(ctx, ws, "movies", "m1")
	if e.Values["year"] != int64(1996) || e.Values["title"] != nil || e.Values["score"] != 8.5 {
		t.Errorf("patched values = %#v", e.Values)
	}
	wantStatus(t, c.UpdateEntity(ctx, ws, "movies", "zz", map[string]any{"year": 1.0}), 404, "patch unknown")
	// the index follows the patch
	got, err := c.List(ctx, ws, "movies", ListQuery{Filter: "year==1996"})
	must(t, err)
	if len(got) != 1 {
		t.Errorf("indexed lookup after patch = %v", got)
	}
	if got, _ := c.List(ctx, ws, "movies", ListQuery{Filter: "year==1995"}); len(got) != 0 {
		t.Errorf("stale index row after patch: %v", got)
	}
	must(t, c.DeleteEntity(ctx, ws, "movies", "m1"))
	wantStatus(t, c.DeleteEntity(ctx, ws, "movies", "m1"), 404, "deleted item")
	if got, _ := c.List(ctx, ws, "movies", ListQuery{Filter: "year==1996"}); len(got) != 0 {
		t.Errorf("index row survived deletion: %v", got)
	}
}

func seedMovies(t testing.TB, c *Catalog, n int) {
	ctx := context.Background()
	must(t, c.CreateTable(ctx, ws, "movies", nil, movieAttrs))
	genres := []string{"Comedy", "Drama", "Horror"}
	for i := 0; i < n; i++ {
		must(t, c.AddEntity(ctx, ws, "movies", itemID(i), map[string]any{
			"year": float64(1990 + i%20), "genres": []any{genres[i%3]}, "score": float64(i % 10), "title": "t" + itemID(i)}))
	}
}

func itemID(i int) string { return "m" + strings.Repeat("0", 4-len(itoa(i))) + itoa(i) }

func itoa(i int) string {
	s := ""
	for {
		s = string(rune('0'+i%10)) + s
		i /= 10
		if i == 0 {
			return s
		}
	}
}

func ids(es []Entity) []string {
	out := []string{}
	for _, e := range es {
		out = append(out, e.ID)
	}
	return out
}

func TestList(t *testing.T) {
	ctx := context.Background()
	c := newCatalog(t)
	seedMovies(t, c, 60)
	all, err := c.List(ctx, ws, "movies", ListQuery{})
	must(t, err)
	if len(all) != 60 || all[0].ID != "m0000" {
		t.Fatalf("List = %d entities", len(all))
	}
	p1, _ := c.List(ctx, ws, "movies", ListQuery{Limit: 10})
	p2, _ := c.List(ctx, ws, "movies", ListQuery{Limit: 10, AfterID: p1[9].ID})
	if len(p1) != 10 || p2[0].ID != "m0010" {
		t.Errorf("pages: %v then %v", ids(p1), ids(p2))
	}
	for _, tc := range []struct {
		filter string
		n      int
	}{
		{"year==1990", 3}, {"year=ge=2005;genres==Comedy", 5}, {"genres=in=(Drama,Horror)", 40},
		{"year=lt=1992,score=gt=8", 12}, {"genres!=Comedy;year==1991", 2}, {"title==tm0005", 1},
		{"(year==1990,year==1991);score=le=0", 3},
	} {
		got, err := c.List(ctx, ws, "movies", ListQuery{Filter: tc.filter})
		must(t, err)
		f, _ := rsql.ParseChecked(tc.filter, rsql.Schema{"year": rsql.Int, "genres": rsql.CategoryList, "score": rsql.Double, "title": rsql.String})
		n := 0
		for _, e := range all {
			if f.Eval(e) {
				n++
			}
		}
		if len(got) != tc.n || n != tc.n {
			t.Errorf("%s: SQL %d, in memory %d, want %d", tc.filter, len(got), n, tc.n)
		}
	}
	sorted, err := c.List(ctx, ws, "movies", ListQuery{Sort: "score==DESC;year==ASC", Limit: 5})
	must(t, err)
	if sorted[0].Values["score"] != 9.0 || sorted[0].ID != "m0009" || sorted[1].ID != "m0029" {
		t.Errorf("sorted = %v %v", ids(sorted), sorted[0].Values)
	}
	next, err := c.List(ctx, ws, "movies", ListQuery{Sort: "score==DESC;year==ASC", Limit: 5, AfterID: sorted[4].ID})
	must(t, err)
	if next[0].ID == sorted[4].ID || len(next) != 5 {
		t.Errorf("sorted page 2 = %v", ids(next))
	}
	for _, q := range []ListQuery{{Filter: "nope==1"}, {Filter: "year=gt="}, {Sort: "tags==ASC"}, {Limit: 1001},
		{Limit: -1}, {Sort: "year==ASC", AfterID: "zzz"}, {Filter: "year==abc"}} {
		_, err := c.List(ctx, ws, "movies", q)
		wantStatus(t, err, 400, "bad list query")
	}
	_, err = c.List(ctx, ws, "films", ListQuery{})
	wantStatus(t, err, 404, "list of unknown table")
}

// TestIndexedFilterNeverScans proves with EXPLAIN QUERY PLAN that a filter
// on indexed attributes is answered by index searches, and that a filter
// on a non-indexed attribute does walk the table (so the test can fail).
// On PostgreSQL, see pgIndexedFilterNeverScans.
func TestIndexedFilterNeverScans(t *testing.T) {
	ctx := context.Background()
	c := newCatalog(t)
	seedMovies(t, c, 30)
	s, err := c.schema(ctx, c.db, ws, "movies")
	must(t, err)
	if c.d.shared {
		pgIndexedFilterNeverScans(t, c, s)
		return
	}
	plan := func(filter string) string {
		q, args, err := c.listSQL(s, ws, filter, "m0003", true, 10)
		must(t, err)
		rows, err := c.db.QueryContext(ctx, "EXPLAIN QUERY PLAN "+q, args...)
		must(t, err)
		defer rows.Close()
		var lines []string
		for rows.Next() {
			var id, parent, notused int
			var detail string
			must(t, rows.Scan(&id, &parent, &notused, &detail))
			lines = append(lines, detail)
		}
		return strings.Join(lines, "\n")
	}
	for _, f := range []string{"year=gt=1995", "year==1990;genres==Comedy", "genres=in=(Drama,Horror),year=le=1991",
		"year!=1990", "genres=out=(Comedy)"} {
		p := plan(f)
		if strings.Contains(p, "SCAN e") || strings.Contains(p, "SCAN recomm_entities") || strings.Contains(p, "SCAN recomm_index") {
			t.Errorf("%s scans:\n%s", f, p)
		}
		if !strings.Contains(p, "USING INTEGER PRIMARY KEY") || !strings.Contains(p, "recomm_index") {
			t.Errorf("%s is not driven by the index:\n%s", f, p)
		}
	}
	if p := plan("score=gt=3"); strings.Contains(p, "recomm_index") {
		t.Errorf("non-indexed filter used the index:\n%s", p)
	}
}

// pgIndexedFilterNeverScans is TestIndexedFilterNeverScans on PostgreSQL.
// Its planner reads whole tables of 30 rows rather than their indexes, so
// the test forbids sequential scans (enable_seqscan off makes them a last
// resort, still chosen when nothing else answers) and checks that the plan
// of an indexed filter then has none, reads recomm_index and probes the
// entities by primary key, and that a filter on a non-indexed attribute
// does not read recomm_index.
func pgIndexedFilterNeverScans(t *testing.T, c *Catalog, s *schema) {
	ctx := context.Background()
	conn, err := c.db.Conn(ctx)
	must(t, err)
	defer conn.Close()
	// and joins other than nested loops: with 30 rows a hash join over the
	// whole entities index is cheapest, with many it is not
	for _, s := range []string{"enable_seqscan", "enable_hashjoin", "enable_mergejoin"} {
		_, err = conn.ExecContext(ctx, `SET `+s+` = off`)
		must(t, err)
		defer conn.ExecContext(ctx, `RESET `+s)
	}
	_, err = conn.ExecContext(ctx, `ANALYZE`)
	must(t, err)
	plan := func(filter string) string {
		q, args, err := c.listSQL(s, ws, filter, "m0003", true, 10)
		must(t, err)
		rows, err := conn.QueryContext(ctx, "EXPLAIN (COSTS OFF) "+q, args...)
		must(t, err)
		defer rows.Close()
		var lines []string
		for rows.Next() {
			var line string
			must(t, rows.Scan(&line))
			lines = append(lines, line)
		}
		must(t, rows.Err())
		return strings.Join(lines, "\n")
	}
	for _, f := range []string{"year=gt=1995", "year==1990;genres==Comedy", "genres=in=(Drama,Horror),year=le=1991",
		"year!=1990", "genres=out=(Comedy)"} {
		p := plan(f)
		if strings.Contains(p, "Seq Scan") {
			t.Errorf("%s scans:\n%s", f, p)
		}
		if !strings.Contains(p, "recomm_index") {
			t.Errorf("%s is not driven by the index:\n%s", f, p)
		}
		// a selective id set drives the join: entities are probed by primary
		// key (for != and =out=, which keep most entities, walking the
		// entities in listing order up to the limit is the planner's choice)
		if !strings.Contains(f, "!") && !strings.Contains(f, "out") && !strings.Contains(p, "Index Cond: (eid = ") {
			t.Errorf("%s does not probe the entities by key:\n%s", f, p)
		}
	}
	if p := plan("score=gt=3"); strings.Contains(p, "recomm_index") {
		t.Errorf("non-indexed filter used the index:\n%s", p)
	}
}

func TestInteractionDefinitions(t *testing.T) {
	ctx := context.Background()
	c := newCatalog(t)
	must(t, c.CreateTable(ctx, ws, "movies", nil, nil))
	f := fptr
	good := []InteractionDef{
		{ID: "view", Weight: 1, Type: Unary},
		{ID: "like", Weight: 5, Type: Binary, Polarity: Negative},
		{ID: "rating", Weight: 10, Type: Categorical, Min: f(1), Max: f(5)},
		{ID: "minutes", Weight: 0, Type: Continuous, Cumulative: true, Min: f(0)},
	}
	for _, d := range good {
		must(t, c.CreateInteraction(ctx, ws, "movies", d))
	}
	bad := []InteractionDef{
		{ID: "x", Weight: 11, Type: Unary}, {ID: "x", Weight: -1, Type: Unary}, {ID: "x", Weight: 1, Type: "ternary"},
		{ID: "x", Weight: 1, Type: Unary, Min: f(1), Max: f(2)}, {ID: "x", Weight: 1, Type: Binary, Min: f(1), Max: f(1)},
		{ID: "x", Weight: 1, Type: Categorical}, {ID: "x", Weight: 1, Type: Categorical, Min: f(1.5), Max: f(3)},
		{ID: "x", Weight: 1, Type: Continuous, Min: f(3), Max: f(2)}, {ID: "x/y", Weight: 1, Type: Unary},
		{ID: "x", Weight: 1, Type: Unary, Polarity: "neutral"},
	}
	for _, d := range bad {
		wantStatus(t, c.CreateInteraction(ctx, ws, "movies", d), 400, "bad definition "+d.ID)
	}
	wantStatus(t, c.CreateInteraction(ctx, ws, "movies", good[0]), 409, "duplicate definition")
	wantStatus(t, c.CreateInteraction(ctx, ws, "films", good[0]), 404, "definition on unknown table")
	d, err := c.Interaction(ctx, ws, "movies", "view")
	must(t, err)
	if *d.Min != 1 || *d.Max != 1 || d.Polarity != Positive {
		t.Errorf("unary defaults = %+v", d)
	}
	d, _ = c.Interaction(ctx, ws, "movies", "minutes")
	if lo, hi := d.Bounds(); lo != 0 || hi < 1e308 {
		t.Errorf("continuous bounds = %v %v", lo, hi)
	}
	w := 2.5
	must(t, c.UpdateInteraction(ctx, ws, "movies", "view", &w, "watch"))
	d, err = c.Interaction(ctx, ws, "movies", "watch")
	must(t, err)
	if d.Weight != 2.5 {
		t.Errorf("patched weight = %v", d.Weight)
	}
	wantStatus(t, c.UpdateInteraction(ctx, ws, "movies", "watch", nil, ""), 400, "empty patch")
	wantStatus(t, c.UpdateInteraction(ctx, ws, "movies", "watch", nil, "like"), 409, "rename onto existing")
	big := 10.5
	wantStatus(t, c.UpdateInteraction(ctx, ws, "movies", "watch", &big, ""), 400, "weight over 10")
	wantStatus(t, c.UpdateInteraction(ctx, ws, "movies", "nope", &w, ""), 404, "patch unknown")
	list, _ := c.Interactions(ctx, ws, "movies")
	if len(list) != 4 {
		t.Errorf("definitions = %v", list)
	}
	must(t, c.DeleteInteraction(ctx, ws, "movies", "like"))
	wantStatus(t, c.DeleteInteraction(ctx, ws, "movies", "like"), 404, "deleted definition")
}

func TestRecords(t *testing.T) {
	ctx := context.Background()
	c := newCatalog(t)
	seedMovies(t, c, 5)
	must(t, c.CreateInteraction(ctx, ws, "movies", InteractionDef{ID: "rating", Weight: 1, Type: Categorical, Min: fptr(1), Max: fptr(5)}))
	must(t, c.CreateInteraction(ctx, ws, "movies", InteractionDef{ID: "view", Weight: 1, Type: Unary}))
	must(t, c.CreateInteraction(ctx, ws, "movies", InteractionDef{ID: "minutes", Weight: 1, Type: Continuous, Cumulative: true, Min: fptr(0)}))
	must(t, c.AddEntity(ctx, ws, Users, "u1", nil))
	must(t, c.AddEntity(ctx, ws, Users, "u2", nil))
	ts := func(n int64) *int64 { return &n }
	must(t, c.AddRecord(ctx, ws, "movies", "rating", "u1", "m0001", ts(1000), fptr(4)))
	must(t, c.AddRecord(ctx, ws, "movies", "rating", "u1", "m0002", ts(2000), fptr(2)))
	must(t, c.AddRecord(ctx, ws, "movies", "rating", "u2", "m0001", ts(3000), fptr(5)))
	must(t, c.AddRecord(ctx, ws, "movies", "view", "u1", "m0001", nil, nil))
	must(t, c.AddRecord(ctx, ws, "movies", "minutes", "u1", "m0003", ts(5), fptr(10)))
	must(t, c.AddRecord(ctx, ws, "movies", "minutes", "u1", "m0003", ts(5), fptr(15)))
	for _, v := range []*float64{nil, fptr(6), fptr(2.5), fptr(0)} {
		wantStatus(t, c.AddRecord(ctx, ws, "movies", "rating", "u1", "m0001", ts(1), v), 400, "bad rating value")
	}
	wantStatus(t, c.AddRecord(ctx, ws, "movies", "view", "u1", "m0001", ts(1), fptr(2)), 400, "unary with other value")
	wantStatus(t, c.AddRecord(ctx, ws, "movies", "rating", "nobody", "m0001", ts(1), fptr(3)), 404, "unknown user")
	wantStatus(t, c.AddRecord(ctx, ws, "movies", "rating", "u1", "m9999", ts(1), fptr(3)), 404, "unknown item")
	wantStatus(t, c.AddRecord(ctx, ws, "movies", "nope", "u1", "m0001", ts(1), fptr(3)), 404, "unknown interaction")

	rs, err := c.UserRecords(ctx, ws, "movies", "u1", "rating", ListQuery{})
	must(t, err)
	if len(rs) != 2 || rs[0].ItemID != "m0001" || rs[0].Value != 4 || rs[0].Timestamp != 1000 {
		t.Errorf("user records = %+v", rs)
	}
	rs, _ = c.UserRecords(ctx, ws, "movies", "u1", "rating", ListQuery{Filter: "value=gt=3"})
	if len(rs) != 1 {
		t.Errorf("filtered records = %+v", rs)
	}
	rs, _ = c.ItemRecords(ctx, ws, "movies", "m0001", "rating", ListQuery{Sort: "value==DESC"})
	if len(rs) != 2 || rs[0].UserID != "u2" {
		t.Errorf("item records sorted = %+v", rs)
	}
	rs, _ = c.ItemRecords(ctx, ws, "movies", "m0001", "rating", ListQuery{Limit: 1, AfterID: "u1"})
	if len(rs) != 1 || rs[0].UserID != "u2" {
		t.Errorf("item records after u1 = %+v", rs)
	}
	rs, _ = c.UserRecords(ctx, ws, "movies", "u1", "minutes", ListQuery{})
	if len(rs) != 1 || rs[0].Value != 25 {
		t.Errorf("cumulative record = %+v", rs)
	}
	_, err = c.UserRecords(ctx, ws, "movies", "u1", "rating", ListQuery{Filter: "colour==red"})
	wantStatus(t, err, 400, "filter on unknown field")

	must(t, c.DeleteRecord(ctx, ws, "movies", "rating", "u1", "m0002", 2000))
	wantStatus(t, c.DeleteRecord(ctx, ws, "movies", "rating", "u1", "m0002", 2000), 404, "deleted record")
	must(t, c.DeleteEntity(ctx, ws, Users, "u2"))
	rs, _ = c.ItemRecords(ctx, ws, "movies", "m0001", "rating", ListQuery{})
	if len(rs) != 1 {
		t.Errorf("records of a deleted user survived: %+v", rs)
	}
	must(t, c.DeleteAllUsers(ctx, ws))
	rs, _ = c.ItemRecords(ctx, ws, "movies", "m0001", "rating", ListQuery{})
	if len(rs) != 0 {
		t.Errorf("records survived DeleteAllUsers: %+v", rs)
	}
}

func TestKeywords(t *testing.T) {
	ctx := context.Background()
	c := newCatalog(t)
	must(t, c.AddEntity(ctx, ws, Users, "u1", nil))
	must(t, c.AddKeywords(ctx, ws, "u1", []string{"jazz", "cooking", "jazz"}))
	wantStatus(t, c.AddKeywords(ctx, ws, "nobody", []string{"x"}), 404, "keywords of unknown user")
	wantStatus(t, c.AddKeywords(ctx, ws, "u1", nil), 400, "no keywords")
	wantStatus(t, c.AddKeywords(ctx, ws, "u1", []string{""}), 400, "empty keyword")
	kw, err := c.Keywords(ctx, ws, "u1")
	must(t, err)
	if !slices.Equal(kw, []string{"cooking", "jazz"}) {
		t.Errorf("keywords = %v", kw)
	}
	must(t, c.DeleteKeywords(ctx, ws, "u1", []string{"jazz"}))
	kw, _ = c.Keywords(ctx, ws, "u1")
	if !slices.Equal(kw, []string{"cooking"}) {
		t.Errorf("after subset delete = %v", kw)
	}
	must(t, c.DeleteKeywords(ctx, ws, "u1", nil))
	kw, _ = c.Keywords(ctx, ws, "u1")
	if len(kw) != 0 {
		t.Errorf("after delete all = %v", kw)
	}
}

func TestSnapshot(t *testing.T) {
	ctx := context.Background()
	c := newCatalog(t)
	seedMovies(t, c, 3)
	must(t, c.UpdateEntity(ctx, ws, "movies", "m0001", map[string]any{"expiration": 1000.0}))
	s1, err := c.Snapshot(ctx, ws, "movies")
	must(t, err)
	if len(s1.IDs) != 3 || !s1.Expired("m0001", 2000) || s1.Expired("m0002", 2000) || s1.Expired("m0001", 999) {
		t.Errorf("snapshot = %v", s1.IDs)
	}
	if s2, _ := c.Snapshot(ctx, ws, "movies"); s2 != s1 {
		t.Error("unchanged scope rebuilt its snapshot")
	}
	must(t, c.AddEntity(ctx, ws, "movies", "m0100", map[string]any{"year": 2001.0}))
	s3, _ := c.Snapshot(ctx, ws, "movies")
	if v, ok := s3.Values("m0100"); !ok || v["year"] != int64(2001) {
		t.Errorf("snapshot after write misses the new item: %v", s3.IDs)
	}
}

func TestValidateID(t *testing.T) {
	if err := validateID("x", "héllo wörld-_+~!", 64); err != nil {
		t.Errorf("valid id refused: %v", err)
	}
	var e *apierr.Error
	if err := validateID("x", "a>b", 64); !errors.As(err, &e) || !strings.Contains(e.Description, `">"`) {
		t.Errorf("error does not name the character: %v", err)
	}
}
