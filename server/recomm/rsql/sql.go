package rsql

import (
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
	var b sqlBuilder
	b.idSet(f.Root, l)
	return b.String(), b.args
}

// WhereSQL compiles a filter to a boolean SQL expression over the entity
// row; indexed comparisons become id-set lookups, the others read Doc.
func (f *Filter) WhereSQL(l SQLLayout) (string, []any) {
	f.mustBeChecked()
	var b sqlBuilder
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
	args []any
}

func (b *sqlBuilder) arg(v any) {
	b.WriteByte('?')
	if x, ok := v.(bool); ok {
		if x {
			v = int64(1)
		} else {
			v = int64(0)
		}
	}
	b.args = append(b.args, v)
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
			b.WriteString(")")
		}
		b.WriteString(")")
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
