package recomm

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/harkhq/hark/client"
	"github.com/harkhq/hark/server"
	"github.com/harkhq/hark/server/servertest"
)

func TestRecommBrowseImportTrainRecommend(t *testing.T) {
	p := servertest.Start(t, server.Config{MinInteractions: 5})
	c, err := client.New(client.Config{BaseURL: p.BaseURL, PublicKey: p.PublicKey, PrivateKey: p.PrivateKey, MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(c.Recomm.CreateTable(ctx, client.NewTable{TableID: "films", Attributes: []client.Attribute{{AttributeID: "genre", Type: client.TypeCategory}}}))
	must(c.Recomm.CreateInteraction(ctx, "films", client.Interaction{InteractionID: "view", Weight: 1, Type: client.InteractionUnary}))
	var items, views strings.Builder
	items.WriteString("itemId,genre\n")
	views.WriteString("userId,itemId,timestamp,interactionName,value\n")
	for i := 1; i <= 10; i++ {
		fmt.Fprintf(&items, "f%02d,%s\n", i, []string{"drama", "comedy"}[i%2])
		must(c.Recomm.CreateUser(ctx, fmt.Sprintf("u%d", i), nil))
		for u := 1; u <= i; u++ {
			fmt.Fprintf(&views, "u%d,f%02d,%d,view,\n", u, i, 1000*u+i)
		}
	}
	must(c.Storage.CreateFolder(ctx, "in"))
	for name, body := range map[string]string{"films.csv": items.String(), "views.csv": views.String()} {
		_, err := c.Storage.Upload(ctx, "in", name, strings.NewReader(body), int64(len(body)), nil)
		must(err)
	}

	a, r := newScreen(t, c, 120, 40)
	if !strings.Contains(a.View(), "films") {
		t.Fatalf("table not listed:\n%s", a.View())
	}
	press(t, a, "enter")
	if !strings.Contains(a.View(), "genre") || !strings.Contains(a.View(), "category") {
		t.Fatalf("attributes not shown:\n%s", a.View())
	}
	press(t, a, "i")
	typeText(t, a, "items storage://in/films.csv")
	press(t, a, "enter")
	if len(r.jobs) != 1 || r.jobs[0].status != client.StatusCompleted {
		t.Fatalf("items import: %+v\n%s", r.jobs, a.View())
	}
	press(t, a, "i")
	typeText(t, a, "interactions storage://in/views.csv")
	press(t, a, "enter")
	press(t, a, "tab") // items
	if r.list.Len() != 10 || !strings.Contains(a.View(), `"genre"`) {
		t.Fatalf("items tab:\n%s", a.View())
	}
	press(t, a, "tab") // users
	if r.list.Len() != 10 {
		t.Fatalf("users tab has %d rows", r.list.Len())
	}
	press(t, a, "tab") // interactions
	if !strings.Contains(a.View(), "unary") {
		t.Fatalf("interactions tab:\n%s", a.View())
	}
	press(t, a, "t")
	typeText(t, a, "popular")
	press(t, a, "enter")
	if j := r.jobs[len(r.jobs)-1]; !j.training || j.status != client.StatusCompleted {
		t.Fatalf("training: %+v", j)
	}
	press(t, a, "a")
	typeText(t, a, "item=f01 want=items engine=popular vs=hybrid filter=genre==drama")
	press(t, a, "enter")
	v := a.View()
	if !strings.Contains(v, "popular") || !strings.Contains(v, "hybrid") || !strings.Contains(v, " 1. f10") {
		t.Fatalf("side by side results:\n%s", v)
	}
	if strings.Contains(v, "f09") { // f09 is a comedy: the filter keeps it out
		t.Fatalf("filter ignored:\n%s", v)
	}
	press(t, a, "a")
	typeText(t, a, "want=items")
	press(t, a, "enter")
	if !strings.Contains(a.View(), "give user=ID or item=ID") {
		t.Fatalf("a recommendation without a subject was not refused:\n%s", a.View())
	}
}
