package rsql

import (
	"strconv"
	"strings"
)

// SQLLayout says where a catalog keeps attribute values, for compiling a
// checked filter to SQL. Every value of an entity is in the JSON object
// Doc; indexed attributes are also in IndexTable, one row per value (one
// per member for lists) with columns attr (the attribute key), num (numbers,
// booleans as 0/1, timestamps as epoch ms), txt (strings) and eid.
type SQLLayout struct {
	EntityID   string // column of the entity's id, e.g. "e.eid"
	Doc        string // column of the JSON document, e.g. "e.doc"
	IndexTable string
	// IndexKey gives the key of an indexed attribute in IndexTable.
	IndexKey func(attr string) (int64, bool)
	// Postgres compiles for PostgreSQL, whose Doc is JSONB read with its
	// operators, instead of SQLite's JSON1 functions over text.
	Postgres bool
	// FirstArg numbers the first placeholder ($FirstArg, then on), for SQL
	// placed after other arguments of the statement; 0 means 1.
	FirstArg int
}

// Indexed reports whether every comparison of f names an indexed attribute.
func (f *Filter) Indexed(l SQLLayout) bool {
	ok := true
	walkComparisons(f.Root, func(c *Comparison) {
		if _, k := l.IndexKey(c.Attr); !k {
			ok = false
		}
	})
	return ok
}

func walkComparisons(n Node, fn func(*Comparison)) {
	switch n := n.(type) {
	case *And:
		for _, t := range n.Terms {
			walkComparisons(t, fn)
		}
	case *Or:
		for _, t := range n.Terms {
			walkComparisons(t, fn)
		}
	case *Comparison:
		fn(n)
	}
}

// IDSetSQL compiles a filter whose attributes are all indexed (see Indexed)
// to a SELECT of entity ids built only from index lookups: AND becomes
// INTERSECT, OR becomes UNION. Driving a listing from this set means the
// filter never walks the table's entities.
func (f *Filter) IDSetSQL(l SQLLayout) (string, []any) {
	f.mustBeChecked()
	b := newBuilder(l)
	b.idSet(f.Root, l)
	return b.String(), b.args
}

// WhereSQL compiles a filter to a boolean SQL expression over the entity
// row; indexed comparisons become id-set lookups, the others read Doc.
func (f *Filter) WhereSQL(l SQLLayout) (string, []any) {
	f.mustBeChecked()
	b := newBuilder(l)
	b.where(f.Root, l)
	return b.String(), b.args
}

func (f *Filter) mustBeChecked() {
	if !f.checked {
		panic("rsql: SQL of an unchecked filter")
	}
}

type sqlBuilder struct {
	strings.Builder
	args    []any
	first   int // number of the first placeholder
	aliases int // subqueries named so far (PostgreSQL needs a name for each)
}

func newBuilder(l SQLLayout) *sqlBuilder {
	return &sqlBuilder{first: max(l.FirstArg, 1)}
}

// param adds an argument and returns its placeholder ($N, which both
// engines accept), so that it can be written more than once.
func (b *sqlBuilder) param(v any) string {
	if x, ok := v.(bool); ok {
		if x {
			v = int64(1)
		} else {
			v = int64(0)
		}
	}
	b.args = append(b.args, v)
	return "$" + strconv.Itoa(b.first+len(b.args)-1)
}

func (b *sqlBuilder) arg(v any) { b.WriteString(b.param(v)) }

// alias names a subquery of FROM.
func (b *sqlBuilder) alias() string {
	b.aliases++
	return " AS s" + strconv.Itoa(b.aliases)
}

func (b *sqlBuilder) argList(vs []any) {
	b.WriteByte('(')
	for i, v := range vs {
		if i > 0 {
			b.WriteByte(',')
		}
		b.arg(v)
	}
	b.WriteByte(')')
}

func sqlOp(o Op) string {
	switch o {
	case Eq:
		return "="
	case Gt:
		return ">"
	case Ge:
		return ">="
	case Lt:
		return "<"
	case Le:
		return "<="
	}
	return "<>"
}

func column(t Type) string {
	if t.IsNumeric() {
		return "num"
	}
	return "txt"
}

func (b *sqlBuilder) idSet(n Node, l SQLLayout) {
	switch n := n.(type) {
	case *And, *Or:
		terms, sep := andTerms(n)
		b.WriteString("SELECT eid FROM (")
		for i, t := range terms {
			if i > 0 {
				b.WriteString(sep)
			}
			// each term is its own SELECT: compound operators share one
			// precedence, so an inner UNION must not bind to an outer INTERSECT
			b.WriteString("SELECT eid FROM (")
			b.idSet(t, l)
			b.WriteString(")" + b.alias())
		}
		b.WriteString(")" + b.alias())
	case *Comparison:
		b.indexLookup(n, l)
	}
}

func andTerms(n Node) ([]Node, string) {
	if a, ok := n.(*And); ok {
		return a.Terms, " INTERSECT "
	}
	return n.(*Or).Terms, " UNION "
}

// indexLookup writes a SELECT of the entities satisfying one comparison on
// an indexed attribute, as range or point lookups on (attr, num|txt).
func (b *sqlBuilder) indexLookup(c *Comparison, l SQLLayout) {
	key, _ := l.IndexKey(c.Attr)
	col := column(c.Type)
	sel := func() {
		b.WriteString("SELECT DISTINCT eid FROM " + l.IndexTable + " WHERE attr = ")
		b.arg(key)
	}
	switch {
	case c.Type.IsList() && (c.Op == Ne || c.Op == Out):
		// no member equal: the entities having the attribute minus those with a matching member
		sel()
		b.WriteString(" EXCEPT ")
		sel()
		b.WriteString(" AND txt IN ")
		b.argList(c.Values)
	case c.Op == In:
		sel()
		b.WriteString(" AND " + col + " IN ")
		b.argList(c.Values)
	case c.Op == Out:
		sel()
		b.WriteString(" EXCEPT ")
		sel()
		b.WriteString(" AND " + col + " IN ")
		b.argList(c.Values)
	case c.Op == Ne:
		// two ranges, so the index serves both sides of the value
		sel()
		b.WriteString(" AND " + col + " < ")
		b.arg(c.Values[0])
		b.WriteString(" UNION ")
		sel()
		b.WriteString(" AND " + col + " > ")
		b.arg(c.Values[0])
	default:
		sel()
		b.WriteString(" AND " + col + " " + sqlOp(c.Op) + " ")
		b.arg(c.Values[0])
	}
}

func (b *sqlBuilder) where(n Node, l SQLLayout) {
	switch n := n.(type) {
	case *And, *Or:
		terms, _ := andTerms(n)
		sep := " AND "
		if _, ok := n.(*Or); ok {
			sep = " OR "
		}
		b.WriteByte('(')
		for i, t := range terms {
			if i > 0 {
				b.WriteString(sep)
			}
			b.where(t, l)
		}
		b.WriteByte(')')
	case *Comparison:
		if _, ok := l.IndexKey(n.Attr); ok {
			b.WriteString(l.EntityID + " IN (")
			b.indexLookup(n, l)
			b.WriteByte(')')
			return
		}
		b.docComparison(n, l)
	}
}

// docComparison compares a value read from the JSON document; a missing
// value is NULL, which makes every comparison false, as Eval does.
func (b *sqlBuilder) docComparison(c *Comparison, l SQLLayout) {
	if l.Postgres {
		b.jsonbComparison(c, l)
		return
	}
	path := `$."` + c.Attr + `"`
	if c.Type.IsList() {
		b.WriteString("(json_type(" + l.Doc + ", ")
		b.arg(path)
		b.WriteString(") = 'array' AND ")
		if c.Op == Ne || c.Op == Out {
			b.WriteString("NOT ")
		}
		b.WriteString("EXISTS (SELECT 1 FROM json_each(" + l.Doc + ", ")
		b.arg(path)
		b.WriteString(") WHERE value IN ")
		b.argList(c.Values)
		b.WriteString("))")
		return
	}
	b.WriteString("json_extract(" + l.Doc + ", ")
	b.arg(path)
	switch c.Op {
	case In:
		b.WriteString(") IN ")
		b.argList(c.Values)
	case Out:
		b.WriteString(") NOT IN ")
		b.argList(c.Values)
	default:
		b.WriteString(") " + sqlOp(c.Op) + " ")
		b.arg(c.Values[0])
	}
}

// jsonbComparison is docComparison on PostgreSQL. A value reads as NULL
// unless its JSON type is the attribute's, as SQLite's json_extract would
// compare it with nothing, so no cast ever fails. Numbers compare exactly:
// integers and timestamps as numeric, doubles as float8 (the Go float64
// the filter holds); booleans as 0/1 like the index; strings in the C
// collation, byte order like SQLite and Eval.
func (b *sqlBuilder) jsonbComparison(c *Comparison, l SQLLayout) {
	val := "(" + l.Doc + " -> " + b.param(c.Attr) + "::text)"
	if c.Type.IsList() {
		b.WriteString("(jsonb_typeof(" + val + ") = 'array' AND ")
		if c.Op == Ne || c.Op == Out {
			b.WriteString("NOT ")
		}
		// the CASE keeps jsonb_array_elements_text from ever seeing a scalar:
		// PostgreSQL does not promise to test the AND's left side first
		b.WriteString("EXISTS (SELECT 1 FROM jsonb_array_elements_text(CASE WHEN jsonb_typeof(" + val + ") = 'array' THEN " +
			val + " END) AS m(value) WHERE value IN ")
		b.argList(c.Values)
		b.WriteString("))")
		return
	}
	var expr string
	switch c.Type {
	case Int, Timestamp:
		expr = "(CASE WHEN jsonb_typeof(" + val + ") = 'number' THEN " + val + "::numeric END)"
	case Double:
		expr = "(CASE WHEN jsonb_typeof(" + val + ") = 'number' THEN " + val + "::float8 END)"
	case Boolean:
		expr = "(CASE WHEN jsonb_typeof(" + val + ") = 'boolean' THEN " + val + "::boolean::int END)"
	default:
		expr = "(CASE WHEN jsonb_typeof(" + val + ") = 'string' THEN (" + val + " #>> '{}') END) COLLATE \"C\""
	}
	b.WriteString(expr)
	switch c.Op {
	case In:
		b.WriteString(" IN ")
		b.argList(c.Values)
	case Out:
		b.WriteString(" NOT IN ")
		b.argList(c.Values)
	default:
		b.WriteString(" " + sqlOp(c.Op) + " ")
		b.arg(c.Values[0])
	}
}
