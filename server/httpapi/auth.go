package httpapi

import (
	"crypto/hmac"
	"crypto/sha1"
	"encoding/base64"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/harkhq/hark/server/apierr"
)

// Signature headers (DECISIONS §1); Header.Get matches them case-insensitively.
const (
	HeaderAPIKey    = "X-Service-apikey"
	HeaderTimestamp = "X-Service-timestamp"
	HeaderNonce     = "X-Service-nonce"
	HeaderHMAC      = "X-Service-hmac"
)

func unauthorized(code, format string, args ...any) *apierr.Error {
	return apierr.New(http.StatusUnauthorized, code, format, args...)
}

// verifySignature checks the X-Service-* headers of r (DECISIONS §2): the
// key names a workspace, the timestamp is inside the window, the HMAC-SHA1
// matches the path with its query (or the path alone, as older clients
// sign) and the nonce was not seen inside the window.
func (a *API) verifySignature(r *http.Request) (Principal, *apierr.Error) {
	key := r.Header.Get(HeaderAPIKey)
	ts := r.Header.Get(HeaderTimestamp)
	nonce := r.Header.Get(HeaderNonce)
	mac := r.Header.Get(HeaderHMAC)
	if key == "" || ts == "" || nonce == "" || mac == "" {
		return Principal{}, unauthorized(apierr.MissingSignature,
			"the request needs the headers %s, %s, %s and %s", HeaderAPIKey, HeaderTimestamp, HeaderNonce, HeaderHMAC)
	}
	if len(nonce) > 128 {
		return Principal{}, unauthorized(apierr.InvalidSignature, "the nonce is longer than 128 characters")
	}
	ms, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return Principal{}, unauthorized(apierr.InvalidSignature, "the timestamp must be milliseconds since the epoch")
	}
	now := a.cfg.Now()
	skew := now.Sub(time.UnixMilli(ms))
	if math.Abs(float64(skew)) > float64(a.cfg.SignatureWindow) {
		return Principal{}, unauthorized(apierr.ExpiredSignature,
			"the timestamp is %s away from server time; the limit is %s", skew.Round(time.Millisecond), a.cfg.SignatureWindow)
	}
	wsID, secret, err := a.cfg.Keys.WorkspaceKey(r.Context(), key)
	if err != nil {
		if e, ok := apierr.As(err); ok {
			return Principal{}, e
		}
		a.cfg.Logger.Error("workspace key lookup", "err", err)
		return Principal{}, apierr.New(http.StatusInternalServerError, apierr.Internal, "internal error")
	}
	given, err := base64.StdEncoding.DecodeString(mac)
	if err != nil {
		return Principal{}, unauthorized(apierr.InvalidSignature, "the signature is not standard Base64")
	}
	path := r.URL.EscapedPath()
	ok := hmac.Equal(given, Sign(secret, path, ts, nonce))
	if !ok && r.URL.RawQuery != "" {
		ok = hmac.Equal(given, Sign(secret, path+"?"+r.URL.RawQuery, ts, nonce))
	}
	if !ok {
		return Principal{}, unauthorized(apierr.InvalidSignature, "the signature does not match the request")
	}
	// A nonce must outlive both windows its timestamp could fall in. Header
	// values cannot hold a line feed, so it separates key and nonce
	// unambiguously (PostgreSQL text refuses the NUL used before).
	k, until := key+"\n"+nonce, now.Add(2*a.cfg.SignatureWindow)
	fresh := true
	if a.cfg.Nonces != nil {
		if fresh, err = a.cfg.Nonces.UseNonce(r.Context(), k, until, now); err != nil {
			a.cfg.Logger.Error("nonce store", "err", err)
			return Principal{}, apierr.New(http.StatusInternalServerError, apierr.Internal, "internal error")
		}
	} else {
		fresh = a.nonces.add(k, until, now)
	}
	if !fresh {
		return Principal{}, unauthorized(apierr.ReplayedNonce, "this nonce was already used")
	}
	return Principal{WorkspaceID: wsID}, nil
}

// Sign computes the HMAC-SHA1 over "<resource>:<timestamp>:<nonce>".
func Sign(secret, resource, timestamp, nonce string) []byte {
	m := hmac.New(sha1.New, []byte(secret))
	m.Write([]byte(resource))
	m.Write([]byte{':'})
	m.Write([]byte(timestamp))
	m.Write([]byte{':'})
	m.Write([]byte(nonce))
	return m.Sum(nil)
}

// authenticateToken reads "Authorization: Basic|Bearer <token>".
func (a *API) authenticateToken(r *http.Request) (Principal, *apierr.Error) {
	h := r.Header.Get("Authorization")
	scheme, token, found := strings.Cut(h, " ")
	if !found || token == "" || !(strings.EqualFold(scheme, "Basic") || strings.EqualFold(scheme, "Bearer")) {
		return Principal{}, unauthorized(apierr.TokenExpired, "the request needs an access token: Authorization: Basic <token>")
	}
	p, err := a.cfg.Tokens.Authenticate(r.Context(), strings.TrimSpace(token))
	if err != nil {
		if e, ok := apierr.As(err); ok {
			return Principal{}, e
		}
		a.cfg.Logger.Error("token lookup", "err", err)
		return Principal{}, apierr.New(http.StatusInternalServerError, apierr.Internal, "internal error")
	}
	return p, nil
}

// AccessToken returns the access token a request carries, for logout.
func AccessToken(r *http.Request) string {
	_, token, _ := strings.Cut(r.Header.Get("Authorization"), " ")
	return strings.TrimSpace(token)
}

func (a *API) checkRate(p Principal) *apierr.Error {
	now := a.cfg.Now()
	if wait := a.wsRate.Take(p.WorkspaceID, now); wait > 0 {
		return TooMany(wait, "too many requests")
	}
	if p.UserID != 0 {
		if wait := a.userRate.Take(p.UserID, now); wait > 0 {
			return TooMany(wait, "too many requests")
		}
	}
	return nil
}

// TooMany is the 429 TooManyRequests answer: what happened, and when to
// come back, in the description and in Retry-After.
func TooMany(wait time.Duration, what string) *apierr.Error {
	e := apierr.New(http.StatusTooManyRequests, apierr.TooManyRequests, "%s; retry in %s", what, wait.Round(time.Millisecond))
	e.RetryAfter = int(math.Ceil(wait.Seconds()))
	return e
}

// nonceCache remembers nonces until their window ends. Expired entries are
// swept as new ones arrive, so memory is bounded by the request rate times
// the window.
type nonceCache struct {
	mu        sync.Mutex
	seen      map[string]time.Time
	nextSweep time.Time
}

func newNonceCache() *nonceCache { return &nonceCache{seen: make(map[string]time.Time)} }

func (c *nonceCache) add(k string, until, now time.Time) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if now.After(c.nextSweep) {
		for key, t := range c.seen {
			if now.After(t) {
				delete(c.seen, key)
			}
		}
		c.nextSweep = now.Add(time.Second)
	}
	if t, ok := c.seen[k]; ok && !now.After(t) {
		return false
	}
	c.seen[k] = until
	return true
}
