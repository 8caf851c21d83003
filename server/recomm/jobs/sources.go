package jobs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/harkhq/hark/server/apierr"
	"github.com/harkhq/hark/server/outbound"
)

// StorageOpener opens a file of a workspace's own storage; folder "" is
// the root. The lead wires it to the storage service.
type StorageOpener interface {
	Open(workspaceID int64, folder, name string) (io.ReadCloser, error)
}

// Defaults of Sources.
const (
	DefaultMaxImportBytes = 1 << 30
	DefaultFetchTimeout   = 10 * time.Minute
)

// Sources opens import files: http(s) URLs whose host is on the operator's
// allowlist, and storage://<folder>/<file> (storage:///<file> for the
// root) in the workspace's own storage.
type Sources struct {
	// FetchAllow lists host:port pairs, or hosts (ports 80 and 443), that
	// http(s) imports may fetch from (harkd serve --fetch-allow).
	FetchAllow []string
	MaxBytes   int64         // 0 means DefaultMaxImportBytes
	Timeout    time.Duration // whole download; 0 means DefaultFetchTimeout
	Storage    StorageOpener
	// Client replaces the HTTP client (tests); its CheckRedirect is replaced.
	Client *http.Client
}

func (s *Sources) maxBytes() int64 {
	if s.MaxBytes > 0 {
		return s.MaxBytes
	}
	return DefaultMaxImportBytes
}

// CheckURL validates an import address when the request is accepted, so
// a bad one is a 400 instead of a failed job.
func (s *Sources) CheckURL(raw string) error {
	if raw == "" {
		return apierr.InvalidArgumentf("url is required")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return apierr.InvalidArgumentf("url %q is not a valid URL", raw)
	}
	if u.Scheme == "storage" {
		_, _, err := storagePath(u)
		return err
	}
	return s.allowed(u)
}

func storagePath(u *url.URL) (folder, name string, err error) {
	name = strings.TrimPrefix(u.Path, "/")
	if name == "" || strings.Contains(name, "/") || name == "." || name == ".." || u.Host == "." || u.Host == ".." ||
		u.RawQuery != "" || u.User != nil {
		return "", "", apierr.InvalidArgumentf("a storage url is storage://<folder>/<file> or storage:///<file>")
	}
	return u.Host, name, nil
}

func (s *Sources) allowed(u *url.URL) error {
	if u.Scheme != "http" && u.Scheme != "https" {
		return apierr.InvalidArgumentf("url must be http, https or storage, not %q", u.Scheme)
	}
	return s.allowlist().Check(u)
}

func (s *Sources) allowlist() outbound.Allowlist {
	return outbound.NewAllowlist("import", s.FetchAllow)
}

// client makes one transport per download, so no idle connection outlives it.
func (s *Sources) client() *http.Client { return s.allowlist().Client(s.Client, time.Minute, false) }

// Open opens an import file for reading, bounded in size; the caller
// closes it. ctx bounds an http download together with Timeout.
func (s *Sources) Open(ctx context.Context, ws int64, raw string) (io.ReadCloser, error) {
	if err := s.CheckURL(raw); err != nil {
		return nil, err
	}
	u, _ := url.Parse(raw)
	if u.Scheme == "storage" {
		if s.Storage == nil {
			return nil, apierr.Unavailablef("storage imports are not configured")
		}
		folder, name, _ := storagePath(u)
		f, err := s.Storage.Open(ws, folder, name)
		if err != nil {
			return nil, fmt.Errorf("open %s: %w", raw, err)
		}
		return &limitedFile{r: f, c: f, left: s.maxBytes()}, nil
	}
	timeout := s.Timeout
	if timeout <= 0 {
		timeout = DefaultFetchTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, raw, nil)
	if err != nil {
		cancel()
		return nil, err
	}
	resp, err := s.client().Do(req)
	if err != nil {
		cancel()
		// url.Error names the URL it failed on, which after a redirect is
		// the remote's Location: keep only the cause
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, fmt.Errorf("fetch %s: %w", u.Redacted(), err)
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		cancel()
		// the status code only: the reason phrase is the remote's text
		return nil, fmt.Errorf("fetch %s: the server answered status %d", u.Redacted(), resp.StatusCode)
	}
	if resp.ContentLength > s.maxBytes() {
		resp.Body.Close()
		cancel()
		return nil, fmt.Errorf("fetch %s: file of %d bytes is over the %d-byte limit", u.Redacted(), resp.ContentLength, s.maxBytes())
	}
	return &limitedFile{r: resp.Body, c: closerFunc(func() error { cancel(); return resp.Body.Close() }), left: s.maxBytes()}, nil
}

type closerFunc func() error

func (f closerFunc) Close() error { return f() }

// limitedFile fails a read past the size limit instead of truncating
// silently, so an oversized file ends the import in error.
type limitedFile struct {
	r    io.Reader
	c    io.Closer
	left int64
}

func (l *limitedFile) Read(p []byte) (int, error) {
	if l.left <= 0 {
		var one [1]byte
		if n, _ := l.r.Read(one[:]); n > 0 {
			return 0, fmt.Errorf("import file is over the size limit")
		}
		return 0, io.EOF
	}
	if int64(len(p)) > l.left {
		p = p[:l.left]
	}
	n, err := l.r.Read(p)
	l.left -= int64(n)
	return n, err
}

func (l *limitedFile) Close() error { return l.c.Close() }
