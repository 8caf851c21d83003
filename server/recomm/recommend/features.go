package recommend

import (
	"github.com/harkhq/hark/server/recomm/catalog"
	"github.com/harkhq/hark/server/recomm/engines"
	"github.com/harkhq/hark/server/recomm/rsql"
)

// FeatureKind says which of the engines' three attribute forms a value takes.
type FeatureKind int

const (
	NumberFeature FeatureKind = iota + 1 // ints, doubles, booleans (0/1), timestamps (epoch ms)
	TokenFeature                         // category, categoryList, set: one token per value
	TextFeature                          // string: free text
)

// Feature is one attribute value as the engines see it.
type Feature struct {
	Kind   FeatureKind
	Number float64
	Tokens []string
	Text   string
}

// FeatureOf converts one stored attribute value for the engines. Training and cold-start queries both
// go through it, so a model sees at query time exactly the features it was trained on. Images are not
// features, and neither is the expiration of items (operational: it decides what is recommended, not
// what is alike); a user attribute that happens to be named expiration is an ordinary attribute.
func FeatureOf(a catalog.Attribute, users bool, x any) (Feature, bool) {
	if a.ID == catalog.ExpirationAttribute && !users {
		return Feature{}, false
	}
	switch val := x.(type) {
	case int64:
		return Feature{Kind: NumberFeature, Number: float64(val)}, true
	case float64:
		return Feature{Kind: NumberFeature, Number: val}, true
	case bool:
		n := 0.0
		if val {
			n = 1
		}
		return Feature{Kind: NumberFeature, Number: n}, true
	case string:
		switch a.Type {
		case rsql.Category:
			return Feature{Kind: TokenFeature, Tokens: []string{val}}, true
		case rsql.String:
			return Feature{Kind: TextFeature, Text: val}, true
		}
	case []string:
		if a.Type != rsql.ImageList {
			return Feature{Kind: TokenFeature, Tokens: val}, true
		}
	}
	return Feature{}, false
}

// EntityAttrs converts an entity's stored values to the engines' row form, for a subject the model
// may not know (cold start).
func EntityAttrs(s *catalog.Snapshot, users bool, v rsql.MapValues) engines.EntityAttrs {
	var e engines.EntityAttrs
	for _, a := range s.Attributes {
		x, ok := v[a.ID]
		if !ok {
			continue
		}
		f, ok := FeatureOf(a, users, x)
		if !ok {
			continue
		}
		switch f.Kind {
		case NumberFeature:
			if e.Numeric == nil {
				e.Numeric = map[string]float64{}
			}
			e.Numeric[a.ID] = f.Number
		case TokenFeature:
			if e.Tokens == nil {
				e.Tokens = map[string][]string{}
			}
			e.Tokens[a.ID] = f.Tokens
		case TextFeature:
			if e.Text == nil {
				e.Text = map[string]string{}
			}
			e.Text[a.ID] = f.Text
		}
	}
	return e
}
