package rsql

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/harkhq/hark/server/store"
	"github.com/harkhq/hark/server/store/storetest"
)

var schema = Schema{
	"price": Double, "year": Int, "title": String, "kids": Boolean, "born": Timestamp,
	"tags": Set, "genre": Category, "genres": CategoryList, "cover": Image, "shots": ImageList,
}

func TestParseShapes(t *testing.T) {
	cases := map[string]string{
		`year==1995`:                       `year==1995`,
		`year=gt=1990;year=lt=2000`:        `(year=gt=1990 AND year=lt=2000)`,
		`year=gt=1990 and year=lt=2000`:    `(year=gt=1990 AND year=lt=2000)`,
		`a==1,b==2;c==3`:                   `(a==1 OR (b==2 AND c==3))`,
		`(a==1,b==2);c==3`:                 `((a==1 OR b==2) AND c==3)`,
		`a==1 or b==2`:                     `(a==1 OR b==2)`,
		`genre=in=(drama,"sci fi",'x\'y')`: `genre=in=(drama,sci fi,x'y)`,
		`title=="a \"quoted\" one"`:        `title==a "quoted" one`,
		`a==and`:                           `a==and`,
		`year>=3;year<4`:                   `(year=ge=3 AND year=lt=4)`,
		`  ( ( a == 1 ) )  `:               `a==1`,
		`born=le=2020-01-01T00:00:00Z`:     `born=le=2020-01-01T00:00:00Z`,
		`genres=out=(a)`:                   `genres=out=(a)`,
	}
	for in, want := range cases {
		f, err := Parse(in)
		if err != nil {
			t.Errorf("Parse(%q): %v", in, err)
			continue
		}
		if got := render(f.Root); got != want {
			t.Errorf("Parse(%q) = %s, want %s", in, got, want)
		}
	}
}

func render(n Node) string {
	switch n := n.(type) {
	case *And:
		return "(" + joinNodes(n.Terms, " AND ") + ")"
	case *Or:
		return "(" + joinNodes(n.Terms, " OR ") + ")"
	case *Comparison:
		var vals []string
		for _, a := range n.Args {
			vals = append(vals, a.Text)
		}
		if n.Op == In || n.Op == Out {
			return n.Attr + n.Op.String() + "(" + strings.Join(vals, ",") + ")"
		}
		return n.Attr + n.Op.String() + vals[0]
	}
	return "?"
}

func joinNodes(ns []Node, sep string) string {
	var s []string
	for _, n := range ns {
		s = append(s, render(n))
	}
	return strings.Join(s, sep)
}

func TestParseErrors(t *testing.T) {
	cases := map[string]string{
		``:               `rsql: at 1: empty expression`,
		`   `:            `rsql: at 1: empty expression`,
		`price=gt=`:      `rsql: at 10: expected value after '=gt='`,
		`price=gt=;a==1`: `rsql: at 10: expected value after '=gt='`,
		`price`:          `rsql: at 6: expected operator after "price", found end of expression`,
		`price 3`:        `rsql: at 7: expected operator after "price", found "3"`,
		`price=xx=3`:     `rsql: at 6: unknown operator "=xx="`,
		`price=3`:        `rsql: at 6: malformed operator "="`,
		`price=gt3`:      `rsql: at 6: malformed operator "=gt"`,
		`price!3`:        `rsql: at 6: expected '!='`,
		`title=="abc`:    `rsql: at 8: unterminated quoted value`,
		`(a==1`:          `rsql: at 6: expected ')' to close '(' at 1, found end of expression`,
		`a==1)`:          `rsql: at 5: unexpected ')'`,
		`a==1;`:          `rsql: at 6: expected attribute or '(', found end of expression`,
		`a==1,,b==2`:     `rsql: at 6: expected attribute or '(', found ','`,
		`;a==1`:          `rsql: at 1: expected attribute or '(', found ';'`,
		`a=in=()`:        `rsql: at 7: expected value in list after '=in=', found ')'`,
		`a=in=(1 2)`:     `rsql: at 9: expected ',' or ')' in value list, found "2"`,
		`a=in=(1,`:       `rsql: at 9: expected value in list after '=in=', found end of expression`,
		`a==1 b==2`:      `rsql: at 6: unexpected "b"`,
		`()`:             `rsql: at 2: expected attribute or '(', found ')'`,
		`""==1`:          `rsql: at 1: empty attribute name`,
		`a====1`:         `rsql: at 4: expected value after '=='`,
		strings.Repeat("(", 70) + "a==1" + strings.Repeat(")", 70): `rsql: at 65: nesting deeper than 64`,
	}
	for in, want := range cases {
		_, err := Parse(in)
		if err == nil {
			t.Errorf("Parse(%q) succeeded, want %s", in, want)
			continue
		}
		if err.Error() != want {
			t.Errorf("Parse(%q) = %v, want %s", in, err, want)
		}
	}
	if _, err := Parse(strings.Repeat("a", MaxLength+1)); err == nil {
		t.Error("over-long expression accepted")
	}
}

func TestCheckErrors(t *testing.T) {
	cases := map[string]string{
		`nope==1`:           `rsql: at 1: unknown attribute "nope" (the attributes are born, cover, genre, genres, kids, price, shots, tags, title, year)`,
		`year==1;nope==1`:   `rsql: at 9: unknown attribute "nope" (the attributes are born, cover, genre, genres, kids, price, shots, tags, title, year)`,
		`year==abc`:         `rsql: at 7: value for int attribute "year": "abc" is not an integer`,
		`year=in=(1,x)`:     `rsql: at 12: value for int attribute "year": "x" is not an integer`,
		`price=gt=1e`:       `rsql: at 10: value for double attribute "price": "1e" is not a finite number`,
		`price==NaN`:        `rsql: at 8: value for double attribute "price": "NaN" is not a finite number`,
		`kids=gt=true`:      `rsql: at 5: operator '=gt=' does not apply to boolean attribute "kids"`,
		`kids==maybe`:       `rsql: at 7: value for boolean attribute "kids": "maybe" is not a boolean`,
		`kids=in=(true)`:    `rsql: at 5: operator '=in=' does not apply to boolean attribute "kids"`,
		`tags=lt=a`:         `rsql: at 5: operator '=lt=' does not apply to set attribute "tags"`,
		`genre=ge=a`:        `rsql: at 6: operator '=ge=' does not apply to category attribute "genre"`,
		`born=gt=yesterday`: `rsql: at 9: value for timestamp attribute "born": "yesterday" is neither an ISO 8601 date-time nor epoch milliseconds`,
		`year==(1,2)`:       `rsql: at 8: operator '==' takes one value, not a list`,
	}
	for in, want := range cases {
		_, err := ParseChecked(in, schema)
		if err == nil || err.Error() != want {
			t.Errorf("ParseChecked(%q) = %v, want %s", in, err, want)
		}
	}
}

func TestSortErrors(t *testing.T) {
	good, err := ParseSort(`year==ASC;price==desc`, schema)
	if err != nil || len(good) != 2 || good[0].Desc || !good[1].Desc || good[1].Attr != "price" {
		t.Fatalf("ParseSort = %+v, %v", good, err)
	}
	cases := map[string]string{
		``:                     `rsql: at 1: expected attribute in sort, found end of expression`,
		`year`:                 `rsql: at 5: expected '==' after "year" in sort, found end of expression`,
		`year==`:               `rsql: at 7: expected ASC or DESC after '==', found end of expression`,
		`year==UP`:             `rsql: at 7: expected ASC or DESC after '==', found "UP"`,
		`year==ASC,price==ASC`: `rsql: at 10: expected ';' between sort terms, found ','`,
		`nope==ASC`:            `rsql: at 1: unknown attribute "nope" (the attributes are born, cover, genre, genres, kids, price, shots, tags, title, year)`,
		`tags==ASC`:            `rsql: at 1: set attribute "tags" cannot be sorted`,
		`year!=ASC`:            `rsql: at 5: expected '==' after "year" in sort, found '!='`,
		`year==ASC;`:           `rsql: at 11: expected attribute in sort, found end of expression`,
	}
	for in, want := range cases {
		_, err := ParseSort(in, schema)
		if err == nil || err.Error() != want {
			t.Errorf("ParseSort(%q) = %v, want %s", in, err, want)
		}
	}
}

func TestCompareOrdersMissingLast(t *testing.T) {
	keys, _ := ParseSort(`year==DESC;title==ASC`, schema)
	a := MapValues{"year": int64(2000), "title": "b"}
	b := MapValues{"year": int64(2000), "title": "a"}
	c := MapValues{"title": "a"}
	if Compare(keys, a, b) <= 0 || Compare(keys, b, a) >= 0 {
		t.Error("ties on year must order by title")
	}
	if Compare(keys, c, a) <= 0 {
		t.Error("a missing year must sort last")
	}
}

var entities = []MapValues{
	{"price": 9.5, "year": int64(1995), "title": "Toy Story", "kids": true, "born": int64(816_000_000_000),
		"tags": []string{"pixar", "toys"}, "genre": "animation", "genres": []string{"animation", "comedy"}},
	{"price": 20.0, "year": int64(2008), "title": "Wall-E", "kids": true, "tags": []string{"pixar", "robots"},
		"genre": "animation", "genres": []string{"animation", "sci-fi"}},
	{"price": 12.0, "year": int64(1979), "title": "Alien", "kids": false, "genre": "horror", "genres": []string{"horror", "sci-fi"}},
	{"year": int64(1999), "title": "The Matrix", "genres": []string{"sci-fi"}},
	{"title": "Untitled"},
}

func TestEval(t *testing.T) {
	cases := map[string][]int{
		`year=gt=1990`:                     {0, 1, 3},
		`year!=1995`:                       {1, 2, 3},
		`price=le=12`:                      {0, 2},
		`price>12`:                         {1},
		`kids==true`:                       {0, 1},
		`kids==no`:                         {2},
		`kids!=true`:                       {2},
		`tags==pixar`:                      {0, 1},
		`tags!=pixar`:                      {},
		`tags=in=(robots,toys)`:            {0, 1},
		`genres!=animation`:                {2, 3},
		`genres=out=(animation,horror)`:    {3},
		`genre=in=(horror,drama)`:          {2},
		`genre=out=(horror)`:               {0, 1},
		`title=="The Matrix",title==Alien`: {2, 3},
		`title=lt=B`:                       {2},
		`(year=lt=1980,year=gt=2000);kids==false`:                             {2},
		`born=lt=1996-01-01`:                                                  {0},
		`year=ge=1995 and (genres==comedy or genres==robots or tags==robots)`: {0, 1},
	}
	for in, want := range cases {
		f, err := ParseChecked(in, schema)
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		got := []int{}
		for i, e := range entities {
			if f.Eval(e) {
				got = append(got, i)
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s matched %v, want %v", in, got, want)
		}
	}
}

// TestSQLMatchesEval stores random entities in the test store (SQLite, or
// PostgreSQL with HARK_TEST_STORE=postgres) exactly as catalog lays them
// out and checks that WhereSQL (with and without indexes) and IDSetSQL
// select the same entities as Eval, for many random filters.
func TestSQLMatchesEval(t *testing.T) {
	db, err := storetest.Open(t, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	pg := store.EngineOf(db) == store.Postgres
	if pg {
		mustExec(t, db, `CREATE TABLE ent(eid BIGINT PRIMARY KEY, doc JSONB NOT NULL)`)
		mustExec(t, db, `CREATE TABLE ix(attr BIGINT, num DOUBLE PRECISION, txt TEXT COLLATE "C", eid BIGINT)`)
	} else {
		mustExec(t, db, `CREATE TABLE ent(eid INTEGER PRIMARY KEY, doc TEXT NOT NULL)`)
		mustExec(t, db, `CREATE TABLE ix(attr INTEGER, num REAL, txt TEXT, eid INTEGER)`)
	}
	attrs := []string{"price", "year", "title", "kids", "born", "genre", "genres", "tags"}
	keys := map[string]int64{}
	for i, a := range attrs {
		keys[a] = int64(i + 1)
	}
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	insert := func(q string, args ...any) {
		if _, err := tx.Exec(q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	words := []string{"a", "b", "c", "d"}
	var ents []MapValues
	for eid := 1; eid <= 40; eid++ {
		e := MapValues{}
		if r.IntN(4) > 0 {
			e["price"] = float64(r.IntN(8)) / 2
		}
		if r.IntN(4) > 0 {
			e["year"] = int64(r.IntN(5))
		}
		if r.IntN(4) > 0 {
			e["title"] = words[r.IntN(4)]
		}
		if r.IntN(4) > 0 {
			e["kids"] = r.IntN(2) == 0
		}
		if r.IntN(4) > 0 {
			e["born"] = int64(r.IntN(5) * 1000)
		}
		if r.IntN(4) > 0 {
			e["genre"] = words[r.IntN(4)]
		}
		if r.IntN(4) > 0 {
			e["genres"] = []string{words[r.IntN(4)], words[r.IntN(4)]}
		}
		if r.IntN(4) > 0 {
			e["tags"] = []string{words[r.IntN(4)]}
		}
		ents = append(ents, e)
		doc, _ := json.Marshal(e)
		insert(`INSERT INTO ent VALUES($1, $2)`, eid, string(doc))
		for a, v := range e {
			switch x := v.(type) {
			case float64, int64:
				insert(`INSERT INTO ix(attr, num, eid) VALUES($1, $2, $3)`, keys[a], x, eid)
			case bool:
				n := 0
				if x {
					n = 1
				}
				insert(`INSERT INTO ix(attr, num, eid) VALUES($1, $2, $3)`, keys[a], n, eid)
			case string:
				insert(`INSERT INTO ix(attr, txt, eid) VALUES($1, $2, $3)`, keys[a], x, eid)
			case []string:
				for _, m := range x {
					insert(`INSERT INTO ix(attr, txt, eid) VALUES($1, $2, $3)`, keys[a], m, eid)
				}
			}
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	indexed := SQLLayout{EntityID: "ent.eid", Doc: "ent.doc", IndexTable: "ix", Postgres: pg,
		IndexKey: func(a string) (int64, bool) { k, ok := keys[a]; return k, ok }}
	unindexed := indexed
	unindexed.IndexKey = func(string) (int64, bool) { return 0, false }
	ops := []string{"==", "!=", "=gt=", "=ge=", "=lt=", "=le=", "=in=", "=out="}
	values := map[string][]string{
		"price": {"0", "1.5", "2"}, "year": {"0", "2", "4"}, "title": words, "kids": {"true", "false"},
		"born": {"0", "2000", "4000"}, "genre": words, "genres": words, "tags": words,
	}
	randomComparison := func() string {
		for {
			a := attrs[r.IntN(len(attrs))]
			op := ops[r.IntN(len(ops))]
			vs := values[a]
			arg := vs[r.IntN(len(vs))]
			if op == "=in=" || op == "=out=" {
				arg = "(" + arg + "," + vs[r.IntN(len(vs))] + ")"
			}
			s := a + op + arg
			if _, err := ParseChecked(s, schema); err == nil {
				return s
			}
		}
	}
	var randomExpr func(depth int) string
	randomExpr = func(depth int) string {
		if depth == 0 || r.IntN(3) == 0 {
			return randomComparison()
		}
		sep := ";"
		if r.IntN(2) == 0 {
			sep = ","
		}
		return "(" + randomExpr(depth-1) + sep + randomExpr(depth-1) + ")"
	}
	query := func(q string, args []any) []int {
		rows, err := db.QueryContext(ctx, q, args...)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		defer rows.Close()
		got := []int{}
		for rows.Next() {
			var id int
			rows.Scan(&id)
			got = append(got, id)
		}
		slices.Sort(got)
		return got
	}
	for i := 0; i < 40; i++ {
		expr := randomExpr(3)
		f, err := ParseChecked(expr, schema)
		if err != nil {
			t.Fatalf("%s: %v", expr, err)
		}
		want := []int{}
		for j, e := range ents {
			if f.Eval(e) {
				want = append(want, j+1)
			}
		}
		for name, l := range map[string]SQLLayout{"indexed": indexed, "unindexed": unindexed} {
			w, args := f.WhereSQL(l)
			if got := query(`SELECT eid FROM ent WHERE `+w, args); !slices.Equal(got, want) {
				t.Fatalf("%s WhereSQL(%s)\n%s\ngot  %v\nwant %v", name, expr, w, got, want)
			}
		}
		if !f.Indexed(indexed) || f.Indexed(unindexed) {
			t.Fatal("Indexed disagrees with the layout")
		}
		set, args := f.IDSetSQL(indexed)
		if got := query(set, args); !slices.Equal(got, want) {
			t.Fatalf("IDSetSQL(%s)\n%s\ngot  %v\nwant %v", expr, set, got, want)
		}
	}
}

func mustExec(t *testing.T, db *sql.DB, q string, args ...any) {
	t.Helper()
	if _, err := db.Exec(q, args...); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

func TestParseValueAndJSON(t *testing.T) {
	if v, err := ParseValue(Timestamp, "1970-01-01T00:00:01Z"); err != nil || v != int64(1000) {
		t.Errorf("ISO timestamp = %v, %v", v, err)
	}
	if v, err := ParseValue(Set, " a, b ,,c"); err != nil || !slices.Equal(v.([]string), []string{"a", "b", "c"}) {
		t.Errorf("set = %v, %v", v, err)
	}
	var n any
	dec := json.NewDecoder(strings.NewReader(`12`))
	dec.UseNumber()
	dec.Decode(&n)
	if v, err := FromJSON(Int, n); err != nil || v != int64(12) {
		t.Errorf("json.Number int = %v, %v", v, err)
	}
	bad := []struct {
		t Type
		v any
	}{{Int, 1.5}, {String, 3.0}, {Boolean, "perhaps"}, {Set, "a"}, {Int, []any{"a"}}, {Set, []any{1.0}}, {Double, nil}, {Int, true}}
	for _, b := range bad {
		if _, err := FromJSON(b.t, b.v); err == nil {
			t.Errorf("FromJSON(%s, %#v) accepted", b.t, b.v)
		}
	}
	if v, _ := FromJSON(Boolean, "YES"); v != true {
		t.Error("lenient boolean refused")
	}
	for _, name := range []string{"int", "double", "string", "boolean", "timestamp", "set", "category", "categoryList", "image", "imageList"} {
		if ty, ok := ParseType(name); !ok || ty.String() != name {
			t.Errorf("ParseType(%s) = %v, %v", name, ty, ok)
		}
	}
	if _, ok := ParseType("float"); ok {
		t.Error("unknown type accepted")
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{`year==1995`, `(a==1,b==2);c=in=(x,"y z")`, `a=gt=`, `title=="a\"b"`,
		`a==1 and b==2 or c==3`, `((((a==1))))`, `x=out=('a','b')`, `=`, `"`, `a!=`, `year==ASC;price==DESC`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		fl, err := Parse(s)
		if err != nil {
			var e *Error
			if !asError(err, &e) || e.Pos < 1 || e.Pos > len(s)+1 {
				t.Fatalf("Parse(%q) error %v has a bad position", s, err)
			}
			return
		}
		if err := fl.Check(schema); err == nil {
			fl.Eval(entities[0])
			fl.WhereSQL(SQLLayout{EntityID: "e", Doc: "d", IndexTable: "ix", IndexKey: func(string) (int64, bool) { return 1, true }})
		}
		ParseSort(s, schema)
	})
}

func asError(err error, target **Error) bool {
	e, ok := err.(*Error)
	*target = e
	return ok
}

func ExampleParse() {
	_, err := ParseChecked(`year=gt=1990;price=gt=`, Schema{"year": Int, "price": Double})
	fmt.Println(err)
	// Output: rsql: at 23: expected value after '=gt='
}
