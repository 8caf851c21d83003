package engines

import (
	"bytes"
	"context"
	"errors"
	"math"
	"reflect"
	"testing"
)

// TestNeighboursSolveEASE checks the learnt weights against EASE's definition, solved column by
// column: B[·][j] minimises ‖X_j − X B_j‖² + λ‖B_j‖² with B[j][j] = 0, that is
// (XᵀX + λI) restricted to the other items times B_j = XᵀX_j restricted the same way.
func TestNeighboursSolveEASE(t *testing.T) {
	ds := randomCatalog(60, 12, 5)
	up := userItemPairs(ds)
	nb, err := itemNeighbours(context.Background(), up, len(ds.ItemIDs), 2)
	if err != nil || nb == nil {
		t.Fatalf("neighbours %v, %v", nb, err)
	}
	n := len(ds.ItemIDs)
	xtx := make([]float64, n*n)
	for r := range up.Rows {
		for p := up.Start[r]; p < up.Start[r+1]; p++ {
			for q := up.Start[r]; q < up.Start[r+1]; q++ {
				xtx[int(up.Col[p])*n+int(up.Col[q])]++
			}
		}
	}
	diag := 0.0
	for i := range n {
		diag += xtx[i*n+i]
	}
	lambda := neighbourRidge * diag / float64(n) // every item of this catalog has two users or more
	got := map[[2]int32]float64{}
	for i := range n {
		for p := nb.Start[i]; p < nb.Start[i+1]; p++ {
			got[[2]int32{int32(i), nb.Item[p]}] = float64(nb.Weight[p])
		}
	}
	checked := 0
	for j := range n {
		var others []int
		for i := range n {
			if i != j {
				others = append(others, i)
			}
		}
		m := len(others)
		a := make([]float64, m*m)
		b := make([]float64, m)
		for x, i := range others {
			for y, l := range others {
				a[x*m+y] = xtx[i*n+l]
			}
			a[x*m+x] += lambda
			b[x] = xtx[i*n+j]
		}
		if err := cholesky(a, m); err != nil {
			t.Fatal(err)
		}
		cholSolve(a, m, b)
		for x, i := range others {
			w, kept := got[[2]int32{int32(i), int32(j)}]
			switch {
			case b[x] > 0 && !kept:
				t.Errorf("B[%d][%d] = %.5f is positive and was not kept", i, j, b[x])
			case kept && math.Abs(w-b[x]) > 1e-4*math.Max(1, math.Abs(b[x])):
				t.Errorf("B[%d][%d] = %.6f, EASE gives %.6f", i, j, w, b[x])
			case kept:
				checked++
			}
		}
	}
	if checked < n {
		t.Errorf("only %d weights checked", checked)
	}
}

// TestNeighbourMix checks that items-to-user scores are (1−w)·factors + w·neighbours, for a known
// user from their training items and for a user the model does not know from the request's history,
// and that the model saves and loads with its neighbours.
func TestNeighbourMix(t *testing.T) {
	ds := twoTastes()
	m, err := Train(context.Background(), Hybrid, ds, TrainConfig{Seed: 1, NeighbourWeight: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	plain, err := WithNeighbourWeight(m, 0)
	if err != nil {
		t.Fatal(err)
	}
	h := m.(*hybridModel)
	nb := h.S.Neighbours
	if nb == nil || len(nb.Item) == 0 {
		t.Fatal("no neighbours learnt")
	}
	check := func(name string, sub Subject, items []int32) {
		t.Helper()
		e := nb.scores(items, len(ds.ItemIDs))
		base, _ := plain.Recommend(ItemsToUser, sub, Query{Limit: MaxLimit})
		mixed, _ := m.Recommend(ItemsToUser, sub, Query{Limit: MaxLimit})
		want := map[string]float64{}
		for _, r := range base {
			want[r.ID] = 0.5*r.Score + 0.5*float64(e[h.itemIdx[r.ID]])
		}
		if len(mixed) != len(base) {
			t.Fatalf("%s: %d items mixed, %d without neighbours", name, len(mixed), len(base))
		}
		moved := false
		for _, r := range mixed {
			if math.Abs(r.Score-want[r.ID]) > 1e-5 {
				t.Errorf("%s: %s scores %.6f, want %.6f", name, r.ID, r.Score, want[r.ID])
			}
			moved = moved || e[h.itemIdx[r.ID]] != 0
		}
		if !moved {
			t.Errorf("%s: no item got a neighbour score", name)
		}
	}
	u := h.userIdx["u3"]
	known := nb.HistItem[nb.HistStart[u]:nb.HistStart[u+1]]
	if len(known) == 0 {
		t.Fatal("u3 has no training items")
	}
	check("known user", Subject{ID: "u3"}, known)
	check("new user", Subject{ID: "newcomer", History: []Event{
		{UserID: "newcomer", ItemID: ds.ItemIDs[0], Value: 1, Weight: 1, Positive: true},
		{UserID: "newcomer", ItemID: ds.ItemIDs[1], Value: 1, Weight: 1, Positive: true},
		{UserID: "newcomer", ItemID: ds.ItemIDs[2], Value: 1, Weight: 1, Positive: false},
	}}, []int32{0, 1})

	var buf bytes.Buffer
	if err := m.Save(&buf); err != nil {
		t.Fatal(err)
	}
	back, err := Load(&buf)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := m.Recommend(ItemsToUser, Subject{ID: "u3"}, Query{Limit: 20})
	b, _ := back.Recommend(ItemsToUser, Subject{ID: "u3"}, Query{Limit: 20})
	if !reflect.DeepEqual(a, b) {
		t.Errorf("after load %v, before %v", b, a)
	}
	// a loaded model whose lists do not match its catalog is refused
	bad := &hybridModel{S: h.S}
	broken := *nb
	broken.Item = append([]int32{int32(len(ds.ItemIDs))}, nb.Item[1:]...)
	bad.S.Neighbours = &broken
	if err := bad.afterLoad(); err == nil {
		t.Error("a neighbour outside the catalog was accepted")
	}
	if _, err := WithNeighbourWeight(m, 1.5); err == nil {
		t.Error("weight 1.5 accepted")
	}
	if _, err := WithNeighbourWeight(plain, 0.3); err != nil {
		t.Errorf("reweighting a model trained with neighbours: %v", err)
	}
	other, _ := Train(context.Background(), Hybrid, ds, TrainConfig{Seed: 1})
	if _, err := WithNeighbourWeight(other, 0.3); err == nil {
		t.Error("a model trained without neighbours was reweighted")
	}
	for _, w := range []float64{-0.1, 1.1, math.NaN()} {
		if _, err := Train(context.Background(), Hybrid, ds, TrainConfig{NeighbourWeight: w}); err == nil {
			t.Errorf("neighbour weight %v accepted", w)
		}
	}
}

// TestNeighboursCancel: a cancelled training stops before inverting, and a catalog where no item
// has two users learns no neighbours and trains as plain hybrid.
func TestNeighboursCancel(t *testing.T) {
	ds := randomCatalog(3000, 2500, 40)
	up := userItemPairs(ds)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := itemNeighbours(ctx, up, len(ds.ItemIDs), 2); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	few := NewDataset([]string{"a", "b"}, []string{"x", "y", "z"})
	few.Add(0, 0, 1, 1, true, 0, "v")
	few.Add(1, 1, 1, 1, true, 0, "v")
	nb, err := itemNeighbours(context.Background(), userItemPairs(few), 3, 1)
	if nb != nil || err != nil {
		t.Errorf("no item has two users: %v, %v", nb, err)
	}
	m, err := Train(context.Background(), Hybrid, few, TrainConfig{NeighbourWeight: 0.3})
	if err != nil || m.(*hybridModel).S.Neighbours != nil || m.(*hybridModel).S.NeighbourWeight != 0 {
		t.Errorf("a catalog without neighbours trains as plain hybrid: %v", err)
	}
}
