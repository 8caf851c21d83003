package rsql

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Type is the type of an attribute: the ten types of the recommendation
// document. Values of each type have one Go form everywhere in harkd, which
// is what Eval compares and what catalog stores:
//
//	Int                       int64
//	Double                    float64
//	String, Category, Image   string
//	Boolean                   bool
//	Timestamp                 int64, UTC epoch milliseconds
//	Set, CategoryList,
//	ImageList                 []string
type Type uint8

const (
	Invalid Type = iota
	Int
	Double
	String
	Boolean
	Timestamp
	Set
	Category
	CategoryList
	Image
	ImageList
)

var typeNames = [...]string{
	Invalid: "invalid", Int: "int", Double: "double", String: "string", Boolean: "boolean",
	Timestamp: "timestamp", Set: "set", Category: "category", CategoryList: "categoryList",
	Image: "image", ImageList: "imageList",
}

func (t Type) String() string {
	if int(t) < len(typeNames) {
		return typeNames[t]
	}
	return "invalid"
}

// ParseType reads a type name as the document writes it.
func ParseType(s string) (Type, bool) {
	for t := Int; t <= ImageList; t++ {
		if typeNames[t] == s {
			return t, true
		}
	}
	return Invalid, false
}

// IsList reports whether values of t are lists of strings.
func (t Type) IsList() bool { return t == Set || t == CategoryList || t == ImageList }

// IsNumeric reports whether values of t are stored as numbers (booleans as 0/1).
func (t Type) IsNumeric() bool { return t == Int || t == Double || t == Timestamp || t == Boolean }

// ParseBool reads the lenient booleans of DECISIONS §1.
func ParseBool(s string) (bool, bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "true", "yes", "1":
		return true, true
	case "false", "no", "0":
		return false, true
	}
	return false, false
}

// ParseTimestamp reads an ISO 8601 date-time (a zone-less one is UTC) or
// an integer of UTC epoch milliseconds.
func ParseTimestamp(s string) (int64, error) {
	s = strings.TrimSpace(s)
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return n, nil
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02T15:04", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UnixMilli(), nil
		}
	}
	return 0, fmt.Errorf("%q is neither an ISO 8601 date-time nor epoch milliseconds", s)
}

// errNUL refuses a NUL character in a value on both engines alike: the
// PostgreSQL store keeps no NUL in text or JSON, and a value one engine
// stores must not be refused by the other.
var errNUL = errors.New("the value holds a NUL character (U+0000), which values may not hold")

// ParseValue converts the text form of a value (a filter literal, a CSV
// cell) to the Go form of t. List members are separated by commas.
func ParseValue(t Type, s string) (any, error) {
	if !utf8.ValidString(s) {
		return nil, fmt.Errorf("the value is not valid UTF-8")
	}
	if strings.IndexByte(s, 0) >= 0 {
		return nil, errNUL
	}
	switch t {
	case Int:
		n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not an integer", s)
		}
		return n, nil
	case Double:
		f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, fmt.Errorf("%q is not a finite number", s)
		}
		return f, nil
	case Boolean:
		b, ok := ParseBool(s)
		if !ok {
			return nil, fmt.Errorf("%q is not a boolean", s)
		}
		return b, nil
	case Timestamp:
		return ParseTimestamp(s)
	case String, Category, Image:
		return s, nil
	case Set, CategoryList, ImageList:
		var out []string
		for _, m := range strings.Split(s, ",") {
			if m = strings.TrimSpace(m); m != "" {
				out = append(out, m)
			}
		}
		return out, nil
	}
	return nil, fmt.Errorf("invalid type")
}

// FromJSON converts a value decoded by encoding/json (with UseNumber or
// not) to the Go form of t. Strings are accepted for every scalar type, as
// public clients send numbers and booleans quoted.
func FromJSON(t Type, v any) (any, error) {
	switch x := v.(type) {
	case nil:
		return nil, fmt.Errorf("null is not a value")
	case string:
		if t.IsList() {
			return nil, fmt.Errorf("a %s value is a list of strings", t)
		}
		return ParseValue(t, x)
	case json.Number:
		if t.IsList() || t == String || t == Category || t == Image {
			return nil, fmt.Errorf("a %s value cannot be a number", t)
		}
		return ParseValue(t, x.String())
	case float64:
		switch t {
		case Int, Timestamp:
			if x != math.Trunc(x) || math.Abs(x) > 1<<53 {
				return nil, fmt.Errorf("%v is not an integer", x)
			}
			return int64(x), nil
		case Double:
			return x, nil
		case Boolean:
			if x == 0 || x == 1 {
				return x == 1, nil
			}
		}
		return nil, fmt.Errorf("a %s value cannot be a number", t)
	case bool:
		if t == Boolean {
			return x, nil
		}
		return nil, fmt.Errorf("a %s value cannot be a boolean", t)
	case []any:
		if !t.IsList() {
			return nil, fmt.Errorf("a %s value cannot be a list", t)
		}
		out := make([]string, 0, len(x))
		for _, m := range x {
			s, ok := m.(string)
			if !ok {
				return nil, fmt.Errorf("members of a %s value are strings", t)
			}
			if strings.IndexByte(s, 0) >= 0 {
				return nil, errNUL
			}
			out = append(out, s)
		}
		return out, nil
	}
	return nil, fmt.Errorf("unsupported value for a %s attribute", t)
}
