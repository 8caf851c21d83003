package recommend

import (
	"testing"

	"github.com/harkhq/hark/server/recomm/catalog"
	"github.com/harkhq/hark/server/recomm/rsql"
)

// A user attribute named expiration is an ordinary attribute; only the items' expiration is
// operational. Training and cold start used to disagree on it.
func TestExpirationIsAFeatureOfUsersOnly(t *testing.T) {
	exp := catalog.Attribute{ID: catalog.ExpirationAttribute, Type: rsql.Timestamp}
	if _, ok := FeatureOf(exp, false, int64(5)); ok {
		t.Error("an item's expiration became a feature")
	}
	f, ok := FeatureOf(exp, true, int64(5))
	if !ok || f.Kind != NumberFeature || f.Number != 5 {
		t.Errorf("a user's expiration = %+v %v, want the number 5", f, ok)
	}
}

func TestFeatureForms(t *testing.T) {
	for _, c := range []struct {
		a    catalog.Attribute
		x    any
		want FeatureKind
	}{
		{catalog.Attribute{ID: "n", Type: rsql.Int}, int64(3), NumberFeature},
		{catalog.Attribute{ID: "b", Type: rsql.Boolean}, true, NumberFeature},
		{catalog.Attribute{ID: "g", Type: rsql.Category}, "rock", TokenFeature},
		{catalog.Attribute{ID: "s", Type: rsql.Set}, []string{"a", "b"}, TokenFeature},
		{catalog.Attribute{ID: "t", Type: rsql.String}, "words", TextFeature},
		{catalog.Attribute{ID: "i", Type: rsql.ImageList}, []string{"http://x/a.png"}, 0},
		{catalog.Attribute{ID: "p", Type: rsql.Image}, "http://x/a.png", 0},
	} {
		f, ok := FeatureOf(c.a, false, c.x)
		if ok != (c.want != 0) || f.Kind != c.want {
			t.Errorf("%s %v: kind %v ok %v, want %v", c.a.ID, c.x, f.Kind, ok, c.want)
		}
	}
}
