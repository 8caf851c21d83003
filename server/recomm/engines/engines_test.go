package engines

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
)

// twoTastes builds a catalog with two disjoint tastes: items 0-14 are action films, 15-29 romance;
// users 0-19 interact only with action items, users 20-39 only with romance items.
func twoTastes() *Dataset {
	var users, items []string
	for u := range 40 {
		users = append(users, fmt.Sprintf("u%d", u))
	}
	for i := range 30 {
		items = append(items, fmt.Sprintf("i%d", i))
	}
	ds := NewDataset(users, items)
	for i := range 30 {
		if i < 15 {
			ds.AddItemTokens("genre", int32(i), "action")
			ds.SetItemText("title", int32(i), fmt.Sprintf("Explosive car chases and heroes %d", i))
			ds.SetItemNumber("year", int32(i), float64(1980+i))
		} else {
			ds.AddItemTokens("genre", int32(i), "romance")
			ds.SetItemText("title", int32(i), fmt.Sprintf("A love story with weddings %d", i))
			ds.SetItemNumber("year", int32(i), float64(1990+i))
		}
	}
	rng := rand.New(rand.NewPCG(7, 7))
	for u := range 40 {
		base := 0
		if u >= 20 {
			base = 15
		}
		for _, k := range rng.Perm(15)[:8] {
			ds.Add(int32(u), int32(base+k), 1, 1, true, int64(1000*(u+k)), "view")
		}
	}
	return ds
}

func isAction(id string) bool {
	var n int
	fmt.Sscanf(id, "i%d", &n)
	return n < 15
}

var (
	learnedEngines   = []string{Hybrid, ContentBased, FM, ISVD}
	attributeEngines = []string{Hybrid, ContentBased, FM} // use attributes for cold entities
)

func train(t *testing.T, engine string, ds *Dataset) Model {
	t.Helper()
	cfg := TrainConfig{Seed: 3, Workers: 2}
	if engine == Hybrid || engine == FM {
		cfg.Factors = 16 // the dense k×k work per row makes the defaults slow under -race
	}
	m, err := Train(context.Background(), engine, ds, cfg)
	if err != nil {
		t.Fatalf("train %s: %v", engine, err)
	}
	return m
}

// seenBy returns an Accept predicate leaving out the items a user interacted with.
func seenBy(ds *Dataset, user int32) func(string) bool {
	seen := map[string]bool{}
	for _, in := range ds.Interactions {
		if in.User == user {
			seen[ds.ItemIDs[in.Item]] = true
		}
	}
	return func(id string) bool { return !seen[id] }
}

func TestTwoTastesSeparate(t *testing.T) {
	ds := twoTastes()
	for _, engine := range learnedEngines {
		t.Run(engine, func(t *testing.T) {
			m := train(t, engine, ds)
			for _, u := range []int32{0, 5, 25, 39} {
				recs, err := m.Recommend(ItemsToUser, Subject{ID: ds.UserIDs[u]}, Query{Limit: 5, Accept: seenBy(ds, u)})
				if err != nil {
					t.Fatal(err)
				}
				if len(recs) != 5 {
					t.Fatalf("user %d: %d recommendations, want 5", u, len(recs))
				}
				for _, r := range recs {
					if isAction(r.ID) != (u < 20) {
						t.Errorf("user %d got %s from the other taste: %v", u, r.ID, recs)
					}
					if r.Match < 0 || r.Match > 100 {
						t.Errorf("match %v outside 0-100", r.Match)
					}
				}
				for k := 1; k < len(recs); k++ {
					if recs[k].Match > recs[k-1].Match {
						t.Errorf("user %d: not ordered by match: %v", u, recs)
					}
				}
			}
			sim, err := m.Recommend(ItemsToItem, Subject{ID: "i3"}, Query{Limit: 5})
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range sim {
				if r.ID == "i3" || !isAction(r.ID) {
					t.Errorf("similar to i3: %v", sim)
				}
			}
			users, err := m.Recommend(UsersToItem, Subject{ID: "i20"}, Query{Limit: 10})
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range users {
				var n int
				fmt.Sscanf(r.ID, "u%d", &n)
				if n < 20 {
					t.Errorf("users for romance item: %v", users)
				}
			}
			su, err := m.Recommend(UsersToUser, Subject{ID: "u1"}, Query{Limit: 5})
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range su {
				var n int
				fmt.Sscanf(r.ID, "u%d", &n)
				if r.ID == "u1" || n >= 20 {
					t.Errorf("similar users of u1: %v", su)
				}
			}
		})
	}
}

func TestColdItemFromAttributes(t *testing.T) {
	ds := twoTastes()
	cold := Subject{ID: "new", Attrs: EntityAttrs{Tokens: map[string][]string{"genre": {"romance"}},
		Text: map[string]string{"title": "love and weddings"}, Numeric: map[string]float64{"year": 2012}}}
	for _, engine := range attributeEngines {
		t.Run(engine, func(t *testing.T) {
			m := train(t, engine, ds)
			sim, err := m.Recommend(ItemsToItem, cold, Query{Limit: 5})
			if err != nil {
				t.Fatal(err)
			}
			if len(sim) != 5 {
				t.Fatalf("got %v", sim)
			}
			for _, r := range sim {
				if isAction(r.ID) {
					t.Errorf("cold romance item similar to action: %v", sim)
				}
			}
			users, err := m.Recommend(UsersToItem, cold, Query{Limit: 5})
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range users {
				var n int
				fmt.Sscanf(r.ID, "u%d", &n)
				if n < 20 {
					t.Errorf("users for cold romance item: %v", users)
				}
			}
		})
	}
}

func TestColdUserFromHistory(t *testing.T) {
	ds := twoTastes()
	cold := Subject{ID: "newcomer", History: []Event{
		{UserID: "newcomer", ItemID: "i16", Value: 1, Weight: 1, Positive: true},
		{UserID: "newcomer", ItemID: "i17", Value: 1, Weight: 1, Positive: true},
	}}
	for _, engine := range learnedEngines {
		t.Run(engine, func(t *testing.T) {
			m := train(t, engine, ds)
			recs, err := m.Recommend(ItemsToUser, cold, Query{Limit: 5, Accept: func(id string) bool { return id != "i16" && id != "i17" }})
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range recs {
				if isAction(r.ID) {
					t.Errorf("romance newcomer got action: %v", recs)
				}
			}
		})
	}
}

func TestNegativePolarity(t *testing.T) {
	ds := twoTastes()
	// u40 dislikes most action films and likes two romance films.
	ds.UserIDs = append(ds.UserIDs, "u40")
	for i := range 10 {
		ds.Add(40, int32(i), 1, 2, false, 5, "dislike")
	}
	ds.Add(40, 15, 1, 1, true, 5, "view")
	ds.Add(40, 16, 1, 1, true, 5, "view")
	for _, engine := range attributeEngines {
		t.Run(engine, func(t *testing.T) {
			m := train(t, engine, ds)
			recs, err := m.Recommend(ItemsToUser, Subject{ID: "u40"}, Query{Limit: 30, Accept: seenBy(ds, 40)})
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range recs[:5] {
				if isAction(r.ID) {
					t.Errorf("user with negative action history got action first: %v", recs)
				}
			}
		})
	}
}

func TestContentKeywordsWarmUp(t *testing.T) {
	ds := twoTastes()
	ds.UserIDs = append(ds.UserIDs, "fresh")
	ds.SetKeywords(40, []string{"Weddings", "románce"})
	m := train(t, ContentBased, ds)
	check := func(sub Subject) {
		recs, err := m.Recommend(ItemsToUser, sub, Query{Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		if len(recs) != 10 {
			t.Fatalf("got %v", recs)
		}
		for _, r := range recs {
			if isAction(r.ID) || r.Match <= 0 {
				t.Errorf("keywords warm-up %v gave %v", sub, recs)
			}
		}
	}
	check(Subject{ID: "fresh"})                                        // stored keywords, stemmed and accent-folded
	check(Subject{ID: "stranger", Keywords: []string{"love stories"}}) // keywords given with the query
	if _, err := m.Recommend(ItemsToUser, Subject{ID: "nobody"}, Query{}); !errors.Is(err, ErrNoSignal) {
		t.Errorf("unknown user with nothing known: %v, want ErrNoSignal", err)
	}
}

func TestPopularCountsDistinctUsers(t *testing.T) {
	ds := NewDataset([]string{"a", "b", "c"}, []string{"x", "y", "z"})
	for range 10 {
		ds.Add(0, 0, 1, 1, true, 100, "view") // one user, many times
	}
	ds.Add(0, 1, 1, 1, true, 100, "view")
	ds.Add(1, 1, 1, 1, true, 100, "view")
	ds.Add(2, 2, 1, 1, false, 100, "dislike")
	m, err := Train(context.Background(), Popular, ds, TrainConfig{HalfLife: -1})
	if err != nil {
		t.Fatal(err)
	}
	recs, _ := m.Recommend(ItemsToUser, Subject{ID: "a"}, Query{})
	want := []Scored{{ID: "y", Score: 2, Match: 100}, {ID: "x", Score: 1, Match: 50}, {ID: "z", Score: 0, Match: 0}}
	if !reflect.DeepEqual(recs, want) {
		t.Errorf("got %v, want %v", recs, want)
	}
	// decay: an old interaction counts half after one half-life
	ds2 := NewDataset([]string{"a", "b"}, []string{"old", "new"})
	ds2.Add(0, 0, 1, 1, true, 0, "view")
	ds2.Add(1, 1, 1, 1, true, 86_400_000, "view")
	m, err = Train(context.Background(), Popular, ds2, TrainConfig{})
	if err != nil {
		t.Fatal(err)
	}
	recs, _ = m.Recommend(ItemsToUser, Subject{}, Query{})
	if recs[0].ID != "new" || recs[1].Score != 0.5 {
		t.Errorf("decayed popularity: %v", recs)
	}
}

func TestQueryPaging(t *testing.T) {
	ds := twoTastes()
	for _, engine := range append([]string{Popular}, learnedEngines...) {
		m := train(t, engine, ds)
		all, err := m.Recommend(ItemsToUser, Subject{ID: "u0"}, Query{Limit: 30})
		if err != nil {
			t.Fatal(err)
		}
		if len(all) != 30 {
			t.Fatalf("%s: %d results", engine, len(all))
		}
		page, _ := m.Recommend(ItemsToUser, Subject{ID: "u0"}, Query{Limit: 5, After: all[9].ID})
		if !reflect.DeepEqual(page, all[10:15]) {
			t.Errorf("%s: page after %s = %v, want %v", engine, all[9].ID, page, all[10:15])
		}
		none, _ := m.Recommend(ItemsToUser, Subject{ID: "u0"}, Query{After: "missing"})
		if len(none) != 0 {
			t.Errorf("%s: after unknown id: %v", engine, none)
		}
		// the multiplier reorders: boost the last item enough to come first
		last := all[29].ID
		boosted, _ := m.Recommend(ItemsToUser, Subject{ID: "u0"}, Query{Limit: 3, Multiplier: func(id string) float64 {
			if id == last {
				return 1e9
			}
			return 1
		}})
		if all[29].Score > 0 { // a zero relevance stays zero whatever the multiplier
			if boosted[0].ID != last {
				t.Errorf("%s: multiplier did not promote %s: %v", engine, last, boosted)
			}
		}
	}
}

func TestDiversityReranks(t *testing.T) {
	ds := twoTastes()
	// u41 likes both tastes
	ds.UserIDs = append(ds.UserIDs, "both")
	for _, i := range []int32{0, 1, 2, 3, 4, 5, 15} {
		ds.Add(40, i, 1, 1, true, 5, "view")
	}
	m := train(t, Hybrid, ds)
	plain, _ := m.Recommend(ItemsToUser, Subject{ID: "both"}, Query{Limit: 6, Accept: seenBy(ds, 40)})
	diverse, _ := m.Recommend(ItemsToUser, Subject{ID: "both"}, Query{Limit: 6, Accept: seenBy(ds, 40), Diversity: 0.9})
	count := func(rs []Scored) (n int) {
		for _, r := range rs {
			if !isAction(r.ID) {
				n++
			}
		}
		return n
	}
	if count(diverse) <= count(plain) {
		t.Errorf("diversity did not mix tastes:\nplain   %v\ndiverse %v", plain, diverse)
	}
}

func TestSaveLoadRoundTrip(t *testing.T) {
	ds := twoTastes()
	for _, engine := range append([]string{Popular}, learnedEngines...) {
		m := train(t, engine, ds)
		var buf bytes.Buffer
		if err := m.Save(&buf); err != nil {
			t.Fatal(err)
		}
		size := buf.Len()
		back, err := Load(&buf)
		if err != nil {
			t.Fatalf("%s: %v", engine, err)
		}
		if back.Engine() != engine {
			t.Errorf("loaded %s as %s", engine, back.Engine())
		}
		cold := Subject{ID: "x", Attrs: EntityAttrs{Tokens: map[string][]string{"genre": {"action"}}}}
		for _, sub := range []Subject{{ID: "u3"}, {ID: "u30"}} {
			a, _ := m.Recommend(ItemsToUser, sub, Query{Limit: 10})
			b, _ := back.Recommend(ItemsToUser, sub, Query{Limit: 10})
			if !reflect.DeepEqual(a, b) {
				t.Errorf("%s: after load %v, before %v", engine, b, a)
			}
		}
		a, errA := m.Recommend(ItemsToItem, cold, Query{Limit: 10})
		b, errB := back.Recommend(ItemsToItem, cold, Query{Limit: 10})
		if !reflect.DeepEqual(a, b) || (errA == nil) != (errB == nil) {
			t.Errorf("%s: cold similar items differ after load", engine)
		}
		t.Logf("%s: %d bytes", engine, size)
	}
	if _, err := Load(strings.NewReader("not a model")); err == nil {
		t.Error("garbage loaded without error")
	}
}

func TestTrainErrors(t *testing.T) {
	empty := NewDataset([]string{"u"}, []string{"i"})
	for _, engine := range append([]string{Popular}, learnedEngines...) {
		if _, err := Train(context.Background(), engine, empty, TrainConfig{}); !errors.Is(err, ErrNoInteractions) {
			t.Errorf("%s on empty dataset: %v", engine, err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if _, err := Train(ctx, engine, twoTastes(), TrainConfig{}); !errors.Is(err, context.Canceled) {
			t.Errorf("%s with cancelled context: %v", engine, err)
		}
	}
	if _, err := Train(context.Background(), "magic", twoTastes(), TrainConfig{}); !errors.Is(err, ErrUnknownEngine) {
		t.Errorf("unknown engine: %v", err)
	}
	bad := twoTastes()
	bad.Add(99, 0, 1, 1, true, 0, "view")
	if _, err := Train(context.Background(), Hybrid, bad, TrainConfig{}); err == nil {
		t.Error("out-of-range user accepted")
	}
	dup := twoTastes()
	dup.ItemIDs[3] = dup.ItemIDs[4]
	if _, err := Train(context.Background(), Popular, dup, TrainConfig{}); err == nil || !strings.Contains(err.Error(), "duplicate item") {
		t.Errorf("duplicate item ids: %v", err)
	}
	nan := twoTastes()
	nan.Interactions[0].Value = math.NaN()
	if _, err := Train(context.Background(), FM, nan, TrainConfig{}); err == nil {
		t.Error("NaN value accepted")
	}
	short := twoTastes()
	short.ItemAttrs.Numeric["year"] = short.ItemAttrs.Numeric["year"][:3]
	if _, err := Train(context.Background(), Hybrid, short, TrainConfig{}); err == nil {
		t.Error("attribute column of the wrong length accepted")
	}
	if _, err := Train(context.Background(), Hybrid, twoTastes(), TrainConfig{Factors: 5000}); err == nil {
		t.Error("5000 factors accepted")
	}
}

func TestISVDUpdateFoldsIn(t *testing.T) {
	ds := twoTastes()
	m := train(t, ISVD, ds)
	up, ok := m.(Updatable)
	if !ok {
		t.Fatal("isvd model is not Updatable")
	}
	if _, err := m.Recommend(ItemsToUser, Subject{ID: "late"}, Query{}); !errors.Is(err, ErrNoSignal) {
		t.Fatalf("unknown user before update: %v", err)
	}
	var events []Event
	for _, it := range []string{"i15", "i16", "i17", "i18"} {
		events = append(events, Event{UserID: "late", ItemID: it, Value: 1, Weight: 1, Positive: true})
	}
	// a new item liked by romance users
	for _, u := range []string{"u20", "u21", "u22", "u23", "late"} {
		events = append(events, Event{UserID: u, ItemID: "fresh", Value: 1, Weight: 1, Positive: true})
	}
	if err := up.Update(events); err != nil {
		t.Fatal(err)
	}
	recs, err := m.Recommend(ItemsToUser, Subject{ID: "late"}, Query{Limit: 5, Accept: func(id string) bool {
		return id != "i15" && id != "i16" && id != "i17" && id != "i18" && id != "fresh"
	}})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if isAction(r.ID) {
			t.Errorf("folded-in romance user got action: %v", recs)
		}
	}
	sim, err := m.Recommend(ItemsToItem, Subject{ID: "fresh"}, Query{Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range sim {
		if isAction(r.ID) {
			t.Errorf("folded-in romance item similar to action: %v", sim)
		}
	}
	// the update survives a save and load
	var buf bytes.Buffer
	if err := m.Save(&buf); err != nil {
		t.Fatal(err)
	}
	back, err := Load(&buf)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := back.Recommend(ItemsToItem, Subject{ID: "fresh"}, Query{Limit: 5})
	if !reflect.DeepEqual(again, sim) {
		t.Errorf("after load %v, before %v", again, sim)
	}
	if err := up.Update([]Event{{UserID: "", ItemID: "x", Value: 1, Weight: 1}}); err == nil {
		t.Error("event without user accepted")
	}
}

func TestEnsembleMixes(t *testing.T) {
	ds := twoTastes()
	pop := train(t, Popular, ds)
	hyb := train(t, Hybrid, ds)
	cb := train(t, ContentBased, ds)
	for _, bad := range [][]EnsemblePart{
		nil,
		{{Model: hyb, Weight: -1}},
		{{Model: hyb, Weight: 0}, {Model: pop, Weight: 0}},
		{{Model: nil, Weight: 1}},
		{{Model: hyb, Weight: math.NaN()}},
	} {
		if _, err := NewEnsemble(bad); err == nil {
			t.Errorf("ensemble %v accepted", bad)
		}
	}
	// all weight on one engine: the same order as that engine
	only, err := NewEnsemble([]EnsemblePart{{Model: hyb, Weight: 3}, {Model: pop, Weight: 0}})
	if err != nil {
		t.Fatal(err)
	}
	a, _ := only.Recommend(ItemsToUser, Subject{ID: "u2"}, Query{Limit: 10, Accept: seenBy(ds, 2)})
	b, _ := hyb.Recommend(ItemsToUser, Subject{ID: "u2"}, Query{Limit: 10, Accept: seenBy(ds, 2)})
	for k := range a {
		if a[k].ID != b[k].ID {
			t.Fatalf("single-engine ensemble order %v differs from %v", a, b)
		}
	}
	if all, _ := only.Recommend(ItemsToUser, Subject{ID: "u2"}, Query{Limit: 1}); all[0].Match != 100 {
		t.Errorf("best of a min-max normalised engine has match %v", all[0].Match)
	}
	mixed, err := NewEnsemble([]EnsemblePart{{Model: hyb, Weight: 1}, {Model: cb, Weight: 1}, {Model: pop, Weight: 0.5}})
	if err != nil {
		t.Fatal(err)
	}
	recs, err := mixed.Recommend(ItemsToUser, Subject{ID: "u25"}, Query{Limit: 5, Accept: seenBy(ds, 25)})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if isAction(r.ID) || r.Match <= 0 || r.Match > 100 {
			t.Errorf("ensemble for romance user: %v", recs)
		}
	}
	// a cold subject only content_based understands (keywords) still gets an answer
	kw, err := mixed.Recommend(ItemsToUser, Subject{ID: "new", Keywords: []string{"explosive chases"}}, Query{Limit: 3})
	if err != nil || len(kw) != 3 {
		t.Fatalf("ensemble keywords: %v %v", kw, err)
	}
	var buf bytes.Buffer
	if err := mixed.Save(&buf); err != nil {
		t.Fatal(err)
	}
	back, err := Load(&buf)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := back.Recommend(ItemsToUser, Subject{ID: "u25"}, Query{Limit: 5, Accept: seenBy(ds, 25)})
	if !reflect.DeepEqual(again, recs) {
		t.Errorf("ensemble after load %v, before %v", again, recs)
	}
	sim, _ := mixed.Recommend(ItemsToItem, Subject{ID: "i4"}, Query{Limit: 30})
	for _, r := range sim {
		if r.ID == "i4" {
			t.Error("similar items include the item itself")
		}
	}
}

// FuzzLoad feeds corrupted saved models to Load: it must return an error or a model that answers
// queries, never panic.
func FuzzLoad(f *testing.F) {
	ds := twoTastes()
	for _, engine := range append([]string{Popular}, learnedEngines...) {
		m, err := Train(context.Background(), engine, ds, TrainConfig{Seed: 1, Factors: 4, Iterations: 2})
		if err != nil {
			f.Fatal(err)
		}
		var buf bytes.Buffer
		if err := m.Save(&buf); err != nil {
			f.Fatal(err)
		}
		f.Add(buf.Bytes())
		b := append([]byte(nil), buf.Bytes()...)
		b[len(b)/2] ^= 0x5a
		f.Add(b)
		f.Add(buf.Bytes()[:len(buf.Bytes())/3])
	}
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := Load(bytes.NewReader(data))
		if err != nil {
			return
		}
		for _, sub := range []Subject{{ID: "u1"}, {ID: "i1"}, {ID: "zz", Keywords: []string{"love"}}} {
			m.Recommend(ItemsToUser, sub, Query{Limit: 3, Diversity: 0.5})
			m.Recommend(UsersToItem, sub, Query{Limit: 3})
			m.Recommend(ItemsToItem, sub, Query{Limit: 3})
			m.Recommend(UsersToUser, sub, Query{Limit: 3})
		}
	})
}

// randomCatalog is a larger random dataset for deadline and concurrency tests.
func randomCatalog(users, items, per int) *Dataset {
	var uids, iids []string
	for u := range users {
		uids = append(uids, fmt.Sprintf("u%d", u))
	}
	for i := range items {
		iids = append(iids, fmt.Sprintf("i%d", i))
	}
	ds := NewDataset(uids, iids)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range items {
		ds.AddItemTokens("genre", int32(i), fmt.Sprintf("g%d", i%7))
		ds.SetItemText("title", int32(i), fmt.Sprintf("title number %d of genre %d", i, i%7))
	}
	for u := range users {
		for range per {
			ds.Add(int32(u), int32(rng.IntN(items)), 1+float64(rng.IntN(5)), 1, true, int64(rng.IntN(1e9)), "view")
		}
	}
	return ds
}

func TestTrainDeadline(t *testing.T) {
	ds := randomCatalog(3000, 2000, 30)
	for _, engine := range []string{Hybrid, FM, ISVD} {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		start := time.Now()
		_, err := Train(ctx, engine, ds, TrainConfig{Iterations: 1000})
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%s: %v after %v, want the deadline error", engine, err, time.Since(start))
		}
	}
}

func TestConcurrentQueries(t *testing.T) {
	ds := twoTastes()
	for _, engine := range append([]string{Popular}, learnedEngines...) {
		m := train(t, engine, ds)
		var wg sync.WaitGroup
		for w := range 3 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for n := range 6 {
					sub := Subject{ID: fmt.Sprintf("cold%d", w), History: []Event{{ItemID: fmt.Sprintf("i%d", n%30), UserID: "x", Value: 1, Weight: 1, Positive: true}}}
					m.Recommend(ItemsToUser, sub, Query{Limit: 5, Diversity: 0.3})
					m.Recommend(UsersToUser, Subject{ID: "u1"}, Query{Limit: 5})
					m.Recommend(UsersToItem, Subject{ID: "i2", History: sub.History}, Query{Limit: 5})
				}
			}()
		}
		if up, ok := m.(Updatable); ok {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for n := range 10 {
					up.Update([]Event{{UserID: fmt.Sprintf("late%d", n), ItemID: "i3", Value: 1, Weight: 1, Positive: true}})
				}
			}()
		}
		wg.Wait()
	}
}

func TestTrainingIsDeterministic(t *testing.T) {
	ds := randomCatalog(60, 40, 6)
	for _, engine := range append([]string{Popular}, learnedEngines...) {
		a, b := train(t, engine, ds), train(t, engine, ds)
		for _, u := range []string{"u0", "u7", "u33"} {
			ra, _ := a.Recommend(ItemsToUser, Subject{ID: u}, Query{Limit: 10})
			rb, _ := b.Recommend(ItemsToUser, Subject{ID: u}, Query{Limit: 10})
			if !reflect.DeepEqual(ra, rb) {
				t.Errorf("%s: two trainings with the same seed differ for %s:\n%v\n%v", engine, u, ra, rb)
			}
		}
	}
}

func TestAttributeRestriction(t *testing.T) {
	ds := twoTastes()
	m, err := Train(context.Background(), ContentBased, ds, TrainConfig{ItemAttributes: []string{"genre"}})
	if err != nil {
		t.Fatal(err)
	}
	titleOnly := Subject{ID: "new", Attrs: EntityAttrs{Text: map[string]string{"title": "love story"}}}
	if _, err := m.Recommend(ItemsToItem, titleOnly, Query{}); !errors.Is(err, ErrNoSignal) {
		t.Errorf("title used although only genre was allowed: %v", err)
	}
	genre := Subject{ID: "new", Attrs: EntityAttrs{Tokens: map[string][]string{"genre": {"action"}}}}
	recs, err := m.Recommend(ItemsToItem, genre, Query{Limit: 3})
	if err != nil || len(recs) != 3 || !isAction(recs[0].ID) {
		t.Errorf("genre-only model: %v %v", recs, err)
	}
	if _, err := Train(context.Background(), ContentBased, ds, TrainConfig{ItemAttributes: []string{}}); err == nil {
		t.Error("content_based with no attributes trained")
	}
	// hybrid with no attributes still trains (plain factors plus the mean as prior)
	if _, err := Train(context.Background(), Hybrid, ds, TrainConfig{ItemAttributes: []string{}, Factors: 8}); err != nil {
		t.Error(err)
	}
}

func TestContentHistoryReplacesTraining(t *testing.T) {
	ds := twoTastes()
	m := train(t, ContentBased, ds)
	var history []Event
	for _, in := range ds.Interactions {
		if in.User == 3 {
			history = append(history, Event{UserID: "u3", ItemID: ds.ItemIDs[in.Item], Value: in.Value,
				Weight: in.Weight, Positive: in.Positive, Timestamp: in.Timestamp, Type: in.Type})
		}
	}
	plain, _ := m.Recommend(ItemsToUser, Subject{ID: "u3"}, Query{Limit: 30})
	withHistory, _ := m.Recommend(ItemsToUser, Subject{ID: "u3", History: history}, Query{Limit: 30})
	if !reflect.DeepEqual(plain, withHistory) {
		t.Errorf("the same history changed the ranking:\n%v\n%v", plain, withHistory)
	}
	// a history that moved to the other taste moves the recommendations
	moved := []Event{{UserID: "u3", ItemID: "i20", Value: 1, Weight: 1, Positive: true}}
	recs, _ := m.Recommend(ItemsToUser, Subject{ID: "u3", History: moved}, Query{Limit: 3, Accept: func(id string) bool { return id != "i20" }})
	for _, r := range recs {
		if isAction(r.ID) {
			t.Errorf("new romance history still gives action: %v", recs)
		}
	}
}

func TestFactorKeywordsWarmUp(t *testing.T) {
	ds := twoTastes()
	for _, engine := range []string{Hybrid, FM} {
		m := train(t, engine, ds)
		for _, kw := range [][]string{{"Romance"}, {"romances"}} {
			recs, err := m.Recommend(ItemsToUser, Subject{ID: "newcomer", Keywords: kw}, Query{Limit: 8})
			if err != nil {
				t.Fatalf("%s: %v", engine, err)
			}
			for _, r := range recs {
				if isAction(r.ID) {
					t.Errorf("%s: keywords %v gave action: %v", engine, kw, recs)
				}
			}
		}
	}
	// with hybrid, keywords matching nothing leave the cold user at the attribute prior (no error)
	if _, err := train(t, Hybrid, ds).Recommend(ItemsToUser, Subject{ID: "newcomer", Keywords: []string{"zzz"}}, Query{Limit: 3}); err != nil {
		t.Error(err)
	}
}
