package recomm

import (
	"strings"
	"testing"

	"github.com/harkhq/hark/client"
	"github.com/harkhq/hark/server"
	"github.com/harkhq/hark/server/servertest"
	"github.com/harkhq/hark/ui/internal/uitest"
)

// platform is a real in-process platform and a client of it.
func platform(t *testing.T) *client.Client { return platformTB(t) }

func platformTB(t testing.TB) *client.Client {
	p := servertest.Start(t, server.Config{MinInteractions: 5})
	c, err := client.New(client.Config{BaseURL: p.BaseURL, PublicKey: p.PublicKey, PrivateKey: p.PrivateKey, MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// screenAs is the screen signed in as a person whose platform handle is me.
func screenAs(t *testing.T, c *client.Client, me string, w, h int) (*uitest.Host, *Model) {
	return screenAsTB(t, c, me, w, h)
}

func screenAsTB(t testing.TB, c *client.Client, me string, w, h int) (*uitest.Host, *Model) {
	pc := uitest.Context(c, true)
	pc.Session.Username = me
	m := New(pc)
	m.SetSize(w, h)
	host := &uitest.Host{Screen: m}
	uitest.Drive(t, host, m.Init())
	return host, m
}

func TestSampleCatalogFromTheEmptyState(t *testing.T) {
	c := platform(t)
	a, r := screenAs(t, c, "u_0000000000aa", 120, 40)
	if v := a.View(); !strings.Contains(v, "Press s to load the sample catalog") || !strings.Contains(v, "m to import MovieLens") {
		t.Fatalf("the empty state does not say what to do:\n%s", v)
	}
	press(t, a, "s")
	if len(r.jobs) != 1 || !r.jobs[0].ended || r.jobs[0].failed {
		t.Fatalf("sample job: %+v\n%s", r.jobs, a.View())
	}
	if !a.HasToast("sample catalog") || !strings.Contains(a.View(), "sandbox-movies trained") {
		t.Fatalf("the trainings' end is not shown:\n%s", a.View())
	}
	if r.list.Len() != 3 {
		t.Fatalf("tables after the sample: %d\n%s", r.list.Len(), a.View())
	}
}

// sampleScreen is the screen on a platform with the sample catalog loaded, sandbox-movies open.
func sampleScreen(t *testing.T, w, h int) (*uitest.Host, *Model) {
	c := platform(t)
	a, r := screenAs(t, c, "u_0000000000aa", w, h)
	press(t, a, "s")
	press(t, a, "j") // sandbox-food, sandbox-movies, sandbox-news
	press(t, a, "enter")
	if r.table != "sandbox-movies" {
		t.Fatalf("opened %q", r.table)
	}
	return a, r
}

func recKeys(r *Model) []string {
	var out []string
	for _, row := range r.person.recs.Rows() {
		out = append(out, row.Key)
	}
	return out
}

func TestRatingsOnScreenChangeTheRecommendations(t *testing.T) {
	a, r := sampleScreen(t, 120, 40)
	v := a.View()
	if !strings.Contains(v, "m01  The Last Lighthouse") || !strings.Contains(v, "More like this") || !strings.Contains(v, "runtime  118") {
		t.Fatalf("the items tab does not show titles and the detail table:\n%s", v)
	}
	press(t, a, "5") // The Last Lighthouse
	if !a.HasToast("rated The Last Lighthouse: 5") {
		t.Fatalf("no rating notice: %q", a.Toast())
	}
	press(t, a, "tab")
	press(t, a, "tab") // For you
	if r.tab != tabForYou || r.person == nil || !r.person.mine {
		t.Fatalf("not on For you: %v", r.tab)
	}
	before := recKeys(r)
	if len(before) == 0 || !strings.Contains(a.View(), "The Last Lighthouse") {
		t.Fatalf("no recommendations or no history after a rating:\n%s", a.View())
	}
	if !strings.Contains(a.View(), "because you rated The Last Lighthouse") {
		t.Fatalf("the recommendation under the cursor does not say why:\n%s", a.View())
	}
	first := r.title(before[0])
	press(t, a, "4") // the first recommendation
	if !a.HasToast("rated " + first + ": 4") {
		t.Fatalf("rating a recommendation: %q", a.Toast())
	}
	after := recKeys(r)
	if len(after) == 0 || after[0] == before[0] || strings.Join(after, ",") == strings.Join(before, ",") {
		t.Fatalf("recommendations did not change after a rating:\nbefore %v\nafter %v", before, after)
	}
	if v := a.View(); !strings.Contains(v, "4    "+first) {
		t.Fatalf("the history does not show the new rating first:\n%s", v)
	}
	press(t, a, "9")
	press(t, a, "l")
	if !a.HasToast("rated") {
		t.Fatalf("l does not rate with the top value: %q", a.Toast())
	}
}

func TestRatingRefusedOutsideTheRangeAndWithoutAUserID(t *testing.T) {
	a, r := sampleScreen(t, 80, 24)
	r.info.rating.MinValue = ptr(2.0)
	press(t, a, "1")
	if !a.HasToast("rating runs from 2 to 5 here") {
		t.Fatalf("out of range: %q", a.Toast())
	}
	r.ctx.Session.Username = ""
	press(t, a, "3")
	if !a.HasToast("log out (alt+l) and sign in again") {
		t.Fatalf("no user id: %q", a.Toast())
	}
}

func ptr[T any](v T) *T { return &v }

func TestRatingKeyOnAnEmptyForYouSaysWhatToDo(t *testing.T) {
	a, r := sampleScreen(t, 80, 24)
	press(t, a, "tab")
	press(t, a, "tab") // For you, before any rating
	if r.tab != tabForYou || r.person == nil || r.person.recs.Len() != 0 {
		t.Fatalf("not on an empty For you tab: %v\n%s", r.tab, a.View())
	}
	press(t, a, "4")
	if !a.HasToast("Nothing to rate yet: rate items on the Items tab first.") {
		t.Fatalf("a rating key on an empty list: toast %q\n%s", a.Toast(), a.View())
	}
}
