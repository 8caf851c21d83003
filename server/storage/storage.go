// Package storage is the per-workspace file store (DECISIONS §11): plain
// files on disk, one directory per workspace, one level of folders.
//
// Layout under the root, per workspace id:
//
//	<ws>/files/<name>            files of the root folder
//	<ws>/folders/<folder>/<name> files of a folder
//	<ws>/tmp/                    uploads in progress
//
// Keeping root files and folders in separate directories means a file and
// a folder may share a name without clashing. Uploads are written to tmp/
// and renamed into place, so a reader sees the old file or the new one,
// never a mix, and a failed upload leaves the old one intact. Every name
// is validated before it reaches the file system, so nothing can address a
// path outside its workspace.
package storage

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/harkhq/hark/server/apierr"
)

// Store is the file store rooted at one directory.
type Store struct {
	root     string
	clearTTL time.Duration
	now      func() time.Time

	mu     sync.Mutex
	tokens map[string]clearToken
}

type clearToken struct {
	ws      int64
	expires time.Time
}

// Entry is one file of a listing.
type Entry struct {
	Name         string `json:"name"`
	Size         int64  `json:"size"`
	LastModified int64  `json:"lastModified"`
}

// Filter narrows a listing; every bound is inclusive and zero values mean
// "no bound" (From/To as pointers because 0 is a valid time).
type Filter struct {
	Prefix, Suffix   string
	From, To         *int64 // ms since the epoch, against the last modification
	MinSize, MaxSize *int64
}

// staleTmp is how long an entry of tmp/ stays untouched before NewShared
// takes it for what a crash left behind: an upload in progress on another
// process writes its file every few seconds at the slowest body rate harkd
// accepts, so only entries idle far longer are removed.
const staleTmp = time.Hour

// New opens the store at root, which this process alone serves, and
// removes the uploads and folder deletions a crash left behind in any
// workspace's tmp/.
func New(root string) (*Store, error) { return open(root, time.Now().Add(time.Hour)) }

// NewShared opens the store at root, which several harkd processes share
// (README, PostgreSQL as the store): it removes only the tmp/ entries idle
// for staleTmp, since another process may be writing the others.
func NewShared(root string) (*Store, error) { return open(root, time.Now().Add(-staleTmp)) }

// open opens the store at root and removes the tmp/ entries last modified
// before cutoff.
func open(root string, cutoff time.Time) (*Store, error) {
	if err := os.MkdirAll(root, 0o750); err != nil {
		return nil, fmt.Errorf("storage root: %w", err)
	}
	dirs, err := os.ReadDir(root)
	if err != nil {
		return nil, fmt.Errorf("storage root: %w", err)
	}
	for _, d := range dirs {
		if d.IsDir() {
			if err := removeStale(filepath.Join(root, d.Name(), "tmp"), cutoff); err != nil {
				return nil, fmt.Errorf("clean tmp of workspace %s: %w", d.Name(), err)
			}
		}
	}
	return &Store{root: root, clearTTL: time.Minute, now: time.Now, tokens: make(map[string]clearToken)}, nil
}

// removeStale removes the entries of dir last modified before cutoff.
func removeStale(dir string, cutoff time.Time) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, e := range entries {
		info, err := e.Info()
		if errors.Is(err, fs.ErrNotExist) {
			continue // another process finished with it meanwhile
		}
		if err != nil {
			return err
		}
		if info.ModTime().Before(cutoff) {
			if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
				return err
			}
		}
	}
	return nil
}

// CheckName applies the naming rule of DECISIONS §11 to a file or folder name.
func CheckName(kind, name string) error {
	switch {
	case name == "":
		return apierr.BadRequestf("the %s name is empty", kind)
	case len(name) > 255:
		return apierr.BadRequestf("the %s name is longer than 255 bytes", kind)
	case name == "." || name == "..":
		return apierr.BadRequestf("%q is not a valid %s name", name, kind)
	case !utf8.ValidString(name):
		return apierr.BadRequestf("the %s name is not valid UTF-8", kind)
	}
	for _, r := range name {
		if r == '/' || r == '\\' || r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return apierr.BadRequestf("the %s name %q contains %q, which names may not hold", kind, name, r)
		}
	}
	return nil
}

func (s *Store) wsDir(ws int64) string { return filepath.Join(s.root, strconv.FormatInt(ws, 10)) }

// dir is the directory of folder ("" for the root), after validating it.
func (s *Store) dir(ws int64, folder string) (string, error) {
	if folder == "" {
		return filepath.Join(s.wsDir(ws), "files"), nil
	}
	if err := CheckName("folder", folder); err != nil {
		return "", err
	}
	return filepath.Join(s.wsDir(ws), "folders", folder), nil
}

func (s *Store) path(ws int64, folder, name string) (string, error) {
	dir, err := s.dir(ws, folder)
	if err != nil {
		return "", err
	}
	if err := CheckName("file", name); err != nil {
		return "", err
	}
	return filepath.Join(dir, name), nil
}

// Put stores r as folder/name, replacing any previous version once the
// whole body has arrived. A folder other than the root must exist (404).
// More than limit bytes (when limit > 0) fail with PayloadTooLarge.
func (s *Store) Put(ctx context.Context, ws int64, folder, name string, r io.Reader, limit int64) (int64, error) {
	dst, err := s.path(ws, folder, name)
	if err != nil {
		return 0, err
	}
	dir := filepath.Dir(dst)
	if folder == "" {
		if err := os.MkdirAll(dir, 0o750); err != nil {
			return 0, failed("upload", err)
		}
	} else if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return 0, apierr.NotFoundf("the folder %q does not exist", folder)
	}
	tmpDir := filepath.Join(s.wsDir(ws), "tmp")
	if err := os.MkdirAll(tmpDir, 0o750); err != nil {
		return 0, failed("upload", err)
	}
	f, err := os.CreateTemp(tmpDir, "upload-*")
	if err != nil {
		return 0, failed("upload", err)
	}
	done := false
	defer func() {
		if !done {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	src := r
	if limit > 0 {
		src = io.LimitReader(r, limit+1)
	}
	// writerOnly hides os.File's ReaderFrom, which would copy in 32 KiB
	// pieces; a 1 MiB buffer means few, large writes.
	n, err := io.CopyBuffer(writerOnly{f}, ctxReader{ctx, src}, make([]byte, 1<<20))
	if err != nil {
		return 0, failed("upload "+name, err)
	}
	if limit > 0 && n > limit {
		return 0, apierr.TooLargef("the file is larger than the %d-byte limit", limit)
	}
	// On disk before the rename makes it visible, to every process sharing
	// the directory too: a crash never leaves a named file without its bytes.
	if err := f.Sync(); err != nil {
		return 0, failed("upload "+name, err)
	}
	if err := f.Close(); err != nil {
		return 0, failed("upload "+name, err)
	}
	// The folder may have been deleted while the body arrived.
	if err := os.Rename(f.Name(), dst); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return 0, apierr.NotFoundf("the folder %q does not exist", folder)
		}
		return 0, fmt.Errorf("upload %s: %w", name, err)
	}
	done = true
	return n, nil
}

// failed wraps a file system error; a full disk (or quota) becomes the
// client's 507 InsufficientStorage, which names the cause.
func failed(op string, err error) error {
	if e := apierr.DiskFull(err); e != nil {
		return e
	}
	return fmt.Errorf("%s: %w", op, err)
}

type writerOnly struct{ io.Writer }

// ctxReader stops a long copy when the request is cancelled.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// Open opens a file for download; a missing file answers 404.
func (s *Store) Open(ws int64, folder, name string) (*os.File, fs.FileInfo, error) {
	p, err := s.path(ws, folder, name)
	if err != nil {
		return nil, nil, err
	}
	f, err := os.Open(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, apierr.NotFoundf("the file %q does not exist", name)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("download %s: %w", name, err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("download %s: %w", name, err)
	}
	return f, fi, nil
}

// ETag identifies a version of a file by size and modification time,
// which change with every upload (a rename brings a new inode and mtime).
func ETag(fi fs.FileInfo) string {
	return `"` + strconv.FormatInt(fi.Size(), 16) + "-" + strconv.FormatInt(fi.ModTime().UnixNano(), 16) + `"`
}

// Exists tells whether folder/name is a file.
func (s *Store) Exists(ws int64, folder, name string) (bool, error) {
	p, err := s.path(ws, folder, name)
	if err != nil {
		return false, err
	}
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular(), nil
}

// Delete removes a file; an absent one is not an error.
func (s *Store) Delete(ws int64, folder, name string) error {
	return s.DeleteMany(ws, folder, []string{name})
}

// DeleteMany removes files; names are all validated before any is removed.
func (s *Store) DeleteMany(ws int64, folder string, names []string) error {
	paths := make([]string, 0, len(names))
	for _, n := range names {
		p, err := s.path(ws, folder, n)
		if err != nil {
			return err
		}
		paths = append(paths, p)
	}
	for _, p := range paths {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("delete: %w", err)
		}
	}
	return nil
}

// List returns the files of folder that pass the filter, by name; an
// absent folder lists as empty.
func (s *Store) List(ws int64, folder string, f Filter) ([]Entry, error) {
	dir, err := s.dir(ws, folder)
	if err != nil {
		return nil, err
	}
	des, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return []Entry{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list: %w", err)
	}
	out := []Entry{}
	for _, de := range des {
		if !de.Type().IsRegular() {
			continue
		}
		name := de.Name()
		if !strings.HasPrefix(name, f.Prefix) || !strings.HasSuffix(name, f.Suffix) {
			continue
		}
		fi, err := de.Info()
		if err != nil {
			continue // removed while listing
		}
		e := Entry{Name: name, Size: fi.Size(), LastModified: fi.ModTime().UnixMilli()}
		if (f.From != nil && e.LastModified < *f.From) || (f.To != nil && e.LastModified > *f.To) ||
			(f.MinSize != nil && e.Size < *f.MinSize) || (f.MaxSize != nil && e.Size > *f.MaxSize) {
			continue
		}
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// CreateFolder makes a folder; an existing one is fine.
func (s *Store) CreateFolder(ws int64, folder string) error {
	if folder == "" {
		return apierr.BadRequestf("the folder name is empty")
	}
	dir, err := s.dir(ws, folder)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return failed("create folder", err)
	}
	return nil
}

// FolderExists tells whether folder exists.
func (s *Store) FolderExists(ws int64, folder string) (bool, error) {
	if folder == "" {
		return true, nil // the root always exists
	}
	dir, err := s.dir(ws, folder)
	if err != nil {
		return false, err
	}
	fi, err := os.Stat(dir)
	return err == nil && fi.IsDir(), nil
}

// DeleteFolder removes a folder and its files; an absent one is fine. The
// folder is first renamed into tmp/ so it disappears at once, whole.
func (s *Store) DeleteFolder(ws int64, folder string) error {
	if folder == "" {
		return apierr.BadRequestf("the folder name is empty")
	}
	dir, err := s.dir(ws, folder)
	if err != nil {
		return err
	}
	return s.discard(ws, dir)
}

func (s *Store) discard(ws int64, dir string) error {
	tmpDir := filepath.Join(s.wsDir(ws), "tmp")
	if err := os.MkdirAll(tmpDir, 0o750); err != nil {
		return fmt.Errorf("delete: %w", err)
	}
	gone := filepath.Join(tmpDir, "deleted-"+randomToken(9))
	if err := os.Rename(dir, gone); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return fmt.Errorf("delete: %w", err)
	}
	return os.RemoveAll(gone)
}

// Folders lists the folder names, sorted.
func (s *Store) Folders(ws int64) ([]string, error) {
	des, err := os.ReadDir(filepath.Join(s.wsDir(ws), "folders"))
	if errors.Is(err, fs.ErrNotExist) {
		return []string{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list folders: %w", err)
	}
	out := []string{}
	for _, de := range des {
		if de.IsDir() {
			out = append(out, de.Name())
		}
	}
	return out, nil
}

// TotalSize sums the sizes of every file of the workspace.
func (s *Store) TotalSize(ws int64) (int64, error) {
	var total int64
	for _, sub := range []string{"files", "folders"} {
		err := filepath.WalkDir(filepath.Join(s.wsDir(ws), sub), func(_ string, d fs.DirEntry, err error) error {
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					return nil
				}
				return err
			}
			if d.Type().IsRegular() {
				if fi, err := d.Info(); err == nil {
					total += fi.Size()
				}
			}
			return nil
		})
		if err != nil {
			return 0, fmt.Errorf("total size: %w", err)
		}
	}
	return total, nil
}

// ClearToken starts the two-step clear: a single-use token valid for 60 s.
func (s *Store) ClearToken(ws int64) (string, time.Time) {
	tok := randomToken(24)
	now := s.now()
	exp := now.Add(s.clearTTL)
	s.mu.Lock()
	for k, t := range s.tokens {
		if now.After(t.expires) {
			delete(s.tokens, k)
		}
	}
	s.tokens[tok] = clearToken{ws: ws, expires: exp}
	s.mu.Unlock()
	return tok, exp
}

// Clear empties the workspace if token is a live token of that workspace,
// and reports how many files and folders went. Any other token deletes
// nothing and answers 400 InvalidConfirmationToken.
func (s *Store) Clear(ws int64, token string) (files, folders int, err error) {
	s.mu.Lock()
	t, ok := s.tokens[token]
	if ok {
		delete(s.tokens, token) // single use, whatever follows
	}
	s.mu.Unlock()
	if !ok || t.ws != ws || s.now().After(t.expires) {
		return 0, 0, apierr.New(400, apierr.InvalidConfirmationToken, "the confirmation token is unknown, used or expired")
	}
	for _, sub := range []string{"files", "folders"} {
		dir := filepath.Join(s.wsDir(ws), sub)
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					return nil
				}
				return err
			}
			switch {
			case d.Type().IsRegular():
				files++
			case d.IsDir() && sub == "folders" && filepath.Dir(p) == dir:
				folders++
			}
			return nil
		})
		if err != nil {
			return 0, 0, fmt.Errorf("clear: %w", err)
		}
		if err := s.discard(ws, dir); err != nil {
			return 0, 0, err
		}
	}
	return files, folders, nil
}

func randomToken(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}
