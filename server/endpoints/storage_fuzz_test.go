package endpoints

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/harkhq/hark/server/httpapi"
	"github.com/harkhq/hark/server/storage"
)

// FuzzUpload feeds arbitrary multipart bodies to the upload handler: it
// answers 200 or 400/404 with an error body, never a 500 or a panic, and
// writes nothing outside the workspace's directory.
func FuzzUpload(f *testing.F) {
	f.Add("b", []byte("--b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.txt\"\r\n\r\nhello\r\n--b--\r\n"))
	f.Add("b", []byte("--b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"../../x\"\r\n\r\nhello\r\n--b--\r\n"))
	f.Add("b", []byte("--b\r\nContent-Disposition: form-data; name=\"other\"\r\n\r\nx\r\n--b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"z\"\r\n\r\n"))
	f.Add("xyz", []byte("garbage"))
	f.Add("b", []byte("--b\r\nContent-Disposition: form-data; name=\"file\"\r\n\r\nno filename\r\n--b--\r\n"))
	root := f.TempDir()
	st, err := storage.New(filepath.Join(root, "storage"))
	if err != nil {
		f.Fatal(err)
	}
	api := httpapi.New(httpapi.Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	h := storageHandlers{st: st, maxUpload: 1 << 20}
	api.Handle("POST /upload", httpapi.Public, func(w http.ResponseWriter, r *http.Request) error {
		r = r.WithContext(httpapi.WithPrincipal(r.Context(), httpapi.Principal{WorkspaceID: 1}))
		return h.upload(w, r)
	})
	f.Fuzz(func(t *testing.T, boundary string, body []byte) {
		req := httptest.NewRequestWithContext(context.Background(), "POST", "/upload", bytes.NewReader(body))
		req.Header.Set("Content-Type", "multipart/form-data; boundary="+boundary)
		rec := httptest.NewRecorder()
		api.ServeHTTP(rec, req)
		switch rec.Code {
		case 200, 400, 404:
		default:
			t.Fatalf("status %d: %s", rec.Code, rec.Body.String())
		}
		entries, _ := os.ReadDir(root)
		if len(entries) != 1 || entries[0].Name() != "storage" {
			t.Fatalf("wrote outside the store: %v", entries)
		}
		if rec.Code != 200 && !bytes.Contains(rec.Body.Bytes(), []byte(`"code"`)) {
			t.Fatalf("error without body: %s", rec.Body.String())
		}
	})
}
