package client_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/harkhq/hark/client"
	"github.com/harkhq/hark/server"
)

func upload(t *testing.T, c *client.Client, folder, name, content string) {
	t.Helper()
	if _, err := c.Storage.Upload(ctxT(t), folder, name, strings.NewReader(content), int64(len(content)), nil); err != nil {
		t.Fatalf("upload %s/%s: %v", folder, name, err)
	}
}

func TestStorageRoundTrip(t *testing.T) {
	c, _ := newClient(t, server.Config{})
	ctx := ctxT(t)

	// Root forms.
	var progressed int64
	res, err := c.Storage.Upload(ctx, "", "notes.txt", strings.NewReader("hello root"), 10, func(done, total int64) {
		progressed = done
		if total != 10 {
			t.Errorf("progress total %d", total)
		}
	})
	if err != nil || res.File != "notes.txt" || res.Folder != "" || progressed != 10 {
		t.Fatalf("root upload: %+v %v progress %d", res, err, progressed)
	}
	var buf bytes.Buffer
	if n, err := c.Storage.Download(ctx, "", "notes.txt", &buf, nil); err != nil || n != 10 || buf.String() != "hello root" {
		t.Fatalf("root download: %d %q %v", n, buf.String(), err)
	}
	if ok, err := c.Storage.Exists(ctx, "", "notes.txt"); !ok || err != nil {
		t.Fatalf("exists: %v %v", ok, err)
	}

	// A folder.
	if err := c.Storage.CreateFolder(ctx, "docs"); err != nil {
		t.Fatal(err)
	}
	if err := c.Storage.CreateFolder(ctx, "docs"); err != nil {
		t.Fatalf("creating an existing folder: %v", err)
	}
	if ok, _ := c.Storage.FolderExists(ctx, "docs"); !ok {
		t.Fatal("folder does not exist after create")
	}
	if ok, _ := c.Storage.FolderExists(ctx, "nope"); ok {
		t.Fatal("absent folder exists")
	}
	upload(t, c, "docs", "a.json", `{"a":1}`)
	upload(t, c, "docs", "b.txt", "bbbbbbbbbb")
	upload(t, c, "docs", "c.txt", "c")
	// Replacing a file.
	upload(t, c, "docs", "c.txt", "ccc")

	rc, size, err := c.Storage.Open(ctx, "docs", "a.json")
	if err != nil || size != 7 {
		t.Fatalf("open: %d %v", size, err)
	}
	rc.Close()

	list, err := c.Storage.List(ctx, "docs", client.ListOptions{})
	if err != nil || len(list) != 3 || list[0].Name != "a.json" || list[2].Size != 3 {
		t.Fatalf("list: %+v %v", list, err)
	}
	if time.Since(time.UnixMilli(list[0].LastModified)) > time.Minute {
		t.Fatalf("lastModified %d is not recent", list[0].LastModified)
	}
	folders, err := c.Storage.Folders(ctx)
	if err != nil || len(folders) != 1 || folders[0] != "docs" {
		t.Fatalf("folders: %v %v", folders, err)
	}
	total, err := c.Storage.TotalSize(ctx)
	if err != nil || total != 10+7+10+3 {
		t.Fatalf("total size %d %v", total, err)
	}

	if err := c.Storage.DeleteMany(ctx, "docs", []string{"a.json", "missing.txt"}); err != nil {
		t.Fatal(err)
	}
	if err := c.Storage.Delete(ctx, "docs", "b.txt"); err != nil {
		t.Fatal(err)
	}
	if err := c.Storage.Delete(ctx, "docs", "b.txt"); err != nil {
		t.Fatalf("deleting an absent file: %v", err)
	}
	list, _ = c.Storage.List(ctx, "docs", client.ListOptions{})
	if len(list) != 1 || list[0].Name != "c.txt" {
		t.Fatalf("after deletes: %+v", list)
	}
	if err := c.Storage.DeleteFolder(ctx, "docs"); err != nil {
		t.Fatal(err)
	}
	if err := c.Storage.DeleteFolder(ctx, "docs"); err != nil {
		t.Fatalf("deleting an absent folder: %v", err)
	}
	if list, err := c.Storage.List(ctx, "docs", client.ListOptions{}); err != nil || len(list) != 0 {
		t.Fatalf("list of a deleted folder: %+v %v", list, err)
	}
	_, err = c.Storage.Download(ctx, "docs", "c.txt", io.Discard, nil)
	wantCode(t, err, 404, "EntityNotFound")
}

func TestStorageListFilters(t *testing.T) {
	c, p := newClient(t, server.Config{})
	ctx := ctxT(t)
	upload(t, c, "", "report-1.csv", "12345")
	upload(t, c, "", "report-2.csv", "1234567890")
	upload(t, c, "", "photo.png", "1")
	// Give the files known modification times.
	dir := filepath.Join(p.DataDir, "storage", "1", "files")
	base := time.UnixMilli(1_600_000_000_000)
	for i, n := range []string{"report-1.csv", "report-2.csv", "photo.png"} {
		at := base.Add(time.Duration(i) * time.Hour)
		if err := os.Chtimes(filepath.Join(dir, n), at, at); err != nil {
			t.Fatal(err)
		}
	}
	i64 := func(v int64) *int64 { return &v }
	cases := []struct {
		opt  client.ListOptions
		want string
	}{
		{client.ListOptions{Prefix: "report"}, "report-1.csv,report-2.csv"},
		{client.ListOptions{Suffix: ".png"}, "photo.png"},
		{client.ListOptions{MinSize: i64(5)}, "report-1.csv,report-2.csv"},
		{client.ListOptions{MaxSize: i64(5)}, "photo.png,report-1.csv"},
		{client.ListOptions{MinSize: i64(5), MaxSize: i64(5)}, "report-1.csv"},
		{client.ListOptions{From: i64(base.Add(time.Hour).UnixMilli())}, "photo.png,report-2.csv"},
		{client.ListOptions{To: i64(base.Add(time.Hour).UnixMilli())}, "report-1.csv,report-2.csv"},
		{client.ListOptions{From: i64(base.Add(time.Hour).UnixMilli()), To: i64(base.Add(time.Hour).UnixMilli())}, "report-2.csv"},
		{client.ListOptions{Prefix: "report", Suffix: ".csv", MaxSize: i64(9)}, "report-1.csv"},
		{client.ListOptions{Prefix: "zzz"}, ""},
	}
	for _, tc := range cases {
		list, err := c.Storage.List(ctx, "", tc.opt)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, e := range list {
			names = append(names, e.Name)
		}
		if got := strings.Join(names, ","); got != tc.want {
			t.Errorf("List(%+v) = %q, want %q", tc.opt, got, tc.want)
		}
	}
	resp, err := http.Get(p.BaseURL + "/storage/file/list?minSize=abc")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 401 {
		t.Fatalf("unsigned list answered %d", resp.StatusCode)
	}
}

func TestStorageDownloadHeadersAndRange(t *testing.T) {
	c, p := newClient(t, server.Config{})
	ctx := ctxT(t)
	upload(t, c, "", "data.json", `{"hello":"world"}`)
	rc, err := c.Storage.OpenRange(ctx, "", "data.json", 2, 6)
	if err != nil {
		t.Fatal(err)
	}
	part, _ := io.ReadAll(rc)
	rc.Close()
	if string(part) != `hello` {
		t.Fatalf("range read %q", part)
	}
	// Headers, through a raw signed request made by the client's signer.
	req, _ := http.NewRequest("GET", p.BaseURL+"/storage/file/download/data.json", nil)
	signRaw(req, p.PublicKey, p.PrivateKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	etag := resp.Header.Get("ETag")
	if resp.Header.Get("Content-Type") != "application/json" || resp.Header.Get("Content-Length") != "17" || etag == "" {
		t.Fatalf("headers: %v", resp.Header)
	}
	req, _ = http.NewRequest("GET", p.BaseURL+"/storage/file/download/data.json", nil)
	req.Header.Set("If-None-Match", etag)
	signRaw(req, p.PublicKey, p.PrivateKey)
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotModified {
		t.Fatalf("If-None-Match with the ETag answered %d", resp.StatusCode)
	}
	upload(t, c, "", "data.json", `{"hello":"again"}`)
	rc, _, _ = c.Storage.Open(ctx, "", "data.json")
	rc.Close()
	req, _ = http.NewRequest("GET", p.BaseURL+"/storage/file/download/data.json", nil)
	signRaw(req, p.PublicKey, p.PrivateKey)
	resp, _ = http.DefaultClient.Do(req)
	resp.Body.Close()
	if resp.Header.Get("ETag") == etag {
		t.Fatal("the ETag did not change with a new version")
	}
}

func signRaw(req *http.Request, pub, priv string) {
	ts := fmt.Sprint(time.Now().UnixMilli())
	nonce := fmt.Sprint(time.Now().UnixNano())
	req.Header.Set("X-Service-apikey", pub)
	req.Header.Set("X-Service-timestamp", ts)
	req.Header.Set("X-Service-nonce", nonce)
	resource := req.URL.EscapedPath()
	if req.URL.RawQuery != "" {
		resource += "?" + req.URL.RawQuery
	}
	req.Header.Set("X-Service-hmac", client.Sign(priv, resource, ts, nonce))
}

func TestStorageBadNames(t *testing.T) {
	c, p := newClient(t, server.Config{})
	ctx := ctxT(t)
	upload(t, c, "", "keep.txt", "keep")
	bad := []string{"..", ".", "a/b", `a\b`, "a\x00b", "a\nb", "a\x7fb", strings.Repeat("n", 256), "\xff\xfe"}
	for _, name := range bad {
		_, err := c.Storage.Upload(ctx, "", name, strings.NewReader("x"), 1, nil)
		wantCode(t, err, 400, "BadRequest")
		if name == "" || strings.ContainsAny(name, "/") {
			continue // a slash changes the route itself
		}
		_, err = c.Storage.Exists(ctx, "", name)
		wantCode(t, err, 400, "BadRequest")
		wantCode(t, c.Storage.CreateFolder(ctx, name), 400, "BadRequest")
	}
	// 255 bytes is the longest name.
	upload(t, c, "", strings.Repeat("n", 255), "ok")
	// Percent-encoded traversal in the path reaches the name check decoded.
	for _, raw := range []string{"/storage/file/download/%2e%2e/keep.txt", "/storage/file/download/..%2fkeep.txt",
		"/storage/file/exists/%2e%2e", "/storage/file/download/x/%2e%2e%2f%2e%2e%2fharkd.db", "/storage/folder/create/%2e%2e"} {
		method := "GET"
		if strings.Contains(raw, "create") {
			method = "PUT"
		}
		req, _ := http.NewRequest(method, p.BaseURL+raw, nil)
		req.URL.RawPath = "/v2" + raw
		signRaw(req, p.PublicKey, p.PrivateKey)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 400 && resp.StatusCode != 404 {
			t.Errorf("%s answered %d %s", raw, resp.StatusCode, body)
		}
		if bytes.Contains(body, []byte("keep")) || bytes.Contains(body, []byte("SQLite")) {
			t.Errorf("%s leaked content: %s", raw, body)
		}
	}
	// Nothing was written outside the workspace directory.
	entries, _ := os.ReadDir(filepath.Join(p.DataDir, "storage"))
	if len(entries) != 1 || entries[0].Name() != "1" {
		t.Fatalf("storage root holds %v", entries)
	}
}

func TestStorageUploadToMissingFolder(t *testing.T) {
	c, _ := newClient(t, server.Config{})
	_, err := c.Storage.Upload(ctxT(t), "absent", "x.txt", strings.NewReader("x"), 1, nil)
	wantCode(t, err, 404, "EntityNotFound")
}

func TestStorageUploadLimit(t *testing.T) {
	c, _ := newClient(t, server.Config{MaxUpload: 1000})
	_, err := c.Storage.Upload(ctxT(t), "", "big.bin", bytes.NewReader(make([]byte, 1001)), 1001, nil)
	wantCode(t, err, 400, "PayloadTooLarge")
	if ok, _ := c.Storage.Exists(ctxT(t), "", "big.bin"); ok {
		t.Fatal("an over-limit upload was kept")
	}
	upload(t, c, "", "fits.bin", string(make([]byte, 1000)))
}

func TestStorageClear(t *testing.T) {
	c, p := newClient(t, server.Config{})
	ctx := ctxT(t)
	upload(t, c, "", "r.txt", "r")
	c.Storage.CreateFolder(ctx, "f1")
	c.Storage.CreateFolder(ctx, "f2")
	upload(t, c, "f1", "a.txt", "a")
	upload(t, c, "f1", "b.txt", "b")

	_, err := c.Storage.Clear(ctx, "made-up-token")
	wantCode(t, err, 400, "InvalidConfirmationToken")

	// A token of another workspace does not clear this one.
	other, _ := p.Server.Workspaces.Create(ctx, "other")
	oc := clientFor(t, p, other.PublicKey, other.PrivateKey)
	otherTok, err := oc.Storage.RequestClear(ctx)
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Storage.Clear(ctx, otherTok.Token)
	wantCode(t, err, 400, "InvalidConfirmationToken")
	if total, _ := c.Storage.TotalSize(ctx); total != 3 {
		t.Fatalf("a refused clear deleted files: total %d", total)
	}

	tok, err := c.Storage.RequestClear(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Until(time.UnixMilli(tok.Expires)); d < 55*time.Second || d > 61*time.Second {
		t.Fatalf("token expires in %s", d)
	}
	res, err := c.Storage.Clear(ctx, tok.Token)
	if err != nil || res.Files != 3 || res.Folders != 2 {
		t.Fatalf("clear: %+v %v", res, err)
	}
	if total, _ := c.Storage.TotalSize(ctx); total != 0 {
		t.Fatalf("total after clear %d", total)
	}
	if folders, _ := c.Storage.Folders(ctx); len(folders) != 0 {
		t.Fatalf("folders after clear %v", folders)
	}
	upload(t, c, "", "after.txt", "x")
	_, err = c.Storage.Clear(ctx, tok.Token)
	wantCode(t, err, 400, "InvalidConfirmationToken")
	if ok, _ := c.Storage.Exists(ctx, "", "after.txt"); !ok {
		t.Fatal("a used token deleted files")
	}
}

func TestStorageIsolation(t *testing.T) {
	c, p := newClient(t, server.Config{})
	ctx := ctxT(t)
	other, _ := p.Server.Workspaces.Create(ctx, "other")
	oc := clientFor(t, p, other.PublicKey, other.PrivateKey)
	upload(t, c, "", "mine.txt", "secret")
	c.Storage.CreateFolder(ctx, "private")
	if ok, _ := oc.Storage.Exists(ctx, "", "mine.txt"); ok {
		t.Fatal("another workspace sees the file")
	}
	if folders, _ := oc.Storage.Folders(ctx); len(folders) != 0 {
		t.Fatalf("another workspace sees folders %v", folders)
	}
	if total, _ := oc.Storage.TotalSize(ctx); total != 0 {
		t.Fatalf("another workspace's total %d", total)
	}
	_, err := oc.Storage.Download(ctx, "", "mine.txt", io.Discard, nil)
	wantCode(t, err, 404, "EntityNotFound")
	if err := oc.Storage.Delete(ctx, "", "mine.txt"); err != nil {
		t.Fatal(err)
	}
	if ok, _ := c.Storage.Exists(ctx, "", "mine.txt"); !ok {
		t.Fatal("another workspace deleted the file")
	}
}

// Concurrent uploads of one name leave one whole version, never a mix.
func TestStorageConcurrentUploads(t *testing.T) {
	c, _ := newClient(t, server.Config{})
	ctx := ctxT(t)
	const n, size = 6, 256 << 10
	versions := make([][]byte, n)
	var wg sync.WaitGroup
	for i := range versions {
		versions[i] = bytes.Repeat([]byte{byte('a' + i)}, size)
		wg.Add(1)
		go func(b []byte) {
			defer wg.Done()
			if _, err := c.Storage.Upload(ctx, "", "same.bin", &slowReader{r: bytes.NewReader(b)}, size, nil); err != nil {
				t.Error(err)
			}
		}(versions[i])
	}
	wg.Wait()
	var got bytes.Buffer
	if _, err := c.Storage.Download(ctx, "", "same.bin", &got, nil); err != nil {
		t.Fatal(err)
	}
	whole := false
	for _, v := range versions {
		whole = whole || bytes.Equal(got.Bytes(), v)
	}
	if !whole {
		t.Fatal("the stored file mixes uploads")
	}
}

// slowReader hands out small pieces so concurrent uploads interleave.
type slowReader struct{ r io.Reader }

func (s *slowReader) Read(p []byte) (int, error) {
	if len(p) > 8<<10 {
		p = p[:8<<10]
	}
	time.Sleep(100 * time.Microsecond)
	return s.r.Read(p)
}

// A client that goes away mid-upload leaves the old file intact and no
// temporary file behind.
func TestStorageDisconnectMidUpload(t *testing.T) {
	c, p := newClient(t, server.Config{})
	upload(t, c, "", "doc.txt", "original")
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	go func() {
		pw.Write(make([]byte, 64<<10))
		cancel()
		pw.CloseWithError(context.Canceled)
	}()
	_, err := c.Storage.Upload(ctx, "", "doc.txt", pr, 1<<20, nil)
	if err == nil {
		t.Fatal("an interrupted upload succeeded")
	}
	var got bytes.Buffer
	if _, err := c.Storage.Download(ctxT(t), "", "doc.txt", &got, nil); err != nil || got.String() != "original" {
		t.Fatalf("after the interrupted upload: %q %v", got.String(), err)
	}
	tmp := filepath.Join(p.DataDir, "storage", "1", "tmp")
	deadline := time.Now().Add(5 * time.Second)
	for {
		entries, _ := os.ReadDir(tmp)
		if len(entries) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("temporary files left: %v", entries)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestStorageUploadOfRandomBytesRoundTrips(t *testing.T) {
	c, _ := newClient(t, server.Config{})
	data := make([]byte, 3<<20+17)
	rand.Read(data)
	if _, err := c.Storage.Upload(ctxT(t), "", "random.bin", bytes.NewReader(data), int64(len(data)), nil); err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	if _, err := c.Storage.Download(ctxT(t), "", "random.bin", &got, nil); err != nil || !bytes.Equal(got.Bytes(), data) {
		t.Fatalf("round trip differs (%d bytes) %v", got.Len(), err)
	}
}
