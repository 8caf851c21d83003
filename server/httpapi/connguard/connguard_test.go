package connguard

import (
	"bufio"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

const headerTimeout = 300 * time.Millisecond

// serve runs an http.Server the way harkd does, behind the guard.
func serve(t *testing.T, maxPerAddr int, headerTimeout time.Duration) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			// A handler's own plain-text error must pass untouched.
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			w.Header().Set("Connection", "close")
			w.WriteHeader(http.StatusTeapot)
			io.WriteString(w, "handler text")
		}),
		ReadHeaderTimeout: headerTimeout,
		MaxHeaderBytes:    64<<10 - 4096,
	}
	gl := Listen(ln, Config{MaxPerAddr: maxPerAddr, MaxHeaderBytes: 64 << 10, HeaderTimeout: headerTimeout,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	go hs.Serve(gl)
	t.Cleanup(func() { hs.Close() })
	return ln.Addr().String()
}

type answer struct {
	status int
	header http.Header
	code   string
	desc   string
	raw    string
}

// exchange sends raw bytes from the given local address and reads the
// whole answer.
func exchange(t *testing.T, addr, from, raw string) answer {
	t.Helper()
	c := dial(t, addr, from)
	defer c.Close()
	go c.Write([]byte(raw))
	return readAnswer(t, c)
}

func dial(t *testing.T, addr, from string) net.Conn {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}}
	c, err := d.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func readAnswer(t *testing.T, c net.Conn) answer {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("no HTTP answer: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	a := answer{status: resp.StatusCode, header: resp.Header, raw: string(body)}
	var e struct{ Code, Description string }
	if resp.Header.Get("Content-Type") == "application/json" && json.Unmarshal(body, &e) == nil {
		a.code, a.desc = e.Code, e.Description
	}
	return a
}

func TestNetHTTPErrorsAreJSON(t *testing.T) {
	addr := serve(t, 0, headerTimeout)
	cases := []struct {
		name, raw  string
		status     int
		code, desc string
	}{
		{"unterminated huge head", "GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + strings.Repeat("a", 1000<<10), 431, "PayloadTooLarge", "larger than 64 KiB"},
		{"head just over 64 KiB", "GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + strings.Repeat("a", 65<<10) + "\r\n\r\n", 431, "PayloadTooLarge", "64 KiB"},
		{"malformed request line", "GARBAGE\r\n\r\n", 400, "BadRequest", "malformed HTTP request"},
		{"no Host", "GET / HTTP/1.1\r\n\r\n", 400, "BadRequest", "missing required Host header"},
		{"bad header line", "GET / HTTP/1.1\r\nHost: x\r\nno colon\r\n\r\n", 400, "BadRequest", "malformed"},
		{"unknown HTTP version", "GET / HTTP/2.5\r\nHost: x\r\n\r\n", 505, "BadRequest", "HTTP version"},
		{"unknown transfer encoding", "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n", 501, "BadRequest", "Transfer-Encoding"},
		{"request line cut short", "GET / HT", 408, "BadRequest", "did not arrive within 300ms"},
		{"headers cut short", "GET / HTTP/1.1\r\nHost: x\r\nX-A: b", 408, "BadRequest", "did not arrive within 300ms"},
	}
	for _, c := range cases {
		a := exchange(t, addr, "127.0.0.1", c.raw)
		if a.status != c.status || a.code != c.code || !strings.Contains(a.desc, c.desc) {
			t.Errorf("%s: %d %q %q (body %q), want %d %s containing %q", c.name, a.status, a.code, a.desc, a.raw, c.status, c.code, c.desc)
		}
	}
	// A head within the cap reaches the handler, whose answer is its own.
	a := exchange(t, addr, "127.0.0.1", "GET / HTTP/1.1\r\nHost: x\r\nX-Big: "+strings.Repeat("a", 60<<10)+"\r\n\r\n")
	if a.status != http.StatusTeapot || a.raw != "handler text" {
		t.Fatalf("a handler's answer was changed: %d %q", a.status, a.raw)
	}
}

func TestConnectionsPerAddressAreCapped(t *testing.T) {
	addr := serve(t, 4, time.Minute)
	var held []net.Conn
	for range 4 {
		// Accepted in the order of the backlog: these four come first.
		c := dial(t, addr, "127.0.0.1")
		c.Write([]byte("GET / HTTP/1.1\r\nHost: x\r\n"))
		held = append(held, c)
	}
	over := dial(t, addr, "127.0.0.1")
	defer over.Close()
	a := readAnswer(t, over)
	if a.status != 429 || a.code != "TooManyRequests" || a.header.Get("Retry-After") == "" || !strings.Contains(a.desc, "at most 4") {
		t.Fatalf("the fifth connection got %d %q %q", a.status, a.code, a.desc)
	}
	// Another address is served meanwhile.
	if a := exchange(t, addr, "127.0.0.2", "GET / HTTP/1.1\r\nHost: x\r\n\r\n"); a.status != http.StatusTeapot {
		t.Fatalf("another address got %d %q", a.status, a.raw)
	}
	// A closed connection frees its place.
	held[0].Close()
	deadline := time.Now().Add(5 * time.Second)
	for {
		a := exchange(t, addr, "127.0.0.1", "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
		if a.status == http.StatusTeapot {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after a close the address still gets %d", a.status)
		}
		time.Sleep(20 * time.Millisecond)
	}
	for _, c := range held[1:] {
		c.Close()
	}
}

func TestClientKey(t *testing.T) {
	for in, want := range map[string]string{
		"127.0.0.1:5000":               "127.0.0.1",
		"[::ffff:10.0.0.1]:80":         "10.0.0.1",
		"[2001:db8:1:2:3:4:5:6]:443":   "2001:db8:1:2::/64",
		"[2001:db8:1:2:ffff::1]:443":   "2001:db8:1:2::/64",
		"[fe80::1%eth0]:1":             "fe80::/64",
		"not an address":               "not an address",
		"@abstract-unix-socket-name:0": "@abstract-unix-socket-name",
	} {
		if got := ClientKey(in); got != want {
			t.Errorf("ClientKey(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestPlainErrorRecognisesOnlyNetHTTPs(t *testing.T) {
	for raw, want := range map[string]bool{
		"HTTP/1.1 431 Request Header Fields Too Large" + plainErrorHeaders + "431 Request Header Fields Too Large":                     true,
		"HTTP/1.1 400 Bad Request: missing required Host header" + plainErrorHeaders + "400 Bad Request: missing required Host header": true,
		"HTTP/1.1 501 Not Implemented" + plainErrorHeaders + "Unsupported transfer encoding":                                           true,
		"HTTP/1.1 400 Bad Request" + plainErrorHeaders + "something a handler wrote":                                                   false,
		"HTTP/1.1 200 OK" + plainErrorHeaders + "200 OK":                                                                               false,
		"HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n400 Bad Request":              false,
		"{\"code\": \"BadRequest\"}": false,
	} {
		if _, _, got := plainError([]byte(raw)); got != want {
			t.Errorf("plainError(%.50q) = %v", raw, got)
		}
	}
}
