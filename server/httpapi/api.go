// Package httpapi is harkd's HTTP toolkit: routing for /v2, the middleware
// every request goes through (request id and structured log, panic
// recovery, draining on shutdown, signature or token authentication, rate
// limits) and the helpers handlers use to read JSON and write answers and
// error bodies (DECISIONS §4).
//
// A service's handlers register themselves with API.Handle, naming the
// authentication the route needs:
//
//	api.Handle("POST /v2/query/text", httpapi.Token, h.queryText)
//	api.Handle("GET /v2/storage/folder/list", httpapi.Signed, h.folders)
//
// Handlers return an error instead of writing one: an *apierr.Error becomes
// its status and body, anything else a 500 Internal whose details go to the
// log only. Inside a handler, Workspace(r.Context()) and User(r.Context())
// name the caller.
package httpapi

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"path"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/harkhq/hark/server/apierr"
)

// Auth is the authentication a route requires.
type Auth int

const (
	// Public routes need nothing (health, media, published datasets).
	Public Auth = iota
	// Signed routes need the four X-Service-* signature headers (DECISIONS §2).
	Signed
	// Token routes need an access token (DECISIONS §3).
	Token
)

// HandlerFunc is a route handler. It returns an error rather than writing
// one, so error bodies are uniform.
type HandlerFunc func(w http.ResponseWriter, r *http.Request) error

// Keys resolves a workspace's public API key to its id and private key.
type Keys interface {
	WorkspaceKey(ctx context.Context, publicKey string) (workspaceID int64, privateKey string, err error)
}

// Tokens resolves an access token to its user.
type Tokens interface {
	Authenticate(ctx context.Context, token string) (Principal, error)
}

// Principal is who a request speaks for.
type Principal struct {
	WorkspaceID int64
	UserID      int64 // 0 for signed requests, which act for the workspace
}

// Config tunes the middleware. Zero values take the defaults of DECISIONS §4.
type Config struct {
	Logger          *slog.Logger
	Keys            Keys
	Tokens          Tokens
	SignatureWindow time.Duration // default 10 s
	RatePerSecond   float64       // per workspace and per user; default 50
	RateBurst       float64       // default 100
	MaxJSONBody     int64         // default 1 MiB
	Now             func() time.Time
}

// API is the root handler of harkd.
type API struct {
	cfg      Config
	mux      *http.ServeMux
	nonces   *nonceCache
	wsRate   *limiter
	userRate *limiter
	draining atomic.Bool
	inflight sync.WaitGroup
}

// New builds an API with no routes yet.
func New(cfg Config) *API {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.SignatureWindow <= 0 {
		cfg.SignatureWindow = 10 * time.Second
	}
	if cfg.RatePerSecond <= 0 {
		cfg.RatePerSecond = 50
	}
	if cfg.RateBurst <= 0 {
		cfg.RateBurst = 100
	}
	if cfg.MaxJSONBody <= 0 {
		cfg.MaxJSONBody = 1 << 20
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	a := &API{
		cfg:      cfg,
		mux:      http.NewServeMux(),
		nonces:   newNonceCache(),
		wsRate:   newLimiter(cfg.RatePerSecond, cfg.RateBurst),
		userRate: newLimiter(cfg.RatePerSecond, cfg.RateBurst),
	}
	a.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		WriteError(w, apierr.NotFoundf("no such endpoint: %s %s", r.Method, r.URL.Path))
	})
	return a
}

// MaxJSONBody is the configured JSON body limit.
func (a *API) MaxJSONBody() int64 { return a.cfg.MaxJSONBody }

// Handle registers h for pattern (net/http syntax, with method) behind the
// given authentication.
func (a *API) Handle(pattern string, auth Auth, h HandlerFunc) {
	a.mux.Handle(pattern, a.wrap(auth, h))
}

func (a *API) wrap(auth Auth, h HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		switch auth {
		case Signed:
			p, err := a.verifySignature(r)
			if err != nil {
				WriteError(w, err)
				return
			}
			ctx = withPrincipal(ctx, p)
		case Token:
			p, err := a.authenticateToken(r)
			if err != nil {
				WriteError(w, err)
				return
			}
			ctx = withPrincipal(ctx, p)
		}
		if p, ok := principalFrom(ctx); ok {
			if err := a.checkRate(p); err != nil {
				WriteError(w, err)
				return
			}
		}
		if err := h(w, r.WithContext(ctx)); err != nil {
			a.writeHandlerError(w, r, err)
		}
	})
}

func (a *API) writeHandlerError(w http.ResponseWriter, r *http.Request, err error) {
	if e, ok := apierr.As(err); ok {
		WriteError(w, e)
		return
	}
	if r.Context().Err() != nil {
		// The client went away; nobody is listening for an answer.
		return
	}
	a.cfg.Logger.Error("handler failed", "request_id", RequestID(r.Context()),
		"method", r.Method, "path", r.URL.Path, "err", err)
	WriteError(w, apierr.New(http.StatusInternalServerError, apierr.Internal, "internal error"))
}

// Drain makes the API answer 503 Unavailable to new requests and waits,
// until ctx ends, for the requests in flight to finish.
func (a *API) Drain(ctx context.Context) error {
	a.draining.Store(true)
	done := make(chan struct{})
	go func() { a.inflight.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("drain: requests still in flight: %w", ctx.Err())
	}
}

// ServeHTTP runs the outer middleware: request id, log line, recovery and
// draining.
func (a *API) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	id := r.Header.Get("X-Request-Id")
	if id == "" || len(id) > 64 {
		id = newRequestID()
	}
	rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
	rec.Header().Set("X-Request-Id", id)
	r = r.WithContext(context.WithValue(r.Context(), requestIDKey{}, id))

	defer func() {
		if p := recover(); p != nil {
			if p == http.ErrAbortHandler {
				panic(p)
			}
			a.cfg.Logger.Error("panic", "request_id", id, "method", r.Method, "path", r.URL.Path,
				"panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			if !rec.wrote {
				WriteError(rec, apierr.New(http.StatusInternalServerError, apierr.Internal, "internal error"))
			}
		}
		a.cfg.Logger.Info("request", "request_id", id, "method", r.Method, "path", r.URL.Path,
			"status", rec.status, "bytes", rec.bytes, "duration_ms", float64(time.Since(start).Microseconds())/1000)
	}()

	if a.draining.Load() {
		rec.Header().Set("Connection", "close")
		WriteError(rec, apierr.Unavailablef("the server is shutting down"))
		return
	}
	// net/http would answer a path with "." or ".." segments with a redirect
	// to its cleaned form; a name like ".." deserves a clear 400 instead.
	if !canonical(r.URL.Path) {
		WriteError(rec, apierr.BadRequestf("the path holds empty, \".\" or \"..\" segments"))
		return
	}
	a.inflight.Add(1)
	defer a.inflight.Done()
	a.mux.ServeHTTP(rec, r)
}

func canonical(p string) bool {
	if p == "" || p == "/" {
		return true
	}
	clean := path.Clean(p)
	if strings.HasSuffix(p, "/") {
		clean += "/"
	}
	return clean == p
}

type requestIDKey struct{}

// RequestID returns the id the log lines of this request carry.
func RequestID(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey{}).(string)
	return id
}

func newRequestID() string {
	var b [8]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

type principalKey struct{}

func withPrincipal(ctx context.Context, p Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

func principalFrom(ctx context.Context) (Principal, bool) {
	p, ok := ctx.Value(principalKey{}).(Principal)
	return p, ok
}

// Workspace is the workspace the request was authenticated for (0 on
// public routes).
func Workspace(ctx context.Context) int64 {
	p, _ := principalFrom(ctx)
	return p.WorkspaceID
}

// User is the user the request's token names (0 on signed and public routes).
func User(ctx context.Context) int64 {
	p, _ := principalFrom(ctx)
	return p.UserID
}

// WithPrincipal lets tests and in-process callers act as a principal.
func WithPrincipal(ctx context.Context, p Principal) context.Context { return withPrincipal(ctx, p) }

// statusRecorder remembers the status for the log line. It keeps Flush and
// ReadFrom reachable (through Unwrap and ReadFrom) so streaming answers and
// sendfile downloads keep working.
type statusRecorder struct {
	http.ResponseWriter
	status int
	bytes  int64
	wrote  bool
}

func (s *statusRecorder) WriteHeader(code int) {
	if !s.wrote {
		s.status = code
		s.wrote = true
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusRecorder) Write(p []byte) (int, error) {
	s.wrote = true
	n, err := s.ResponseWriter.Write(p)
	s.bytes += int64(n)
	return n, err
}

func (s *statusRecorder) Flush() {
	s.wrote = true
	http.NewResponseController(s.ResponseWriter).Flush()
}

func (s *statusRecorder) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// ReadFrom keeps net/http's sendfile path for file downloads, which the
// embedding alone would hide.
func (s *statusRecorder) ReadFrom(r io.Reader) (int64, error) {
	s.wrote = true
	var n int64
	var err error
	if rf, ok := s.ResponseWriter.(io.ReaderFrom); ok {
		n, err = rf.ReadFrom(r)
	} else {
		n, err = io.Copy(s.ResponseWriter, r)
	}
	s.bytes += n
	return n, err
}
