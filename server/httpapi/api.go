// Package httpapi is harkd's HTTP toolkit: routing for /v2, the middleware
// every request goes through (request id and structured log, panic
// recovery, draining on shutdown, signature or token authentication, rate
// limits, the pace of request bodies) and the helpers handlers use to read JSON and write answers and
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
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"path"
	"runtime/debug"
	"strings"
	"time"

	"github.com/harkhq/hark/server/apierr"
	"github.com/harkhq/hark/server/httpapi/connguard"
	"github.com/harkhq/hark/server/httpapi/ratelimit"
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

// Nonces records signature nonces where every process sharing a database
// sees them (workspaces.Service.UseNonce). Use reports false when key was
// already used and its window has not ended.
type Nonces interface {
	UseNonce(ctx context.Context, key string, until, now time.Time) (bool, error)
}

// Principal is who a request speaks for.
type Principal struct {
	WorkspaceID int64
	UserID      int64 // 0 for signed requests, which act for the workspace
}

// Config tunes the middleware. Zero values take the defaults of DECISIONS §4.
type Config struct {
	Logger *slog.Logger
	Keys   Keys
	Tokens Tokens
	// Nonces, when set, keeps the signature nonces in the shared store;
	// nil keeps them in this process's memory, enough when it is the only
	// process serving its workspaces.
	Nonces          Nonces
	SignatureWindow time.Duration // default 10 s
	RatePerSecond   float64       // per workspace and per user; default 50
	RateBurst       float64       // default 100
	MaxJSONBody     int64         // default 1 MiB
	// AuthRate and AuthBurst limit the requests of one client address to
	// routes marked Credentials (the /auth/* routes), which may hash a
	// password: default 5 a second, burst 20.
	AuthRate, AuthBurst float64
	// BodyRate is the least pace of request bodies (DefaultBodyRate when
	// zero); a negative BytesPerSecond turns the rule off. A route may
	// name its own with WithBodyRate.
	BodyRate BodyRate
	Now      func() time.Time
}

// DefaultBodyRate is Kestrel's MinRequestBodyDataRate: 240 bytes/s once 5 s
// have passed. Any real client sends orders of magnitude faster; a body
// trickled a byte at a time loses its connection after 5 s.
var DefaultBodyRate = BodyRate{BytesPerSecond: 240, Grace: 5 * time.Second}

// API is the root handler of harkd.
type API struct {
	cfg      Config
	mux      *http.ServeMux
	nonces   *nonceCache
	wsRate   *ratelimit.Limiter[int64]
	userRate *ratelimit.Limiter[int64]
	addrRate *ratelimit.Limiter[string]
	flights  *flights
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
	if cfg.AuthRate <= 0 {
		cfg.AuthRate = 5
	}
	if cfg.AuthBurst <= 0 {
		cfg.AuthBurst = 20
	}
	switch {
	case cfg.BodyRate.BytesPerSecond == 0:
		cfg.BodyRate.BytesPerSecond = DefaultBodyRate.BytesPerSecond
	case cfg.BodyRate.BytesPerSecond < 0:
		cfg.BodyRate.BytesPerSecond = 0
	}
	if cfg.BodyRate.Grace <= 0 {
		cfg.BodyRate.Grace = DefaultBodyRate.Grace
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	a := &API{
		cfg:      cfg,
		mux:      http.NewServeMux(),
		nonces:   newNonceCache(),
		wsRate:   ratelimit.New[int64](cfg.RatePerSecond, cfg.RateBurst),
		userRate: ratelimit.New[int64](cfg.RatePerSecond, cfg.RateBurst),
		addrRate: ratelimit.New[string](cfg.AuthRate, cfg.AuthBurst),
		flights:  newFlights(),
	}
	a.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		WriteError(w, apierr.NotFoundf("no such endpoint: %s %s", r.Method, r.URL.Path))
	})
	return a
}

// MaxJSONBody is the configured JSON body limit.
func (a *API) MaxJSONBody() int64 { return a.cfg.MaxJSONBody }

// Option tunes one route.
type Option func(*routeOptions)

type routeOptions struct {
	bodyRate    *BodyRate
	credentials bool
}

// WithBodyRate gives a route its own body pace rule, for bodies whose
// natural pace is known (a voice stream arrives in real time).
func WithBodyRate(rule BodyRate) Option {
	return func(o *routeOptions) { o.bodyRate = &rule }
}

// Credentials marks a route that takes credentials and may hash a
// password: it is rate-limited per client address (Config.AuthRate)
// before anything else, so one address cannot claim the server's
// password-hashing budget.
func Credentials(o *routeOptions) { o.credentials = true }

// Handle registers h for pattern (net/http syntax, with method) behind the
// given authentication.
func (a *API) Handle(pattern string, auth Auth, h HandlerFunc, opts ...Option) {
	var o routeOptions
	for _, opt := range opts {
		opt(&o)
	}
	a.mux.Handle(pattern, a.wrap(auth, o, h))
}

func (a *API) wrap(auth Auth, o routeOptions, h HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if rec, ok := w.(*statusRecorder); ok && rec.guard != nil && o.bodyRate != nil {
			rec.guard.setRule(*o.bodyRate)
		}
		if o.credentials {
			if wait := a.addrRate.Take(connguard.ClientKey(r.RemoteAddr), a.cfg.Now()); wait > 0 {
				WriteError(w, TooMany(wait, "too many sign-in requests from this address"))
				return
			}
		}
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
	rec, _ := w.(*statusRecorder)
	if errors.Is(context.Cause(r.Context()), errShutdown) {
		if rec == nil || !rec.wrote {
			w.Header().Set("Connection", "close")
			WriteError(w, apierr.Unavailablef("the server shut down before the request finished; retry"))
		}
		return
	}
	if rec != nil && rec.guard != nil && rec.guard.tooSlow.Load() {
		// Whatever the handler made of the read error, the cause is the pace.
		if !rec.wrote {
			rec.Header().Set("Connection", "close")
			WriteError(w, slowBodyError(rec.guard.currentRule()))
		}
		return
	}
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

// ServeHTTP runs the outer middleware: request id, log line, recovery,
// draining and the body pace rule.
func (a *API) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	id := r.Header.Get("X-Request-Id")
	if id == "" || len(id) > 64 {
		id = newRequestID()
	}
	rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
	rec.Header().Set("X-Request-Id", id)
	ctx, cancel := context.WithCancelCause(context.WithValue(r.Context(), requestIDKey{}, id))
	defer cancel(nil)
	r = r.WithContext(ctx)
	if r.Body != nil && r.Body != http.NoBody {
		rec.guard = newBodyGuard(r.Body, http.NewResponseController(w), a.cfg.BodyRate)
		r.Body = rec.guard
	}

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

	f := &flight{id: id, method: r.Method, path: r.URL.Path, start: start, cancel: cancel, body: rec.guard}
	if !a.flights.admit(f) {
		rec.Header().Set("Connection", "close")
		WriteError(rec, apierr.Unavailablef("the server is shutting down"))
		return
	}
	defer a.flights.land(f)
	// net/http would answer a path with "." or ".." segments with a redirect
	// to its cleaned form; a name like ".." deserves a clear 400 instead.
	if !canonical(r.URL.Path) {
		WriteError(rec, apierr.BadRequestf("the path holds empty, \".\" or \"..\" segments"))
		return
	}
	a.mux.ServeHTTP(rec, r)
	if rec.guard != nil {
		rec.guard.answering() // a handler that wrote nothing is answered now
	}
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
//
// It also stands between handlers and the request body's pace rule: the
// response beginning bounds what is left of the body, and a read deadline
// a handler sets is combined with the rule's.
type statusRecorder struct {
	http.ResponseWriter
	status int
	bytes  int64
	wrote  bool
	guard  *bodyGuard // nil for requests without a body
}

func (s *statusRecorder) begin() {
	if !s.wrote {
		s.wrote = true
		if s.guard != nil {
			s.guard.answering()
		}
	}
}

func (s *statusRecorder) WriteHeader(code int) {
	if !s.wrote {
		s.status = code
		s.begin()
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusRecorder) Write(p []byte) (int, error) {
	s.begin()
	n, err := s.ResponseWriter.Write(p)
	s.bytes += int64(n)
	return n, err
}

func (s *statusRecorder) Flush() {
	s.begin()
	http.NewResponseController(s.ResponseWriter).Flush()
}

// SetReadDeadline is what http.ResponseController calls; see bodyGuard.
func (s *statusRecorder) SetReadDeadline(d time.Time) error {
	if s.guard != nil {
		return s.guard.setHandlerDeadline(d)
	}
	return http.NewResponseController(s.ResponseWriter).SetReadDeadline(d)
}

func (s *statusRecorder) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// ReadFrom keeps net/http's sendfile path for file downloads, which the
// embedding alone would hide.
func (s *statusRecorder) ReadFrom(r io.Reader) (int64, error) {
	s.begin()
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
