// Package connguard wraps harkd's listener. It caps the connections one
// client address may hold open, so a single client cannot take every file
// descriptor (or the memory of thousands of half-sent requests), and it
// turns the plain-text answers net/http writes by itself, before any
// handler runs (431 for an oversized request head, 400 for a malformed
// one, 501, 505), into the JSON error body of DECISIONS §4; a head that
// times out is answered 408, where net/http answers 400 or nothing.
//
// net/http writes those answers straight to the connection in one write,
// with a fixed header block no handler response can carry (Content-Type
// before Connection, and no Date), which is how the connection recognises
// them. The tests speak raw TCP, so a change in net/http shows at once.
package connguard

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/harkhq/hark/server/apierr"
)

// DefaultMaxPerAddr is the default cap of open connections per client
// address: four times the 64 clients of the load benchmarks, far above what
// hark's own client or a browser opens, and small enough that one address
// holds a sliver of the process's file descriptors.
const DefaultMaxPerAddr = 256

// Config tunes the guard.
type Config struct {
	// MaxPerAddr caps the open connections of one client address (an IPv6
	// /64 counts as one address); 0 means DefaultMaxPerAddr, negative no
	// cap. Loopback is capped too: the embedded platform's client opens a
	// handful.
	MaxPerAddr int
	// MaxHeaderBytes and HeaderTimeout are the http.Server's limits on the
	// request head, named in the answers' descriptions.
	MaxHeaderBytes int
	HeaderTimeout  time.Duration
	Logger         *slog.Logger
}

// Listen wraps ln.
func Listen(ln net.Listener, cfg Config) net.Listener {
	if cfg.MaxPerAddr == 0 {
		cfg.MaxPerAddr = DefaultMaxPerAddr
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	return &listener{Listener: ln, cfg: cfg, open: make(map[string]int), refusals: make(chan struct{}, maxRefusing),
		tooMany: response(http.StatusTooManyRequests, apierr.TooManyRequests,
			fmt.Sprintf("too many open connections from this address (at most %d); close some and retry", cfg.MaxPerAddr),
			"Retry-After: 1\r\n")}
}

// maxRefusing bounds the refusals being written at once; past it a
// connection over the cap is closed without an answer.
const maxRefusing = 64

type listener struct {
	net.Listener
	cfg      Config
	mu       sync.Mutex
	open     map[string]int
	refusals chan struct{}
	tooMany  []byte
	refused  atomic.Int64
	lastLog  atomic.Int64
}

func (l *listener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		key := ClientKey(c.RemoteAddr().String())
		l.mu.Lock()
		n := l.open[key]
		if l.cfg.MaxPerAddr > 0 && n >= l.cfg.MaxPerAddr {
			l.mu.Unlock()
			l.refuse(c, key, n)
			continue
		}
		l.open[key] = n + 1
		l.mu.Unlock()
		return &conn{Conn: c, l: l, key: key}, nil
	}
}

func (l *listener) release(key string) {
	l.mu.Lock()
	if n := l.open[key]; n <= 1 {
		delete(l.open, key)
	} else {
		l.open[key] = n - 1
	}
	l.mu.Unlock()
}

// refuse answers 429 and hangs up. The request, if one was sent, is read
// and dropped for up to a second first: closing with unread data would
// reset the connection and could take the answer with it.
func (l *listener) refuse(c net.Conn, key string, open int) {
	refused := l.refused.Add(1)
	now := time.Now().UnixNano()
	if last := l.lastLog.Load(); now-last > int64(time.Second) && l.lastLog.CompareAndSwap(last, now) {
		l.cfg.Logger.Warn("connection refused: too many from one address", "addr", key, "open", open,
			"refused_total", refused)
	}
	select {
	case l.refusals <- struct{}{}:
	default:
		c.Close()
		return
	}
	go func() {
		defer func() { <-l.refusals }()
		defer c.Close()
		c.SetDeadline(time.Now().Add(time.Second))
		if _, err := c.Write(l.tooMany); err != nil {
			return
		}
		if cw, ok := c.(interface{ CloseWrite() error }); ok {
			cw.CloseWrite()
		}
		io.Copy(io.Discard, io.LimitReader(c, 64<<10))
	}()
}

// ClientKey is the address a client is counted and rate-limited by: its
// IP, or for IPv6 its /64, which one host usually owns whole.
func ClientKey(remoteAddr string) string {
	host, _, err := net.SplitHostPort(remoteAddr)
	if err != nil {
		host = remoteAddr
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return host
	}
	ip = ip.Unmap().WithZone("")
	if ip.Is6() {
		p, _ := ip.Prefix(64)
		return p.String()
	}
	return ip.String()
}

// conn is an accepted connection.
type conn struct {
	net.Conn
	l         *listener
	key       string
	closeOnce sync.Once
	// timedOut tells whether the last read ended at its deadline, which is
	// what lies behind net/http's 400 for a request line cut short.
	timedOut atomic.Bool
	// unanswered counts the bytes read since the last write: a request
	// begun and not answered.
	unanswered atomic.Int64
}

func (c *conn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.unanswered.Add(int64(n))
	c.timedOut.Store(err != nil && errors.Is(err, os.ErrDeadlineExceeded))
	return n, err
}

func (c *conn) Write(p []byte) (int, error) {
	c.unanswered.Store(0)
	if status, detail, ok := plainError(p); ok {
		if _, err := c.Conn.Write(c.translate(status, detail)); err != nil {
			return 0, err
		}
		return len(p), nil
	}
	return c.Conn.Write(p)
}

// Close answers a request head that timed out part way, which net/http
// drops without a word once the request line is complete, then hangs up.
func (c *conn) Close() error {
	c.closeOnce.Do(func() {
		if c.timedOut.Load() && c.unanswered.Load() > 0 {
			c.Conn.SetWriteDeadline(time.Now().Add(time.Second))
			c.Conn.Write(c.translate(http.StatusBadRequest, ""))
		}
		c.l.release(c.key)
	})
	return c.Conn.Close()
}

// CloseWrite keeps net/http's lingering close after a 431.
func (c *conn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// ReadFrom keeps sendfile for file downloads: net/http uses it when the
// connection has it.
func (c *conn) ReadFrom(r io.Reader) (int64, error) {
	if rf, ok := c.Conn.(io.ReaderFrom); ok {
		return rf.ReadFrom(r)
	}
	return io.Copy(struct{ io.Writer }{c.Conn}, r)
}

// plainErrorHeaders is the header block of net/http's own error answers.
const plainErrorHeaders = "\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n"

// plainError recognises an answer net/http wrote by itself and returns its
// status and the detail after "NNN Status Text: ", if any.
func plainError(p []byte) (status int, detail string, ok bool) {
	rest, found := bytes.CutPrefix(p, []byte("HTTP/1.1 "))
	if !found {
		return 0, "", false
	}
	line, body, found := bytes.Cut(rest, []byte(plainErrorHeaders))
	if !found || len(line) < 3 || bytes.IndexByte(line, '\n') >= 0 {
		return 0, "", false
	}
	// The body repeats the status line, but for 501's fixed text; anything
	// else is not net/http's (a response body that happens to look alike
	// would have to be exactly this, in one write).
	if !bytes.Equal(body, line) && string(body) != "Unsupported transfer encoding" {
		return 0, "", false
	}
	status, err := strconv.Atoi(string(line[:3]))
	if err != nil || status < 400 || status > 599 {
		return 0, "", false
	}
	if _, d, found := bytes.Cut(line, []byte(": ")); found {
		detail = string(d)
	}
	return status, detail, true
}

func (c *conn) translate(status int, detail string) []byte {
	code, desc := apierr.BadRequest, ""
	switch {
	case status == http.StatusRequestHeaderFieldsTooLarge:
		code, desc = apierr.PayloadTooLarge, "the request line and headers are larger than "+sizeText(c.l.cfg.MaxHeaderBytes)
	case status == http.StatusBadRequest && c.timedOut.Load():
		status, desc = http.StatusRequestTimeout, fmt.Sprintf("the request line and headers did not arrive within %s", c.l.cfg.HeaderTimeout)
	case status == http.StatusBadRequest && detail != "":
		desc = "malformed HTTP request: " + detail
	case status == http.StatusBadRequest:
		desc = "malformed HTTP request"
	case status == http.StatusNotImplemented:
		desc = "the request's Transfer-Encoding is not supported (chunked is)"
	case status == http.StatusHTTPVersionNotSupported:
		desc = "the HTTP version is not supported (HTTP/1.0 and 1.1 are)"
	default:
		desc = http.StatusText(status)
		if detail != "" {
			desc += ": " + detail
		}
	}
	return response(status, code, desc, "")
}

func sizeText(n int) string {
	if n > 0 && n%1024 == 0 {
		return fmt.Sprintf("%d KiB", n/1024)
	}
	return fmt.Sprintf("%d bytes", n)
}

// response is a whole HTTP/1.1 answer that closes the connection.
func response(status int, code, desc, extraHeaders string) []byte {
	body, _ := json.Marshal(apierr.New(status, code, "%s", desc))
	return fmt.Appendf(nil, "HTTP/1.1 %d %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n%sConnection: close\r\n\r\n%s",
		status, http.StatusText(status), len(body), extraHeaders, body)
}
