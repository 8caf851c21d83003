package jobs

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"github.com/harkhq/hark/server/recomm/catalog"
	"github.com/harkhq/hark/server/recomm/recommend"
)

// Answers taken from precomputed candidates are those of ranking every item: for every user, engine
// and request shape, with lists short enough (N = 3) that many requests outrun them and fall back,
// before and after online updates.
func TestCandidatesAnswerAsFullScoring(t *testing.T) {
	w := newWorld(t, 0)
	ctx := context.Background()
	engineList := []string{"hybrid", "isvd", "fm", "popular"}
	for _, e := range engineList {
		if j := w.train(t, e, nil); j.Status != CompletedWithErrors { // "buy" has too few records
			t.Fatalf("train %s: %+v", e, j)
		}
	}
	cand := &recommend.Recommender{Catalog: w.cat, Models: w.models, Candidates: 3}
	full := &recommend.Recommender{Catalog: w.cat, Models: w.models, Candidates: -1}
	w.cat.Recorded = cand.Learn
	t.Cleanup(w.models.WaitSaves)
	if _, err := cand.Recommend(ctx, 1, "shop", recommend.Query{Slot: catalog.SlotItemsToUser, SubjectID: "u00", Engine: "hybrid"}); err != nil {
		t.Fatal(err)
	}
	cand.WaitCandidates()
	if users, entries := cand.CandidateEntries(); users != 4*30 || entries < 4*30*3 {
		t.Fatalf("candidates of %d users, %d entries; want every user of hybrid, isvd, fm and popular", users, entries)
	}
	shapes := []recommend.Query{
		{Limit: 1}, {Limit: 2}, {Limit: 3}, {Limit: 10}, {Limit: 40},
		{Filter: "genre==rock", Limit: 2}, {Filter: "price=lt=20", Limit: 5},
		{InteractionFilter: "view==true", Limit: 2}, {InteractionFilter: "view==false", Limit: 3},
		{PopularFilter: "5", Limit: 2}, {Limit: 2, Explain: true},
		{Sort: "price==DESC", Limit: 2}, {AttributeID: "price", InteractionID: "view", Limit: 3},
	}
	compare := func(stage string, users []string, engines []string) {
		t.Helper()
		for _, e := range engines {
			for i, u := range users {
				// three shapes per user, every shape for some users, kept few for the race detector
				for k := range 3 {
					q := shapes[(i+k*4)%len(shapes)]
					q.Slot, q.SubjectID, q.Engine = catalog.SlotItemsToUser, u, e
					got, err1 := cand.Recommend(ctx, 1, "shop", q)
					want, err2 := full.Recommend(ctx, 1, "shop", q)
					if fmt.Sprint(err1) != fmt.Sprint(err2) || !reflect.DeepEqual(got, want) {
						t.Fatalf("%s, %s for %s %+v:\ncandidates %v %v\nfull       %v %v", stage, e, u, q, got, err1, want, err2)
					}
				}
			}
		}
	}
	var users []string
	for u := range 30 {
		users = append(users, fmt.Sprintf("u%02d", u))
	}
	compare("after training", users, []string{"hybrid", "isvd"})
	var third []string // fm and popular take the same path: fewer users keep the test quick
	for i := 0; i < len(users); i += 3 {
		third = append(third, users[i])
	}
	compare("after training", third, []string{"fm", "popular"})
	served, fellBack := cand.CandidateStats()
	if served == 0 || fellBack == 0 {
		t.Fatalf("%d answers from candidates, %d fell back: the test must exercise both", served, fellBack)
	}

	// online updates: isvd folds them in, the others keep their scores and exclude the new items
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < 12; i += 2 { // u03 had only jazz (odd items): its isvd ranking turns
		must(w.cat.AddRecord(ctx, 1, "shop", "view", "u03", fmt.Sprintf("i%02d", i), nil, nil))
	}
	must(w.cat.AddEntity(ctx, 1, catalog.Users, "newbie", nil))
	must(w.cat.AddRecord(ctx, 1, "shop", "view", "newbie", "i04", nil, nil))
	users = append(users, "newbie")
	compare("after ratings of known items", users, []string{"hybrid", "isvd"})
	if n, _ := cand.CandidateStats(); n == served {
		t.Fatal("no answer from candidates after the updates")
	}
	// an item isvd did not train on changes every user's isvd scores with each interaction
	must(w.cat.AddEntity(ctx, 1, "shop", "i99", map[string]any{"genre": "rock", "price": 5.0}))
	for u := 1; u < 16; u += 2 { // half the users of its genre: it ranks high for the other half
		must(w.cat.AddRecord(ctx, 1, "shop", "view", fmt.Sprintf("u%02d", u), "i99", nil, nil))
	}
	compare("right after an interaction on a new item", users, []string{"isvd"})
	cand.WaitCandidates()
	compare("once the candidates are built again", users, []string{"isvd"})
}
