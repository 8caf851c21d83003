package httpapi

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/harkhq/hark/server/apierr"
)

// BodyRate is the least pace a request body must keep, as Kestrel's
// MinRequestBodyDataRate: once the server has waited Grace for the body,
// the bytes received must average at least BytesPerSecond over the time
// spent waiting for them. Time the handler spends elsewhere (hashing,
// decoding) does not count against the client. A zero BytesPerSecond
// turns the rule off for a route.
type BodyRate struct {
	BytesPerSecond float64
	Grace          time.Duration
}

func (b BodyRate) String() string {
	return fmt.Sprintf("%g bytes/s after a %s grace period", b.BytesPerSecond, b.Grace)
}

// bodyGuard enforces a BodyRate on a request body with read deadlines on
// the connection. It owns the deadline only while a read of the body is
// pending: a deadline a handler sets through http.ResponseController
// (which reaches setHandlerDeadline through statusRecorder) is kept when
// it is the earlier one, and once the body has ended the connection's
// deadline is left to net/http, whose background read must not inherit
// one.
type bodyGuard struct {
	body io.ReadCloser
	conn *http.ResponseController // the connection's, not the recorder's

	mu              sync.Mutex
	rule            BodyRate
	read            int64
	waited          time.Duration
	handlerDeadline time.Time
	ended           bool // the body returned an error or EOF
	answered        bool // the response began; what is left is net/http's discard
	aborted         bool // shutdown cut the request
	tooSlow         atomic.Bool
}

func newBodyGuard(body io.ReadCloser, conn *http.ResponseController, rule BodyRate) *bodyGuard {
	return &bodyGuard{body: body, conn: conn, rule: rule}
}

func (g *bodyGuard) currentRule() BodyRate {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.rule
}

func (g *bodyGuard) setRule(rule BodyRate) {
	g.mu.Lock()
	g.rule = rule
	g.mu.Unlock()
}

// errBodyTooSlow wraps the deadline error, so a handler that looks for
// os.ErrDeadlineExceeded still finds it.
type errBodyTooSlow struct {
	rule BodyRate
	err  error
}

func (e *errBodyTooSlow) Error() string {
	return fmt.Sprintf("the request body arrived slower than %s: %v", e.rule, e.err)
}
func (e *errBodyTooSlow) Unwrap() error { return e.err }

func (g *bodyGuard) Read(p []byte) (int, error) {
	g.mu.Lock()
	if g.ended || g.rule.BytesPerSecond <= 0 {
		g.mu.Unlock()
		return g.body.Read(p)
	}
	// The latest moment at which the bytes so far still meet the rule.
	allowed := max(g.rule.Grace, time.Duration(float64(g.read)/g.rule.BytesPerSecond*float64(time.Second)))
	start := time.Now()
	deadline := start.Add(allowed - g.waited)
	own := true
	if !g.handlerDeadline.IsZero() && g.handlerDeadline.Before(deadline) {
		deadline, own = g.handlerDeadline, false
	}
	rule := g.rule
	g.mu.Unlock()

	g.conn.SetReadDeadline(deadline)
	n, err := g.body.Read(p)

	g.mu.Lock()
	defer g.mu.Unlock()
	g.waited += time.Since(start)
	g.read += int64(n)
	if err != nil {
		// On EOF net/http starts its background read, clearing the
		// deadline; from here on the guard keeps out of its way.
		g.ended = true
		if own && !g.aborted && errors.Is(err, os.ErrDeadlineExceeded) {
			g.tooSlow.Store(true)
			err = &errBodyTooSlow{rule: rule, err: err}
		}
	}
	return n, err
}

func (g *bodyGuard) Close() error { return g.body.Close() }

// setHandlerDeadline records a read deadline the handler asked for and
// applies it at once, as it would have been without the guard.
func (g *bodyGuard) setHandlerDeadline(d time.Time) error {
	g.mu.Lock()
	g.handlerDeadline = d
	g.mu.Unlock()
	return g.conn.SetReadDeadline(d)
}

// abort ends a pending or future read of the body at once: shutdown cut
// the request, and a handler blocked on a slow body would otherwise only
// notice when its connection closes, too late to answer.
func (g *bodyGuard) abort() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.ended {
		g.aborted = true
		g.handlerDeadline = time.Now()
		g.conn.SetReadDeadline(g.handlerDeadline)
	}
}

// answering bounds what net/http does with an unread body once the
// response begins: it reads up to 256 KiB of it to keep the connection,
// with no deadline of its own, so a trickled body would hold the
// connection (and, before the headers go out, the answer) forever. The
// rest of the body gets the grace period; then the connection closes.
func (g *bodyGuard) answering() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.ended || g.answered || g.rule.BytesPerSecond <= 0 {
		return
	}
	g.answered = true
	g.conn.SetReadDeadline(time.Now().Add(g.rule.Grace))
}

// slowBodyError is the answer for a body that broke its rule.
func slowBodyError(rule BodyRate) *apierr.Error {
	return apierr.New(http.StatusRequestTimeout, apierr.BadRequest,
		"the request body arrived slower than %s; the connection is closed", rule)
}
