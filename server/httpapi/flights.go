package httpapi

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// errShutdown is the cause a request's context carries when shutdown cuts
// it.
var errShutdown = errors.New("the server is shutting down")

// flight is a request being served.
type flight struct {
	id, method, path string
	start            time.Time
	cancel           context.CancelCauseFunc
	body             *bodyGuard // nil without a body
}

// flights knows the requests in flight, so that shutdown can wait for
// them, and name and cancel those it cannot wait for.
type flights struct {
	mu       sync.Mutex
	draining bool
	now      map[*flight]struct{}
	idle     chan struct{} // closed once draining with nothing in flight
}

func newFlights() *flights {
	return &flights{now: make(map[*flight]struct{}), idle: make(chan struct{})}
}

// admit registers f, or reports false once draining has begun.
func (fs *flights) admit(f *flight) bool {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if fs.draining {
		return false
	}
	fs.now[f] = struct{}{}
	return true
}

func (fs *flights) land(f *flight) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	delete(fs.now, f)
	if fs.draining && len(fs.now) == 0 {
		closeOnce(fs.idle)
	}
}

func (fs *flights) isDraining() bool {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	return fs.draining
}

func closeOnce(c chan struct{}) {
	select {
	case <-c:
	default:
		close(c)
	}
}

// Drain makes the API answer 503 Unavailable to new requests and waits
// for the requests in flight to finish until ctx ends. Those still running
// then are cut: each is logged (request id, method, path, how long it ran)
// and its context cancelled with a cause that makes its answer a 503.
func (a *API) Drain(ctx context.Context) error {
	fs := a.flights
	fs.mu.Lock()
	fs.draining = true
	if len(fs.now) == 0 {
		closeOnce(fs.idle)
	}
	fs.mu.Unlock()
	select {
	case <-fs.idle:
		return nil
	case <-ctx.Done():
	}
	fs.mu.Lock()
	cut := make([]*flight, 0, len(fs.now))
	for f := range fs.now {
		cut = append(cut, f)
	}
	fs.mu.Unlock()
	now := time.Now()
	for _, f := range cut {
		a.cfg.Logger.Warn("request cut by shutdown", "request_id", f.id, "method", f.method, "path", f.path,
			"ran_ms", now.Sub(f.start).Milliseconds())
		f.cancel(errShutdown)
		if f.body != nil {
			f.body.abort()
		}
	}
	return fmt.Errorf("drain: %d requests cut by shutdown: %w", len(cut), ctx.Err())
}

// Wait waits, at most d, for every request in flight to return; Serve calls
// it after closing the connections, so handlers cut by Drain that were
// blocked on the network have returned before the store closes.
func (a *API) Wait(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-a.flights.idle:
		return true
	case <-t.C:
		return false
	}
}
