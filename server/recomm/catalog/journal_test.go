package catalog

import (
	"bufio"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"
)

// failingSource yields a generated file and then, after rows rows, fails
// as a dropped connection does. The rows span several chunks, so some
// transactions have committed before the failure.
func failingSource(header string, rows int, row func(i int) string) io.Reader {
	pr, pw := io.Pipe()
	go func() {
		w := bufio.NewWriter(pw)
		w.WriteString(header + "\n")
		for i := 0; i < rows; i++ {
			w.WriteString(row(i) + "\n")
		}
		w.Flush()
		pw.CloseWithError(errors.New("connection reset by peer"))
	}()
	return pr
}

// tableState is everything an import can change, as text to compare.
func tableState(t *testing.T, c *Catalog) string {
	t.Helper()
	var b strings.Builder
	for _, q := range []string{
		`SELECT scope || ' ' || id || ' ' || CAST(doc AS TEXT) FROM recomm_entities WHERE ws = 7 ORDER BY scope, id`,
		`SELECT i.eid || ' ' || i.attr || ' ' || coalesce(CAST(i.num AS TEXT), '') || ' ' || coalesce(i.txt, '') FROM recomm_index i ORDER BY 1`,
		`SELECT r.def || ' ' || r."user" || ' ' || r.item || ' ' || r.ts || ' ' || r.value FROM recomm_interactions r ORDER BY 1`,
		`SELECT count(*) FROM recomm_imports`,
		`SELECT count(*) FROM recomm_import_undo`,
	} {
		rows, err := c.db.Query(q)
		must(t, err)
		for rows.Next() {
			var s string
			must(t, rows.Scan(&s))
			b.WriteString(s + "\n")
		}
		rows.Close()
	}
	return b.String()
}

// seedForImports fills a small catalog and makes chunks small, so the
// test files cross several chunk commits.
func seedForImports(t *testing.T, c *Catalog) {
	ctx := context.Background()
	chunkRows = 100
	t.Cleanup(func() { chunkRows = ChunkRows })
	seedMovies(t, c, 30)
	must(t, c.CreateInteraction(ctx, ws, "movies", InteractionDef{ID: "view", Weight: 1, Type: Unary}))
	for i := 0; i < 5; i++ {
		must(t, c.AddEntity(ctx, ws, Users, fmt.Sprintf("u%d", i), nil))
	}
	ts := int64(1)
	must(t, c.AddRecord(ctx, ws, "movies", "view", "u1", itemID(3), &ts, nil))
}

// An import that fails after several committed chunks leaves the table as
// it was before it started: the rows it added are gone and the entities it
// changed are back, with their index rows.
func TestFailedImportLeavesTableUnchanged(t *testing.T) {
	ctx := context.Background()
	c := newCatalog(t)
	seedForImports(t, c)
	before := tableState(t, c)
	rows := 3*chunkRows + 17
	check := func(what string, res ImportResult, err error) {
		t.Helper()
		if err == nil || !strings.Contains(err.Error(), "connection reset") {
			t.Fatalf("%s: err = %v, want the source's failure", what, err)
		}
		if res.Added != 0 {
			t.Errorf("%s: a failed import reports %d added", what, res.Added)
		}
		if after := tableState(t, c); after != before {
			t.Fatalf("%s changed the table:\n%s", what, diff(before, after))
		}
	}

	res, err := c.ImportEntities(ctx, ws, "movies", failingSource("itemId,year,genres", rows,
		func(i int) string { return fmt.Sprintf("new%d,%d,Drama", i, 1900+i%100) }), importOpts(FormatCSV))
	check("items import", res, err)

	res, err = c.ImportEntities(ctx, ws, Users, failingSource("userId", rows,
		func(i int) string { return fmt.Sprintf("nu%d", i) }), importOpts(FormatCSV))
	check("users import", res, err)

	// an update import changes the 30 movies again and again
	res, err = c.ImportEntities(ctx, ws, "movies", failingSource("itemId,year,genres", rows,
		func(i int) string { return fmt.Sprintf("%s,%d,Horror", itemID(i%30), 2000+i%20) }),
		ImportOptions{Format: FormatCSV, Update: true, Logging: true})
	check("update import", res, err)

	res, err = c.ImportInteractions(ctx, ws, "movies", failingSource("userId,itemId,timestamp,interactionName,value", rows,
		func(i int) string { return fmt.Sprintf("u%d,%s,%d,view,", i%5, itemID(i%30), 100+i) }), importOpts(FormatCSV))
	check("interactions import", res, err)

	// a cancelled import (the queue closing) is undone too
	cctx, cancel := context.WithCancel(ctx)
	pr, pw := io.Pipe()
	go func() {
		w := bufio.NewWriter(pw)
		w.WriteString("userId,itemId,timestamp,interactionName,value\n")
		for i := 0; i < 2*chunkRows; i++ {
			fmt.Fprintf(w, "u%d,%s,%d,view,\n", i%5, itemID(i%30), 100+i)
		}
		w.Flush()
		cancel()
		pw.Write([]byte(fmt.Sprintf("u1,%s,99,view,\n", itemID(1))))
		pw.Close()
	}()
	_, err = c.ImportInteractions(cctx, ws, "movies", pr, importOpts(FormatCSV))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled import: %v", err)
	}
	if after := tableState(t, c); after != before {
		t.Fatalf("a cancelled import changed the table:\n%s", diff(before, after))
	}

	// and a whole import still publishes everything
	res, err = c.ImportInteractions(ctx, ws, "movies", strings.NewReader("userId,itemId,timestamp,interactionName,value\nu2,m0002,5,view,\n"), importOpts(FormatCSV))
	if err != nil || res.Added != 1 {
		t.Fatalf("whole import: %+v %v", res, err)
	}
	if n := strings.Count(tableState(t, c), "\n") - strings.Count(before, "\n"); n != 1 {
		t.Errorf("whole import added %d rows, want 1", n)
	}
}

func diff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	seen := map[string]int{}
	for _, l := range al {
		seen[l]++
	}
	var out []string
	for _, l := range bl {
		if seen[l] > 0 {
			seen[l]--
			continue
		}
		out = append(out, "+ "+l)
		if len(out) > 5 {
			break
		}
	}
	for l, n := range seen {
		if n > 0 && len(out) < 10 {
			out = append(out, "- "+l)
		}
	}
	return fmt.Sprintf("%d vs %d lines; %s", len(al), len(bl), strings.Join(out, "\n"))
}

// startImport runs an interaction import of job jobID whose source stays
// open after 2 chunks and 10 rows, and returns once all of them are
// committed; writing to the pipe goes on with the file, and done reports
// the import's end.
func startImport(t *testing.T, c *Catalog, jobID string) (pw *io.PipeWriter, done chan error) {
	t.Helper()
	pr, pw := io.Pipe()
	done = make(chan error, 1)
	go func() {
		_, err := c.ImportInteractions(WithJob(context.Background(), jobID), ws, "movies", pr, importOpts(FormatCSV))
		done <- err
	}()
	w := bufio.NewWriter(pw)
	w.WriteString("userId,itemId,timestamp,interactionName,value\n")
	for i := 0; i < 2*chunkRows+10; i++ {
		fmt.Fprintf(w, "u%d,%s,%d,view,\n", i%5, itemID(i%30), 100+i)
	}
	w.Flush()
	// Every row written commits: two full chunks as the reader catches up,
	// then the last ten once the import has waited idleAfter for more. A
	// test reading the table before those ten would race their commit
	// (seen on a loaded machine: "undoing another job's imports changed
	// this one").
	deadline := time.Now().Add(10 * time.Second)
	for committed(t, c.db) < 2*chunkRows+10 {
		if time.Now().After(deadline) {
			t.Fatal("the import committed nothing")
		}
		time.Sleep(5 * time.Millisecond)
	}
	return pw, done
}

// A crash mid-import leaves the journal behind. On SQLite, opening the
// catalog again undoes what the import had committed; on PostgreSQL, where
// the import may belong to another live process, opening leaves it alone.
// The test stops an import between chunks and opens a second catalog on
// the database, as a restart (or a second process) does.
func TestOpenUndoesInterruptedImport(t *testing.T) {
	ctx := context.Background()
	c := newCatalog(t)
	seedForImports(t, c)
	before := tableState(t, c)
	pw, done := startImport(t, c, "job1")
	during := tableState(t, c)
	if _, err := Open(ctx, c.db); err != nil {
		t.Fatal(err)
	}
	after := tableState(t, c)
	if !c.d.shared {
		if after != before {
			t.Fatalf("after reopening:\n%s", diff(before, after))
		}
	} else if after != during {
		t.Fatalf("opening a second catalog on PostgreSQL changed an import in progress:\n%s", diff(during, after))
	}
	pw.CloseWithError(errors.New("gone"))
	<-done
	if after := tableState(t, c); after != before {
		t.Fatalf("after the import failed:\n%s", diff(before, after))
	}
}

// UndoJobImports, as a process taking over a job calls it, undoes the
// unfinished import of that job and no other; the import, still running,
// stops at its next chunk instead of adding rows behind the undo.
func TestUndoJobImports(t *testing.T) {
	ctx := context.Background()
	c := newCatalog(t)
	seedForImports(t, c)
	before := tableState(t, c)
	pw, done := startImport(t, c, "job1")
	// another catalog on the same store: the process taking over
	other, err := Open(ctx, c.db)
	must(t, err)
	during := tableState(t, c)
	must(t, other.UndoJobImports(ctx, "job2"))
	if after := tableState(t, c); after != during {
		t.Fatalf("undoing another job's imports changed this one:\n%s", diff(during, after))
	}
	must(t, other.UndoJobImports(ctx, "job1"))
	if after := tableState(t, c); after != before {
		t.Fatalf("after UndoJobImports:\n%s", diff(before, after))
	}
	// the rest of the file: the import finds its journal row gone
	rest := 2 * chunkRows
	go func() {
		w := bufio.NewWriter(pw)
		for i := 0; i < rest; i++ {
			fmt.Fprintf(w, "u%d,%s,%d,view,\n", i%5, itemID(i%30), 10000+i)
		}
		w.Flush()
		pw.Close()
	}()
	err = <-done
	pw.CloseWithError(errors.New("test over")) // ends the writer, blocked once the import stopped reading
	if !errors.Is(err, errTakenOver) {
		t.Fatalf("the import taken over ended with %v, want %v", err, errTakenOver)
	}
	if after := tableState(t, c); after != before {
		t.Fatalf("after the import taken over stopped:\n%s", diff(before, after))
	}
	// nothing left to undo
	must(t, other.UndoJobImports(ctx, "job1"))
}

func committed(t *testing.T, db *sql.DB) int {
	var n int
	must(t, db.QueryRow(`SELECT count(*) FROM recomm_interactions WHERE job IS NOT NULL`).Scan(&n))
	return n
}

// A row identical to a stored record in user, item, interaction type and
// timestamp is not added, and says so (DECISIONS §12): whether the record
// came before the import or earlier in the same file.
func TestImportDuplicateInteractions(t *testing.T) {
	ctx := context.Background()
	c := newCatalog(t)
	seedForImports(t, c) // u1 viewed m0003 at 1
	must(t, c.CreateInteraction(ctx, ws, "movies", InteractionDef{ID: "minutes", Weight: 1, Type: Continuous, Cumulative: true, Min: fptr(0)}))
	ts := int64(7)
	v := 10.0
	must(t, c.AddRecord(ctx, ws, "movies", "minutes", "u2", itemID(4), &ts, &v))
	file := "userId,itemId,timestamp,interactionName,value\n" +
		"u1,m0003,1,view,\n" + // stored before
		"u1,m0003,2,view,\n" + // another time: added
		"u2,m0004,7,minutes,5\n" + // stored before, cumulative: still not added
		"u3,m0005,9,view,\n" + // new
		"u3,m0005,9,view,\n" // the same as the row before
	res, err := c.ImportInteractions(ctx, ws, "movies", strings.NewReader(file), importOpts(FormatCSV))
	must(t, err)
	if res.Added != 2 || res.NotAddedCount != 3 {
		t.Fatalf("result = %+v", res)
	}
	want := []string{"u1/m0003", "u2/m0004", "u3/m0005"}
	for i, n := range res.NotAdded {
		if n.Code != CodeAlreadyExists || n.ErrorID != want[i] {
			t.Errorf("not added %d = %+v, want %s %s", i, n, want[i], CodeAlreadyExists)
		}
	}
	recs, err := c.UserRecords(ctx, ws, "movies", "u2", "minutes", ListQuery{})
	must(t, err)
	if len(recs) != 1 || recs[0].Value != 10 {
		t.Errorf("the stored record was merged with the duplicate: %+v", recs)
	}
}
