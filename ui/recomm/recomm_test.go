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
func platform(t *testing.T) *client.Client {
	p := servertest.Start(t, server.Config{MinInteractions: 5})
	c, err := client.New(client.Config{BaseURL: p.BaseURL, PublicKey: p.PublicKey, PrivateKey: p.PrivateKey, MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// screenAs is the screen signed in as a person whose platform handle is me.
func screenAs(t *testing.T, c *client.Client, me string, w, h int) (*uitest.Host, *Model) {
	pc := uitest.Context(c, true)
	pc.Session.Username = me
	m := New(pc)
	return uitest.NewHost(t, m, w, h), m
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
