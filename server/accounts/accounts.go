// Package accounts registers users, logs them in and out, and issues and
// checks access tokens (DECISIONS §3). Passwords are kept as argon2id
// hashes; tokens are 32 random bytes handed to the client once and stored
// only as their SHA-256, so a copy of the database grants no session.
package accounts

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"database/sql"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/mail"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"golang.org/x/crypto/argon2"

	"github.com/harkhq/hark/server/apierr"
	"github.com/harkhq/hark/server/httpapi"
	"github.com/harkhq/hark/server/httpapi/ratelimit"
	"github.com/harkhq/hark/server/ident"
	"github.com/harkhq/hark/server/store"
)

var migrations = []string{
	`CREATE TABLE users (
		id            INTEGER PRIMARY KEY,
		workspace_id  INTEGER NOT NULL,
		username      TEXT NOT NULL UNIQUE,
		email         TEXT,
		password_hash BLOB,
		external_id   TEXT,
		name          TEXT NOT NULL DEFAULT '',
		device        TEXT NOT NULL DEFAULT '',
		created_ms    INTEGER NOT NULL
	)`,
	`CREATE UNIQUE INDEX users_email ON users(workspace_id, email) WHERE email IS NOT NULL`,
	`CREATE UNIQUE INDEX users_external ON users(workspace_id, external_id) WHERE external_id IS NOT NULL`,
	`CREATE TABLE tokens (
		hash         BLOB PRIMARY KEY,
		user_id      INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
		workspace_id INTEGER NOT NULL,
		expires_ms   INTEGER NOT NULL,
		revoked      INTEGER NOT NULL DEFAULT 0
	) WITHOUT ROWID`,
	`CREATE INDEX tokens_expiry ON tokens(expires_ms)`,
}

// Workspaces is what accounts needs to know of workspaces.
type Workspaces interface {
	WorkspaceKey(ctx context.Context, publicKey string) (int64, string, error)
	RegistrationOpen(ctx context.Context, publicKey string) (bool, error)
}

// Config tunes the service.
type Config struct {
	TokenTTL time.Duration // default 30 days
	// Throttling of failed logins per e-mail: after MaxFailures inside
	// FailureWindow, further attempts wait (429 with Retry-After).
	MaxFailures   int           // default 5
	FailureWindow time.Duration // default 15 minutes
	// HashMemory bounds the memory of the password hashes computed at once
	// (logins and registrations): each argon2id hash takes 19 MiB, so the
	// default 128 MiB lets 6 run together. A request that finds no room
	// waits up to HashWait (default 2 s), then answers 503 with Retry-After.
	HashMemory int64
	HashWait   time.Duration
	// AttemptRate and AttemptBurst limit logins and registrations per
	// workspace (default 20 a second, burst 60), so one application's
	// public key cannot be used to claim the whole hashing budget.
	AttemptRate, AttemptBurst float64
	Now                       func() time.Time
}

// Service implements the accounts endpoints.
type Service struct {
	db     *sql.DB
	ws     Workspaces
	cfg    Config
	failMu sync.Mutex
	fails  map[string]*failures
	// hashing holds one token per password hash being computed.
	hashing  chan struct{}
	hashed   atomic.Int64
	attempts *ratelimit.Limiter[int64]
	// tokens caches recent token lookups, which every token request makes;
	// logout removes its entry, so revocation stays immediate.
	tokens     sync.Map // string(hash) -> cachedToken
	tokenSweep atomic.Int64
}

type cachedToken struct {
	p         httpapi.Principal
	expiresMs int64
	until     time.Time
}

// tokenCacheTTL bounds how long a cached lookup is trusted; only this
// process revokes tokens, so it matters only for tokens deleted by hand.
const tokenCacheTTL = 30 * time.Second

// failures is the login record of one e-mail. inflight counts password
// checks under way: they may all fail, so they count against MaxFailures
// before their outcome is known, and concurrent attempts are throttled as
// sequential ones are.
type failures struct {
	count    int
	inflight int
	first    time.Time
	until    time.Time
}

// Token is the access token answer of the contract.
type Token struct {
	Token    string `json:"token"`
	Type     string `json:"type"`
	Expires  int64  `json:"expires"`
	Username string `json:"username,omitempty"`
}

// User is a user record as the client sees it.
type User struct {
	ID       int64  `json:"-"`
	Username string `json:"username"`
	Name     string `json:"name"`
	Email    string `json:"email,omitempty"`
}

// New migrates the account tables.
func New(ctx context.Context, db *sql.DB, ws Workspaces, cfg Config) (*Service, error) {
	if cfg.TokenTTL <= 0 {
		cfg.TokenTTL = 30 * 24 * time.Hour
	}
	if cfg.MaxFailures <= 0 {
		cfg.MaxFailures = 5
	}
	if cfg.FailureWindow <= 0 {
		cfg.FailureWindow = 15 * time.Minute
	}
	if cfg.HashMemory <= 0 {
		cfg.HashMemory = DefaultHashMemory
	}
	if cfg.HashWait <= 0 {
		cfg.HashWait = 2 * time.Second
	}
	if cfg.AttemptRate <= 0 {
		cfg.AttemptRate = 20
	}
	if cfg.AttemptBurst <= 0 {
		cfg.AttemptBurst = 60
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if err := store.Migrate(ctx, db, "accounts", migrations); err != nil {
		return nil, err
	}
	return &Service{db: db, ws: ws, cfg: cfg, fails: make(map[string]*failures),
		hashing:  make(chan struct{}, HashesAtOnce(cfg.HashMemory)),
		attempts: ratelimit.New[int64](cfg.AttemptRate, cfg.AttemptBurst)}, nil
}

// DefaultHashMemory is the default Config.HashMemory.
const DefaultHashMemory = 128 << 20

// HashBytes is the memory one argon2id hash takes.
const HashBytes = argonMemory << 10

// HashesAtOnce is how many password hashes fit in a memory budget; at
// least one, or nobody could log in.
func HashesAtOnce(budget int64) int {
	return int(max(1, budget/HashBytes))
}

// hashSlot waits, up to HashWait, for room to compute one password hash.
// The caller calls the returned release when the hash is done.
//
// Each hash leaves 19 MiB of garbage, and GOGC lets the heap grow to twice
// its live size, hashes under way included, before collecting. So once a
// budget's worth of hashes has ended, the one that ends collects: cheap,
// as argon2's blocks hold no pointers, and under a login flood it took
// harkd's growth from +222-262 MiB to +166-206 MiB (64 MiB budget).
func (s *Service) hashSlot(ctx context.Context) (release func(), err error) {
	release = func() {
		<-s.hashing
		if s.hashed.Add(1)%int64(cap(s.hashing)) == 0 {
			runtime.GC()
		}
	}
	select {
	case s.hashing <- struct{}{}:
		return release, nil
	default:
	}
	t := time.NewTimer(s.cfg.HashWait)
	defer t.Stop()
	select {
	case s.hashing <- struct{}{}:
		return release, nil
	case <-t.C:
		e := apierr.Unavailablef("the server is checking too many passwords at once; retry in a second")
		e.RetryAfter = 1
		return nil, e
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// attempt spends one login or registration of the workspace.
func (s *Service) attempt(wsID int64) error {
	if wait := s.attempts.Take(wsID, s.cfg.Now()); wait > 0 {
		return httpapi.TooMany(wait, "too many logins and registrations for this application")
	}
	return nil
}

// RegisterRequest is the body of /auth/register.
type RegisterRequest struct {
	APIKey   string `json:"apiKey"`
	Email    string `json:"email"`
	Password string `json:"password"`
	Name     string `json:"name"`
	Device   string `json:"device"`
}

// Register creates an e-mail account and logs it in.
func (s *Service) Register(ctx context.Context, req RegisterRequest) (Token, error) {
	wsID, err := s.workspace(ctx, req.APIKey)
	if err != nil {
		return Token{}, err
	}
	open, err := s.ws.RegistrationOpen(ctx, req.APIKey)
	if err != nil {
		return Token{}, err
	}
	if !open {
		return Token{}, apierr.Forbiddenf("registration is closed for this application")
	}
	if err := s.attempt(wsID); err != nil {
		return Token{}, err
	}
	email, err := normaliseEmail(req.Email)
	if err != nil {
		return Token{}, err
	}
	if utf8.RuneCountInString(req.Password) < 8 {
		return Token{}, apierr.InvalidArgumentf("the password must have at least 8 characters")
	}
	if len(req.Password) > 1024 {
		return Token{}, apierr.InvalidArgumentf("the password must have at most 1024 bytes")
	}
	if err := checkText("name", req.Name, 200); err != nil {
		return Token{}, err
	}
	if err := checkText("device", req.Device, 200); err != nil {
		return Token{}, err
	}
	release, err := s.hashSlot(ctx)
	if err != nil {
		return Token{}, err
	}
	hash := hashPassword(req.Password)
	release()
	username := newUsername()
	res, err := s.db.ExecContext(ctx, `INSERT INTO users(workspace_id, username, email, password_hash, name, device, created_ms)
		VALUES(?, ?, ?, ?, ?, ?, ?)`, wsID, username, email, hash, strings.TrimSpace(req.Name), req.Device, s.cfg.Now().UnixMilli())
	if isUniqueViolation(err) {
		return Token{}, apierr.Conflictf("the e-mail %s is already registered", email)
	}
	if err != nil {
		return Token{}, fmt.Errorf("register: %w", err)
	}
	userID, _ := res.LastInsertId()
	tok, err := s.issue(ctx, userID, wsID)
	tok.Username = username
	return tok, err
}

// LoginRequest is the body of /auth/login.
type LoginRequest struct {
	APIKey   string   `json:"apiKey"`
	Email    string   `json:"email"`
	Password string   `json:"password"`
	DeviceID string   `json:"deviceId"`
	Lat      *float64 `json:"lat"`
	Lon      *float64 `json:"lon"`
}

// Login checks e-mail and password. An unknown e-mail and a wrong password
// answer alike, and take alike long, so neither reveals which e-mails exist.
func (s *Service) Login(ctx context.Context, req LoginRequest) (Token, error) {
	wsID, err := s.workspace(ctx, req.APIKey)
	if err != nil {
		return Token{}, err
	}
	email, err := normaliseEmail(req.Email)
	if err != nil {
		return Token{}, err
	}
	if req.Password == "" {
		return Token{}, apierr.InvalidArgumentf("the password is required")
	}
	if err := s.attempt(wsID); err != nil {
		return Token{}, err
	}
	throttleKey := fmt.Sprintf("%d\x00%s", wsID, email)
	if wait := s.begin(throttleKey); wait > 0 {
		e := apierr.New(http.StatusTooManyRequests, apierr.TooManyRequests,
			"too many failed logins for this e-mail; retry in %s", wait.Round(time.Second))
		e.RetryAfter = int(wait/time.Second) + 1
		return Token{}, e
	}
	outcome := abandoned
	defer func() { s.end(throttleKey, outcome) }()
	var userID int64
	var hash []byte
	err = s.db.QueryRowContext(ctx, `SELECT id, password_hash FROM users WHERE workspace_id = ? AND email = ?`,
		wsID, email).Scan(&userID, &hash)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return Token{}, fmt.Errorf("login: %w", err)
	}
	release, err := s.hashSlot(ctx)
	if err != nil {
		return Token{}, err
	}
	ok := checkPassword(hash, req.Password)
	release()
	if !ok || userID == 0 {
		outcome = failed
		return Token{}, apierr.New(http.StatusUnauthorized, apierr.InvalidCredentials, "wrong e-mail or password")
	}
	outcome = succeeded
	tok, err := s.issue(ctx, userID, wsID)
	if err != nil {
		return Token{}, err
	}
	// the handle is the id other services (recommendations) know the person by, whatever way
	// they signed in
	err = s.db.QueryRowContext(ctx, `SELECT username FROM users WHERE id = ?`, userID).Scan(&tok.Username)
	return tok, err
}

// Logout revokes the token at once.
func (s *Service) Logout(ctx context.Context, token string) error {
	s.tokens.Delete(string(tokenHash(token)))
	res, err := s.db.ExecContext(ctx, `UPDATE tokens SET revoked = 1 WHERE hash = ? AND revoked = 0 AND expires_ms > ?`,
		tokenHash(token), s.cfg.Now().UnixMilli())
	if err != nil {
		return fmt.Errorf("logout: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return tokenExpired()
	}
	return nil
}

// AnonymousRequest is the body of /auth/user.
type AnonymousRequest struct {
	ExternalID string `json:"externalId"`
	Device     string `json:"device"`
	Name       string `json:"name"`
}

// Anonymous logs in the user keyed by externalId in the workspace, creating
// it on first sight. created tells which of the two happened (201 or 200).
func (s *Service) Anonymous(ctx context.Context, wsID int64, req AnonymousRequest) (tok Token, created bool, err error) {
	if err := ident.Check("externalId", req.ExternalID, 255); err != nil {
		return Token{}, false, apierr.InvalidArgumentf("%v", err)
	}
	if err := checkText("name", req.Name, 200); err != nil {
		return Token{}, false, err
	}
	if err := checkText("device", req.Device, 200); err != nil {
		return Token{}, false, err
	}
	var userID int64
	var username string
	err = s.db.QueryRowContext(ctx, `SELECT id, username FROM users WHERE workspace_id = ? AND external_id = ?`,
		wsID, req.ExternalID).Scan(&userID, &username)
	if errors.Is(err, sql.ErrNoRows) {
		username = newUsername()
		var res sql.Result
		res, err = s.db.ExecContext(ctx, `INSERT INTO users(workspace_id, username, external_id, name, device, created_ms)
			VALUES(?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`, wsID, username, req.ExternalID, strings.TrimSpace(req.Name), req.Device, s.cfg.Now().UnixMilli())
		if err == nil {
			if n, _ := res.RowsAffected(); n == 1 {
				userID, _ = res.LastInsertId()
				created = true
			} else {
				// Another request created it first: log in as it.
				err = s.db.QueryRowContext(ctx, `SELECT id, username FROM users WHERE workspace_id = ? AND external_id = ?`,
					wsID, req.ExternalID).Scan(&userID, &username)
			}
		}
	}
	if err != nil {
		return Token{}, false, fmt.Errorf("anonymous login: %w", err)
	}
	tok, err = s.issue(ctx, userID, wsID)
	tok.Username = username
	return tok, created, err
}

// Authenticate resolves a token for the token middleware.
func (s *Service) Authenticate(ctx context.Context, token string) (httpapi.Principal, error) {
	hash := tokenHash(token)
	now := s.cfg.Now()
	if v, ok := s.tokens.Load(string(hash)); ok {
		c := v.(cachedToken)
		if now.Before(c.until) {
			if c.expiresMs <= now.UnixMilli() {
				return httpapi.Principal{}, tokenExpired()
			}
			return c.p, nil
		}
	}
	var p httpapi.Principal
	var expires int64
	var revoked int
	err := s.db.QueryRowContext(ctx, `SELECT user_id, workspace_id, expires_ms, revoked FROM tokens WHERE hash = ?`,
		hash).Scan(&p.UserID, &p.WorkspaceID, &expires, &revoked)
	if errors.Is(err, sql.ErrNoRows) || (err == nil && (revoked != 0 || expires <= now.UnixMilli())) {
		return httpapi.Principal{}, tokenExpired()
	}
	if err != nil {
		return httpapi.Principal{}, fmt.Errorf("authenticate: %w", err)
	}
	s.tokens.Store(string(hash), cachedToken{p: p, expiresMs: expires, until: now.Add(tokenCacheTTL)})
	if last := s.tokenSweep.Load(); now.UnixMilli()-last > tokenCacheTTL.Milliseconds() && s.tokenSweep.CompareAndSwap(last, now.UnixMilli()) {
		s.tokens.Range(func(k, v any) bool {
			if !now.Before(v.(cachedToken).until) {
				s.tokens.Delete(k)
			}
			return true
		})
	}
	return p, nil
}

// User returns a user's record.
func (s *Service) User(ctx context.Context, userID int64) (User, error) {
	u := User{ID: userID}
	var email sql.NullString
	err := s.db.QueryRowContext(ctx, `SELECT username, name, email FROM users WHERE id = ?`, userID).Scan(&u.Username, &u.Name, &email)
	if errors.Is(err, sql.ErrNoRows) {
		return User{}, apierr.NotFoundf("no such user")
	}
	u.Email = email.String
	return u, err
}

// SetName changes the display name (the onboarding's name answer).
func (s *Service) SetName(ctx context.Context, userID int64, name string) error {
	name = strings.TrimSpace(name)
	if err := checkText("name", name, 200); err != nil {
		return err
	}
	_, err := s.db.ExecContext(ctx, `UPDATE users SET name = ? WHERE id = ?`, name, userID)
	return err
}

// PurgeExpired deletes tokens that can no longer be used.
func (s *Service) PurgeExpired(ctx context.Context) error {
	_, err := s.db.ExecContext(ctx, `DELETE FROM tokens WHERE expires_ms <= ? OR revoked = 1`, s.cfg.Now().UnixMilli())
	return err
}

func (s *Service) workspace(ctx context.Context, apiKey string) (int64, error) {
	if apiKey == "" {
		return 0, apierr.New(http.StatusUnauthorized, apierr.UnknownApiKey, "apiKey is required")
	}
	id, _, err := s.ws.WorkspaceKey(ctx, apiKey)
	return id, err
}

func (s *Service) issue(ctx context.Context, userID, wsID int64) (Token, error) {
	raw := make([]byte, 32)
	rand.Read(raw)
	token := base64.RawURLEncoding.EncodeToString(raw)
	expires := s.cfg.Now().Add(s.cfg.TokenTTL).UnixMilli()
	if _, err := s.db.ExecContext(ctx, `INSERT INTO tokens(hash, user_id, workspace_id, expires_ms) VALUES(?, ?, ?, ?)`,
		tokenHash(token), userID, wsID, expires); err != nil {
		return Token{}, fmt.Errorf("issue token: %w", err)
	}
	return Token{Token: token, Type: "basic", Expires: expires}, nil
}

// outcome is how a password check ended.
type outcome int

const (
	abandoned outcome = iota // no password was checked (busy, database error)
	failed
	succeeded
)

// begin reserves a password check for key, or returns how long to wait.
// While fewer than MaxFailures failures are on record, as many checks may
// run at once as failures remain; from then on, one at a time, each after
// the wait the last failure set.
func (s *Service) begin(key string) time.Duration {
	s.failMu.Lock()
	defer s.failMu.Unlock()
	now := s.cfg.Now()
	f, ok := s.fails[key]
	if !ok {
		if len(s.fails) > 100000 {
			s.sweepLocked(now)
		}
		f = &failures{first: now}
		s.fails[key] = f
	}
	if f.inflight == 0 && now.Sub(f.first) > s.cfg.FailureWindow && !now.Before(f.until) {
		f.count, f.first = 0, now
	}
	if wait := f.until.Sub(now); wait > 0 {
		return wait
	}
	if f.inflight >= max(s.cfg.MaxFailures-f.count, 1) {
		// The checks under way decide; one of them ends within a hash.
		return time.Second
	}
	f.inflight++
	return 0
}

// end records the outcome of a check begin allowed. From MaxFailures
// failures on, each further failure doubles the wait, starting at one
// second and capped at the window; a success forgets the record.
func (s *Service) end(key string, o outcome) {
	s.failMu.Lock()
	defer s.failMu.Unlock()
	f, ok := s.fails[key]
	if !ok {
		return
	}
	f.inflight--
	switch o {
	case succeeded:
		f.count = 0
		f.until = time.Time{}
	case failed:
		now := s.cfg.Now()
		f.count++
		if over := f.count - s.cfg.MaxFailures; over >= 0 {
			wait := time.Second << min(over, 20)
			f.until = now.Add(min(wait, s.cfg.FailureWindow))
		}
	}
	if f.inflight == 0 && f.count == 0 {
		delete(s.fails, key)
	}
}

// sweepLocked forgets records whose window and wait have passed.
func (s *Service) sweepLocked(now time.Time) {
	for k, f := range s.fails {
		if f.inflight == 0 && now.Sub(f.first) > s.cfg.FailureWindow && now.After(f.until) {
			delete(s.fails, k)
		}
	}
}

func tokenExpired() *apierr.Error {
	return apierr.New(http.StatusUnauthorized, apierr.TokenExpired, "the access token is expired, revoked or unknown")
}

func tokenHash(token string) []byte {
	h := sha256.Sum256([]byte(token))
	return h[:]
}

func newUsername() string {
	b := make([]byte, 6)
	rand.Read(b)
	return "u_" + hex.EncodeToString(b)
}

func normaliseEmail(s string) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", apierr.InvalidArgumentf("the e-mail is required")
	}
	if len(s) > 254 {
		return "", apierr.InvalidArgumentf("the e-mail is longer than 254 characters")
	}
	a, err := mail.ParseAddress(s)
	if err != nil || a.Address != s || a.Name != "" || !strings.Contains(s[strings.LastIndexByte(s, '@'):], ".") {
		return "", apierr.InvalidArgumentf("%q is not a well-formed e-mail address", s)
	}
	return strings.ToLower(s), nil
}

func checkText(field, v string, max int) error {
	if len(v) > max {
		return apierr.InvalidArgumentf("%s is longer than %d bytes", field, max)
	}
	if !utf8.ValidString(v) {
		return apierr.InvalidArgumentf("%s is not valid UTF-8", field)
	}
	for _, r := range v {
		if r < 0x20 || r == 0x7f {
			return apierr.InvalidArgumentf("%s contains a control character", field)
		}
	}
	return nil
}

// argon2id parameters: the OWASP minimum (19 MiB, 2 passes), which keeps a
// login near 30 ms on one core here.
const (
	argonTime    = 2
	argonMemory  = 19 * 1024
	argonThreads = 1
	argonKeyLen  = 32
	saltLen      = 16
)

// hashPassword returns salt || key.
func hashPassword(password string) []byte {
	salt := make([]byte, saltLen)
	rand.Read(salt)
	key := argon2.IDKey([]byte(password), salt, argonTime, argonMemory, argonThreads, argonKeyLen)
	return append(salt, key...)
}

// dummyHash lets a login for an unknown e-mail spend the same work as one
// for a known e-mail. It is made on first use: an argon2id hash at package
// init would delay every start of hark and harkd.
var dummyHash = sync.OnceValue(func() []byte { return hashPassword("no such user; this hash only burns time") })

func checkPassword(stored []byte, password string) bool {
	known := len(stored) == saltLen+argonKeyLen
	if !known {
		stored = dummyHash()
	}
	key := argon2.IDKey([]byte(password), stored[:saltLen], argonTime, argonMemory, argonThreads, argonKeyLen)
	return subtle.ConstantTimeCompare(key, stored[saltLen:]) == 1 && known
}

func isUniqueViolation(err error) bool {
	return err != nil && strings.Contains(err.Error(), "UNIQUE constraint failed")
}
