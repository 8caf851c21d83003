package tracking

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/harkhq/hark/server/apierr"
	"github.com/harkhq/hark/server/outbound"
)

// fetcher downloads dataset files within the allowlist, size and time limits.
type fetcher struct {
	allow    outbound.Allowlist
	maxBytes int64
	timeout  time.Duration
	client   *http.Client
}

func newFetcher(cfg Config) *fetcher {
	f := &fetcher{allow: outbound.NewAllowlist("dataset", cfg.FetchAllow), maxBytes: cfg.MaxBytes, timeout: cfg.Timeout}
	f.client = f.allow.Client(cfg.HTTPClient, cfg.Timeout, true)
	return f
}

// check returns a client-facing error when raw may not be fetched.
func (f *fetcher) check(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, apierr.InvalidArgumentf("url %q is not a valid URL", raw)
	}
	return u, f.allow.Check(u)
}

// fetch returns the body at u. Its errors are meant for the user.
func (f *fetcher) fetch(ctx context.Context, u *url.URL) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, fmt.Errorf("cannot request %s", u.Redacted())
	}
	req.Header.Set("Accept", "application/json")
	resp, err := f.client.Do(req)
	if err != nil {
		return nil, f.explain(ctx, u, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		// the code only: the reason phrase is the remote's text, and fetch
		// errors never quote what was fetched (DECISIONS §12)
		return nil, fmt.Errorf("fetching %s: the source answered status %d", u.Redacted(), resp.StatusCode)
	}
	if resp.ContentLength > f.maxBytes {
		return nil, fmt.Errorf("fetching %s: the file is %d bytes, over the limit of %d", u.Redacted(), resp.ContentLength, f.maxBytes)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, f.maxBytes+1))
	if err != nil {
		return nil, f.explain(ctx, u, err)
	}
	if int64(len(body)) > f.maxBytes {
		return nil, fmt.Errorf("fetching %s: the file is over the limit of %d bytes", u.Redacted(), f.maxBytes)
	}
	return body, nil
}

func (f *fetcher) explain(ctx context.Context, u *url.URL, err error) error {
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return fmt.Errorf("fetching %s took longer than the limit of %s", u.Redacted(), f.timeout)
	case errors.Is(err, outbound.ErrLinkLocal):
		return fmt.Errorf("fetching %s: %w", u.Redacted(), outbound.ErrLinkLocal)
	case errors.Is(err, context.Canceled):
		return fmt.Errorf("fetching %s was cancelled", u.Redacted())
	default:
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return fmt.Errorf("fetching %s failed: %v", u.Redacted(), err)
	}
}
