package tracking

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"

	"github.com/harkhq/hark/server/apierr"
)

// allowlist holds the hosts a dataset may be fetched from. An entry names a
// host (any port) or a host:port.
type allowlist struct {
	hosts     map[string]bool // host, any port
	hostPorts map[string]bool // host:port, normalised by net.JoinHostPort
}

func newAllowlist(entries []string) allowlist {
	a := allowlist{hosts: map[string]bool{}, hostPorts: map[string]bool{}}
	for _, e := range entries {
		e = strings.ToLower(strings.TrimSpace(e))
		if e == "" {
			continue
		}
		if host, port, err := net.SplitHostPort(e); err == nil {
			a.hostPorts[net.JoinHostPort(host, port)] = true
			continue
		}
		a.hosts[strings.TrimSuffix(strings.TrimPrefix(e, "["), "]")] = true
	}
	return a
}

// check returns a client-facing error when raw may not be fetched.
func (a allowlist) check(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, apierr.InvalidArgumentf("url %q is not a valid URL", raw)
	}
	return u, a.checkURL(u)
}

func (a allowlist) checkURL(u *url.URL) error {
	if u.Scheme != "http" && u.Scheme != "https" {
		return apierr.InvalidArgumentf("url must be http or https, not %q", u.Scheme)
	}
	host := strings.ToLower(u.Hostname())
	if host == "" {
		return apierr.InvalidArgumentf("url %q has no host", u.Redacted())
	}
	if u.User != nil {
		return apierr.InvalidArgumentf("url must not carry credentials")
	}
	if ip, err := netip.ParseAddr(host); err == nil && linkLocal(ip) {
		return apierr.InvalidArgumentf("host %s is link-local; link-local addresses are never fetched", host)
	}
	port := u.Port()
	if port == "" {
		port = "80"
		if u.Scheme == "https" {
			port = "443"
		}
	}
	if a.hosts[host] || a.hostPorts[net.JoinHostPort(host, port)] {
		return nil
	}
	return apierr.InvalidArgumentf("host %s is not on the dataset allowlist", net.JoinHostPort(host, port))
}

func linkLocal(ip netip.Addr) bool {
	ip = ip.Unmap()
	return ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast()
}

var errLinkLocal = errors.New("refusing to connect to a link-local address")

// refuseLinkLocal is a net.Dialer Control hook: it sees the address a name
// resolved to, so a listed name pointing at 169.254.169.254 is refused too.
func refuseLinkLocal(network, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("dial %s: %w", address, err)
	}
	if linkLocal(ap.Addr()) {
		return fmt.Errorf("dial %s: %w", address, errLinkLocal)
	}
	return nil
}

const maxRedirects = 5

// fetcher downloads dataset files within the allowlist, size and time limits.
type fetcher struct {
	allow    allowlist
	maxBytes int64
	timeout  time.Duration
	client   *http.Client
}

func newFetcher(cfg Config) *fetcher {
	f := &fetcher{allow: newAllowlist(cfg.FetchAllow), maxBytes: cfg.MaxBytes, timeout: cfg.Timeout}
	var client http.Client
	if cfg.HTTPClient != nil {
		client = *cfg.HTTPClient
	} else {
		dialer := &net.Dialer{Timeout: 10 * time.Second, Control: refuseLinkLocal}
		client.Transport = &http.Transport{
			Proxy:                 nil, // a proxy would hide the address actually dialled
			DialContext:           dialer.DialContext,
			TLSHandshakeTimeout:   10 * time.Second,
			ResponseHeaderTimeout: cfg.Timeout,
			MaxIdleConns:          4,
			IdleConnTimeout:       30 * time.Second,
		}
	}
	client.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if len(via) >= maxRedirects {
			return fmt.Errorf("more than %d redirects", maxRedirects)
		}
		if err := f.allow.checkURL(req.URL); err != nil {
			ae, _ := apierr.As(err)
			return fmt.Errorf("redirect to %s refused: %s", req.URL.Redacted(), ae.Description)
		}
		return nil
	}
	f.client = &client
	return f
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
		return nil, fmt.Errorf("fetching %s: the source answered %s", u.Redacted(), resp.Status)
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
	case errors.Is(err, errLinkLocal):
		return fmt.Errorf("fetching %s: %w", u.Redacted(), errLinkLocal)
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
