package recommhttp

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/harkhq/hark/server/apierr"
	"github.com/harkhq/hark/server/httpapi"
	"github.com/harkhq/hark/server/recomm/engines"
	"github.com/harkhq/hark/server/recomm/recommend"
	"github.com/harkhq/hark/server/store/storetest"
)

type oneKey struct{}

func (oneKey) WorkspaceKey(_ context.Context, key string) (int64, string, error) {
	if key != "pk" {
		return 0, "", apierr.New(401, apierr.UnknownApiKey, "unknown key")
	}
	return 42, "secret", nil
}

// memStorage is a workspace storage in memory: import files in, results out.
type memStorage struct {
	mu    sync.Mutex
	files map[string][]byte // "ws/folder/name"
	gate  chan struct{}     // when set, opening "slow.csv" waits for it
}

func (m *memStorage) Open(ws int64, folder, name string) (io.ReadCloser, error) {
	if name == "slow.csv" && m.gate != nil {
		<-m.gate
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	b, ok := m.files[fmt.Sprintf("%d/%s/%s", ws, folder, name)]
	if !ok {
		return nil, os.ErrNotExist
	}
	return io.NopCloser(bytes.NewReader(b)), nil
}

func (m *memStorage) CreateFolder(_ context.Context, ws int64, folder string) error { return nil }

func (m *memStorage) Put(_ context.Context, ws int64, folder, name string, r io.Reader) error {
	b, err := io.ReadAll(r)
	m.mu.Lock()
	defer m.mu.Unlock()
	m.files[fmt.Sprintf("%d/%s/%s", ws, folder, name)] = b
	return err
}

type client struct {
	t   *testing.T
	url string
}

// do sends a signed request and returns the status and body.
func (c client) do(method, path string, body any) (int, []byte) {
	c.t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, c.url+"/v2/recomm"+path, rd)
	ts := strconv.FormatInt(time.Now().UnixMilli(), 10)
	nonce := uuid.NewString()
	req.Header.Set(httpapi.HeaderAPIKey, "pk")
	req.Header.Set(httpapi.HeaderTimestamp, ts)
	req.Header.Set(httpapi.HeaderNonce, nonce)
	req.Header.Set(httpapi.HeaderHMAC, base64.StdEncoding.EncodeToString(httpapi.Sign("secret", req.URL.EscapedPath(), ts, nonce)))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, out
}

func (c client) want(status int, method, path string, body any) []byte {
	c.t.Helper()
	got, out := c.do(method, path, body)
	if got != status {
		c.t.Fatalf("%s %s = %d %s, want %d", method, path, got, out, status)
	}
	return out
}

func (c client) wait(path string) map[string]any {
	c.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		var st map[string]any
		json.Unmarshal(c.want(200, "GET", path, nil), &st)
		if s := st["status"]; s != "queued" && s != "processing" {
			return st
		}
		time.Sleep(10 * time.Millisecond)
	}
	c.t.Fatalf("%s did not finish", path)
	return nil
}

func newServer(t *testing.T) (client, *memStorage, string) { return newServerMin(t, 20) }

// newServerMin starts a server whose trainings need minInteractions records per interaction type.
func newServerMin(t *testing.T, minInteractions int) (client, *memStorage, string) {
	dir := t.TempDir()
	db, err := storetest.Open(t, dir) // SQLite under dir, or PostgreSQL with HARK_TEST_STORE=postgres
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	st := &memStorage{files: map[string][]byte{}}
	svc, err := New(context.Background(), Config{DB: db, DataDir: dir, Storage: st, MinInteractions: minInteractions,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(svc.Close)
	api := httpapi.New(httpapi.Config{Keys: oneKey{}, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		RatePerSecond: 1e6, RateBurst: 1e6})
	svc.Register(api)
	hs := httptest.NewServer(api)
	t.Cleanup(hs.Close)
	return client{t: t, url: hs.URL}, st, dir
}

func TestEndToEnd(t *testing.T) {
	c, st, dir := newServer(t)
	// tables
	c.want(201, "POST", "/tables", map[string]any{"tableId": "movies", "engine": "hybrid",
		"attributes": []map[string]any{{"attributeId": "genre", "type": "category", "indexed": "true"}, {"attributeId": "year", "type": "int"}}})
	c.want(409, "POST", "/tables", map[string]any{"tableId": "movies"})
	c.want(400, "POST", "/tables", map[string]any{"tableId": "bad/id"})
	c.want(400, "POST", "/tables", map[string]any{"tableId": "x", "attributes": []map[string]any{{"attributeId": "a", "type": "float"}}})
	c.want(400, "POST", "/tables", "not an object")
	if out := c.want(200, "GET", "/tables", nil); string(out) != `["movies"]` {
		t.Errorf("tables = %s", out)
	}
	c.want(204, "PATCH", "/tables/movies", map[string]any{"engines": map[string]string{"default": "hybrid", "items-to-item": "popular"}})
	c.want(404, "GET", "/tables/films", nil)
	var attrs []map[string]any
	json.Unmarshal(c.want(200, "GET", "/movies/attributes", nil), &attrs)
	if len(attrs) != 3 || attrs[0]["attributeId"] != "expiration" {
		t.Errorf("attributes = %v", attrs)
	}
	c.want(201, "POST", "/users/attributes", map[string]any{"attributes": []map[string]any{{"attributeId": "age", "type": "int"}}})
	c.want(200, "GET", "/users/attributes/age", nil)
	c.want(404, "GET", "/users/attributes/height", nil)
	c.want(201, "POST", "/movies/interactions", map[string]any{"interactionId": "view", "weight": 1, "cumulative": false, "type": "unary"})
	c.want(400, "POST", "/movies/interactions", map[string]any{"interactionId": "x", "weight": 11, "cumulative": false, "type": "unary"})
	c.want(202, "PATCH", "/movies/interactions/view", map[string]any{"weight": "2.5"})

	// imports from the workspace's storage, in order
	var items, users, inter strings.Builder
	items.WriteString("itemId,genre,year\n")
	for i := 0; i < 30; i++ {
		fmt.Fprintf(&items, "i%02d,%s,%d\n", i, []string{"rock", "jazz"}[i%2], 1990+i)
	}
	items.WriteString("bad,rock,old\n")
	users.WriteString("[")
	inter.WriteString("userId,itemId,timestamp,interactionName,value\n")
	for u := 0; u < 20; u++ {
		if u > 0 {
			users.WriteString(",")
		}
		fmt.Fprintf(&users, `{"userId":"u%02d","age":%d}`, u, 20+u)
		for k := 0; k < 10; k++ {
			fmt.Fprintf(&inter, "u%02d,i%02d,%d,view,\n", u, (u%2+2*((u+k)%15))%30, 1000+k)
		}
	}
	users.WriteString("]")
	inter.WriteString("nobody,i01,5,view,\n")
	st.files["42/in/items.csv"] = []byte(items.String())
	st.files["42//users.json"] = []byte(users.String())
	st.files["42/in/inter.csv"] = []byte(inter.String())
	var acc map[string]any
	json.Unmarshal(c.want(202, "POST", "/movies/items/batch", map[string]any{"url": "storage://in/items.csv", "format": "csv"}), &acc)
	itemsReq := acc["requestId"].(string)
	if acc["status"] != "queued" {
		t.Errorf("accepted import = %v", acc)
	}
	json.Unmarshal(c.want(202, "POST", "/users/batch", map[string]any{"url": "storage:///users.json", "format": "json"}), &acc)
	usersReq := acc["requestId"].(string)
	json.Unmarshal(c.want(202, "POST", "/movies/interactions/batch", map[string]any{"url": "storage://in/inter.csv", "format": "csv",
		"configuration": map[string]any{"loggingEnabled": true}}), &acc)
	interReq := acc["requestId"].(string)
	c.want(400, "POST", "/movies/items/batch", map[string]any{"url": "http://evil.example/x.csv", "format": "csv"})
	c.want(400, "POST", "/movies/items/batch", map[string]any{"url": "storage://in/items.csv", "format": "xml"})
	c.want(404, "POST", "/films/items/batch", map[string]any{"url": "storage://in/items.csv", "format": "csv"})

	s := c.wait("/movies/items/batch/" + itemsReq)
	if s["status"] != "completed_with_errors" || len(s["itemsNotAdded"].([]any)) != 1 {
		t.Errorf("items import = %v", s)
	}
	if s := c.wait("/users/batch/" + usersReq); s["status"] != "completed" {
		t.Errorf("users import = %v", s)
	}
	s = c.wait("/movies/interactions/batch/" + interReq)
	if s["status"] != "completed_with_errors" || len(s["interactionsNotAdded"].([]any)) != 1 {
		t.Errorf("interactions import = %v", s)
	}
	c.want(404, "GET", "/movies/items/batch/"+usersReq, nil)
	c.want(400, "DELETE", "/movies/items/batch/"+itemsReq, nil) // finished: cannot cancel

	// single items, users, listings
	c.want(201, "POST", "/movies/items", map[string]any{"itemId": "new", "genre": "rock", "year": 2020, "expiration": "2001-01-01T00:00:00Z"})
	c.want(409, "POST", "/movies/items", map[string]any{"itemId": "new"})
	c.want(400, "POST", "/movies/items", map[string]any{"itemId": "x", "year": "soon"})
	var item map[string]any
	json.Unmarshal(c.want(200, "GET", "/movies/items/new", nil), &item)
	if item["itemId"] != "new" || item["year"] != 2020.0 || item["expiration"] != "2001-01-01T00:00:00.000Z" {
		t.Errorf("item = %v", item)
	}
	c.want(204, "PATCH", "/movies/items/new", map[string]any{"year": 2021})
	c.want(404, "PATCH", "/movies/items/none", map[string]any{"year": 2021})
	if out := c.want(200, "GET", "/movies/items?filter=genre%3D%3Drock%3Byear%3Dgt%3D2015&limit=5", nil); string(out) != `["i26","i28","new"]` {
		t.Errorf("filtered items = %s", out)
	}
	out := c.want(200, "GET", "/users?attributes=(age)&sort=age%3D%3DDESC&limit=2", nil)
	if string(out) != `[{"age":39,"userId":"u19"},{"age":38,"userId":"u18"}]` {
		t.Errorf("users with attributes = %s", out)
	}
	if _, out := c.do("GET", "/movies/items?filter=colour%3D%3Dred", nil); !strings.Contains(string(out), "rsql: at 1: unknown attribute") {
		t.Errorf("bad filter answer = %s", out)
	}
	c.want(200, "GET", "/users/u01", nil)
	c.want(404, "GET", "/users/nobody", nil)

	// records and keywords
	c.want(201, "POST", "/movies/interactions/view/u00/i29", map[string]any{"timestamp": 77})
	var recs []map[string]any
	json.Unmarshal(c.want(200, "GET", "/movies/users/u00/view?filter=timestamp%3D%3D77", nil), &recs)
	if len(recs) != 1 || recs[0]["itemId"] != "i29" {
		t.Errorf("records = %v", recs)
	}
	c.want(204, "DELETE", "/movies/interactions/view/u00/i29", map[string]any{"timestamp": 77})
	c.want(404, "DELETE", "/movies/interactions/view/u00/i29", map[string]any{"timestamp": 77})
	c.want(200, "GET", "/movies/items/i01/view", nil)
	c.want(204, "POST", "/users/u05/warmup", map[string]any{"keywords": []string{"jazz", "blues", "soul"}})
	c.want(204, "DELETE", "/users/u05/warmup?keyword=soul", nil)
	c.want(204, "DELETE", "/users/u05/warmup", map[string]any{"keywords": []string{"blues"}})
	if out := c.want(200, "GET", "/users/u05/warmup/keywords", nil); string(out) != `["jazz"]` {
		t.Errorf("keywords = %s", out)
	}
	c.want(404, "POST", "/users/nobody/warmup", map[string]any{"keywords": []string{"x"}})

	// training, then the four recommendation paths
	c.want(404, "GET", "/movies/users/u00/items", nil) // nothing trained yet
	json.Unmarshal(c.want(202, "POST", "/movies/train", map[string]any{"engine": "hybrid", "configuration": map[string]any{"tuningBudget": 0.5}}), &acc)
	s = c.wait("/movies/train/" + acc["requestId"].(string))
	if s["status"] != "completed" {
		t.Fatalf("training = %v", s)
	}
	// what the search chose, or why it did not search, is part of the status
	if tuning, _ := s["tuning"].(map[string]any); tuning == nil || (tuning["chosen"] == nil && tuning["skipped"] == nil) {
		t.Errorf("training status without its tuning: %v", s)
	}
	c.want(400, "POST", "/movies/train", map[string]any{"engine": "hybrid", "configuration": map[string]any{"tuningBudget": -1}})
	json.Unmarshal(c.want(202, "POST", "/movies/train", map[string]any{"engine": "popular", "configuration": map[string]any{"popularFilter": "10%"}}), &acc)
	c.wait("/movies/train/" + acc["requestId"].(string))
	c.want(400, "POST", "/movies/train", map[string]any{"engine": "magic"})
	c.want(400, "POST", "/movies/train", map[string]any{"engine": "hybrid", "interactionsFilter": []string{"buy"}})
	var table map[string]any
	json.Unmarshal(c.want(200, "GET", "/tables/movies?trainConfig=true", nil), &table)
	if tc, _ := table["trainConfig"].([]any); len(tc) != 1 || len(tc[0].(map[string]any)["engineConfig"].([]any)) != 2 {
		t.Errorf("trainConfig = %v", table["trainConfig"])
	}
	var got []map[string]any
	json.Unmarshal(c.want(200, "GET", "/movies/users/u00/items?limit=5", nil), &got)
	if len(got) != 5 || got[0]["itemId"] == nil || got[0]["match"] == nil {
		t.Errorf("items for u00 = %v", got)
	}
	for _, e := range got {
		if e["itemId"] == "new" {
			t.Error("an expired item was recommended")
		}
	}
	json.Unmarshal(c.want(200, "GET", "/movies/items/i02/users?limit=3", nil), &got)
	if len(got) != 3 || got[0]["userId"] == nil {
		t.Errorf("users for i02 = %v", got)
	}
	json.Unmarshal(c.want(200, "GET", "/movies/users/u00/users?limit=3&engine=hybrid", nil), &got)
	if len(got) != 3 {
		t.Errorf("users like u00 = %v", got)
	}
	json.Unmarshal(c.want(200, "GET", "/movies/items/i02/items?limit=4", nil), &got) // popular engine for items-to-item
	for _, e := range got {
		if e["itemId"] == "i02" {
			t.Error("an item is similar to itself")
		}
	}
	c.want(404, "GET", "/movies/users/nobody/items", nil)
	c.want(400, "GET", "/movies/users/u00/items?afterId=zzz", nil)
	c.want(400, "GET", "/movies/users/u00/items?diversity=2", nil)
	c.want(400, "GET", "/movies/users/u00/items?limit=5000", nil)
	c.want(400, "GET", "/movies/items/i02/items?interactionFilter=view%3D%3Dtrue", nil)

	// ensemble and batch recommendations
	if _, err := os.Stat(filepath.Join(dir, "recomm", "42", "movies", "hybrid.model")); err != nil {
		t.Errorf("trained model not on disk: %v", err)
	}
	c.want(201, "POST", "/movies/ensemble", map[string]any{"data": []map[string]any{{"engine": "hybrid", "value": 0.7}, {"engine": "popular", "value": 0.3}}})
	c.want(400, "POST", "/movies/ensemble", map[string]any{"data": []map[string]any{{"engine": "hybrid", "value": -1}}})
	c.want(200, "GET", "/movies/users/u03/items?engine=ensemble&limit=3", nil)
	json.Unmarshal(c.want(202, "POST", "/movies/users/items/recommend", map[string]any{
		"configuration": map[string]any{"recipientsFilter": "age=lt=23", "limit": 2}}), &acc)
	if acc["recommendationsCount"] != 6.0 {
		t.Errorf("batch accepted = %v", acc)
	}
	batch := acc["requestId"].(string)
	if s := c.wait("/movies/recommend/" + batch); s["status"] != "completed" {
		t.Fatalf("batch = %v", s)
	}
	st.mu.Lock()
	file := st.files["42/"+batch+"/u01.json"]
	st.mu.Unlock()
	var entries []map[string]any
	if err := json.Unmarshal(file, &entries); err != nil || len(entries) != 2 || entries[0]["itemId"] == nil {
		t.Errorf("u01.json = %s", file)
	}
	c.want(404, "GET", "/movies/recommend/"+itemsReq, nil)

	// protocol errors
	req, _ := http.NewRequest("GET", c.url+"/v2/recomm/tables", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 401 {
		t.Errorf("unsigned request = %d", resp.StatusCode)
	}
	c.want(404, "GET", "/movies/nothing/here/at/all", nil)
	c.want(405, "DELETE", "/tables", nil)

	c.want(204, "DELETE", "/tables/movies", nil)
	c.want(404, "GET", "/movies/users/u00/items", nil)
	if _, err := os.Stat(filepath.Join(dir, "recomm", "42", "movies")); !os.IsNotExist(err) {
		t.Errorf("models of a deleted table remain: %v", err)
	}
	c.want(202, "DELETE", "/users", nil)
	if out := c.want(200, "GET", "/users", nil); string(out) != `[]` {
		t.Errorf("users after DELETE /users = %s", out)
	}
}

// TestLockedWhileImporting holds an item import open and checks that
// schema changes of that table answer 423 while other tables stay free.
func TestLockedWhileImporting(t *testing.T) {
	c, st, _ := newServer(t)
	st.gate = make(chan struct{})
	c.want(201, "POST", "/tables", map[string]any{"tableId": "t1"})
	c.want(201, "POST", "/tables", map[string]any{"tableId": "t2"})
	st.files["42/in/slow.csv"] = []byte("itemId\na\n")
	var acc map[string]any
	json.Unmarshal(c.want(202, "POST", "/t1/items/batch", map[string]any{"url": "storage://in/slow.csv", "format": "csv"}), &acc)
	// a second import queues behind the first and can be canceled
	var second map[string]any
	json.Unmarshal(c.want(202, "POST", "/t1/items/batch", map[string]any{"url": "storage://in/slow.csv", "format": "csv"}), &second)
	deadline := time.Now().Add(30 * time.Second)
	for {
		var s map[string]any
		json.Unmarshal(c.want(200, "GET", "/t1/items/batch/"+acc["requestId"].(string), nil), &s)
		if s["status"] == "processing" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("import never started: %v", s)
		}
		time.Sleep(5 * time.Millisecond)
	}
	c.want(423, "POST", "/t1/attributes", map[string]any{"attributes": []map[string]any{{"attributeId": "a", "type": "int"}}})
	c.want(423, "DELETE", "/tables/t1", nil)
	c.want(201, "POST", "/t2/attributes", map[string]any{"attributes": []map[string]any{{"attributeId": "a", "type": "int"}}})
	var canceled map[string]any
	json.Unmarshal(c.want(200, "DELETE", "/t1/items/batch/"+second["requestId"].(string), nil), &canceled)
	if canceled["status"] != "canceled" {
		t.Errorf("cancel queued import = %v", canceled)
	}
	close(st.gate)
	if s := c.wait("/t1/items/batch/" + acc["requestId"].(string)); s["status"] != "completed" {
		t.Errorf("import = %v", s)
	}
	c.want(201, "POST", "/t1/attributes", map[string]any{"attributes": []map[string]any{{"attributeId": "a", "type": "int"}}})
}

// smallTable loads a table "shop" of 30 items in two genres, 20 users and 10 views each, with a
// second interaction type "like" that has no records.
func smallTable(t *testing.T, c client, st *memStorage) {
	t.Helper()
	c.want(201, "POST", "/tables", map[string]any{"tableId": "shop", "engine": "hybrid",
		"attributes": []map[string]any{{"attributeId": "title", "type": "string"}, {"attributeId": "genre", "type": "category"}}})
	c.want(201, "POST", "/shop/interactions", map[string]any{"interactionId": "view", "weight": 1, "cumulative": false, "type": "unary"})
	c.want(201, "POST", "/shop/interactions", map[string]any{"interactionId": "like", "weight": 2, "cumulative": false, "type": "binary"})
	var items, users, inter strings.Builder
	items.WriteString("itemId,title,genre\n")
	for i := 0; i < 30; i++ {
		fmt.Fprintf(&items, "%d,\"Title %d\",%s\n", i, i, []string{"rock", "jazz"}[i%2])
	}
	users.WriteString("userId\n")
	inter.WriteString("userId,itemId,timestamp,interactionName,value\n")
	for u := 0; u < 20; u++ {
		fmt.Fprintf(&users, "u%02d\n", u)
		for k := 0; k < 10; k++ {
			fmt.Fprintf(&inter, "u%02d,%d,%d,view,\n", u, (u%2+2*((u+k)%15))%30, 1000+k)
		}
	}
	st.mu.Lock()
	st.files["42/in/items.csv"] = []byte(items.String())
	st.files["42/in/users.csv"] = []byte(users.String())
	st.files["42/in/inter.csv"] = []byte(inter.String())
	st.mu.Unlock()
	for _, imp := range []struct{ path, file string }{
		{"/shop/items/batch", "items"}, {"/users/batch", "users"}, {"/shop/interactions/batch", "inter"},
	} {
		var acc map[string]any
		json.Unmarshal(c.want(202, "POST", imp.path, map[string]any{"url": "storage://in/" + imp.file + ".csv", "format": "csv"}), &acc)
		if s := c.wait(imp.path + "/" + acc["requestId"].(string)); s["status"] != "completed" {
			t.Fatalf("%s import = %v", imp.file, s)
		}
	}
}

func (c client) train(body map[string]any) map[string]any {
	c.t.Helper()
	var acc map[string]any
	json.Unmarshal(c.want(202, "POST", "/shop/train", body), &acc)
	return c.wait("/shop/train/" + acc["requestId"].(string))
}

// The vendor's published tutorial records minValue and maxValue in every interaction definition it
// reads back, the defaults of the type included.
func TestInteractionDefinitionCarriesBounds(t *testing.T) {
	c, _, _ := newServer(t)
	c.want(201, "POST", "/tables", map[string]any{"tableId": "t"})
	for _, d := range []map[string]any{
		{"interactionId": "u", "weight": 1, "cumulative": false, "type": "unary"},
		{"interactionId": "b", "weight": 1, "cumulative": false, "type": "binary"},
		{"interactionId": "c", "weight": 1, "cumulative": false, "type": "continuous"},
		{"interactionId": "r", "weight": 1, "cumulative": false, "type": "categorical", "minValue": 1, "maxValue": 5},
	} {
		c.want(201, "POST", "/t/interactions", d)
	}
	want := map[string][2]float64{"u": {1, 1}, "b": {0, 1}, "c": {-math.MaxFloat64, math.MaxFloat64}, "r": {1, 5}}
	for id, w := range want {
		var got map[string]any
		json.Unmarshal(c.want(200, "GET", "/t/interactions/"+id, nil), &got)
		if got["minValue"] != w[0] || got["maxValue"] != w[1] {
			t.Errorf("%s: minValue %v maxValue %v, want %v", id, got["minValue"], got["maxValue"], w)
		}
	}
	var list []map[string]any
	json.Unmarshal(c.want(200, "GET", "/t/interactions", nil), &list)
	for _, d := range list {
		if _, ok := d["minValue"]; !ok {
			t.Errorf("listed %v has no minValue", d["interactionId"])
		}
	}
}

// After training an engine with an interactionsFilter, ?engine=E answers from that model when it is
// the engine's only one (the tutorial trains fm on one interaction and then asks with engine=fm).
func TestEngineParameterFindsAFilteredModel(t *testing.T) {
	c, st, _ := newServer(t)
	smallTable(t, c, st)
	if s := c.train(map[string]any{"engine": "fm", "interactionsFilter": []string{"view"}}); s["status"] != "completed" {
		t.Fatalf("training = %v", s)
	}
	var got []map[string]any
	json.Unmarshal(c.want(200, "GET", "/shop/users/u00/items?engine=fm&limit=3", nil), &got)
	if len(got) != 3 {
		t.Errorf("fm answer = %v", got)
	}
	c.want(200, "GET", "/shop/users/u00/items?engine=fm&interactionId=view&limit=3", nil)
	c.want(404, "GET", "/shop/users/u00/items?engine=isvd", nil)
}

// An interaction recorded after training reaches an isvd model at once: a user the model never saw
// gets recommendations from it, and the folded model is what a restarted server loads.
func TestISVDLearnsOnline(t *testing.T) {
	c, st, dir := newServer(t)
	smallTable(t, c, st)
	if s := c.train(map[string]any{"engine": "isvd"}); s["status"] != "completed" {
		t.Fatalf("training = %v", s)
	}
	c.want(201, "POST", "/users", map[string]any{"userId": "newbie"})
	var got []map[string]any
	json.Unmarshal(c.want(200, "GET", "/shop/users/newbie/items?engine=isvd&limit=5", nil), &got)
	if len(got) != 0 {
		t.Fatalf("a user without interactions got %v", got)
	}
	// rock items are even; the users who view item 0 view rock items
	c.want(201, "POST", "/shop/interactions/view/newbie/0", nil)
	c.want(201, "POST", "/shop/interactions/view/newbie/2", nil)
	json.Unmarshal(c.want(200, "GET", "/shop/users/newbie/items?engine=isvd&limit=5", nil), &got)
	if len(got) != 5 {
		t.Fatalf("after two views: %v", got)
	}
	for _, e := range got {
		if n, _ := strconv.Atoi(e["itemId"].(string)); n%2 != 0 {
			t.Errorf("a jazz item %v for a rock listener", e)
		}
	}
	// a user the model was trained on moves with new interactions: u01 listened to jazz only
	evens := func() int {
		json.Unmarshal(c.want(200, "GET", "/shop/users/u01/items?engine=isvd&limit=3", nil), &got)
		n := 0
		for _, e := range got {
			if k, _ := strconv.Atoi(e["itemId"].(string)); k%2 == 0 {
				n++
			}
		}
		return n
	}
	if n := evens(); n != 0 {
		t.Fatalf("rock items for a jazz listener before: %v", got)
	}
	for i := 0; i < 30; i += 4 {
		c.want(201, "POST", fmt.Sprintf("/shop/interactions/view/u01/%d", i), nil)
	}
	if n := evens(); n == 0 {
		t.Errorf("u01 viewed 8 rock items and still gets only jazz: %v", got)
	}
	// liking an item and then unliking it leaves what training would: the latest value, 0
	c.want(201, "POST", "/users", map[string]any{"userId": "x"})
	c.want(201, "POST", "/users", map[string]any{"userId": "y"})
	for _, u := range []string{"x", "y"} {
		c.want(201, "POST", "/shop/interactions/view/"+u+"/0", map[string]any{"timestamp": 5})
	}
	c.want(201, "POST", "/shop/interactions/like/x/2", map[string]any{"timestamp": 10, "value": 1})
	c.want(201, "POST", "/shop/interactions/like/x/2", map[string]any{"timestamp": 20, "value": 0})
	c.want(201, "POST", "/shop/interactions/like/x/2", map[string]any{"timestamp": 15, "value": 1}) // older: no change
	var gotX, gotY []map[string]any
	json.Unmarshal(c.want(200, "GET", "/shop/users/x/items?engine=isvd&limit=5&filter=genre%3D%3Djazz", nil), &gotX)
	json.Unmarshal(c.want(200, "GET", "/shop/users/y/items?engine=isvd&limit=5&filter=genre%3D%3Djazz", nil), &gotY)
	if fmt.Sprint(gotX) != fmt.Sprint(gotY) {
		t.Errorf("an unliked item still counts: x %v, y %v", gotX, gotY)
	}

	// the folded model is saved in the background: a service started on the same data soon knows
	// newbie
	deadline := time.Now().Add(10 * time.Second)
	for {
		models, problems := recommend.OpenModels(filepath.Join(dir, "recomm"))
		if len(problems) > 0 {
			t.Fatal(problems)
		}
		if m := models.Get(42, "shop", "isvd"); m != nil {
			if recs, err := m.Recommend(engines.ItemsToUser, engines.Subject{ID: "newbie"}, engines.Query{Limit: 1}); err == nil && len(recs) == 1 {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("the saved isvd model never learnt newbie")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Browsing by title: the display attribute, listings in numeric id order, search, a user's
// history newest first, recommendations with attributes and their reasons.
func TestBrowsing(t *testing.T) {
	c, st, _ := newServer(t)
	smallTable(t, c, st)
	var table map[string]any
	json.Unmarshal(c.want(200, "GET", "/tables/shop", nil), &table)
	if table["displayAttribute"] != "title" {
		t.Errorf("automatic display attribute = %v", table["displayAttribute"])
	}
	_, out := c.do("PATCH", "/tables/shop", map[string]any{"displayAttribute": "colour"})
	if !strings.Contains(string(out), `is not an attribute of table \"shop\" (it has expiration, title, genre)`) {
		t.Errorf("unknown display attribute = %s", out)
	}
	c.want(204, "PATCH", "/tables/shop", map[string]any{"displayAttribute": "genre"})
	json.Unmarshal(c.want(200, "GET", "/tables/shop", nil), &table)
	if table["displayAttribute"] != "genre" || table["engine"] != "hybrid" {
		t.Errorf("after PATCH: %v", table)
	}
	c.want(204, "PATCH", "/tables/shop", map[string]any{"displayAttribute": ""})

	if out := c.want(200, "GET", "/shop/items?limit=12", nil); string(out) != `["0","1","2","3","4","5","6","7","8","9","10","11"]` {
		t.Errorf("items in id order = %s", out)
	}
	if out := c.want(200, "GET", "/shop/items?limit=3&afterId=9", nil); string(out) != `["10","11","12"]` {
		t.Errorf("page after 9 = %s", out)
	}
	if out := c.want(200, "GET", "/shop/items?search=TITLE%202&limit=4", nil); string(out) != `["2","20","21","22"]` {
		t.Errorf("search = %s", out)
	}
	if out := c.want(200, "GET", "/shop/items?search=title%202&filter=genre%3D%3Djazz&attributes=(title)", nil); string(out) != `[{"itemId":"21","title":"Title 21"},{"itemId":"23","title":"Title 23"},{"itemId":"25","title":"Title 25"},{"itemId":"27","title":"Title 27"},{"itemId":"29","title":"Title 29"}]` {
		t.Errorf("search with filter = %s", out)
	}

	c.want(201, "POST", "/shop/interactions/like/u00/3", map[string]any{"timestamp": 5000, "value": 1})
	var hist []map[string]any
	json.Unmarshal(c.want(200, "GET", "/shop/history/users/u00?limit=3", nil), &hist)
	if len(hist) != 3 || hist[0]["itemId"] != "3" || hist[0]["interactionId"] != "like" || hist[1]["timestamp"].(float64) < hist[2]["timestamp"].(float64) {
		t.Errorf("history = %v", hist)
	}
	json.Unmarshal(c.want(200, "GET", "/shop/history/items/3", nil), &hist)
	if len(hist) == 0 || hist[0]["userId"] != "u00" {
		t.Errorf("item history = %v", hist)
	}
	c.want(404, "GET", "/shop/history/users/nobody", nil)

	if s := c.train(map[string]any{"engine": "hybrid"}); s["status"] != "completed_with_errors" { // like has 1 record
		t.Fatalf("training = %v", s)
	}
	json.Unmarshal(c.want(200, "GET", "/shop/history/users/u00", nil), &hist)
	past := map[string]bool{}
	for _, h := range hist {
		past[h["itemId"].(string)] = true
	}
	var recs []map[string]any
	json.Unmarshal(c.want(200, "GET", "/shop/users/u00/items?limit=3&attributes=(title,genre)&explain=true", nil), &recs)
	if len(recs) != 3 {
		t.Fatalf("recommendations = %v", recs)
	}
	for _, r := range recs {
		if r["title"] != "Title "+r["itemId"].(string) || r["genre"] == nil {
			t.Errorf("entry without its attributes: %v", r)
		}
		because, _ := r["because"].([]any)
		if len(because) == 0 {
			t.Errorf("no reasons for %v", r)
		}
		for _, b := range because {
			if id := b.(map[string]any)["itemId"].(string); !past[id] || id == r["itemId"] {
				t.Errorf("reason %v of %v", b, r["itemId"])
			}
		}
	}
	_, out = c.do("GET", "/shop/users/u00/items?attributes=(colour)", nil)
	if !strings.Contains(string(out), `unknown attribute \"colour\" (there are expiration, title, genre)`) {
		t.Errorf("unknown attribute = %s", out)
	}
}

// The sample catalog loads with one request, trains, and answers titled recommendations.
func TestSampleCatalog(t *testing.T) {
	c, _, _ := newServer(t)
	var sum SampleSummary
	json.Unmarshal(c.want(201, "POST", "/samples", nil), &sum)
	if sum.Users != 200 || len(sum.Tables) != 3 || sum.Tables[0].TableID != "sandbox-movies" {
		t.Fatalf("summary = %+v", sum)
	}
	for _, tb := range sum.Tables {
		if tb.Items == 0 || tb.Interactions < 500 || tb.DisplayAttribute == "" {
			t.Errorf("table %+v", tb)
		}
	}
	// the other two tables train meanwhile (the race detector makes every training slow)
	if s := c.wait("/sandbox-movies/train/" + sum.Tables[0].TrainRequestID); s["status"] != "completed" {
		t.Errorf("training of sandbox-movies = %v", s)
	}
	var recs []map[string]any
	json.Unmarshal(c.want(200, "GET", "/sandbox-movies/users/sandbox-u001/items?limit=3&attributes=(title)", nil), &recs)
	if len(recs) != 3 || recs[0]["title"] == nil {
		t.Errorf("recommendations = %v", recs)
	}
	var list []map[string]any
	json.Unmarshal(c.want(200, "GET", "/jobs?limit=3", nil), &list)
	if len(list) != 3 || list[2]["kind"] != "train" || list[2]["tableId"] != "sandbox-movies" || list[2]["status"] != "completed" {
		t.Errorf("jobs = %v", list)
	}
}

// The sample loads again once its tables are deleted: the users stay. (Trainings need more records
// than the sample has here, so they end at once.)
func TestSampleLoadsAgain(t *testing.T) {
	c, _, _ := newServerMin(t, 1_000_000)
	var sum SampleSummary
	json.Unmarshal(c.want(201, "POST", "/samples", nil), &sum)
	_, out := c.do("POST", "/samples", nil)
	if !strings.Contains(string(out), `sandbox-movies\" already exists`) {
		t.Errorf("second load = %s", out)
	}
	for _, tb := range sum.Tables {
		if s := c.wait("/" + tb.TableID + "/train/" + tb.TrainRequestID); s["status"] != "error" {
			t.Errorf("training of %s = %v", tb.TableID, s)
		}
		c.want(204, "DELETE", "/tables/"+tb.TableID, nil)
	}
	var again SampleSummary
	json.Unmarshal(c.want(201, "POST", "/samples", nil), &again)
	if again.Users != 200 || len(again.Tables) != 3 || again.Tables[0].Interactions != sum.Tables[0].Interactions {
		t.Errorf("second load = %+v, first %+v", again, sum)
	}
}
