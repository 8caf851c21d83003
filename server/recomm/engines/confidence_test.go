package engines

import (
	"bytes"
	"context"
	"math"
	"reflect"
	"testing"
)

// TestLogConfidence: with heavy-tailed values (play counts), the logarithmic confidence keeps both
// tastes apart, survives a save and load (including a cold user's fold-in, which uses the same
// confidence), and a model whose mean strength is missing does not load.
func TestLogConfidence(t *testing.T) {
	ds := twoTastes()
	for k := range ds.Interactions {
		ds.Interactions[k].Value = math.Pow(10, float64(k%5)) // 1 to 10,000 plays
	}
	m, err := Train(context.Background(), Hybrid, ds, TrainConfig{Seed: 1, LogConfidence: true, Alpha: 5})
	if err != nil {
		t.Fatal(err)
	}
	recs, err := m.Recommend(ItemsToUser, Subject{ID: "u3"}, Query{Limit: 5, Accept: seenBy(ds, 3)})
	if err != nil || len(recs) != 5 {
		t.Fatalf("recommendations %v %v", recs, err)
	}
	for _, r := range recs {
		if !isAction(r.ID) {
			t.Errorf("an action fan gets %s: %v", r.ID, recs)
		}
	}
	var buf bytes.Buffer
	if err := m.Save(&buf); err != nil {
		t.Fatal(err)
	}
	back, err := Load(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	cold := Subject{ID: "new", History: []Event{{UserID: "new", ItemID: "i1", Value: 5000, Weight: 1, Positive: true}}}
	a, errA := m.Recommend(ItemsToUser, cold, Query{Limit: 5})
	b, errB := back.Recommend(ItemsToUser, cold, Query{Limit: 5})
	if errA != nil || errB != nil || !reflect.DeepEqual(a, b) {
		t.Errorf("cold user before load %v %v, after %v %v", a, errA, b, errB)
	}
	h := m.(*hybridModel)
	h.S.Strength = 0
	buf.Reset()
	if err := h.Save(&buf); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(&buf); err == nil {
		t.Error("a logarithmic-confidence model without its mean strength loaded")
	}
}
