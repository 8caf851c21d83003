package ui

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
)

// signedInPlatform is the real platform with an account signed in.
func signedInPlatform(t *testing.T, w, h int) *App {
	c := platformClient(t)
	a := newTestApp(t, testOptions(c, false), w, h)
	press(t, a, "ctrl+n")
	fillSignIn(t, a, "ivy@example.com", "correct horse", "Ivy")
	if a.ctx.Session.Token == "" {
		t.Fatalf("sign-in failed:\n%s", a.View())
	}
	drive(t, a, openScreen(screenConsole)) // the onboarding has its own tests
	return a
}

func TestItemsEveryDomainOnTheRealPlatform(t *testing.T) {
	a := signedInPlatform(t, 120, 40)
	press(t, a, "alt+i")
	it := a.screens[screenItems].(*items)
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
		} else if len(it.list.rows) == 0 && it.domains[i].path != "breakdowns" {
			t.Errorf("%s: no items", it.domains[i].path)
		}
		press(t, a, "tab")
	}
}

func TestItemsPagingLoadsAtTheEnd(t *testing.T) {
	f := newFakePlatform(t)
	f.handle("GET /v2/items/movies", func(w http.ResponseWriter, r *http.Request) {
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
	a := newTestApp(t, testOptions(f.client(t), true), 80, 24)
	press(t, a, "alt+i")
	it := a.screens[screenItems].(*items)
	if len(it.list.rows) != itemsPageSize || !strings.Contains(a.View(), "Film 00 · Odeon · 18:00") {
		t.Fatalf("first page:\n%s", a.View())
	}
	for range 25 {
		press(t, a, "down")
	}
	if len(it.list.rows) != 2*itemsPageSize {
		t.Fatalf("%d rows after reaching the end once", len(it.list.rows))
	}
	for range 40 {
		press(t, a, "down")
	}
	if it.more || len(f.seen("GET /v2/items/movies")) != 4 {
		t.Fatalf("paging did not stop at the empty page (%d requests)", len(f.seen("GET /v2/items/movies")))
	}
	if it.list.Current().Key != "59" {
		t.Fatalf("cursor on %v", it.list.Current())
	}
}

func TestItemsGarbageAnswer(t *testing.T) {
	f := newFakePlatform(t)
	f.json("GET /v2/items/movies", 200, `{"list": "nope"`)
	a := newTestApp(t, testOptions(f.client(t), true), 80, 24)
	press(t, a, "alt+i")
	if !strings.Contains(a.View(), "malformed JSON") {
		t.Fatalf("garbage not shown:\n%s", a.View())
	}
}

func TestSurveysToggleSaveWeights(t *testing.T) {
	a := signedInPlatform(t, 100, 30)
	press(t, a, "alt+u")
	s := a.screens[screenSurveys].(*surveys)
	if len(s.entries) == 0 {
		t.Fatalf("no surveys:\n%s", a.View())
	}
	press(t, a, "enter")
	if s.open == nil || len(s.open.Items) == 0 {
		t.Fatalf("survey did not open:\n%s", a.View())
	}
	first := s.open.Items[0]
	press(t, a, " ")
	if !strings.Contains(a.View(), "not saved") {
		t.Fatal("toggle did not mark the survey unsaved")
	}
	press(t, a, "s")
	if s.dirty || s.open.Items[0].Selected == first.Selected {
		t.Fatalf("save did not change the selection:\n%s", a.View())
	}
	if s.open.Items[0].Selected && s.open.Items[0].Weight != 1 {
		t.Errorf("a selected item weighs %v", s.open.Items[0].Weight)
	}
	if !strings.Contains(a.View(), "■■■■■■■■■■ 1.00") && s.open.Items[0].Selected {
		t.Errorf("weight bar not drawn:\n%s", a.View())
	}
}
