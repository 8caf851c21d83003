package rsql

import "strings"

// SortKey is one term of a sort expression.
type SortKey struct {
	Pos  int
	Attr string
	Desc bool
}

// ParseSort reads `attr==ASC;attr2==DESC` (direction case-insensitive) and
// checks each attribute against schema; list attributes cannot be sorted.
func ParseSort(s string, schema Schema) ([]SortKey, error) {
	if len(s) > MaxLength {
		return nil, errorf(1, "expression longer than %d bytes", MaxLength)
	}
	toks, err := lex(s)
	if err != nil {
		return nil, err
	}
	at := func(j int) token { return toks[min(j, len(toks)-1)] }
	var keys []SortKey
	i := 0
	for {
		t := at(i)
		if t.kind != tWord && t.kind != tQuoted {
			return nil, errorf(t.pos, "expected attribute in sort, found %s", t.describe())
		}
		op := at(i + 1)
		if op.kind != tOp || op.text != "==" {
			return nil, errorf(op.pos, "expected '==' after %q in sort, found %s", t.text, op.describe())
		}
		d := at(i + 2)
		var desc bool
		switch {
		case d.kind == tWord && strings.EqualFold(d.text, "asc"):
		case d.kind == tWord && strings.EqualFold(d.text, "desc"):
			desc = true
		default:
			return nil, errorf(d.pos, "expected ASC or DESC after '==', found %s", d.describe())
		}
		typ, ok := schema[t.text]
		if !ok {
			return nil, errorf(t.pos, "unknown attribute %q (%s)", t.text, schema.known())
		}
		if typ.IsList() {
			return nil, errorf(t.pos, "%s attribute %q cannot be sorted", typ, t.text)
		}
		keys = append(keys, SortKey{Pos: t.pos, Attr: t.text, Desc: desc})
		sep := at(i + 3)
		if sep.kind == tEOF {
			return keys, nil
		}
		if sep.kind != tSemi {
			return nil, errorf(sep.pos, "expected ';' between sort terms, found %s", sep.describe())
		}
		i += 4
	}
}

// Compare orders two entities by keys; a missing value sorts after any
// present one whatever the direction, so pages never start with blanks.
func Compare(keys []SortKey, a, b Values) int {
	for _, k := range keys {
		x, okx := a.Value(k.Attr)
		y, oky := b.Value(k.Attr)
		switch {
		case !okx && !oky:
			continue
		case !okx:
			return 1
		case !oky:
			return -1
		}
		r := cmp(x, y)
		if r == 2 || r == 0 {
			continue
		}
		if k.Desc {
			r = -r
		}
		return r
	}
	return 0
}
