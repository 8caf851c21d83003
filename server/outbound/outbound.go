// Package outbound guards the requests harkd makes on a user's behalf
// (tracking datasets, recommendation imports): only http(s) URLs without
// credentials whose host:port is on the operator's allowlist (a host alone
// allows ports 80 and 443 only: the other ports of a host are its admin
// pages and internal services); never a link-local address (cloud metadata
// services live there), neither as written nor as a name resolves; every
// redirect checked again.
package outbound

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"

	"github.com/harkhq/hark/server/apierr"
)

// MaxRedirects bounds the redirects a fetch follows.
const MaxRedirects = 5

// Allowlist holds the host:port pairs that may be fetched from. An entry
// names a host:port, or a host alone for its ports 80 and 443; IPv6 hosts
// in brackets.
type Allowlist struct {
	hostPorts map[string]bool // normalised by net.JoinHostPort
	// what names the list in errors ("dataset", "import").
	what string
}

// DefaultPorts are the ports an entry without a port allows.
var DefaultPorts = []string{"80", "443"}

// NewAllowlist parses entries; what names the list in its errors.
func NewAllowlist(what string, entries []string) Allowlist {
	a := Allowlist{hostPorts: map[string]bool{}, what: what}
	for _, e := range entries {
		e = strings.ToLower(strings.TrimSpace(e))
		if e == "" {
			continue
		}
		if host, port, err := net.SplitHostPort(e); err == nil {
			a.hostPorts[net.JoinHostPort(host, port)] = true
			continue
		}
		host := strings.TrimSuffix(strings.TrimPrefix(e, "["), "]")
		for _, port := range DefaultPorts {
			a.hostPorts[net.JoinHostPort(host, port)] = true
		}
	}
	return a
}

// Check returns a 400 InvalidArgument saying why u may not be fetched, or nil.
func (a Allowlist) Check(u *url.URL) error {
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
	hp := net.JoinHostPort(host, port)
	if a.hostPorts[hp] {
		return nil
	}
	return apierr.InvalidArgumentf("host %s is not on the %s allowlist (an entry names host:port; a host alone allows ports 80 and 443)", hp, a.what)
}

func linkLocal(ip netip.Addr) bool {
	ip = ip.Unmap()
	return ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast()
}

// ErrLinkLocal is why a dial to a link-local address fails.
var ErrLinkLocal = errors.New("refusing to connect to a link-local address")

// refuseLinkLocal is a net.Dialer Control hook: it sees the address a name
// resolved to, so an allowed name pointing at 169.254.169.254 is refused.
func refuseLinkLocal(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("dial %s: %w", address, err)
	}
	if linkLocal(ap.Addr()) {
		return fmt.Errorf("dial %s: %w", address, ErrLinkLocal)
	}
	return nil
}

// Client returns an HTTP client whose redirects are checked against the
// allowlist. With base nil it dials with the link-local guard, uses no
// proxy (a proxy would hide the address dialled) and waits at most
// responseTimeout for response headers; a given base keeps its transport.
func (a Allowlist) Client(base *http.Client, responseTimeout time.Duration, keepAlives bool) *http.Client {
	var c http.Client
	if base != nil {
		c = *base
	} else {
		dialer := &net.Dialer{Timeout: 10 * time.Second, Control: refuseLinkLocal}
		c.Transport = &http.Transport{
			Proxy:                 nil,
			DialContext:           dialer.DialContext,
			DisableKeepAlives:     !keepAlives,
			TLSHandshakeTimeout:   10 * time.Second,
			ResponseHeaderTimeout: responseTimeout,
			MaxIdleConns:          4,
			IdleConnTimeout:       30 * time.Second,
		}
	}
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if len(via) >= MaxRedirects {
			return fmt.Errorf("more than %d redirects", MaxRedirects)
		}
		if err := a.Check(req.URL); err != nil {
			// the target came from the remote's Location header: the
			// description says why, never where
			return fmt.Errorf("a redirect was refused: its target is not on the %s allowlist, or not http(s)", a.what)
		}
		return nil
	}
	return &c
}
