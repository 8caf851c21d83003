package evaluate

import (
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/harkhq/hark/server/recomm/engines"
)

func smallDataset() *engines.Dataset {
	ds := engines.NewDataset([]string{"a", "b", "c"}, []string{"i0", "i1", "i2", "i3", "i4", "i5", "i6", "i7", "i8", "i9"})
	for i := range 10 {
		ds.Add(0, int32(i), 1, 1, true, 1, "view")
	}
	for i := range 5 {
		ds.Add(1, int32(i), 1, 1, true, 1, "view")
	}
	ds.Add(2, 0, 1, 1, true, 1, "view") // one item: nothing held out
	return ds
}

func TestSplitByUser(t *testing.T) {
	ds := smallDataset()
	s1, err := SplitByUser(ds, 0.2, 42)
	if err != nil {
		t.Fatal(err)
	}
	s2, _ := SplitByUser(ds, 0.2, 42)
	if !reflect.DeepEqual(s1.Test, s2.Test) {
		t.Error("same seed, different split")
	}
	if len(s1.Test[0]) != 2 || len(s1.Test[1]) != 1 || len(s1.Test[2]) != 0 {
		t.Errorf("held out %v, want 2, 1 and 0 items", s1.Test)
	}
	held := map[[2]int32]bool{}
	for u, items := range s1.Test {
		for _, it := range items {
			held[[2]int32{int32(u), it}] = true
		}
	}
	for _, in := range s1.Train.Interactions {
		if held[[2]int32{in.User, in.Item}] {
			t.Errorf("held-out pair %v in training", in)
		}
	}
	if len(s1.Train.Interactions)+len(held) != len(ds.Interactions) {
		t.Errorf("%d train + %d test != %d", len(s1.Train.Interactions), len(held), len(ds.Interactions))
	}
	for _, bad := range []float64{0, 1, -0.5, math.NaN()} {
		if _, err := SplitByUser(ds, bad, 1); err == nil {
			t.Errorf("fraction %v accepted", bad)
		}
	}
	if _, err := SplitByUser(engines.NewDataset(nil, nil), 0.2, 1); !errors.Is(err, engines.ErrNoInteractions) {
		t.Errorf("empty dataset: %v", err)
	}
}

// fixedModel recommends items in a fixed order, skipping rejected ones.
type fixedModel struct{ order []string }

func (m fixedModel) Engine() string { return "fixed" }
func (m fixedModel) Recommend(kind engines.Kind, _ engines.Subject, q engines.Query) ([]engines.Scored, error) {
	if kind != engines.ItemsToUser {
		return nil, nil
	}
	var out []engines.Scored
	for _, id := range m.order {
		if (q.Accept == nil || q.Accept(id)) && len(out) < q.Limit {
			out = append(out, engines.Scored{ID: id})
		}
	}
	return out, nil
}
func (m fixedModel) Save(io.Writer) error { return nil }

func TestEvaluateMetrics(t *testing.T) {
	ds := engines.NewDataset([]string{"a"}, []string{"i0", "i1", "i2", "i3", "i4"})
	ds.Add(0, 0, 1, 1, true, 1, "view")
	s := &Split{Train: ds, Test: [][]int32{{2, 4}}}
	// i0 is in training and must be skipped: the ranking seen is i1, i2, i3 → one hit at rank 2
	met, err := Evaluate(fixedModel{order: []string{"i0", "i1", "i2", "i3", "i4"}}, s, 3)
	if err != nil {
		t.Fatal(err)
	}
	ndcg := (1 / math.Log2(3)) / (1 + 1/math.Log2(3))
	want := Metrics{Precision: 1.0 / 3, Recall: 0.5, NDCG: ndcg, HitRate: 1, Coverage: 3.0 / 5, Users: 1}
	if math.Abs(met.Precision-want.Precision) > 1e-12 || met.Recall != want.Recall ||
		math.Abs(met.NDCG-want.NDCG) > 1e-12 || met.HitRate != 1 || met.Coverage != want.Coverage || met.Users != 1 {
		t.Errorf("metrics %+v, want %+v", met, want)
	}
	if _, err := Evaluate(fixedModel{}, s, 0); err == nil {
		t.Error("k = 0 accepted")
	}
	if _, err := Evaluate(fixedModel{}, &Split{Train: ds, Test: [][]int32{nil}}, 3); err == nil {
		t.Error("split without held-out items accepted")
	}
}

func writeFiles(t *testing.T, movies, ratings string) string {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "movies.csv"), []byte(movies), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "ratings.csv"), []byte(ratings), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

const moviesCSV = "movieId,title,year,genres\n1,Toy Story,1995,Animation|Comedy\n2,\"Heat, The\",,(no genres listed)\n"

func TestLoadMovieLens(t *testing.T) {
	dir := writeFiles(t, moviesCSV, "userId,movieId,rating,timestamp\n7,1,4.5,100\n7,2,3,200\n8,1,1,300\n")
	ds, err := LoadMovieLens(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(ds.UserIDs, []string{"7", "8"}) || !reflect.DeepEqual(ds.ItemIDs, []string{"1", "2"}) {
		t.Errorf("ids %v %v", ds.UserIDs, ds.ItemIDs)
	}
	if len(ds.Interactions) != 3 || ds.Interactions[0].Value != 4.5 || ds.Interactions[0].Timestamp != 100_000 {
		t.Errorf("interactions %+v", ds.Interactions)
	}
	if got := ds.ItemAttrs.Tokens["genres"]; !reflect.DeepEqual(got, [][]string{{"Animation", "Comedy"}, nil}) {
		t.Errorf("genres %v", got)
	}
	if y := ds.ItemAttrs.Numeric["year"]; y[0] != 1995 || !math.IsNaN(y[1]) {
		t.Errorf("years %v", y)
	}
	if ds.ItemAttrs.Text["title"][1] != "Heat, The" {
		t.Errorf("titles %v", ds.ItemAttrs.Text["title"])
	}
	for name, ratings := range map[string]string{
		"unknown movie": "userId,movieId,rating,timestamp\n7,99,4,100\n",
		"bad rating":    "userId,movieId,rating,timestamp\n7,1,four,100\n",
		"bad timestamp": "userId,movieId,rating,timestamp\n7,1,4,yesterday\n",
		"short row":     "userId,movieId,rating,timestamp\n7,1,4\n",
		"empty":         "",
	} {
		if _, err := LoadMovieLens(writeFiles(t, moviesCSV, ratings)); err == nil {
			t.Errorf("%s: loaded without error", name)
		}
	}
	if _, err := LoadMovieLens(writeFiles(t, moviesCSV+"1,Again,2000,Drama\n", "userId,movieId,rating,timestamp\n")); err == nil {
		t.Error("duplicate movie id accepted")
	}
	if _, err := LoadMovieLens(filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Error("missing directory accepted")
	}
}

func TestMostInteracted(t *testing.T) {
	ds := engines.NewDataset([]string{"a", "b"}, []string{"x", "y", "z"})
	ds.AddItemTokens("genres", 1, "Drama")
	ds.SetItemNumber("year", 2, 1999)
	ds.Add(0, 1, 4, 1, true, 0, "rating")
	ds.Add(1, 1, 3, 1, true, 0, "rating")
	ds.Add(0, 2, 5, 1, true, 0, "rating")
	ds.Add(1, 0, 1, 1, true, 0, "rating")
	ds.Add(0, 0, 1, 1, true, 0, "rating")
	ds.Add(1, 2, 2, 1, true, 0, "rating")
	ds.Add(1, 2, 2, 1, true, 0, "rating")
	top := MostInteracted(ds, 2)
	if !reflect.DeepEqual(top.ItemIDs, []string{"z", "x"}) || len(top.Interactions) != 5 {
		t.Fatalf("kept %v with %d interactions", top.ItemIDs, len(top.Interactions))
	}
	if y := top.ItemAttrs.Numeric["year"]; y[0] != 1999 {
		t.Errorf("z lost its year: %v", y)
	}
	for _, in := range top.Interactions {
		if top.ItemIDs[in.Item] != ds.ItemIDs[map[float64]int32{4: 1, 3: 1, 5: 2, 1: 0, 2: 2}[in.Value]] {
			t.Errorf("interaction %+v moved to %s", in, top.ItemIDs[in.Item])
		}
	}
}
