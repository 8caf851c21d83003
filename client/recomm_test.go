package client_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/harkhq/hark/client"
	"github.com/harkhq/hark/server"
)

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func fptr(v float64) *float64 { return &v }

func TestRecommCatalogRoundTrip(t *testing.T) {
	c, p := newClient(t, server.Config{MinInteractions: 5})
	ctx := ctxT(t)
	r := c.Recomm

	_, err := clientFor(t, p, p.PublicKey, "not-the-key").Recomm.Tables(ctx)
	wantCode(t, err, 401, "InvalidSignature")

	// tables
	must(t, r.CreateTable(ctx, client.NewTable{TableID: "books",
		Engines: client.Engines{client.SlotDefault: client.EngineHybrid},
		Attributes: []client.Attribute{
			{AttributeID: "genre", Type: client.TypeCategory, Indexed: true, Values: []string{"crime", "poetry"}},
			{AttributeID: "pages", Type: client.TypeInt},
			{AttributeID: "tags", Type: client.TypeSet},
		}}))
	must(t, r.CreateTable(ctx, client.NewTable{TableID: "old", Engine: client.EngineContentBased}))
	wantCode(t, r.CreateTable(ctx, client.NewTable{TableID: "books"}), 409, "EntityAlreadyExists")
	wantCode(t, r.CreateTable(ctx, client.NewTable{TableID: "bad/id"}), 400, "InvalidArgument")
	wantCode(t, r.CreateTable(ctx, client.NewTable{TableID: "waytoolongtableid"}), 400, "InvalidArgument")
	wantCode(t, r.CreateTable(ctx, client.NewTable{TableID: "x", Attributes: []client.Attribute{{AttributeID: "a", Type: "float"}}}), 400, "InvalidArgument")
	tables, err := r.Tables(ctx)
	must(t, err)
	sort.Strings(tables)
	if !slices.Equal(tables, []string{"books", "old"}) {
		t.Errorf("tables = %v", tables)
	}
	old, err := r.Table(ctx, "old", false)
	must(t, err)
	if old.Engines[client.SlotDefault] != client.EngineContentBased || old.TrainConfig != nil {
		t.Errorf("table created with the deprecated engine = %+v", old)
	}
	must(t, r.SetEngines(ctx, "books", client.Engines{client.SlotDefault: client.EngineHybrid, client.SlotItemsToItem: client.EnginePopular}))
	books, err := r.Table(ctx, "books", true)
	must(t, err)
	if books.TableID != "books" || books.Engines[client.SlotItemsToItem] != client.EnginePopular || books.TrainConfig == nil || len(books.TrainConfig) != 0 {
		t.Errorf("table = %+v", books)
	}
	wantCode(t, r.SetEngines(ctx, "books", client.Engines{client.SlotDefault: "magic"}), 400, "InvalidArgument")
	wantCode(t, r.SetEngines(ctx, "films", client.Engines{client.SlotDefault: client.EngineHybrid}), 404, "EntityNotFound")
	_, err = r.Table(ctx, "films", false)
	wantCode(t, err, 404, "EntityNotFound")
	must(t, r.DeleteTable(ctx, "old"))
	wantCode(t, r.DeleteTable(ctx, "old"), 404, "EntityNotFound")

	// item attributes
	must(t, r.AddAttributes(ctx, "books", client.Attribute{AttributeID: "rating", Type: client.TypeDouble}))
	wantCode(t, r.AddAttributes(ctx, "books", client.Attribute{AttributeID: "rating", Type: client.TypeDouble}), 409, "EntityAlreadyExists")
	wantCode(t, r.AddAttributes(ctx, "films", client.Attribute{AttributeID: "x", Type: client.TypeInt}), 404, "EntityNotFound")
	wantCode(t, r.AddAttributes(ctx, "books", client.Attribute{AttributeID: "s", Type: client.TypeSet, Indexed: true}), 400, "InvalidArgument")
	attrs, err := r.Attributes(ctx, "books")
	must(t, err)
	var names []string
	for _, a := range attrs {
		names = append(names, a.AttributeID)
	}
	sort.Strings(names)
	if !slices.Equal(names, []string{"expiration", "genre", "pages", "rating", "tags"}) {
		t.Errorf("attributes = %v", names)
	}
	must(t, r.AddAttributeValues(ctx, "books", "genre", "essay"))
	genre, err := r.Attribute(ctx, "books", "genre")
	must(t, err)
	if genre.Type != client.TypeCategory || !genre.Indexed || !slices.Contains(genre.Values, "essay") || !slices.Contains(genre.Values, "crime") {
		t.Errorf("genre = %+v", genre)
	}
	must(t, r.DeleteAttribute(ctx, "books", "rating"))
	_, err = r.Attribute(ctx, "books", "rating")
	wantCode(t, err, 404, "EntityNotFound")
	wantCode(t, r.DeleteAttribute(ctx, "books", "rating"), 404, "EntityNotFound")

	// user attributes
	must(t, r.AddUserAttributes(ctx, client.Attribute{AttributeID: "age", Type: client.TypeInt, Indexed: true},
		client.Attribute{AttributeID: "country", Type: client.TypeCategory, Values: []string{"es"}},
		client.Attribute{AttributeID: "scratch", Type: client.TypeString}))
	wantCode(t, r.AddUserAttributes(ctx, client.Attribute{AttributeID: "age", Type: client.TypeInt}), 409, "EntityAlreadyExists")
	must(t, r.AddUserAttributeValues(ctx, "country", "uk"))
	country, err := r.UserAttribute(ctx, "country")
	must(t, err)
	if !slices.Equal(country.Values, []string{"es", "uk"}) {
		t.Errorf("country = %+v", country)
	}
	must(t, r.DeleteUserAttribute(ctx, "scratch"))
	uattrs, err := r.UserAttributes(ctx)
	must(t, err)
	if len(uattrs) != 2 {
		t.Errorf("user attributes = %+v", uattrs)
	}
	_, err = r.UserAttribute(ctx, "scratch")
	wantCode(t, err, 404, "EntityNotFound")
	wantCode(t, r.AddUserAttributeValues(ctx, "height", "x"), 404, "EntityNotFound")

	// interaction definitions
	must(t, r.CreateInteraction(ctx, "books", client.Interaction{InteractionID: "read", Weight: 1, Type: client.InteractionUnary}))
	must(t, r.CreateInteraction(ctx, "books", client.Interaction{InteractionID: "stars", Weight: 2, Type: client.InteractionCategorical,
		Polarity: client.PolarityPositive, MinValue: fptr(1), MaxValue: fptr(5)}))
	must(t, r.CreateInteraction(ctx, "books", client.Interaction{InteractionID: "minutes", Weight: 0.5, Cumulative: true, Type: client.InteractionContinuous}))
	wantCode(t, r.CreateInteraction(ctx, "books", client.Interaction{InteractionID: "read", Weight: 1, Type: client.InteractionUnary}), 409, "EntityAlreadyExists")
	wantCode(t, r.CreateInteraction(ctx, "books", client.Interaction{InteractionID: "heavy", Weight: 11, Type: client.InteractionUnary}), 400, "InvalidArgument")
	wantCode(t, r.CreateInteraction(ctx, "books", client.Interaction{InteractionID: "odd", Weight: 1, Type: client.InteractionCategorical, MinValue: fptr(1.5), MaxValue: fptr(3)}), 400, "InvalidArgument")
	must(t, r.PatchInteraction(ctx, "books", "stars", client.InteractionPatch{Weight: fptr(2.5)}))
	must(t, r.PatchInteraction(ctx, "books", "minutes", client.InteractionPatch{InteractionID: "time"}))
	wantCode(t, r.PatchInteraction(ctx, "books", "nope", client.InteractionPatch{Weight: fptr(1)}), 404, "EntityNotFound")
	wantCode(t, r.PatchInteraction(ctx, "books", "stars", client.InteractionPatch{}), 400, "InvalidArgument")
	stars, err := r.Interaction(ctx, "books", "stars")
	must(t, err)
	if stars.Weight != 2.5 || stars.Type != client.InteractionCategorical || stars.MinValue == nil || *stars.MinValue != 1 || *stars.MaxValue != 5 || stars.Cumulative {
		t.Errorf("stars = %+v", stars)
	}
	read, err := r.Interaction(ctx, "books", "read")
	must(t, err)
	if read.Polarity != client.PolarityPositive || read.MinValue == nil || *read.MinValue != 1 || *read.MaxValue != 1 {
		t.Errorf("read (unary defaults) = %+v", read)
	}
	must(t, r.DeleteInteraction(ctx, "books", "time"))
	defs, err := r.Interactions(ctx, "books")
	must(t, err)
	var defIDs []string
	for _, d := range defs {
		defIDs = append(defIDs, d.InteractionID)
	}
	sort.Strings(defIDs)
	if !slices.Equal(defIDs, []string{"read", "stars"}) {
		t.Errorf("interactions = %v", defIDs)
	}
	_, err = r.Interaction(ctx, "books", "time")
	wantCode(t, err, 404, "EntityNotFound")

	// items
	for i := 1; i <= 6; i++ {
		must(t, r.CreateItem(ctx, "books", fmt.Sprintf("b%d", i), map[string]any{
			"genre": []string{"crime", "poetry"}[i%2], "pages": 100 * i, "tags": []string{"t" + strconv.Itoa(i), "all"}}))
	}
	wantCode(t, r.CreateItem(ctx, "books", "b1", nil), 409, "EntityAlreadyExists")
	wantCode(t, r.CreateItem(ctx, "books", "b9", map[string]any{"genre": "horror"}), 400, "InvalidArgument")
	wantCode(t, r.CreateItem(ctx, "books", "b9", map[string]any{"pages": "many"}), 400, "InvalidArgument")
	wantCode(t, r.CreateItem(ctx, "books", "b9", map[string]any{"colour": "red"}), 400, "InvalidArgument")
	wantCode(t, r.CreateItem(ctx, "books", "b#9", nil), 400, "InvalidArgument")
	must(t, r.PatchItem(ctx, "books", "b2", map[string]any{"pages": 250}))
	wantCode(t, r.PatchItem(ctx, "books", "b99", map[string]any{"pages": 1}), 404, "EntityNotFound")
	b2, err := r.Item(ctx, "books", "b2")
	must(t, err)
	if b2["itemId"] != "b2" || b2["pages"] != 250.0 || b2["genre"] != "crime" || fmt.Sprint(b2["tags"]) != "[all t2]" && fmt.Sprint(b2["tags"]) != "[t2 all]" {
		t.Errorf("b2 = %v", b2)
	}
	ids, err := r.Items(ctx, "books", client.ListQuery{Filter: "genre==crime;pages=gt=200", Sort: "pages==DESC"})
	must(t, err)
	if !slices.Equal(ids, []string{"b6", "b4", "b2"}) {
		t.Errorf("crime over 200 pages = %v", ids)
	}
	ids, err = r.Items(ctx, "books", client.ListQuery{Limit: 2, AfterID: "b2"})
	must(t, err)
	if !slices.Equal(ids, []string{"b3", "b4"}) {
		t.Errorf("page after b2 = %v", ids)
	}
	withAttrs, err := r.ItemsWithAttributes(ctx, "books", client.ListQuery{Filter: "pages=le=200"}, "pages")
	must(t, err)
	if len(withAttrs) != 1 || withAttrs[0]["itemId"] != "b1" || withAttrs[0]["pages"] != 100.0 || withAttrs[0]["genre"] != nil {
		t.Errorf("items with pages = %v", withAttrs)
	}
	_, err = r.Items(ctx, "books", client.ListQuery{Filter: "colour==red"})
	wantCode(t, err, 400, "InvalidArgument")
	_, err = r.Items(ctx, "books", client.ListQuery{Filter: "pages=gt="})
	wantCode(t, err, 400, "InvalidArgument")
	_, err = r.Items(ctx, "books", client.ListQuery{Limit: 5000})
	wantCode(t, err, 400, "InvalidArgument")
	_, err = r.ItemsWithAttributes(ctx, "books", client.ListQuery{}, "colour")
	wantCode(t, err, 400, "InvalidArgument")
	// ids travel escaped in paths
	must(t, r.CreateItem(ctx, "books", "b 7 é", map[string]any{"pages": 7}))
	if it, err := r.Item(ctx, "books", "b 7 é"); err != nil || it["itemId"] != "b 7 é" {
		t.Errorf("item with a spaced id = %v, %v", it, err)
	}
	must(t, r.DeleteItem(ctx, "books", "b 7 é"))
	must(t, r.DeleteItem(ctx, "books", "b6"))
	_, err = r.Item(ctx, "books", "b6")
	wantCode(t, err, 404, "EntityNotFound")
	wantCode(t, r.DeleteItem(ctx, "books", "b6"), 404, "EntityNotFound")

	// users
	for i := 1; i <= 4; i++ {
		must(t, r.CreateUser(ctx, fmt.Sprintf("u%d", i), map[string]any{"age": 20 + i, "country": []string{"es", "uk"}[i%2]}))
	}
	wantCode(t, r.CreateUser(ctx, "u1", nil), 409, "EntityAlreadyExists")
	wantCode(t, r.CreateUser(ctx, "u9", map[string]any{"country": "fr"}), 400, "InvalidArgument")
	wantCode(t, r.CreateUser(ctx, "", nil), 400, "InvalidArgument")
	must(t, r.PatchUser(ctx, "u1", map[string]any{"age": 40}))
	wantCode(t, r.PatchUser(ctx, "u9", map[string]any{"age": 40}), 404, "EntityNotFound")
	u1, err := r.User(ctx, "u1")
	must(t, err)
	if u1["userId"] != "u1" || u1["age"] != 40.0 || u1["country"] != "uk" {
		t.Errorf("u1 = %v", u1)
	}
	_, err = r.User(ctx, "u9")
	wantCode(t, err, 404, "EntityNotFound")
	uids, err := r.Users(ctx, client.ListQuery{Filter: "age=lt=30", Sort: "age==DESC"})
	must(t, err)
	if !slices.Equal(uids, []string{"u4", "u3", "u2"}) {
		t.Errorf("users under 30 = %v", uids)
	}
	uids, err = r.Users(ctx, client.ListQuery{AfterID: "u2", Limit: 1})
	must(t, err)
	if !slices.Equal(uids, []string{"u3"}) {
		t.Errorf("user after u2 = %v", uids)
	}
	usersAttrs, err := r.UsersWithAttributes(ctx, client.ListQuery{Filter: "country==uk", Sort: "age==ASC"}, "age", "country")
	must(t, err)
	if len(usersAttrs) != 2 || usersAttrs[0]["userId"] != "u3" || usersAttrs[0]["age"] != 23.0 || usersAttrs[1]["userId"] != "u1" || usersAttrs[1]["country"] != "uk" {
		t.Errorf("uk users = %v", usersAttrs)
	}

	// keywords
	must(t, r.AddKeywords(ctx, "u2", "noir", "haiku", "sonnet"))
	wantCode(t, r.AddKeywords(ctx, "u9", "noir"), 404, "EntityNotFound")
	must(t, r.DeleteKeywords(ctx, "u2", "sonnet"))
	kw, err := r.Keywords(ctx, "u2")
	must(t, err)
	sort.Strings(kw)
	if !slices.Equal(kw, []string{"haiku", "noir"}) {
		t.Errorf("keywords = %v", kw)
	}
	wantCode(t, r.DeleteKeywords(ctx, "u2"), 400, "InvalidArgument")
	must(t, r.DeleteAllKeywords(ctx, "u2"))
	if kw, err = r.Keywords(ctx, "u2"); err != nil || len(kw) != 0 {
		t.Errorf("keywords after delete all = %v, %v", kw, err)
	}
	_, err = r.Keywords(ctx, "u9")
	wantCode(t, err, 404, "EntityNotFound")

	// interaction records
	must(t, r.AddRecord(ctx, "books", "read", "u1", "b1", client.NewRecord{Timestamp: 1000}))
	must(t, r.AddRecord(ctx, "books", "read", "u1", "b2", client.NewRecord{Timestamp: 2000}))
	must(t, r.AddRecord(ctx, "books", "read", "u2", "b1", client.NewRecord{}))
	must(t, r.AddRecord(ctx, "books", "stars", "u1", "b1", client.NewRecord{Timestamp: 3000, Value: fptr(4)}))
	wantCode(t, r.AddRecord(ctx, "books", "stars", "u1", "b2", client.NewRecord{Timestamp: 3000}), 400, "InvalidArgument")
	wantCode(t, r.AddRecord(ctx, "books", "stars", "u1", "b2", client.NewRecord{Timestamp: 3000, Value: fptr(9)}), 400, "InvalidArgument")
	wantCode(t, r.AddRecord(ctx, "books", "read", "u9", "b1", client.NewRecord{}), 404, "EntityNotFound")
	wantCode(t, r.AddRecord(ctx, "books", "sniff", "u1", "b1", client.NewRecord{}), 404, "EntityNotFound")
	recs, err := r.UserRecords(ctx, "books", "u1", "read", client.ListQuery{Sort: "timestamp==DESC"})
	must(t, err)
	if len(recs) != 2 || recs[0].ItemID != "b2" || recs[0].Timestamp != 2000 || recs[0].Value != 1 || recs[1].ItemID != "b1" {
		t.Errorf("u1 read = %+v", recs)
	}
	recs, err = r.ItemRecords(ctx, "books", "b1", "read", client.ListQuery{})
	must(t, err)
	var readers []string
	for _, rec := range recs {
		readers = append(readers, rec.UserID)
		if rec.UserID == "u2" && time.Since(time.UnixMilli(rec.Timestamp)) > time.Minute {
			t.Errorf("a record without timestamp got %d, not now", rec.Timestamp)
		}
	}
	sort.Strings(readers)
	if !slices.Equal(readers, []string{"u1", "u2"}) {
		t.Errorf("readers of b1 = %+v", recs)
	}
	recs, err = r.ItemRecords(ctx, "books", "b1", "stars", client.ListQuery{Filter: "value=ge=4"})
	must(t, err)
	if len(recs) != 1 || recs[0].UserID != "u1" || recs[0].Value != 4 {
		t.Errorf("stars of b1 = %+v", recs)
	}
	must(t, r.DeleteRecord(ctx, "books", "read", "u1", "b2", 2000))
	wantCode(t, r.DeleteRecord(ctx, "books", "read", "u1", "b2", 2000), 404, "EntityNotFound")
	if recs, err = r.UserRecords(ctx, "books", "u1", "read", client.ListQuery{}); err != nil || len(recs) != 1 {
		t.Errorf("u1 read after delete = %+v, %v", recs, err)
	}

	// users go with their records
	must(t, r.DeleteUser(ctx, "u2"))
	wantCode(t, r.DeleteUser(ctx, "u2"), 404, "EntityNotFound")
	if recs, err = r.ItemRecords(ctx, "books", "b1", "read", client.ListQuery{}); err != nil || len(recs) != 1 || recs[0].UserID != "u1" {
		t.Errorf("readers of b1 after deleting u2 = %+v, %v", recs, err)
	}
	must(t, r.DeleteAllUsers(ctx))
	if uids, err = r.Users(ctx, client.ListQuery{}); err != nil || len(uids) != 0 {
		t.Errorf("users after delete all = %v, %v", uids, err)
	}
}

// catalogFiles are a tiny catalog with two tastes: u1-u4 read rock, u5-u8
// jazz, and everybody played the pop item i03.
func catalogFiles() (items, users, interactions string) {
	var b strings.Builder
	b.WriteString("itemId,genre,year,title,tags\n")
	for i := 1; i <= 12; i++ {
		fmt.Fprintf(&b, "i%02d,%s,%d,\"Title %d\",\"t%d,all\"\n", i, genreOf(i), 2000+i, i, i)
	}
	b.WriteString("bad,rock,old,\"Bad\",\"x\"\n")
	items = b.String()

	b.Reset()
	b.WriteString("[")
	for u := 1; u <= 8; u++ {
		if u > 1 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"userId":"u%d","age":%d,"country":"%s"}`, u, 20+u, []string{"es", "uk"}[u%2])
	}
	b.WriteString("]")
	users = b.String()

	b.Reset()
	b.WriteString("userId,itemId,timestamp,interactionName,value\n")
	for u := 1; u <= 8; u++ {
		for _, i := range viewedBy(u) {
			fmt.Fprintf(&b, "u%d,i%02d,%d,view,\n", u, i, 1000*u+i)
		}
	}
	b.WriteString("ghost,i01,5,view,\n")
	return items, users, b.String()
}

func genreOf(i int) string { return []string{"pop", "rock", "jazz"}[i%3] }

// viewedBy: three of the four items of the user's genre (each user skips
// another) and the pop item i03.
func viewedBy(u int) []int {
	first := 1 // rock: 1, 4, 7, 10
	if u > 4 {
		first = 2 // jazz: 2, 5, 8, 11
	}
	skip := (u - 1) % 4
	out := []int{3}
	for k := 0; k < 4; k++ {
		if k != skip {
			out = append(out, first+3*k)
		}
	}
	return out
}

func itemNumber(t *testing.T, id string) int {
	t.Helper()
	n, err := strconv.Atoi(strings.TrimPrefix(id, "i"))
	if err != nil {
		t.Fatalf("item id %q", id)
	}
	return n
}

// checkRanked fails unless every entry has an id and a match in [0, 100],
// in decreasing match order.
func checkRanked(t *testing.T, what string, recs []client.Recommendation) {
	t.Helper()
	for k, rec := range recs {
		if rec.ID() == "" || rec.Match < 0 || rec.Match > 100 {
			t.Errorf("%s: entry %d = %+v", what, k, rec)
		}
		if k > 0 && rec.Match > recs[k-1].Match {
			t.Errorf("%s: not in decreasing match order: %+v", what, recs)
		}
	}
}

func recIDs(recs []client.Recommendation) []string {
	out := make([]string, len(recs))
	for k, rec := range recs {
		out[k] = rec.ID()
	}
	return out
}

// gate serves one file over http, holding every request until opened, so
// an import stays processing for as long as the test needs.
type gate struct {
	srv     *httptest.Server
	arrived chan struct{}
	open    chan struct{}
	once    sync.Once
}

func newGate(t *testing.T, body string) *gate {
	g := &gate{arrived: make(chan struct{}, 8), open: make(chan struct{})}
	g.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		g.arrived <- struct{}{}
		select {
		case <-g.open:
		case <-r.Context().Done():
			return
		}
		io.WriteString(w, body)
	}))
	t.Cleanup(func() {
		g.release()
		g.srv.Close()
	})
	return g
}

func (g *gate) release() { g.once.Do(func() { close(g.open) }) }

func TestRecommImportTrainRecommend(t *testing.T) {
	g := newGate(t, "itemId,year\ni12,1999\n")
	c, _ := newClient(t, server.Config{MinInteractions: 5, FetchAllow: []string{g.srv.Listener.Addr().String()}})
	ctx := ctxT(t)
	r := c.Recomm

	must(t, r.CreateTable(ctx, client.NewTable{TableID: "music",
		Engines: client.Engines{client.SlotDefault: client.EngineHybrid, client.SlotItemsToItem: client.EnginePopular},
		Attributes: []client.Attribute{
			{AttributeID: "genre", Type: client.TypeCategory, Indexed: true},
			{AttributeID: "year", Type: client.TypeInt},
			{AttributeID: "title", Type: client.TypeString},
			{AttributeID: "tags", Type: client.TypeSet},
		}}))
	must(t, r.AddUserAttributes(ctx, client.Attribute{AttributeID: "age", Type: client.TypeInt},
		client.Attribute{AttributeID: "country", Type: client.TypeCategory}))
	must(t, r.CreateInteraction(ctx, "music", client.Interaction{InteractionID: "view", Weight: 1, Type: client.InteractionUnary}))

	// imports from the workspace's storage, waited on in order
	items, users, interactions := catalogFiles()
	must(t, c.Storage.CreateFolder(ctx, "in"))
	upload(t, c, "in", "items.csv", items)
	upload(t, c, "", "users.json", users)
	upload(t, c, "in", "views.csv", interactions)
	upload(t, c, "in", "update.csv", "itemId,year\ni01,1990\n")
	upload(t, c, "in", "users-update.json", `[{"userId":"u8","age":60}]`)

	itemsJob, err := r.ImportItems(ctx, "music", client.ImportRequest{URL: "storage://in/items.csv", Format: client.FormatCSV})
	must(t, err)
	if itemsJob.Status != client.StatusQueued || itemsJob.RequestID == "" {
		t.Errorf("accepted import = %+v", itemsJob)
	}
	usersJob, err := r.ImportUsers(ctx, client.ImportRequest{URL: "storage:///users.json", Format: client.FormatJSON})
	must(t, err)
	logging := true
	viewsJob, err := r.ImportInteractions(ctx, "music", client.ImportRequest{URL: "storage://in/views.csv", Format: client.FormatCSV,
		Configuration: client.ImportOptions{LoggingEnabled: &logging}})
	must(t, err)

	var seen []string
	final, err := r.WaitImport(ctx, client.ImportItems, "music", itemsJob.RequestID, 10*time.Millisecond, func(j client.ImportJob) {
		seen = append(seen, j.Status)
	})
	must(t, err)
	if final.Status != client.StatusCompletedWithErrors || len(final.ItemsNotAdded) != 1 || final.ItemsNotAdded[0].ErrorID != "bad" ||
		final.ItemsNotAdded[0].Code != "InvalidArgumentException" || final.ItemsNotAdded[0].Message == "" || len(final.NotAdded()) != 1 {
		t.Errorf("items import = %+v", final)
	}
	if len(seen) == 0 || seen[len(seen)-1] != final.Status {
		t.Errorf("progress saw %v, ended %s", seen, final.Status)
	}
	for _, s := range seen[:len(seen)-1] {
		if s != client.StatusQueued && s != client.StatusProcessing {
			t.Errorf("progress saw %q before the end", s)
		}
	}
	final, err = r.WaitImport(ctx, client.ImportUsers, "", usersJob.RequestID, 10*time.Millisecond, nil)
	must(t, err)
	if final.Status != client.StatusCompleted || final.NotAdded() != nil {
		t.Errorf("users import = %+v", final)
	}
	final, err = r.WaitImport(ctx, client.ImportInteractions, "music", viewsJob.RequestID, 10*time.Millisecond, nil)
	must(t, err)
	if final.Status != client.StatusCompletedWithErrors || len(final.InteractionsNotAdded) != 1 || final.InteractionsNotAdded[0].Code == "" {
		t.Errorf("interactions import = %+v", final)
	}
	if recs, err := r.UserRecords(ctx, "music", "u5", "view", client.ListQuery{}); err != nil || len(recs) != len(viewedBy(5)) {
		t.Errorf("imported records of u5 = %+v, %v", recs, err)
	}

	// updates from files
	upd, err := r.UpdateItems(ctx, "music", client.ImportRequest{URL: "storage://in/update.csv", Format: client.FormatCSV})
	must(t, err)
	if upd, err = r.WaitImport(ctx, client.ImportItems, "music", upd.RequestID, 10*time.Millisecond, nil); err != nil || upd.Status != client.StatusCompleted {
		t.Fatalf("items update = %+v, %v", upd, err)
	}
	if it, err := r.Item(ctx, "music", "i01"); err != nil || it["year"] != 1990.0 || it["genre"] != "rock" || it["title"] != "Title 1" {
		t.Errorf("i01 after the update = %v, %v", it, err)
	}
	upd, err = r.UpdateUsers(ctx, client.ImportRequest{URL: "storage://in/users-update.json", Format: client.FormatJSON})
	must(t, err)
	if upd, err = r.WaitImport(ctx, client.ImportUsers, "", upd.RequestID, 10*time.Millisecond, nil); err != nil || upd.Status != client.StatusCompleted {
		t.Fatalf("users update = %+v, %v", upd, err)
	}
	if u, err := r.User(ctx, "u8"); err != nil || u["age"] != 60.0 || u["country"] != "es" {
		t.Errorf("u8 after the update = %v, %v", u, err)
	}

	// bad imports
	_, err = r.ImportItems(ctx, "music", client.ImportRequest{URL: "storage://in/items.csv", Format: "xml"})
	wantCode(t, err, 400, "InvalidArgument")
	_, err = r.ImportItems(ctx, "music", client.ImportRequest{URL: "http://evil.example/items.csv", Format: client.FormatCSV})
	wantCode(t, err, 400, "InvalidArgument")
	_, err = r.ImportItems(ctx, "films", client.ImportRequest{URL: "storage://in/items.csv", Format: client.FormatCSV})
	wantCode(t, err, 404, "EntityNotFound")
	_, err = r.ImportStatus(ctx, client.ImportItems, "music", usersJob.RequestID)
	wantCode(t, err, 404, "EntityNotFound")
	_, err = r.CancelImport(ctx, client.ImportItems, "music", itemsJob.RequestID)
	wantCode(t, err, 400, "BadRequest")
	missing, err := r.ImportUsers(ctx, client.ImportRequest{URL: "storage://in/none.json", Format: client.FormatJSON})
	must(t, err)
	if missing, err = r.WaitImport(ctx, client.ImportUsers, "", missing.RequestID, 10*time.Millisecond, nil); err != nil || missing.Status != client.StatusError || missing.Message == "" {
		t.Errorf("import of a missing file = %+v, %v", missing, err)
	}

	// training
	_, err = r.ItemsForUser(ctx, "music", "u1", client.RecommendOptions{})
	wantCode(t, err, 404, "EntityNotFound") // nothing trained yet
	popJob, err := r.Train(ctx, "music", client.TrainRequest{Engine: client.EnginePopular})
	must(t, err)
	hybridJob, err := r.Train(ctx, "music", client.TrainRequest{Engine: client.EngineHybrid})
	must(t, err)
	// a model of the view interaction alone, for requests naming it
	viewJob, err := r.Train(ctx, "music", client.TrainRequest{Engine: client.EngineHybrid, InteractionsFilter: []string{"view"},
		Configuration: &client.TrainOptions{ItemAttributes: []string{"genre"}, UserAttributes: []string{}, PopularFilter: "0"}})
	must(t, err)
	if viewJob.Status != client.StatusQueued {
		t.Errorf("accepted training = %+v", viewJob)
	}
	var trainSeen int
	for _, j := range []client.TrainJob{popJob, hybridJob, viewJob} {
		done, err := r.WaitTraining(ctx, "music", j.RequestID, 10*time.Millisecond, func(client.TrainJob) { trainSeen++ })
		must(t, err)
		if done.Status != client.StatusCompleted || done.RequestID != j.RequestID {
			t.Fatalf("training = %+v", done)
		}
	}
	if trainSeen < 3 {
		t.Errorf("progress told %d times for three trainings", trainSeen)
	}
	_, err = r.Train(ctx, "music", client.TrainRequest{Engine: "magic"})
	wantCode(t, err, 400, "InvalidArgument")
	_, err = r.Train(ctx, "music", client.TrainRequest{Engine: client.EngineHybrid, InteractionsFilter: []string{"buy"}})
	wantCode(t, err, 400, "InvalidArgument")
	_, err = r.Train(ctx, "music", client.TrainRequest{Engine: client.EngineHybrid, Configuration: &client.TrainOptions{ItemFilter: "colour==red"}})
	wantCode(t, err, 400, "InvalidArgument")
	_, err = r.Train(ctx, "films", client.TrainRequest{Engine: client.EngineHybrid})
	wantCode(t, err, 404, "EntityNotFound")
	_, err = r.TrainStatus(ctx, "music", itemsJob.RequestID)
	wantCode(t, err, 404, "EntityNotFound")
	_, err = r.CancelTrain(ctx, "music", popJob.RequestID)
	wantCode(t, err, 400, "BadRequest")

	table, err := r.Table(ctx, "music", true)
	must(t, err)
	var trained []string
	for _, tc := range table.TrainConfig {
		for _, ec := range tc.EngineConfig {
			trained = append(trained, tc.InteractionID+":"+ec.Engine)
			if at, err := ec.Finished(); err != nil || time.Since(at) > time.Minute || time.Since(at) < -time.Minute {
				t.Errorf("%s finished at %q (%v)", ec.Engine, ec.Timestamp, err)
			}
			if tc.InteractionID == "view" && (fmt.Sprint(ec.Configuration["itemAttributes"]) != "[genre]" || ec.Configuration["popularFilter"] != "0") {
				t.Errorf("trainConfig configuration of view = %v", ec.Configuration)
			}
		}
	}
	sort.Strings(trained)
	if !slices.Equal(trained, []string{":hybrid", ":popular", "view:hybrid"}) {
		t.Errorf("trainConfig = %+v", table.TrainConfig)
	}

	// items for a user: never the ones already seen, unless asked for
	viewed1 := map[string]bool{}
	for _, i := range viewedBy(1) {
		viewed1[fmt.Sprintf("i%02d", i)] = true
	}
	all, err := r.ItemsForUser(ctx, "music", "u1", client.RecommendOptions{Limit: 8})
	must(t, err)
	checkRanked(t, "items for u1", all)
	if len(all) != 8 {
		t.Errorf("items for u1 = %+v, want 8", all)
	}
	for _, rec := range all {
		if viewed1[rec.ItemID] || rec.UserID != "" {
			t.Errorf("items for u1 holds %+v", rec)
		}
	}
	page1, err := r.ItemsForUser(ctx, "music", "u1", client.RecommendOptions{Limit: 3})
	must(t, err)
	page2, err := r.ItemsForUser(ctx, "music", "u1", client.RecommendOptions{Limit: 3, AfterID: page1[len(page1)-1].ItemID})
	must(t, err)
	if got := append(recIDs(page1), recIDs(page2)...); !slices.Equal(got, recIDs(all)[:6]) {
		t.Errorf("two pages = %v, want %v", got, recIDs(all)[:6])
	}
	rock, err := r.ItemsForUser(ctx, "music", "u1", client.RecommendOptions{Filter: "genre==rock"})
	must(t, err)
	if !slices.Equal(recIDs(rock), []string{"i01"}) { // the one rock item u1 skipped
		t.Errorf("rock for u1 = %+v", rock)
	}
	seenAgain, err := r.ItemsForUser(ctx, "music", "u1", client.RecommendOptions{InteractionFilter: "view==true"})
	must(t, err)
	if len(seenAgain) != len(viewed1) {
		t.Errorf("viewed items for u1 = %+v, want %d", seenAgain, len(viewed1))
	}
	for _, rec := range seenAgain {
		if !viewed1[rec.ItemID] {
			t.Errorf("view==true gave the unviewed %s", rec.ItemID)
		}
	}
	byYear, err := r.ItemsForUser(ctx, "music", "u1", client.RecommendOptions{Limit: 5, Sort: "year==DESC", Diversity: 0.5, InteractionID: "view"})
	must(t, err)
	if len(byYear) != 5 {
		t.Errorf("sorted items for u1 = %+v", byYear)
	}
	for k := 1; k < len(byYear); k++ {
		if itemNumber(t, byYear[k].ItemID) > itemNumber(t, byYear[k-1].ItemID) {
			t.Errorf("not sorted by year (desc): %v", recIDs(byYear))
		}
	}
	weighted, err := r.ItemsForUser(ctx, "music", "u1", client.RecommendOptions{AttributeID: "year", PopularFilter: "1", Limit: 8})
	must(t, err)
	checkRanked(t, "year-weighted items for u1", weighted)
	if len(weighted) == 0 {
		t.Error("year-weighted items for u1: none")
	}
	popular, err := r.ItemsForUser(ctx, "music", "u1", client.RecommendOptions{Engine: client.EnginePopular, Limit: 3})
	must(t, err)
	checkRanked(t, "popular items for u1", popular)
	if len(popular) != 3 {
		t.Errorf("popular items for u1 = %+v", popular)
	}
	for _, bad := range []client.RecommendOptions{
		{Diversity: 2}, {Limit: 5000}, {AfterID: "zzz"}, {Filter: "colour==red"}, {AttributeID: "title"},
		{Engine: "magic"}, {PopularFilter: "lots"}, {Sort: "year==SIDEWAYS"}, {InteractionFilter: "buy==true"},
	} {
		_, err := r.ItemsForUser(ctx, "music", "u1", bad)
		wantCode(t, err, 400, "InvalidArgument")
	}
	_, err = r.ItemsForUser(ctx, "music", "u1", client.RecommendOptions{InteractionID: "buy"})
	if err == nil {
		t.Error("an unknown interactionId was accepted")
	}
	_, err = r.ItemsForUser(ctx, "music", "nobody", client.RecommendOptions{})
	wantCode(t, err, 404, "EntityNotFound")
	_, err = r.ItemsForUser(ctx, "films", "u1", client.RecommendOptions{})
	wantCode(t, err, 404, "EntityNotFound")

	// similar users: every other user, never the user itself
	alike, err := r.UsersForUser(ctx, "music", "u1", client.RecommendOptions{Limit: 20})
	must(t, err)
	checkRanked(t, "users like u1", alike)
	others := recIDs(alike)
	sort.Strings(others)
	if !slices.Equal(others, []string{"u2", "u3", "u4", "u5", "u6", "u7", "u8"}) || alike[0].ItemID != "" {
		t.Errorf("users like u1 = %+v", alike)
	}
	uk, err := r.UsersForUser(ctx, "music", "u1", client.RecommendOptions{Filter: "country==uk"})
	must(t, err)
	for _, rec := range uk {
		if n, _ := strconv.Atoi(strings.TrimPrefix(rec.UserID, "u")); n%2 != 1 {
			t.Errorf("country==uk gave %s", rec.UserID)
		}
	}

	// items for an item: the table uses popular there, i03 leads
	related, err := r.ItemsForItem(ctx, "music", "i01", client.RecommendOptions{Limit: 4})
	must(t, err)
	checkRanked(t, "items for i01", related)
	if len(related) != 4 || related[0].ItemID != "i03" || slices.Contains(recIDs(related), "i01") {
		t.Errorf("items for i01 = %+v", related)
	}
	related, err = r.ItemsForItem(ctx, "music", "i01", client.RecommendOptions{Limit: 4, PopularFilter: "1"})
	must(t, err)
	if slices.Contains(recIDs(related), "i03") {
		t.Errorf("popularFilter 1 kept the most popular i03: %+v", related)
	}
	related, err = r.ItemsForItem(ctx, "music", "i02", client.RecommendOptions{Engine: client.EngineHybrid, Filter: "genre==jazz"})
	must(t, err)
	if len(related) != 3 || slices.Contains(recIDs(related), "i02") {
		t.Errorf("jazz like i02 = %+v", related)
	}
	_, err = r.ItemsForItem(ctx, "music", "i01", client.RecommendOptions{InteractionFilter: "view==true"})
	wantCode(t, err, 400, "InvalidArgument")

	// users for an item: those who have not viewed it yet (u1-u3 have)
	fans, err := r.UsersForItem(ctx, "music", "i10", client.RecommendOptions{Limit: 8})
	must(t, err)
	checkRanked(t, "users for i10", fans)
	notYet := recIDs(fans)
	sort.Strings(notYet)
	if !slices.Equal(notYet, []string{"u4", "u5", "u6", "u7", "u8"}) {
		t.Errorf("users for i10 = %+v", fans)
	}
	fans, err = r.UsersForItem(ctx, "music", "i10", client.RecommendOptions{InteractionFilter: "view==true"})
	must(t, err)
	viewers := recIDs(fans)
	sort.Strings(viewers)
	if !slices.Equal(viewers, []string{"u1", "u2", "u3"}) {
		t.Errorf("viewers of i10 = %+v", fans)
	}

	// ensemble
	must(t, r.SetEnsemble(ctx, "music", client.EnsembleWeight{Engine: client.EngineHybrid, Value: 0.7},
		client.EnsembleWeight{Engine: client.EnginePopular, Value: 0.3}))
	wantCode(t, r.SetEnsemble(ctx, "music", client.EnsembleWeight{Engine: client.EngineHybrid, Value: -1}), 400, "InvalidArgument")
	wantCode(t, r.SetEnsemble(ctx, "music"), 400, "InvalidArgument")
	wantCode(t, r.SetEnsemble(ctx, "films", client.EnsembleWeight{Engine: client.EngineHybrid, Value: 1}), 404, "EntityNotFound")
	table, err = r.Table(ctx, "music", false)
	must(t, err)
	if len(table.Ensemble) != 2 || table.Ensemble[0].Value+table.Ensemble[1].Value < 0.99 {
		t.Errorf("ensemble = %+v", table.Ensemble)
	}
	mixed, err := r.ItemsForUser(ctx, "music", "u5", client.RecommendOptions{Engine: client.EngineEnsemble, Limit: 3})
	must(t, err)
	checkRanked(t, "ensemble items for u5", mixed)
	if len(mixed) != 3 {
		t.Errorf("ensemble items for u5 = %+v", mixed)
	}
	must(t, r.SetEngines(ctx, "music", client.Engines{client.SlotDefault: client.EngineHybrid, client.SlotItemsToItem: client.EnginePopular,
		client.SlotUsersToUser: client.EngineEnsemble}))

	// batch recommendations: results in storage, in a folder named by the request id
	batch, err := r.BatchItemsForUsers(ctx, "music", client.BatchRequest{Configuration: client.BatchOptions{RecipientsFilter: "age=lt=23", Limit: 2}})
	must(t, err)
	if batch.Status != client.StatusQueued || batch.RecommendationsCount != 4 {
		t.Errorf("accepted batch = %+v (u1, u2 × 2)", batch)
	}
	var batchSeen []string
	done, err := r.WaitBatch(ctx, "music", batch.RequestID, 10*time.Millisecond, func(j client.BatchJob) { batchSeen = append(batchSeen, j.Status) })
	must(t, err)
	if done.Status != client.StatusCompleted || done.RecommendationsCount != 4 || batchSeen[len(batchSeen)-1] != client.StatusCompleted {
		t.Fatalf("batch = %+v, saw %v", done, batchSeen)
	}
	files, err := c.Storage.List(ctx, batch.RequestID, client.ListOptions{})
	must(t, err)
	var fileNames []string
	for _, f := range files {
		fileNames = append(fileNames, f.Name)
	}
	sort.Strings(fileNames)
	if !slices.Equal(fileNames, []string{"u1.json", "u2.json"}) {
		t.Fatalf("batch files = %v", fileNames)
	}
	var buf bytes.Buffer
	_, err = c.Storage.Download(ctx, batch.RequestID, "u1.json", &buf, nil)
	must(t, err)
	var written []client.Recommendation
	must(t, json.Unmarshal(buf.Bytes(), &written))
	if len(written) != 2 || written[0].ItemID == "" || viewed1[written[0].ItemID] {
		t.Errorf("u1.json = %s", buf.String())
	}
	for _, b := range []struct {
		name       string
		schedule   func() (client.BatchJob, error)
		recipients []string
	}{
		{"users for items", func() (client.BatchJob, error) {
			return r.BatchUsersForItems(ctx, "music", client.BatchRequest{Engine: client.EngineHybrid, Configuration: client.BatchOptions{
				RecipientsFilter: "genre==pop", RecommendationsFilter: "age=gt=22", InteractionFilter: "view==false", Limit: 1, Diversity: 0.2}})
		}, []string{"i03.json", "i06.json", "i09.json", "i12.json"}},
		{"items for items", func() (client.BatchJob, error) {
			return r.BatchItemsForItems(ctx, "music", client.BatchRequest{Configuration: client.BatchOptions{
				RecipientsFilter: "year=ge=2011", PopularFilter: "1", Sort: "year==ASC", Limit: 2}})
		}, []string{"i11.json", "i12.json"}},
		{"users for users", func() (client.BatchJob, error) {
			return r.BatchUsersForUsers(ctx, "music", client.BatchRequest{Engine: client.EngineHybrid, Configuration: client.BatchOptions{
				RecipientsFilter: "country==es", InteractionID: "view", Limit: 1}})
		}, []string{"u2.json", "u4.json", "u6.json", "u8.json"}},
	} {
		j, err := b.schedule()
		if err != nil {
			t.Fatalf("%s: %v", b.name, err)
		}
		if j.RecommendationsCount <= 0 || j.RecommendationsCount > int64(2*len(b.recipients)) {
			t.Errorf("%s: recommendationsCount %d for %d recipients", b.name, j.RecommendationsCount, len(b.recipients))
		}
		if j, err = r.WaitBatch(ctx, "music", j.RequestID, 10*time.Millisecond, nil); err != nil || j.Status != client.StatusCompleted {
			t.Fatalf("%s: %+v, %v", b.name, j, err)
		}
		files, err := c.Storage.List(ctx, j.RequestID, client.ListOptions{})
		must(t, err)
		var names []string
		for _, f := range files {
			names = append(names, f.Name)
		}
		sort.Strings(names)
		if !slices.Equal(names, b.recipients) {
			t.Errorf("%s: files %v, want %v", b.name, names, b.recipients)
		}
	}
	for _, bad := range []client.BatchRequest{
		{Engine: "magic"},
		{Configuration: client.BatchOptions{RecipientsFilter: "colour==red"}},
		{Configuration: client.BatchOptions{Diversity: 3}},
	} {
		_, err := r.BatchItemsForUsers(ctx, "music", bad)
		wantCode(t, err, 400, "InvalidArgument")
	}
	_, err = r.BatchItemsForItems(ctx, "music", client.BatchRequest{Configuration: client.BatchOptions{InteractionFilter: "view==true"}})
	wantCode(t, err, 400, "InvalidArgument")
	_, err = r.BatchItemsForUsers(ctx, "films", client.BatchRequest{})
	wantCode(t, err, 404, "EntityNotFound")
	_, err = r.BatchStatus(ctx, "music", popJob.RequestID)
	wantCode(t, err, 404, "EntityNotFound")
	_, err = r.CancelBatch(ctx, "music", batch.RequestID)
	wantCode(t, err, 400, "BadRequest")

	// While an import of the table is processing, its schema is locked and
	// later requests of the workspace wait queued, where they can be canceled.
	held, err := r.UpdateItems(ctx, "music", client.ImportRequest{URL: g.srv.URL + "/update.csv", Format: client.FormatCSV})
	must(t, err)
	select {
	case <-g.arrived:
	case <-ctx.Done():
		t.Fatal("the import never fetched its file")
	}
	if st, err := r.ImportStatus(ctx, client.ImportItems, "music", held.RequestID); err != nil || st.Status != client.StatusProcessing {
		t.Fatalf("held import = %+v, %v", st, err)
	}
	wantCode(t, r.AddAttributes(ctx, "music", client.Attribute{AttributeID: "mood", Type: client.TypeString}), 423, "Locked")
	wantCode(t, r.DeleteTable(ctx, "music"), 423, "Locked")
	queuedTrain, err := r.Train(ctx, "music", client.TrainRequest{Engine: client.EnginePopular})
	must(t, err)
	queuedBatch, err := r.BatchUsersForUsers(ctx, "music", client.BatchRequest{Configuration: client.BatchOptions{Limit: 1}})
	must(t, err)
	queuedImport, err := r.ImportUsers(ctx, client.ImportRequest{URL: "storage:///users.json", Format: client.FormatJSON})
	must(t, err)
	if st, err := r.CancelTrain(ctx, "music", queuedTrain.RequestID); err != nil || st.Status != client.StatusCanceled {
		t.Errorf("cancel queued training = %+v, %v", st, err)
	}
	if st, err := r.CancelBatch(ctx, "music", queuedBatch.RequestID); err != nil || st.Status != client.StatusCanceled || st.RecommendationsCount != 8 {
		t.Errorf("cancel queued batch = %+v, %v", st, err)
	}
	if st, err := r.CancelImport(ctx, client.ImportUsers, "", queuedImport.RequestID); err != nil || st.Status != client.StatusCanceled {
		t.Errorf("cancel queued import = %+v, %v", st, err)
	}
	if st, err := r.WaitTraining(ctx, "music", queuedTrain.RequestID, time.Millisecond, nil); err != nil || st.Status != client.StatusCanceled {
		t.Errorf("wait on a canceled training = %+v, %v", st, err)
	}
	g.release()
	if st, err := r.WaitImport(ctx, client.ImportItems, "music", held.RequestID, 10*time.Millisecond, nil); err != nil || st.Status != client.StatusCompleted {
		t.Fatalf("released import = %+v, %v", st, err)
	}
	if it, err := r.Item(ctx, "music", "i12"); err != nil || it["year"] != 1999.0 {
		t.Errorf("i12 after the http update = %v, %v", it, err)
	}

	// Deleting the table takes its trained models with it.
	must(t, r.DeleteTable(ctx, "music"))
	_, err = r.ItemsForUser(ctx, "music", "u1", client.RecommendOptions{})
	wantCode(t, err, 404, "EntityNotFound")
}

// TestRecommWaitStopsWithContext: a wait ends with ctx, returning the last
// status read.
func TestRecommWaitStopsWithContext(t *testing.T) {
	g := newGate(t, "itemId\nx1\n")
	c, _ := newClient(t, server.Config{MinInteractions: 5, FetchAllow: []string{g.srv.Listener.Addr().String()}})
	ctx := ctxT(t)
	must(t, c.Recomm.CreateTable(ctx, client.NewTable{TableID: "t"}))
	j, err := c.Recomm.ImportItems(ctx, "t", client.ImportRequest{URL: g.srv.URL + "/items.csv", Format: client.FormatCSV})
	must(t, err)
	<-g.arrived
	// Ended from the second poll's report, not by a deadline: how many polls fit in a
	// deadline depends on the machine's load (on PostgreSQL under make test, one took 80 ms).
	short, cancel := context.WithCancel(ctx)
	defer cancel()
	polls := 0
	last, err := c.Recomm.WaitImport(short, client.ImportItems, "t", j.RequestID, 20*time.Millisecond, func(client.ImportJob) {
		if polls++; polls == 2 {
			cancel()
		}
	})
	if err != context.Canceled || last.Status != client.StatusProcessing || polls != 2 {
		t.Errorf("wait = %+v, %v after %d polls", last, err, polls)
	}
	g.release()
}

// TestRecommWire checks the wire form of the calls whose effects the
// round trips above can't tell apart: every query parameter and the bodies
// with optional parts.
func TestRecommWire(t *testing.T) {
	type seen struct{ method, path, query, body string }
	var got seen
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got = seen{r.Method, r.URL.EscapedPath(), r.URL.RawQuery, string(b)}
		if r.Header.Get("X-Service-hmac") == "" || r.Header.Get("X-Service-apikey") != "pk" {
			t.Errorf("%s %s is not signed", r.Method, r.URL.Path)
		}
		w.Header().Set("Content-Type", "application/json")
		if r.Method == http.MethodGet && !strings.HasPrefix(r.URL.Path, "/v2/recomm/tables/") {
			io.WriteString(w, "[]")
			return
		}
		io.WriteString(w, "{}")
	}))
	defer hs.Close()
	c, err := client.New(client.Config{BaseURL: hs.URL + "/v2", PublicKey: "pk", PrivateKey: "sk"})
	must(t, err)
	r, ctx := c.Recomm, ctxT(t)
	no := false
	for _, tc := range []struct {
		call func() error
		want seen
	}{
		{func() error {
			_, err := r.ItemsForUser(ctx, "t", "u 1", client.RecommendOptions{Filter: "a==1", InteractionFilter: "v==true", PopularFilter: "10%",
				InteractionID: "v", AttributeID: "n", Limit: 7, AfterID: "x", Sort: "n==DESC", Diversity: 0.25, Engine: "fm"})
			return err
		}, seen{"GET", "/v2/recomm/t/users/u%201/items",
			"afterId=x&attributeId=n&diversity=0.25&engine=fm&filter=a%3D%3D1&interactionFilter=v%3D%3Dtrue&interactionId=v&limit=7&popularFilter=10%25&sort=n%3D%3DDESC", ""}},
		{func() error { _, err := r.UsersForItem(ctx, "t", "i", client.RecommendOptions{}); return err },
			seen{"GET", "/v2/recomm/t/items/i/users", "", ""}},
		{func() error { _, err := r.Table(ctx, "t", true); return err },
			seen{"GET", "/v2/recomm/tables/t", "trainConfig=true", ""}},
		{func() error {
			_, err := r.UsersWithAttributes(ctx, client.ListQuery{Filter: "age=gt=3", Limit: 2, AfterID: "u", Sort: "age==ASC"}, "age", "city")
			return err
		}, seen{"GET", "/v2/recomm/users", "afterId=u&attributes=%28age%2Ccity%29&filter=age%3Dgt%3D3&limit=2&sort=age%3D%3DASC", ""}},
		{func() error { return r.DeleteKeywords(ctx, "u", "a", "b") },
			seen{"DELETE", "/v2/recomm/users/u/warmup", "", `{"keywords":["a","b"]}`}},
		{func() error { return r.DeleteRecord(ctx, "t", "v", "u", "i", 42) },
			seen{"DELETE", "/v2/recomm/t/interactions/v/u/i", "", `{"timestamp":42}`}},
		{func() error { return r.AddRecord(ctx, "t", "v", "u", "i", client.NewRecord{}) },
			seen{"POST", "/v2/recomm/t/interactions/v/u/i", "", `{}`}},
		{func() error { return r.CreateItem(ctx, "t", "i", map[string]any{"n": 1}) },
			seen{"POST", "/v2/recomm/t/items", "", `{"itemId":"i","n":1}`}},
		{func() error { return r.PatchInteraction(ctx, "t", "v", client.InteractionPatch{InteractionID: "w"}) },
			seen{"PATCH", "/v2/recomm/t/interactions/v", "", `{"interactionId":"w"}`}},
		{func() error {
			_, err := r.Train(ctx, "t", client.TrainRequest{Engine: "hybrid", Configuration: &client.TrainOptions{
				Before: new(int64(1)), After: new(int64(2)), UserFilter: "a==1", ItemAttributes: []string{}, PopularFilter: "5"}})
			return err
		}, seen{"POST", "/v2/recomm/t/train", "",
			`{"engine":"hybrid","configuration":{"before":1,"after":2,"userFilter":"a==1","itemAttributes":[],"userAttributes":null,"popularFilter":"5"}}`}},
		{func() error {
			_, err := r.UpdateUsers(ctx, client.ImportRequest{URL: "storage:///u.csv", Format: "csv", Configuration: client.ImportOptions{LoggingEnabled: &no}})
			return err
		}, seen{"PATCH", "/v2/recomm/users/batch", "", `{"url":"storage:///u.csv","format":"csv","configuration":{"loggingEnabled":false}}`}},
		{func() error { _, err := r.CancelImport(ctx, client.ImportInteractions, "t", "r1"); return err },
			seen{"DELETE", "/v2/recomm/t/interactions/batch/r1", "", ""}},
		{func() error {
			_, err := r.BatchUsersForUsers(ctx, "t", client.BatchRequest{Configuration: client.BatchOptions{AttributeID: "n", Limit: 3}})
			return err
		}, seen{"POST", "/v2/recomm/t/users/users/recommend", "", `{"configuration":{"attributeId":"n","limit":3}}`}},
		{func() error { return r.SetEnsemble(ctx, "t", client.EnsembleWeight{Engine: "fm", Value: 1}) },
			seen{"POST", "/v2/recomm/t/ensemble", "", `{"data":[{"engine":"fm","value":1}]}`}},
	} {
		got = seen{}
		must(t, tc.call())
		if got != tc.want {
			t.Errorf("sent %+v\nwant %+v", got, tc.want)
		}
	}
	if _, err := r.ImportStatus(ctx, client.ImportKind(9), "t", "r"); err == nil {
		t.Error("an unknown import kind was sent")
	}
}

func TestStatusEnded(t *testing.T) {
	for status, ended := range map[string]bool{
		client.StatusQueued: false, client.StatusProcessing: false, client.StatusCompleted: true,
		client.StatusCompletedWithErrors: true, client.StatusError: true, client.StatusCanceled: true,
		client.StatusTrainingTimeOut: true, "": false, "paused": false,
	} {
		if client.StatusEnded(status) != ended {
			t.Errorf("StatusEnded(%q) = %v", status, !ended)
		}
		if (client.BatchJob{Status: status}).Done() != ended || (client.ImportJob{Status: status}).Done() != ended || (client.TrainJob{Status: status}).Done() != ended {
			t.Errorf("Done disagrees with StatusEnded for %q", status)
		}
	}
}
