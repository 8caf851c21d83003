package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harkhq/hark/client"
	"github.com/harkhq/hark/server"
	"github.com/harkhq/hark/server/servertest"
)

func TestRecommSubcommands(t *testing.T) {
	isolate(t)
	p := servertest.Start(t, server.Config{MinInteractions: 5})
	r := []string{"--base-url", p.BaseURL, "--api-key", p.PublicKey, "--private-key", p.PrivateKey}
	c, err := client.New(client.Config{BaseURL: p.BaseURL, PublicKey: p.PublicKey, PrivateKey: p.PrivateKey})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := c.Recomm.CreateTable(ctx, client.NewTable{TableID: "films",
		Attributes: []client.Attribute{{AttributeID: "genre", Type: client.TypeCategory}}}); err != nil {
		t.Fatal(err)
	}
	if err := c.Recomm.CreateInteraction(ctx, "films", client.Interaction{InteractionID: "view", Weight: 1, Type: client.InteractionUnary}); err != nil {
		t.Fatal(err)
	}
	for u := 1; u <= 10; u++ {
		if err := c.Recomm.CreateUser(ctx, fmt.Sprintf("u%d", u), nil); err != nil {
			t.Fatal(err)
		}
	}
	dir := t.TempDir()
	var items, views strings.Builder
	items.WriteString("itemId,genre\n")
	views.WriteString("userId,itemId,timestamp,interactionName,value\n")
	for i := 1; i <= 10; i++ {
		fmt.Fprintf(&items, "f%02d,%s\n", i, []string{"drama", "comedy"}[i%2])
		for u := 1; u <= i; u++ { // f10 is the most viewed
			fmt.Fprintf(&views, "u%d,f%02d,%d,view,\n", u, i, 1000*u+i)
		}
	}
	os.WriteFile(filepath.Join(dir, "films.csv"), []byte(items.String()), 0o644)
	os.WriteFile(filepath.Join(dir, "views.csv"), []byte(views.String()), 0o644)
	if code, _, errOut := hark(t, "", append(r, "storage", "mkdir", "in")...); code != 0 {
		t.Fatal(errOut)
	}
	for _, f := range []string{"films.csv", "views.csv"} {
		if code, _, errOut := hark(t, "", append(r, "storage", "put", filepath.Join(dir, f), "in")...); code != 0 {
			t.Fatalf("put %s: %s", f, errOut)
		}
	}
	if _, out, _ := hark(t, "", append(r, "recomm", "tables")...); strings.TrimSpace(out) != "films" {
		t.Fatalf("tables: %q", out)
	}
	code, out, errOut := hark(t, "", append(r, "recomm", "import", "--table", "films", "--kind", "items", "--url", "storage://in/films.csv", "--wait")...)
	if code != 0 || !strings.Contains(out, "completed") {
		t.Fatalf("import items: %d %q %q", code, out, errOut)
	}
	code, out, errOut = hark(t, "", append(r, "recomm", "import", "--table", "films", "--kind", "interactions", "--url", "storage://in/views.csv", "--wait")...)
	if code != 0 || !strings.Contains(out, ": completed, 55 added, 0 not added\n") {
		t.Fatalf("import views: %d %q %q", code, out, errOut)
	}
	code, out, errOut = hark(t, "", append(r, "recomm", "train", "--table", "films", "--engine", "popular", "--wait")...)
	if code != 0 || !strings.Contains(out, "completed") {
		t.Fatalf("train: %d %q %q", code, out, errOut)
	}
	code, out, errOut = hark(t, "", append(r, "recomm", "recommend", "--table", "films", "--item", "f01", "--engine", "popular", "--limit", "3")...)
	if code != 0 || len(strings.Split(strings.TrimSpace(out), "\n")) != 3 || !strings.HasPrefix(out, " 1. ") || !strings.Contains(strings.Split(out, "\n")[0], "  f10") {
		t.Fatalf("recommend: %d %q %q", code, out, errOut)
	}
	code, _, errOut = hark(t, "", append(r, "recomm", "recommend", "--table", "nope", "--user", "u1")...)
	if code != 1 || !strings.Contains(errOut, `no table "nope"; the tables are: films`) {
		t.Fatalf("unknown table: %d %q", code, errOut)
	}
	if code, _, _ := hark(t, "", append(r, "recomm", "recommend", "--table", "films")...); code != 2 {
		t.Fatal("recommend without a subject accepted")
	}
	code, _, errOut = hark(t, "", append(r, "recomm", "import", "--table", "films", "--url", "http://evil.example/x.csv")...)
	if code != 1 || !strings.Contains(errOut, "HTTP") {
		t.Fatalf("import from a host not allowed: %d %q", code, errOut)
	}
}
