package endpoints

import (
	"bufio"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/harkhq/hark/server/apierr"
	"github.com/harkhq/hark/server/httpapi"
	"github.com/harkhq/hark/server/storage"
)

// Storage registers /storage/*, each path with and without {folder}.
func Storage(api *httpapi.API, st *storage.Store, maxUpload int64) {
	h := storageHandlers{st: st, maxUpload: maxUpload}
	for _, p := range []struct{ pattern, folder string }{{"", ""}, {"/{folder}", "folder"}} {
		api.Handle("POST /v2/storage/file/upload"+p.pattern, httpapi.Signed, h.upload)
		api.Handle("GET /v2/storage/file/list"+p.pattern, httpapi.Signed, h.list)
		api.Handle("DELETE /v2/storage/file/deletes"+p.pattern, httpapi.Signed, h.deletes)
	}
	for _, p := range []string{"/{file}", "/{folder}/{file}"} {
		api.Handle("GET /v2/storage/file/download"+p, httpapi.Signed, h.download)
		api.Handle("GET /v2/storage/file/exists"+p, httpapi.Signed, h.exists)
		api.Handle("DELETE /v2/storage/file/delete"+p, httpapi.Signed, h.delete)
	}
	api.Handle("PUT /v2/storage/folder/create/{folder}", httpapi.Signed, h.createFolder)
	api.Handle("GET /v2/storage/folder/exists/{folder}", httpapi.Signed, h.folderExists)
	api.Handle("DELETE /v2/storage/folder/delete/{folder}", httpapi.Signed, h.deleteFolder)
	api.Handle("GET /v2/storage/folder/list", httpapi.Signed, h.folders)
	api.Handle("GET /v2/storage/total-size", httpapi.Signed, h.totalSize)
	api.Handle("DELETE /v2/storage/clear", httpapi.Signed, h.clearToken)
	api.Handle("DELETE /v2/storage/clear/{token}", httpapi.Signed, h.clear)
}

type storageHandlers struct {
	st        *storage.Store
	maxUpload int64
}

// upload streams the multipart field "file" to the store. The part is
// read straight from the connection: nothing is buffered beyond a copy
// buffer, whatever the size.
func (h storageHandlers) upload(w http.ResponseWriter, r *http.Request) error {
	ws := httpapi.Workspace(r.Context())
	folder := r.PathValue("folder")
	if folder != "" {
		if err := storage.CheckName("folder", folder); err != nil {
			return err
		}
	}
	ct, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || ct != "multipart/form-data" || params["boundary"] == "" {
		return apierr.BadRequestf("the upload must be multipart/form-data with a field named file")
	}
	// A large buffered reader makes mime/multipart hand out big pieces
	// (it keeps a bufio.Reader it is given when that is large enough),
	// instead of 4 KiB reads from the connection.
	body := bufio.NewReaderSize(http.MaxBytesReader(w, r.Body, h.maxUpload+1<<20), 1<<20)
	mr := multipart.NewReader(body, params["boundary"])
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			return apierr.BadRequestf("the form has no field named file")
		}
		if err != nil {
			return multipartError(err)
		}
		if part.FormName() != "file" {
			part.Close()
			continue
		}
		name, err := partFileName(part)
		if err != nil {
			return err
		}
		if _, err := h.st.Put(r.Context(), ws, folder, name, part, h.maxUpload); err != nil {
			var mbe *http.MaxBytesError
			if errors.As(err, &mbe) {
				return apierr.TooLargef("the upload is larger than the %d-byte limit", h.maxUpload)
			}
			if _, ok := apierr.As(err); !ok && r.Context().Err() == nil && isMultipartErr(err) {
				return multipartError(err)
			}
			return err
		}
		return httpapi.WriteJSON(w, http.StatusOK, map[string]string{"file": name, "folder": folder})
	}
}

// partFileName takes the file name exactly as sent. mime/multipart's
// FileName would strip directories and so hide "../x" behind "x"; a name
// the store does not accept must be refused, not rewritten.
func partFileName(p *multipart.Part) (string, error) {
	_, params, err := mime.ParseMediaType(p.Header.Get("Content-Disposition"))
	if err != nil {
		return "", apierr.BadRequestf("the file part has a malformed Content-Disposition")
	}
	name, ok := params["filename"]
	if !ok {
		return "", apierr.BadRequestf("the file part has no filename")
	}
	if err := storage.CheckName("file", name); err != nil {
		return "", err
	}
	return name, nil
}

func isMultipartErr(err error) bool {
	s := err.Error()
	return strings.Contains(s, "multipart") || errors.Is(err, io.ErrUnexpectedEOF)
}

func multipartError(err error) error {
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return apierr.TooLargef("the upload is larger than the limit")
	}
	return apierr.BadRequestf("malformed multipart body: %v", err)
}

func (h storageHandlers) download(w http.ResponseWriter, r *http.Request) error {
	f, fi, err := h.st.Open(httpapi.Workspace(r.Context()), r.PathValue("folder"), r.PathValue("file"))
	if err != nil {
		return err
	}
	defer f.Close()
	if ct := mime.TypeByExtension(filepath.Ext(fi.Name())); ct != "" {
		w.Header().Set("Content-Type", ct)
	} else {
		w.Header().Set("Content-Type", "application/octet-stream")
	}
	w.Header().Set("ETag", storage.ETag(fi))
	http.ServeContent(w, r, fi.Name(), fi.ModTime(), f)
	return nil
}

func (h storageHandlers) exists(w http.ResponseWriter, r *http.Request) error {
	ok, err := h.st.Exists(httpapi.Workspace(r.Context()), r.PathValue("folder"), r.PathValue("file"))
	if err != nil {
		return err
	}
	return httpapi.WriteJSON(w, http.StatusOK, ok)
}

func (h storageHandlers) delete(w http.ResponseWriter, r *http.Request) error {
	if err := h.st.Delete(httpapi.Workspace(r.Context()), r.PathValue("folder"), r.PathValue("file")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// deletes reads the field files from a form body (url-encoded or
// multipart) or the query; it may be comma-separated or repeated.
func (h storageHandlers) deletes(w http.ResponseWriter, r *http.Request) error {
	values := r.URL.Query()["files"]
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	switch ct {
	case "application/x-www-form-urlencoded":
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 1<<20))
		if err != nil {
			return apierr.TooLargef("the form is larger than 1 MiB")
		}
		form, err := url.ParseQuery(string(body))
		if err != nil {
			return apierr.BadRequestf("malformed form: %v", err)
		}
		values = append(values, form["files"]...)
	case "multipart/form-data":
		r.Body = http.MaxBytesReader(w, r.Body, 1<<20)
		if err := r.ParseMultipartForm(1 << 20); err != nil {
			return multipartError(err)
		}
		values = append(values, r.MultipartForm.Value["files"]...)
	}
	var names []string
	for _, v := range values {
		for _, n := range strings.Split(v, ",") {
			if n = strings.TrimSpace(n); n != "" {
				names = append(names, n)
			}
		}
	}
	if len(names) == 0 {
		return apierr.BadRequestf("the field files names no file")
	}
	if err := h.st.DeleteMany(httpapi.Workspace(r.Context()), r.PathValue("folder"), names); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (h storageHandlers) list(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	f := storage.Filter{Prefix: q.Get("prefix"), Suffix: q.Get("suffix")}
	var err error
	for _, p := range []struct {
		name string
		dst  **int64
	}{{"from", &f.From}, {"to", &f.To}, {"minSize", &f.MinSize}, {"maxSize", &f.MaxSize}} {
		if *p.dst, err = queryInt64(r, p.name); err != nil {
			return err
		}
	}
	entries, err := h.st.List(httpapi.Workspace(r.Context()), r.PathValue("folder"), f)
	if err != nil {
		return err
	}
	return httpapi.WriteJSON(w, http.StatusOK, entries)
}

func (h storageHandlers) createFolder(w http.ResponseWriter, r *http.Request) error {
	if err := h.st.CreateFolder(httpapi.Workspace(r.Context()), r.PathValue("folder")); err != nil {
		return err
	}
	return httpapi.WriteJSON(w, http.StatusOK, map[string]string{"folder": r.PathValue("folder")})
}

func (h storageHandlers) folderExists(w http.ResponseWriter, r *http.Request) error {
	ok, err := h.st.FolderExists(httpapi.Workspace(r.Context()), r.PathValue("folder"))
	if err != nil {
		return err
	}
	return httpapi.WriteJSON(w, http.StatusOK, ok)
}

func (h storageHandlers) deleteFolder(w http.ResponseWriter, r *http.Request) error {
	if err := h.st.DeleteFolder(httpapi.Workspace(r.Context()), r.PathValue("folder")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (h storageHandlers) folders(w http.ResponseWriter, r *http.Request) error {
	names, err := h.st.Folders(httpapi.Workspace(r.Context()))
	if err != nil {
		return err
	}
	return httpapi.WriteJSON(w, http.StatusOK, names)
}

func (h storageHandlers) totalSize(w http.ResponseWriter, r *http.Request) error {
	n, err := h.st.TotalSize(httpapi.Workspace(r.Context()))
	if err != nil {
		return err
	}
	return httpapi.WriteJSON(w, http.StatusOK, n)
}

func (h storageHandlers) clearToken(w http.ResponseWriter, r *http.Request) error {
	tok, exp := h.st.ClearToken(httpapi.Workspace(r.Context()))
	return httpapi.WriteJSON(w, http.StatusOK, map[string]any{"token": tok, "expires": exp.UnixMilli()})
}

func (h storageHandlers) clear(w http.ResponseWriter, r *http.Request) error {
	files, folders, err := h.st.Clear(httpapi.Workspace(r.Context()), r.PathValue("token"))
	if err != nil {
		return err
	}
	return httpapi.WriteJSON(w, http.StatusOK, map[string]int{"files": files, "folders": folders})
}
