package rsql

import (
	"sort"
	"strings"
)

// Schema gives the type of each attribute a filter may name.
type Schema map[string]Type

// known lists the attributes of a schema for error messages, which name what exists.
func (s Schema) known() string {
	if len(s) == 0 {
		return "there are no attributes"
	}
	ids := make([]string, 0, len(s))
	for id := range s {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return "the attributes are " + strings.Join(ids, ", ")
}

// ParseChecked parses s and checks it against schema.
func ParseChecked(s string, schema Schema) (*Filter, error) {
	f, err := Parse(s)
	if err != nil {
		return nil, err
	}
	if err := f.Check(schema); err != nil {
		return nil, err
	}
	return f, nil
}

// Check verifies every comparison against schema: the attribute exists,
// the operator applies to its type, and every value converts to it. On
// success the comparisons carry their typed values and the filter can be
// evaluated and compiled.
func (f *Filter) Check(schema Schema) error {
	var walk func(n Node) error
	walk = func(n Node) error {
		switch n := n.(type) {
		case *And:
			for _, t := range n.Terms {
				if err := walk(t); err != nil {
					return err
				}
			}
		case *Or:
			for _, t := range n.Terms {
				if err := walk(t); err != nil {
					return err
				}
			}
		case *Comparison:
			return checkComparison(n, schema)
		}
		return nil
	}
	if err := walk(f.Root); err != nil {
		return err
	}
	f.checked = true
	return nil
}

func checkComparison(c *Comparison, schema Schema) error {
	t, ok := schema[c.Attr]
	if !ok {
		return errorf(c.Pos, "unknown attribute %q (%s)", c.Attr, schema.known())
	}
	c.Type = t
	switch c.Op {
	case Gt, Ge, Lt, Le:
		if t.IsList() || t == Boolean || t == Image || t == Category {
			return errorf(c.OpPos, "operator '%s' does not apply to %s attribute %q", c.Op, t, c.Attr)
		}
	case In, Out:
		if t == Boolean {
			return errorf(c.OpPos, "operator '%s' does not apply to boolean attribute %q", c.Op, c.Attr)
		}
	}
	if len(c.Args) > 1 && c.Op != In && c.Op != Out {
		return errorf(c.Args[0].Pos, "operator '%s' takes one value, not a list", c.Op)
	}
	c.Values = c.Values[:0]
	for _, a := range c.Args {
		vt := t
		if t.IsList() {
			vt = String // a list attribute is compared member by member
		}
		v, err := ParseValue(vt, a.Text)
		if err != nil {
			return errorf(a.Pos, "value for %s attribute %q: %v", t, c.Attr, err)
		}
		c.Values = append(c.Values, v)
	}
	return nil
}

// Values gives an entity's attribute values in the Go form of their types
// (see Type); ok is false when the entity has no value for attr.
type Values interface {
	Value(attr string) (v any, ok bool)
}

// MapValues is Values over a map.
type MapValues map[string]any

func (m MapValues) Value(attr string) (any, bool) {
	v, ok := m[attr]
	return v, ok
}

// Eval reports whether the entity satisfies the filter. A comparison on a
// missing value is false whatever its operator, as in SQL. Eval panics if
// the filter was not checked: an unchecked filter has no typed values.
func (f *Filter) Eval(v Values) bool {
	if !f.checked {
		panic("rsql: Eval on an unchecked filter")
	}
	return eval(f.Root, v)
}

func eval(n Node, v Values) bool {
	switch n := n.(type) {
	case *And:
		for _, t := range n.Terms {
			if !eval(t, v) {
				return false
			}
		}
		return true
	case *Or:
		for _, t := range n.Terms {
			if eval(t, v) {
				return true
			}
		}
		return false
	case *Comparison:
		x, ok := v.Value(n.Attr)
		if !ok || x == nil {
			return false
		}
		return compare(n, x)
	}
	return false
}

func compare(c *Comparison, x any) bool {
	if members, ok := x.([]string); ok {
		anyIn := false
	members:
		for _, m := range members {
			for _, w := range c.Values {
				if s, _ := w.(string); s == m {
					anyIn = true
					break members
				}
			}
		}
		if c.Op == Ne || c.Op == Out {
			return !anyIn
		}
		return anyIn
	}
	switch c.Op {
	case In:
		for _, w := range c.Values {
			if cmp(x, w) == 0 {
				return true
			}
		}
		return false
	case Out:
		for _, w := range c.Values {
			if cmp(x, w) == 0 {
				return false
			}
		}
		return true
	}
	r := cmp(x, c.Values[0])
	if r == 2 {
		return c.Op == Ne
	}
	switch c.Op {
	case Eq:
		return r == 0
	case Ne:
		return r != 0
	case Gt:
		return r > 0
	case Ge:
		return r >= 0
	case Lt:
		return r < 0
	case Le:
		return r <= 0
	}
	return false
}

// cmp orders two values of one type; values of different Go types (a
// catalog value stored under an older type) compare as unequal.
func cmp(a, b any) int {
	switch x := a.(type) {
	case int64:
		switch y := b.(type) {
		case int64:
			return cmpOrdered(x, y)
		case float64:
			return cmpOrdered(float64(x), y)
		}
	case float64:
		switch y := b.(type) {
		case float64:
			return cmpOrdered(x, y)
		case int64:
			return cmpOrdered(x, float64(y))
		}
	case string:
		if y, ok := b.(string); ok {
			return strings.Compare(x, y)
		}
	case bool:
		if y, ok := b.(bool); ok {
			if x == y {
				return 0
			}
			if !x {
				return -1
			}
			return 1
		}
	}
	return 2 // unordered: not equal, and no ordering comparison holds
}

func cmpOrdered[T int64 | float64](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
