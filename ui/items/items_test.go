package items

import (
	"encoding/json"
	"fmt"
	"github.com/harkhq/hark/ui/internal/uitest"
	"net/http"
	"strconv"
	"strings"
	"testing"
)

func TestItemsEveryDomainOnTheRealPlatform(t *testing.T) {
	a, it := newScreen(t, uitest.SignedInClient(t), 120, 40)
	if len(it.domains) < len(itemDomains) {
		t.Fatalf("news categories lost domains: %v", it.domains)
	}
	var cats []string
	for _, d := range it.domains {
		if strings.HasPrefix(d.path, "news/category/") {
			cats = append(cats, d.path+" "+d.title)
		}
	}
	if len(cats) < 3 || !strings.Contains(strings.Join(cats, ","), "news/category/2091") {
		t.Fatalf("news categories from the server not offered: %v", cats)
	}
	for i := 0; i < len(it.domains); i++ {
		if it.domain != i {
			t.Fatalf("domain %d, want %d", it.domain, i)
		}
		v := a.View()
		if it.errText != "" {
			t.Errorf("%s: %s", it.domains[i].path, it.errText)
		}
		if it.domains[i].path == "weather" {
			for _, want := range []string{"temperature by hour", "days", "sunrise", "moon"} {
				if !strings.Contains(v, want) {
					t.Errorf("weather picture lacks %q:\n%s", want, v)
				}
			}
		} else if it.list.Len() == 0 && it.domains[i].path != "breakdowns" {
			t.Errorf("%s: no items", it.domains[i].path)
		}
		press(t, a, "tab")
	}
}

func TestItemsPagingLoadsAtTheEnd(t *testing.T) {
	f := uitest.NewFakePlatform(t)
	f.Handle("GET /v2/items/movies", func(w http.ResponseWriter, r *http.Request) {
		page, _ := strconv.Atoi(r.URL.Query().Get("page"))
		var list []map[string]any
		if page <= 3 {
			for i := range itemsPageSize {
				n := (page-1)*itemsPageSize + i
				list = append(list, map[string]any{"dataId": fmt.Sprint(n), "type": "MOVIE", "itemTitle": fmt.Sprintf("film %02d", n),
					"movie": map[string]any{"title": fmt.Sprintf("Film %02d", n)}, "theater": map[string]any{"name": "Odeon", "schedule": "18:00"}})
			}
		}
		json.NewEncoder(w).Encode(map[string]any{"criteria": map[string]any{"pageCriteria": map[string]any{"page": page, "count": len(list)}}, "list": list})
	})
	a, it := newScreen(t, f.Client(t), 80, 24)
	if it.list.Len() != itemsPageSize || !strings.Contains(a.View(), "Film 00 · Odeon · 18:00") {
		t.Fatalf("first page:\n%s", a.View())
	}
	for range 25 {
		press(t, a, "down")
	}
	if it.list.Len() != 2*itemsPageSize {
		t.Fatalf("%d rows after reaching the end once", it.list.Len())
	}
	for range 40 {
		press(t, a, "down")
	}
	if it.more || len(f.Seen("GET /v2/items/movies")) != 4 {
		t.Fatalf("paging did not stop at the empty page (%d requests)", len(f.Seen("GET /v2/items/movies")))
	}
	if it.list.Current().Key != "59" {
		t.Fatalf("cursor on %v", it.list.Current())
	}
}

func TestItemsGarbageAnswer(t *testing.T) {
	f := uitest.NewFakePlatform(t)
	f.JSON("GET /v2/items/movies", 200, `{"list": "nope"`)
	a, _ := newScreen(t, f.Client(t), 80, 24)
	if !strings.Contains(a.View(), "does not understand") {
		t.Fatalf("garbage not shown:\n%s", a.View())
	}
}
