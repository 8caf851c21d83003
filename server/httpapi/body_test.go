package httpapi

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/harkhq/hark/server/apierr"
)

const testGrace = 300 * time.Millisecond

// paceServer is a real server whose routes read (or ignore) bodies under a
// 1000 bytes/s rule after testGrace.
func paceServer(t *testing.T, log io.Writer) (*API, *httptest.Server) {
	t.Helper()
	if log == nil {
		log = io.Discard
	}
	a := New(Config{Logger: slog.New(slog.NewTextHandler(log, nil)), Tokens: fixedTokens{},
		BodyRate: BodyRate{BytesPerSecond: 1000, Grace: testGrace}})
	a.Handle("POST /v2/json", Public, func(w http.ResponseWriter, r *http.Request) error {
		var v map[string]any
		if err := DecodeJSON(r, 1<<20, &v); err != nil {
			return err
		}
		// Long after the body ended: the connection's background read must
		// not have inherited a deadline that cancels the request.
		time.Sleep(3 * testGrace)
		if err := r.Context().Err(); err != nil {
			return apierr.BadRequestf("the context ended after the body: %v", err)
		}
		return WriteJSON(w, 200, v)
	})
	a.Handle("POST /v2/private", Token, func(w http.ResponseWriter, r *http.Request) error {
		return WriteJSON(w, 200, map[string]string{})
	})
	a.Handle("POST /v2/stalls", Public, func(w http.ResponseWriter, r *http.Request) error {
		// A handler's own, earlier deadline, as the voice stream sets one.
		rc := http.NewResponseController(w)
		rc.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
		_, err := io.ReadAll(r.Body)
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return apierr.BadRequestf("the upload stalled")
		}
		return err
	})
	a.Handle("POST /v2/fast", Public, func(w http.ResponseWriter, r *http.Request) error {
		_, err := io.Copy(io.Discard, r.Body)
		if err != nil {
			return err
		}
		return WriteJSON(w, 200, map[string]string{})
	}, WithBodyRate(BodyRate{BytesPerSecond: 100_000, Grace: testGrace}))
	hs := httptest.NewServer(a)
	t.Cleanup(hs.Close)
	return a, hs
}

// trickle sends head, then one byte every gap until the connection fails,
// and returns the answer and how long the connection lasted.
func trickle(t *testing.T, hs *httptest.Server, head string, gap time.Duration) (*http.Response, []byte, time.Duration) {
	t.Helper()
	c, err := net.Dial("tcp", hs.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	start := time.Now()
	c.Write([]byte(head))
	go func() {
		for range 1000 {
			if _, err := c.Write([]byte(" ")); err != nil {
				return
			}
			time.Sleep(gap)
		}
	}()
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("no answer to %q: %v", head, err)
	}
	body, _ := io.ReadAll(resp.Body)
	// The connection must end, not merely the answer.
	if _, err := br.ReadByte(); !errors.Is(err, io.EOF) && !isReset(err) {
		t.Fatalf("after the answer to %q the connection stayed open: %v", head, err)
	}
	return resp, body, time.Since(start)
}

func isReset(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && !op.Timeout()
}

func errorOf(t *testing.T, body []byte) apierr.Error {
	var e apierr.Error
	if err := json.Unmarshal(body, &e); err != nil {
		t.Fatalf("not a JSON error body: %q", body)
	}
	return e
}

func TestTrickledBodyIsCut(t *testing.T) {
	_, hs := paceServer(t, nil)
	resp, body, _ := trickle(t, hs, "POST /v2/json HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n{\"a\":", 20*time.Millisecond)
	e := errorOf(t, body)
	if resp.StatusCode != http.StatusRequestTimeout || e.Code != apierr.BadRequest || !strings.Contains(e.Description, "slower than 1000 bytes/s") {
		t.Fatalf("a trickled body: %d %+v", resp.StatusCode, e)
	}
	// A route with its own rule applies it: 50 bytes/s passes the general
	// rule for a while but not this one.
	resp, body, _ = trickle(t, hs, "POST /v2/fast HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n", 20*time.Millisecond)
	if e := errorOf(t, body); resp.StatusCode != http.StatusRequestTimeout || !strings.Contains(e.Description, "100000 bytes/s") {
		t.Fatalf("a route's own rule: %d %+v", resp.StatusCode, e)
	}
}

// A body nobody reads (the request fails authentication first) cannot keep
// its connection either: net/http's read of the rest is bounded.
func TestUnreadTrickledBodyIsCut(t *testing.T) {
	_, hs := paceServer(t, nil)
	resp, body, _ := trickle(t, hs, "POST /v2/private HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n", 20*time.Millisecond)
	if e := errorOf(t, body); resp.StatusCode != 401 || e.Code != apierr.TokenExpired {
		t.Fatalf("an unauthenticated trickle: %d %+v", resp.StatusCode, e)
	}
}

// A handler's own read deadline, when earlier, decides, and its answer
// stands.
func TestHandlerDeadlineWins(t *testing.T) {
	_, hs := paceServer(t, nil)
	c, err := net.Dial("tcp", hs.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.Write([]byte("POST /v2/stalls HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nab"))
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	if e := errorOf(t, body); resp.StatusCode != 400 || e.Description != "the upload stalled" {
		t.Fatalf("a stall under the handler's deadline: %d %+v", resp.StatusCode, e)
	}
}

// A body at a normal pace is untouched: the request's context survives
// the end of the body, and the connection is kept for the next request.
func TestBodyAtPaceKeepsConnection(t *testing.T) {
	_, hs := paceServer(t, nil)
	var conns int
	tr := &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		conns++
		return (&net.Dialer{}).DialContext(ctx, network, addr)
	}}
	defer tr.CloseIdleConnections()
	cl := &http.Client{Transport: tr}
	for i := range 2 {
		resp, err := cl.Post(hs.URL+"/v2/json", "application/json", strings.NewReader(`{"n": 1}`))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || string(body) != `{"n":1}` {
			t.Fatalf("request %d: %d %s", i+1, resp.StatusCode, body)
		}
	}
	if conns != 1 {
		t.Fatalf("%d connections for two requests", conns)
	}
}

// Shutdown cuts what outlives the drain bound, logs each cut request and
// answers it 503; new requests get 503 meanwhile.
func TestDrainCutsAndLogs(t *testing.T) {
	var log syncBuffer
	// No pace rule: only shutdown can end the upload's wait.
	a := New(Config{Logger: slog.New(slog.NewTextHandler(&log, nil)), BodyRate: BodyRate{BytesPerSecond: -1}})
	started := make(chan struct{})
	a.Handle("GET /v2/slow", Public, func(w http.ResponseWriter, r *http.Request) error {
		close(started)
		<-r.Context().Done()
		return r.Context().Err()
	})
	a.Handle("GET /v2/quick", Public, func(w http.ResponseWriter, r *http.Request) error {
		return WriteJSON(w, 200, map[string]string{})
	})
	reading := make(chan struct{})
	a.Handle("POST /v2/upload", Public, func(w http.ResponseWriter, r *http.Request) error {
		close(reading)
		_, err := io.ReadAll(r.Body) // blocks: the client sends a part, then waits
		return err
	})
	hs := httptest.NewServer(a)
	defer hs.Close()
	// A request blocked reading its body, which its context cannot reach.
	upload, err := net.Dial("tcp", hs.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer upload.Close()
	upload.Write([]byte("POST /v2/upload HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\nsome"))
	<-reading
	slow := make(chan *http.Response, 1)
	go func() {
		resp, err := http.Get(hs.URL + "/v2/slow")
		if err != nil {
			t.Error(err)
		}
		slow <- resp
	}()
	<-started
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	drained := make(chan error, 1)
	go func() { drained <- a.Drain(ctx) }()
	for !a.flights.isDraining() {
		time.Sleep(time.Millisecond)
	}
	resp, err := http.Get(hs.URL + "/v2/quick")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if e := errorOf(t, body); resp.StatusCode != 503 || e.Code != apierr.Unavailable {
		t.Fatalf("a new request while draining: %d %+v", resp.StatusCode, e)
	}
	if err := <-drained; err == nil {
		t.Fatal("Drain reported nothing cut")
	}
	resp = <-slow
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if e := errorOf(t, body); resp.StatusCode != 503 || !strings.Contains(e.Description, "shut down before the request finished") {
		t.Fatalf("the cut request: %d %+v", resp.StatusCode, e)
	}
	upload.SetReadDeadline(time.Now().Add(5 * time.Second))
	resp, err = http.ReadResponse(bufio.NewReader(upload), nil)
	if err != nil {
		t.Fatalf("the cut upload got no answer: %v", err)
	}
	body, _ = io.ReadAll(resp.Body)
	if e := errorOf(t, body); resp.StatusCode != 503 || !strings.Contains(e.Description, "shut down before the request finished") {
		t.Fatalf("the cut upload: %d %+v", resp.StatusCode, e)
	}
	if !a.Wait(time.Second) {
		t.Fatal("the cut handlers did not return")
	}
	line := ""
	for _, l := range strings.Split(log.String(), "\n") {
		if strings.Contains(l, "request cut by shutdown") {
			line = l
		}
	}
	if !strings.Contains(line, "method=") || !strings.Contains(line, "path=/v2/") || !strings.Contains(line, "ran_ms=") ||
		strings.Count(log.String(), "request cut by shutdown") != 2 {
		t.Fatalf("no log line names each cut request:\n%s", log.String())
	}
}
