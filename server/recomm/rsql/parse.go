// Package rsql reads the RSQL filters and sort expressions of the
// recommendation service (DECISIONS §12): it parses them with positions,
// type-checks them against the attributes of a table, evaluates them on an
// entity's values in memory, and compiles them to parameterised SQL for
// catalog listings.
//
// Grammar (whitespace is allowed between tokens):
//
//	or         = and { ("," | "or") and }
//	and        = primary { (";" | "and") primary }
//	primary    = "(" or ")" | comparison
//	comparison = selector operator argument
//	operator   = "==" | "!=" | "=gt=" | "=ge=" | "=lt=" | "=le=" | "=in=" | "=out="
//	             | "<" | "<=" | ">" | ">="
//	argument   = value | "(" value { "," value } ")"
//	value      = unquoted | '"' chars '"' | "'" chars "'"   (backslash escapes the next char)
//
// Positions in errors are 1-based byte offsets into the expression.
package rsql

import (
	"fmt"
	"strings"
)

// Error is a parse or type error at a position of the expression.
type Error struct {
	Pos int
	Msg string
}

func (e *Error) Error() string { return fmt.Sprintf("rsql: at %d: %s", e.Pos, e.Msg) }

func errorf(pos int, format string, args ...any) *Error {
	return &Error{Pos: pos, Msg: fmt.Sprintf(format, args...)}
}

// Op is a comparison operator.
type Op uint8

const (
	Eq Op = iota + 1
	Ne
	Gt
	Ge
	Lt
	Le
	In
	Out
)

var opNames = map[string]Op{
	"==": Eq, "!=": Ne, "=gt=": Gt, "=ge=": Ge, "=lt=": Lt, "=le=": Le, "=in=": In, "=out=": Out,
	">": Gt, ">=": Ge, "<": Lt, "<=": Le,
}

func (o Op) String() string {
	switch o {
	case Eq:
		return "=="
	case Ne:
		return "!="
	case Gt:
		return "=gt="
	case Ge:
		return "=ge="
	case Lt:
		return "=lt="
	case Le:
		return "=le="
	case In:
		return "=in="
	case Out:
		return "=out="
	}
	return "?"
}

// Node is a node of a parsed filter: *And, *Or or *Comparison.
type Node interface{ node() }

// And is true when every term is.
type And struct{ Terms []Node }

// Or is true when any term is.
type Or struct{ Terms []Node }

// Arg is one value of a comparison as written.
type Arg struct {
	Pos    int
	Text   string
	Quoted bool
}

// Comparison is `selector operator argument`. Check fills Type and Values.
type Comparison struct {
	Pos    int // of the selector
	OpPos  int
	Attr   string
	Op     Op
	Args   []Arg
	Type   Type
	Values []any // Args converted to the Go form of Type
}

func (*And) node()        {}
func (*Or) node()         {}
func (*Comparison) node() {}

// Filter is a parsed filter expression.
type Filter struct {
	Root    Node
	checked bool
}

type tokKind uint8

const (
	tEOF tokKind = iota
	tLParen
	tRParen
	tSemi
	tComma
	tOp
	tWord
	tQuoted
)

type token struct {
	kind tokKind
	pos  int // 1-based
	text string
}

func (t token) describe() string {
	switch t.kind {
	case tEOF:
		return "end of expression"
	case tWord:
		return fmt.Sprintf("%q", t.text)
	case tQuoted:
		return "quoted value"
	}
	return "'" + t.text + "'"
}

// lex splits s into tokens; it fails on unterminated quotes and unknown operators.
func lex(s string) ([]token, error) {
	var toks []token
	i := 0
	for i < len(s) {
		c := s[i]
		pos := i + 1
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '(':
			toks = append(toks, token{tLParen, pos, "("})
			i++
		case c == ')':
			toks = append(toks, token{tRParen, pos, ")"})
			i++
		case c == ';':
			toks = append(toks, token{tSemi, pos, ";"})
			i++
		case c == ',':
			toks = append(toks, token{tComma, pos, ","})
			i++
		case c == '"' || c == '\'':
			var b strings.Builder
			j := i + 1
			closed := false
			for j < len(s) {
				if s[j] == '\\' && j+1 < len(s) {
					b.WriteByte(s[j+1])
					j += 2
					continue
				}
				if s[j] == c {
					closed = true
					break
				}
				b.WriteByte(s[j])
				j++
			}
			if !closed {
				return nil, errorf(pos, "unterminated quoted value")
			}
			toks = append(toks, token{tQuoted, pos, b.String()})
			i = j + 1
		case c == '!':
			if i+1 < len(s) && s[i+1] == '=' {
				toks = append(toks, token{tOp, pos, "!="})
				i += 2
			} else {
				return nil, errorf(pos, "expected '!='")
			}
		case c == '<' || c == '>':
			if i+1 < len(s) && s[i+1] == '=' {
				toks = append(toks, token{tOp, pos, s[i : i+2]})
				i += 2
			} else {
				toks = append(toks, token{tOp, pos, s[i : i+1]})
				i++
			}
		case c == '=':
			if i+1 < len(s) && s[i+1] == '=' {
				toks = append(toks, token{tOp, pos, "=="})
				i += 2
				continue
			}
			j := i + 1
			for j < len(s) && s[j] >= 'a' && s[j] <= 'z' {
				j++
			}
			if j == len(s) || s[j] != '=' || j == i+1 {
				return nil, errorf(pos, "malformed operator %q", s[i:j])
			}
			op := s[i : j+1]
			if _, ok := opNames[op]; !ok {
				return nil, errorf(pos, "unknown operator %q", op)
			}
			toks = append(toks, token{tOp, pos, op})
			i = j + 1
		default:
			j := i
			for j < len(s) && !strings.ContainsRune(" \t\n\r()\";,'=!<>", rune(s[j])) {
				j++
			}
			toks = append(toks, token{tWord, pos, s[i:j]})
			i = j
		}
	}
	return append(toks, token{tEOF, len(s) + 1, ""}), nil
}

type parser struct {
	toks  []token
	i     int
	depth int
}

// maxDepth bounds nesting so a hostile filter cannot exhaust the stack.
const maxDepth = 64

// MaxLength bounds the length of an expression.
const MaxLength = 8192

func (p *parser) peek() token { return p.toks[p.i] }
func (p *parser) next() token {
	t := p.toks[p.i]
	if t.kind != tEOF {
		p.i++
	}
	return t
}

// Parse reads a filter expression. An empty expression is an error; callers
// treat an absent filter as no filter before calling Parse.
func Parse(s string) (*Filter, error) {
	if len(s) > MaxLength {
		return nil, errorf(1, "expression longer than %d bytes", MaxLength)
	}
	toks, err := lex(s)
	if err != nil {
		return nil, err
	}
	p := &parser{toks: toks}
	if p.peek().kind == tEOF {
		return nil, errorf(1, "empty expression")
	}
	root, err := p.or()
	if err != nil {
		return nil, err
	}
	if t := p.peek(); t.kind != tEOF {
		return nil, errorf(t.pos, "unexpected %s", t.describe())
	}
	return &Filter{Root: root}, nil
}

func isWord(t token, w string) bool { return t.kind == tWord && strings.EqualFold(t.text, w) }

func (p *parser) or() (Node, error) {
	first, err := p.and()
	if err != nil {
		return nil, err
	}
	terms := []Node{first}
	for t := p.peek(); t.kind == tComma || isWord(t, "or"); t = p.peek() {
		p.next()
		n, err := p.and()
		if err != nil {
			return nil, err
		}
		terms = append(terms, n)
	}
	if len(terms) == 1 {
		return first, nil
	}
	return &Or{Terms: terms}, nil
}

func (p *parser) and() (Node, error) {
	first, err := p.primary()
	if err != nil {
		return nil, err
	}
	terms := []Node{first}
	for t := p.peek(); t.kind == tSemi || isWord(t, "and"); t = p.peek() {
		p.next()
		n, err := p.primary()
		if err != nil {
			return nil, err
		}
		terms = append(terms, n)
	}
	if len(terms) == 1 {
		return first, nil
	}
	return &And{Terms: terms}, nil
}

func (p *parser) primary() (Node, error) {
	t := p.next()
	switch t.kind {
	case tLParen:
		p.depth++
		if p.depth > maxDepth {
			return nil, errorf(t.pos, "nesting deeper than %d", maxDepth)
		}
		n, err := p.or()
		if err != nil {
			return nil, err
		}
		if c := p.next(); c.kind != tRParen {
			return nil, errorf(c.pos, "expected ')' to close '(' at %d, found %s", t.pos, c.describe())
		}
		p.depth--
		return n, nil
	case tWord, tQuoted:
		if t.text == "" {
			return nil, errorf(t.pos, "empty attribute name")
		}
		op := p.next()
		if op.kind != tOp {
			return nil, errorf(op.pos, "expected operator after %q, found %s", t.text, op.describe())
		}
		c := &Comparison{Pos: t.pos, OpPos: op.pos, Attr: t.text, Op: opNames[op.text]}
		args, err := p.argument(op)
		if err != nil {
			return nil, err
		}
		c.Args = args
		return c, nil
	}
	return nil, errorf(t.pos, "expected attribute or '(', found %s", t.describe())
}

func (p *parser) argument(op token) ([]Arg, error) {
	t := p.next()
	switch t.kind {
	case tWord, tQuoted:
		return []Arg{{Pos: t.pos, Text: t.text, Quoted: t.kind == tQuoted}}, nil
	case tLParen:
		var args []Arg
		for {
			v := p.next()
			if v.kind != tWord && v.kind != tQuoted {
				return nil, errorf(v.pos, "expected value in list after '%s', found %s", op.text, v.describe())
			}
			args = append(args, Arg{Pos: v.pos, Text: v.text, Quoted: v.kind == tQuoted})
			sep := p.next()
			if sep.kind == tRParen {
				return args, nil
			}
			if sep.kind != tComma {
				return nil, errorf(sep.pos, "expected ',' or ')' in value list, found %s", sep.describe())
			}
		}
	}
	return nil, errorf(t.pos, "expected value after '%s'", op.text)
}
