package client

import (
	"context"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// StorageService covers /storage/*. An empty folder means the root.
type StorageService struct{ c *Client }

// Progress is told how many bytes have moved of total (-1 when unknown).
type Progress func(done, total int64)

// FileEntry is one file of a listing.
type FileEntry struct {
	Name         string `json:"name"`
	Size         int64  `json:"size"`
	LastModified int64  `json:"lastModified"` // ms since the epoch
}

// ListOptions filter a listing; nil bounds are absent, all are inclusive.
type ListOptions struct {
	Prefix, Suffix   string
	From, To         *int64
	MinSize, MaxSize *int64
}

// UploadResult is the answer of an upload.
type UploadResult struct {
	File   string `json:"file"`
	Folder string `json:"folder"`
}

func folderPath(op, folder string, name ...string) string {
	segs := []string{"storage", "file", op}
	if folder != "" {
		segs = append(segs, folder)
	}
	return pathOf(append(segs, name...)...)
}

// Upload streams r to folder/name as a multipart body while it is read:
// nothing is held in memory beyond a copy buffer. size (or -1) feeds the
// progress callback. Uploads are sent once: a stream cannot be replayed
// unless r is an io.ReadSeeker.
func (s *StorageService) Upload(ctx context.Context, folder, name string, r io.Reader, size int64, progress Progress) (UploadResult, error) {
	boundary := multipart.NewWriter(io.Discard).Boundary()
	head := fmt.Sprintf("--%s\r\nContent-Disposition: form-data; name=\"file\"; filename=\"%s\"\r\nContent-Type: application/octet-stream\r\n\r\n",
		boundary, escapeQuotes(name))
	tail := fmt.Sprintf("\r\n--%s--\r\n", boundary)
	length := int64(-1)
	if size >= 0 {
		length = int64(len(head)) + size + int64(len(tail))
	}
	seeker, replayable := r.(io.ReadSeeker)
	start := int64(0)
	if replayable {
		var err error
		if start, err = seeker.Seek(0, io.SeekCurrent); err != nil {
			replayable = false
		}
	}
	body := func() (io.Reader, error) {
		if replayable {
			if _, err := seeker.Seek(start, io.SeekStart); err != nil {
				return nil, err
			}
		}
		var src io.Reader = r
		if progress != nil {
			src = &progressReader{r: r, total: size, fn: progress}
		}
		return io.MultiReader(strings.NewReader(head), src, strings.NewReader(tail)), nil
	}
	var out UploadResult
	err := s.c.doJSON(ctx, &request{method: http.MethodPost, service: serviceStorage, path: folderPath("upload", folder),
		auth: authSigned, body: body, length: length, contentType: "multipart/form-data; boundary=" + boundary,
		noRetry: !replayable}, &out)
	return out, err
}

// quoted-string escaping for the filename parameter, as mime/multipart does.
func escapeQuotes(s string) string {
	return strings.NewReplacer("\\", "\\\\", `"`, "\\\"").Replace(s)
}

type writerOnly struct{ io.Writer }

type progressReader struct {
	r     io.Reader
	done  int64
	total int64
	fn    Progress
}

func (p *progressReader) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	if n > 0 {
		p.done += int64(n)
		p.fn(p.done, p.total)
	}
	return n, err
}

// Download writes folder/name to w and returns the byte count.
func (s *StorageService) Download(ctx context.Context, folder, name string, w io.Writer, progress Progress) (int64, error) {
	rc, size, err := s.Open(ctx, folder, name)
	if err != nil {
		return 0, err
	}
	defer rc.Close()
	var src io.Reader = rc
	if progress != nil {
		src = &progressReader{r: rc, total: size, fn: progress}
	}
	// writerOnly hides a destination's ReadFrom (os.File has one), which
	// would copy in 32 KiB pieces and ignore the 1 MiB buffer.
	n, err := io.CopyBuffer(writerOnly{w}, src, make([]byte, 1<<20))
	if err != nil {
		return n, fmt.Errorf("download %s: %w", name, err)
	}
	if size >= 0 && n != size {
		return n, fmt.Errorf("download %s: got %d of %d bytes", name, n, size)
	}
	return n, nil
}

// Open starts a download; size is -1 when the server sent no length.
func (s *StorageService) Open(ctx context.Context, folder, name string) (io.ReadCloser, int64, error) {
	resp, err := s.c.do(ctx, &request{method: http.MethodGet, service: serviceStorage,
		path: folderPath("download", folder, name), auth: authSigned, header: http.Header{"Accept": {"*/*"}}})
	if err != nil {
		return nil, 0, err
	}
	return resp.Body, resp.ContentLength, nil
}

// OpenRange reads bytes [from, to] (inclusive) of a file.
func (s *StorageService) OpenRange(ctx context.Context, folder, name string, from, to int64) (io.ReadCloser, error) {
	resp, err := s.c.do(ctx, &request{method: http.MethodGet, service: serviceStorage,
		path: folderPath("download", folder, name), auth: authSigned,
		header: http.Header{"Accept": {"*/*"}, "Range": {fmt.Sprintf("bytes=%d-%d", from, to)}}})
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusPartialContent {
		resp.Body.Close()
		return nil, fmt.Errorf("range of %s: the server answered %d, not 206", name, resp.StatusCode)
	}
	return resp.Body, nil
}

// Exists tells whether folder/name exists.
func (s *StorageService) Exists(ctx context.Context, folder, name string) (bool, error) {
	var ok bool
	err := s.c.doJSON(ctx, &request{method: http.MethodGet, service: serviceStorage,
		path: folderPath("exists", folder, name), auth: authSigned}, &ok)
	return ok, err
}

// Delete removes folder/name (absent is fine).
func (s *StorageService) Delete(ctx context.Context, folder, name string) error {
	return s.c.doJSON(ctx, &request{method: http.MethodDelete, service: serviceStorage,
		path: folderPath("delete", folder, name), auth: authSigned}, nil)
}

// DeleteMany removes several files of one folder.
func (s *StorageService) DeleteMany(ctx context.Context, folder string, names []string) error {
	form := url.Values{}
	for _, n := range names {
		form.Add("files", n)
	}
	enc := form.Encode()
	return s.c.doJSON(ctx, &request{method: http.MethodDelete, service: serviceStorage,
		path: folderPath("deletes", folder), auth: authSigned,
		body:   func() (io.Reader, error) { return strings.NewReader(enc), nil },
		length: int64(len(enc)), contentType: "application/x-www-form-urlencoded"}, nil)
}

// List returns the files of folder that pass the options.
func (s *StorageService) List(ctx context.Context, folder string, opt ListOptions) ([]FileEntry, error) {
	q := url.Values{}
	if opt.Prefix != "" {
		q.Set("prefix", opt.Prefix)
	}
	if opt.Suffix != "" {
		q.Set("suffix", opt.Suffix)
	}
	for name, v := range map[string]*int64{"from": opt.From, "to": opt.To, "minSize": opt.MinSize, "maxSize": opt.MaxSize} {
		if v != nil {
			q.Set(name, strconv.FormatInt(*v, 10))
		}
	}
	var out []FileEntry
	err := s.c.doJSON(ctx, &request{method: http.MethodGet, service: serviceStorage,
		path: folderPath("list", folder), query: q, auth: authSigned}, &out)
	return out, err
}

// CreateFolder makes a folder (existing is fine).
func (s *StorageService) CreateFolder(ctx context.Context, folder string) error {
	return s.c.doJSON(ctx, &request{method: http.MethodPut, service: serviceStorage,
		path: pathOf("storage", "folder", "create", folder), auth: authSigned}, nil)
}

// FolderExists tells whether a folder exists.
func (s *StorageService) FolderExists(ctx context.Context, folder string) (bool, error) {
	var ok bool
	err := s.c.doJSON(ctx, &request{method: http.MethodGet, service: serviceStorage,
		path: pathOf("storage", "folder", "exists", folder), auth: authSigned}, &ok)
	return ok, err
}

// DeleteFolder removes a folder and its files (absent is fine).
func (s *StorageService) DeleteFolder(ctx context.Context, folder string) error {
	return s.c.doJSON(ctx, &request{method: http.MethodDelete, service: serviceStorage,
		path: pathOf("storage", "folder", "delete", folder), auth: authSigned}, nil)
}

// Folders lists the folder names.
func (s *StorageService) Folders(ctx context.Context) ([]string, error) {
	var out []string
	err := s.c.doJSON(ctx, &request{method: http.MethodGet, service: serviceStorage,
		path: "/storage/folder/list", auth: authSigned}, &out)
	return out, err
}

// TotalSize is the sum of the sizes of every file of the workspace.
func (s *StorageService) TotalSize(ctx context.Context) (int64, error) {
	var n int64
	err := s.c.doJSON(ctx, &request{method: http.MethodGet, service: serviceStorage,
		path: "/storage/total-size", auth: authSigned}, &n)
	return n, err
}

// ClearToken is the first step of emptying the workspace.
type ClearToken struct {
	Token   string `json:"token"`
	Expires int64  `json:"expires"`
}

// RequestClear asks for a clear confirmation token (valid 60 s, single use).
func (s *StorageService) RequestClear(ctx context.Context) (ClearToken, error) {
	var out ClearToken
	err := s.c.doJSON(ctx, &request{method: http.MethodDelete, service: serviceStorage,
		path: "/storage/clear", auth: authSigned}, &out)
	return out, err
}

// ClearResult counts what a clear removed.
type ClearResult struct {
	Files   int `json:"files"`
	Folders int `json:"folders"`
}

// Clear empties the workspace with a confirmation token.
func (s *StorageService) Clear(ctx context.Context, token string) (ClearResult, error) {
	var out ClearResult
	err := s.c.doJSON(ctx, &request{method: http.MethodDelete, service: serviceStorage,
		path: pathOf("storage", "clear", token), auth: authSigned}, &out)
	return out, err
}
