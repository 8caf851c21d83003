package sample

import (
	"context"
	"reflect"
	"testing"
)

func TestGenerateIsDeterministicAndStructured(t *testing.T) {
	a, err := Generate(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	b, err := Generate(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a, b) {
		t.Fatal("two generations differ")
	}
	if len(a.Users) != Users || len(a.Tables) != 3 {
		t.Fatalf("%d users, %d tables", len(a.Users), len(a.Tables))
	}
	for _, tb := range a.Tables {
		// every table must be trainable with the default minimum of 500 records per interaction type
		if len(tb.Items) < 10 || len(tb.Records) < 500 {
			t.Errorf("%s: %d items, %d records", tb.ID, len(tb.Items), len(tb.Records))
		}
		seen := map[[2]string]bool{}
		ids := map[string]bool{}
		for _, it := range tb.Items {
			ids[it["itemId"].(string)] = true
		}
		for _, r := range tb.Records {
			k := [2]string{r.UserID, r.ItemID}
			if seen[k] || !ids[r.ItemID] || r.Value < tb.Interaction.Min || r.Value > tb.Interaction.Max {
				t.Errorf("%s: bad record %+v", tb.ID, r)
			}
			seen[k] = true
		}
	}
	// structure: users rate films of their favourite genres higher than the rest
	movies := a.Tables[0]
	genres := map[string][]string{}
	for _, it := range movies.Items {
		genres[it["itemId"].(string)] = it["genres"].([]string)
	}
	fav, other := mean{}, mean{}
	for u, p := range a.people {
		for _, r := range movies.Records {
			if r.UserID != a.Users[u] {
				continue
			}
			if overlap(genres[r.ItemID], p.genres) > 0 {
				fav.add(r.Value)
			} else {
				other.add(r.Value)
			}
		}
	}
	if fav.get() < other.get()+0.5 {
		t.Errorf("favourite genres rated %.2f, others %.2f", fav.get(), other.get())
	}
}

type mean struct{ sum, n float64 }

func (m *mean) add(x float64) { m.sum += x; m.n++ }
func (m mean) get() float64   { return m.sum / m.n }
