package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/harkhq/hark/client"
	"github.com/harkhq/hark/server/recomm/catalog"
	"github.com/harkhq/hark/server/store"
	"github.com/harkhq/hark/server/store/storetest"
)

// platformState is what a user of an embedded platform can read back
// over HTTP: the copy must keep every part of it.
type platformState struct {
	Survey client.Survey
	File   string
	Places []client.Place
}

// TestStoreCopy fills an embedded platform through a real harkd on SQLite
// (an account, a survey answer, a storage file, a tracking dataset, a
// conversation waiting for its answer), copies it into PostgreSQL with
// harkd store copy, and starts harkd on PostgreSQL with the same --data:
// every table holds the same rows, the account logs in with its password,
// the user reads back the same survey, file and places, and continues the
// conversation; a new account gets a fresh id (the sequences were reset).
// A second copy into the now filled database is refused and changes
// nothing.
func TestStoreCopy(t *testing.T) {
	t.Setenv("HARKD_STORE", "")
	ctx := context.Background()
	data := t.TempDir()
	h := startHarkd(t, serveArgs(data)...)
	c := h.client(t)
	if _, err := c.Auth.Register(ctx, "ana@example.com", "correct horse", "Ana", "dev-1"); err != nil {
		t.Fatal(err)
	}
	surveys, err := c.Surveys.List(ctx)
	if err != nil || len(surveys) == 0 {
		t.Fatalf("surveys: %v %v", surveys, err)
	}
	sv, err := c.Surveys.Get(ctx, surveys[0].SurveyID)
	if err != nil || len(sv.Items) < 3 {
		t.Fatalf("survey: %+v %v", sv, err)
	}
	if _, err := c.Surveys.Save(ctx, sv.ID, []int{sv.Items[0].ID, sv.Items[2].ID}); err != nil {
		t.Fatal(err)
	}
	const content = "kept across the move\n"
	if _, err := c.Storage.Upload(ctx, "", "kept.txt", strings.NewReader(content), int64(len(content)), nil); err != nil {
		t.Fatal(err)
	}
	job, err := c.Tracking.Upload(ctx, c.Tracking.DatasetURL("london"))
	if err != nil {
		t.Fatal(err)
	}
	if job, err = c.Tracking.Wait(ctx, job.RequestID, 50*time.Millisecond, nil); err != nil || job.Status != "completed" {
		t.Fatalf("tracking job: %+v %v", job, err)
	}
	asked, err := c.Dialogue.Text(ctx, "set an alarm for tomorrow", 0)
	if err != nil || !asked.Asks() || asked.Context.Ref == 0 {
		t.Fatalf("the alarm question: %+v %v", asked, err)
	}
	fillRecommendations(t, c)
	before := readState(t, c, sv.ID)
	if len(before.Places) == 0 {
		t.Fatal("the tracking dataset gave no places")
	}
	stopHarkd(t, h)

	sqliteRows := tableRows(t, openSQLiteRO(t, data))
	url := storetest.PostgresURL(t)
	var out bytes.Buffer
	if err := run([]string{"store", "copy", "--from", "sqlite:" + data, "--to", url}, &out, io.Discard); err != nil {
		t.Fatalf("store copy: %v\n%s", err, out.String())
	}
	t.Logf("store copy said:\n%s", out.String())
	for _, want := range []string{"users", "tokens", "survey_answers", "tracking_points", "dialogue_conversations",
		"copied ", "stay in " + data} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the output lacks %q", want)
		}
	}

	pg, err := store.OpenPostgres(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close()
	pgRows := tableRows(t, pg)
	copied := 0
	for table, rows := range sqliteRows {
		got, ok := pgRows[table]
		if !ok {
			// Only tables the output names as left in SQLite may be absent.
			if !strings.Contains(out.String(), "not copied") || !strings.Contains(out.String(), table) {
				t.Errorf("table %s was not copied and the output does not say so", table)
			}
			continue
		}
		copied++
		if !reflect.DeepEqual(rows, got) {
			t.Errorf("table %s differs:\nSQLite     %q\nPostgreSQL %q", table, rows, got)
		}
	}
	for _, table := range []string{"users", "tokens", "survey_answers", "tracking_jobs", "tracking_points",
		"tracking_places", "dialogue_conversations", "workspaces",
		"recomm_tables", "recomm_entities", "recomm_interaction_defs", "recomm_interactions", "recomm_keywords"} {
		if len(pgRows[table]) == 0 {
			t.Errorf("table %s is empty on PostgreSQL", table)
		}
	}
	if copied < 10 {
		t.Errorf("%d tables copied", copied)
	}

	// The catalog reads back the same from either engine. (harkd serve in
	// this tree still opens the catalog in SQLite under --data, so this
	// reads the copy through the catalog itself.)
	sqliteDB, err := store.Open(data)
	if err != nil {
		t.Fatal(err)
	}
	defer sqliteDB.Close()
	if a, b := catalogState(t, sqliteDB), catalogState(t, pg); !reflect.DeepEqual(a, b) {
		t.Errorf("the catalog reads back differently:\nSQLite     %+v\nPostgreSQL %+v", a, b)
	} else if len(a.Items) != 3 || len(a.Records) != 4 {
		t.Errorf("catalog state %+v lacks what was filled in", a)
	}

	t.Setenv("HARKD_STORE", url)
	h2 := startHarkd(t, serveArgs(data)...)
	c2 := h2.client(t)
	if _, err := c2.Auth.Login(ctx, "ana@example.com", "correct horse", "dev-2"); err != nil {
		t.Fatalf("login on PostgreSQL with the password set on SQLite: %v", err)
	}
	if after := readState(t, c2, sv.ID); !reflect.DeepEqual(before, after) {
		t.Errorf("read back differently:\nbefore %+v\nafter  %+v", before, after)
	}
	got, err := c2.Dialogue.Text(ctx, "at nine am", asked.Context.Ref)
	if err != nil || len(got.NextActions) == 0 || got.NextActions[0].Action != "SET_ALARM" {
		t.Errorf("the conversation begun on SQLite did not continue on PostgreSQL: %+v %v", got, err)
	}
	c3 := h2.client(t)
	if _, err := c3.Auth.Register(ctx, "bea@example.com", "correct horse", "Bea", "dev-3"); err != nil {
		t.Fatalf("a new account after the copy (identity sequence): %v", err)
	}
	if _, err := c3.Storage.Upload(ctx, "", "after.txt", strings.NewReader("x"), 1, nil); err != nil {
		t.Fatal(err)
	}
	stopHarkd(t, h2)

	filled := tableRows(t, pg)
	out.Reset()
	err = run([]string{"store", "copy", "--from", "sqlite:" + data, "--to", url}, &out, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "already holds data") {
		t.Fatalf("a copy into a filled database: %v", err)
	}
	if again := tableRows(t, pg); !reflect.DeepEqual(filled, again) {
		t.Fatal("the refused copy changed the target")
	}
}

// A value the target cannot take fails the copy with the table, row and
// column named, and leaves the target migrated and empty: one transaction.
func TestStoreCopyFailureLeavesTargetEmpty(t *testing.T) {
	t.Setenv("HARKD_STORE", "")
	ctx := context.Background()
	data := t.TempDir()
	h := startHarkd(t, serveArgs(data)...)
	if _, err := h.client(t).Auth.Register(ctx, "ana@example.com", "correct horse", "Ana", "dev-1"); err != nil {
		t.Fatal(err)
	}
	stopHarkd(t, h)
	// SQLite takes text in an INTEGER column; PostgreSQL's BIGINT does not.
	db, err := store.Open(data)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`UPDATE users SET created_ms = 'yesterday'`); err != nil {
		t.Fatal(err)
	}
	db.Close()

	url := storetest.PostgresURL(t)
	err = run([]string{"store", "copy", "--from", "sqlite:" + data, "--to", url}, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "table users") || !strings.Contains(err.Error(), "created_ms") {
		t.Fatalf("copy of a bad value: %v", err)
	}
	// A table or a column the target does not have is named, not dropped.
	for _, c := range []struct{ sql, want string }{
		{`CREATE TABLE stray (x INTEGER)`, "table stray of the source is missing"},
		{`ALTER TABLE tokens ADD COLUMN extra TEXT`, "column tokens.extra of the source is missing"},
	} {
		db, err := store.Open(data)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec(c.sql); err != nil {
			t.Fatal(err)
		}
		db.Close()
		err = run([]string{"store", "copy", "--from", "sqlite:" + data, "--to", url}, io.Discard, io.Discard)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Fatalf("after %s: %v, want an error saying %q", c.sql, err, c.want)
		}
		if c.want[:5] == "table" {
			db, _ := store.Open(data)
			db.Exec(`DROP TABLE stray`)
			db.Close()
		}
	}
	pg, err := store.OpenPostgres(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close()
	rows := tableRows(t, pg)
	if len(rows) < 10 {
		t.Fatalf("the target was not migrated: %d tables", len(rows))
	}
	for table, r := range rows {
		if len(r) != 0 {
			t.Errorf("table %s kept %d rows of the failed copy", table, len(r))
		}
	}
}

// An absent or corrupt source, and bad arguments, fail with a clear error
// before the target is touched; --help prints on stdout.
func TestStoreCopyBadSource(t *testing.T) {
	url := storetest.PostgresURL(t)
	copyFrom := func(dir string) error {
		return run([]string{"store", "copy", "--from", "sqlite:" + dir, "--to", url}, io.Discard, io.Discard)
	}
	missing := filepath.Join(t.TempDir(), "nothing")
	if err := copyFrom(missing); err == nil || !strings.Contains(err.Error(), "no embedded platform in "+missing) {
		t.Errorf("absent source: %v", err)
	}
	if _, err := os.Stat(missing); err == nil {
		t.Error("the copy created the absent source")
	}
	corrupt := t.TempDir()
	if err := os.WriteFile(filepath.Join(corrupt, "harkd.db"), bytes.Repeat([]byte("not a database "), 512), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := copyFrom(corrupt); err == nil || !strings.Contains(err.Error(), "is not a harkd database") {
		t.Errorf("corrupt source: %v", err)
	}
	empty := t.TempDir()
	os.WriteFile(filepath.Join(empty, "harkd.db"), nil, 0o600)
	if err := copyFrom(empty); err == nil || !strings.Contains(err.Error(), "is not a harkd database") {
		t.Errorf("empty source: %v", err)
	}
	pg, err := store.OpenPostgres(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close()
	if rows := tableRows(t, pg); len(rows) != 0 {
		t.Errorf("a failed copy migrated the target: %d tables", len(rows))
	}

	for _, args := range [][]string{
		{"store", "copy", "--to", url},
		{"store", "copy", "--from", empty, "--to", url},
		{"store", "copy", "--from", "sqlite:" + empty},
		{"store", "copy", "--from", "sqlite:" + empty, "--to", "mysql://x@y/z"},
		{"store", "move"},
	} {
		if err := run(args, io.Discard, io.Discard); err == nil {
			t.Errorf("%v succeeded", args)
		}
	}
	var stdout bytes.Buffer
	for _, args := range [][]string{{"store", "copy", "--help"}, {"store", "-h"}} {
		stdout.Reset()
		if err := run(args, &stdout, io.Discard); err != nil || !strings.Contains(stdout.String(), "--from sqlite:DIR") {
			t.Errorf("%v: %v %q", args, err, stdout.String())
		}
	}
}

func readState(t *testing.T, c *client.Client, survey int) platformState {
	t.Helper()
	ctx := context.Background()
	var s platformState
	var err error
	if s.Survey, err = c.Surveys.Get(ctx, survey); err != nil {
		t.Fatal(err)
	}
	for i, it := range s.Survey.Items {
		// icons are addressed on the serving harkd, whose port differs
		_, s.Survey.Items[i].Image, _ = strings.Cut(it.Image, "/v2/")
	}
	var file bytes.Buffer
	if _, err := c.Storage.Download(ctx, "", "kept.txt", &file, nil); err != nil {
		t.Fatal(err)
	}
	s.File = file.String()
	if s.Places, err = c.Tracking.POIs(ctx); err != nil {
		t.Fatal(err)
	}
	return s
}

func stopHarkd(t *testing.T, h *harkd) {
	t.Helper()
	h.cmd.Process.Signal(syscall.SIGTERM)
	if err := h.cmd.Wait(); err != nil {
		t.Fatalf("harkd did not stop cleanly: %v", err)
	}
}

func openSQLiteRO(t *testing.T, dir string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, "harkd.db")+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// tableRows reads every table of db but schema_migrations, each row as one
// string, rows sorted, with values normalised across the engines (a
// boolean as 0/1, a blob as its text, an integral float as an integer).
func tableRows(t *testing.T, db *sql.DB) map[string][]string {
	t.Helper()
	q := `SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`
	if store.EngineOf(db) == store.SQLite {
		q = `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\_%' ESCAPE '\'`
	}
	names, err := db.Query(q)
	if err != nil {
		t.Fatal(err)
	}
	tables, err := scanStrings(names)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, table := range tables {
		if table == "schema_migrations" {
			continue
		}
		rows, err := db.Query(`SELECT * FROM "` + table + `"`)
		if err != nil {
			t.Fatalf("%s: %v", table, err)
		}
		cols, _ := rows.Columns()
		var all []string
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			m := map[string]string{}
			for i, v := range vals {
				if b, ok := v.([]byte); ok {
					v = string(b)
				}
				switch x := v.(type) {
				case bool:
					v = map[bool]int{false: 0, true: 1}[x]
				case float64:
					if x == float64(int64(x)) {
						v = int64(x)
					}
				case string:
					// JSON kept as TEXT in SQLite and JSONB in PostgreSQL
					// (spacing and key order differ): compared as values.
					var j any
					if strings.HasPrefix(x, "{") && json.Unmarshal([]byte(x), &j) == nil {
						b, _ := json.Marshal(j)
						v = string(b)
					}
				}
				m[cols[i]] = fmt.Sprint(v)
			}
			b, _ := json.Marshal(m) // sorted keys
			all = append(all, string(b))
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		rows.Close()
		sort.Strings(all)
		out[table] = all
	}
	return out
}

// convert maps what SQLite's driver reads to each PostgreSQL type the
// migrations use, and refuses what would change meaning.
func TestStoreCopyConvert(t *testing.T) {
	ok := []struct {
		in   any
		typ  string
		want any
	}{
		{int64(1), "boolean", true}, {int64(0), "boolean", false}, {"true", "boolean", true},
		{[]byte{0, 1}, "bytea", []byte{0, 1}}, {"ab", "bytea", []byte("ab")},
		{int64(1) << 40, "bigint", int64(1) << 40}, {float64(3), "integer", int64(3)}, {" 7", "bigint", int64(7)},
		{1.5, "double precision", 1.5}, {int64(2), "double precision", 2.0}, {"0.25", "real", 0.25},
		{"x", "text", "x"}, {[]byte("y"), "text", "y"}, {int64(42), "text", "42"}, {0.5, "character varying", "0.5"},
		{nil, "bigint", nil}, {nil, "boolean", nil},
	}
	for _, c := range ok {
		got, err := convert(c.in, c.typ)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("convert(%#v, %s) = %#v, %v; want %#v", c.in, c.typ, got, err, c.want)
		}
	}
	bad := []struct {
		in  any
		typ string
	}{
		{int64(2), "boolean"}, {"maybe", "boolean"}, {int64(5), "bytea"}, {1.5, "bigint"},
		{"yesterday", "bigint"}, {"x", "double precision"}, {[]byte{1}, "integer"},
	}
	for _, c := range bad {
		if got, err := convert(c.in, c.typ); err == nil {
			t.Errorf("convert(%#v, %s) = %#v, want an error", c.in, c.typ, got)
		}
	}
}

// fillRecommendations makes a recommendation table with items, users with
// an attribute, an interaction type, records and keywords, over HTTP.
func fillRecommendations(t *testing.T, c *client.Client) {
	t.Helper()
	ctx := context.Background()
	r := c.Recomm
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(r.CreateTable(ctx, clientMovieTable()))
	must(r.CreateInteraction(ctx, "movies", movieRating()))
	must(r.AddUserAttributes(ctx, client.Attribute{AttributeID: "age", Type: client.TypeInt}))
	for id, v := range map[string]map[string]any{
		"m1": {"title": "Heat", "year": 1995, "genres": []string{"Crime", "Drama"}},
		"m2": {"title": "Amélie", "year": 2001, "genres": []string{"Comedy"}},
		"m3": {"title": "Alien", "year": 1979, "genres": []string{"Horror", "Sci-Fi"}},
	} {
		must(r.CreateItem(ctx, "movies", id, v))
	}
	must(r.CreateUser(ctx, "u1", map[string]any{"age": 31}))
	must(r.CreateUser(ctx, "u2", map[string]any{"age": 47}))
	for i, rec := range []struct {
		user, item string
		value      float64
	}{{"u1", "m1", 4.5}, {"u1", "m3", 3}, {"u2", "m1", 5}, {"u2", "m2", 0.5}} {
		v := rec.value
		must(r.AddRecord(ctx, "movies", "rating", rec.user, rec.item, client.NewRecord{Timestamp: 1_700_000_000_000 + int64(i), Value: &v}))
	}
	must(r.AddKeywords(ctx, "u1", "noir", "space"))
}

// catalogRead is what the catalog answers about fillRecommendations's data.
type catalogRead struct {
	Table        catalog.Table
	Interactions []catalog.InteractionDef
	Items, Users []catalog.Entity
	Records      []catalog.Record
	Keywords     []string
}

func catalogState(t *testing.T, db *sql.DB) catalogRead {
	t.Helper()
	ctx := context.Background()
	var ws int64
	if err := db.QueryRow(`SELECT id FROM workspaces WHERE public_key = 'pk_crash'`).Scan(&ws); err != nil {
		t.Fatal(err)
	}
	c, err := catalog.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	var s catalogRead
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	s.Table, err = c.Table(ctx, ws, "movies")
	must(err)
	s.Interactions, err = c.Interactions(ctx, ws, "movies")
	must(err)
	s.Items, err = c.List(ctx, ws, "movies", catalog.ListQuery{Limit: 100})
	must(err)
	s.Users, err = c.List(ctx, ws, catalog.Users, catalog.ListQuery{Limit: 100})
	must(err)
	for _, u := range []string{"u1", "u2"} {
		recs, err := c.UserRecords(ctx, ws, "movies", u, "rating", catalog.ListQuery{Limit: 100})
		must(err)
		s.Records = append(s.Records, recs...)
	}
	s.Keywords, err = c.Keywords(ctx, ws, "u1")
	must(err)
	return s
}
