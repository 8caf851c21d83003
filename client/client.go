// Package client is the Go SDK of the hark platform: typed calls for the
// platform services (base and storage URLs) and the recommendation service,
// with request signing, access tokens, the Service-Request-Info header,
// error bodies as *APIError, and retries for 429 and 503 that honour
// Retry-After. It knows nothing of hark's UI or of the server's insides.
package client

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha1"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Config names the platform and the workspace keys.
type Config struct {
	BaseURL    string // e.g. http://127.0.0.1:8700/v2
	StorageURL string // defaults to BaseURL
	RecommURL  string // defaults to BaseURL + "/recomm"
	PublicKey  string
	PrivateKey string
	HTTPClient *http.Client // defaults to a client without overall timeout (streams)
	// Language (Accept-Language) and TimeZone (IANA name) go with every
	// dialogue and item request. An empty Language sends none: the server
	// answers a query in its own language. TimeZone defaults to the local
	// zone.
	Language string
	TimeZone string
	// MaxRetries for 429 and 503 answers; default 3, negative disables.
	MaxRetries int
	// Now is the clock used for signatures (tests).
	Now func() time.Time
}

// RequestInfo is the Service-Request-Info header. Ref is set per call
// (Dialogue.Text's ref); the client keeps the position.
type RequestInfo struct {
	Lat *float64 `json:"lat,omitempty"`
	Lon *float64 `json:"lon,omitempty"`
	Ref int64    `json:"ref,omitempty"`
}

// Client talks to one platform as one workspace and, once logged in, one user.
type Client struct {
	cfg  Config
	hc   *http.Client
	base *url.URL
	stor *url.URL
	rec  *url.URL

	mu    sync.RWMutex
	token string
	info  RequestInfo

	Auth       *AuthService
	Storage    *StorageService
	Dialogue   *DialogueService
	Surveys    *SurveysService
	Onboarding *OnboardingService
	Items      *ItemsService
	Tracking   *TrackingService
	Recomm     *RecommService
}

// New checks the configuration and builds a client.
func New(cfg Config) (*Client, error) {
	if cfg.BaseURL == "" {
		return nil, errors.New("client: BaseURL is required")
	}
	if cfg.StorageURL == "" {
		cfg.StorageURL = cfg.BaseURL
	}
	if cfg.RecommURL == "" {
		cfg.RecommURL = strings.TrimSuffix(cfg.BaseURL, "/") + "/recomm"
	}
	if cfg.TimeZone == "" {
		cfg.TimeZone = localZoneName()
	}
	if cfg.MaxRetries == 0 {
		cfg.MaxRetries = 3
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	c := &Client{cfg: cfg, hc: cfg.HTTPClient}
	if c.hc == nil {
		c.hc = &http.Client{Transport: NewTransport()}
	}
	var err error
	for _, u := range []struct {
		name, raw string
		dst       **url.URL
	}{{"BaseURL", cfg.BaseURL, &c.base}, {"StorageURL", cfg.StorageURL, &c.stor}, {"RecommURL", cfg.RecommURL, &c.rec}} {
		if *u.dst, err = url.Parse(strings.TrimSuffix(u.raw, "/")); err != nil {
			return nil, fmt.Errorf("client: %s: %w", u.name, err)
		}
		if (*u.dst).Scheme != "http" && (*u.dst).Scheme != "https" || (*u.dst).Host == "" {
			return nil, fmt.Errorf("client: %s %q must be an absolute http(s) URL", u.name, u.raw)
		}
	}
	c.Auth = &AuthService{c: c}
	c.Storage = &StorageService{c: c}
	c.Dialogue = &DialogueService{c: c}
	c.Surveys = &SurveysService{c: c}
	c.Onboarding = &OnboardingService{c: c}
	c.Items = &ItemsService{c: c}
	c.Tracking = &TrackingService{c: c}
	c.Recomm = &RecommService{c: c}
	return c, nil
}

// NewTransport is the transport a client uses when Config.HTTPClient is
// nil, for callers that wrap it. Its connection buffers are larger than
// net/http's 4 KiB: uploads and downloads of big files then move in few,
// large system calls.
func NewTransport() *http.Transport {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.WriteBufferSize = 256 << 10
	tr.ReadBufferSize = 256 << 10
	tr.MaxIdleConnsPerHost = 16
	return tr
}

// SetToken sets the access token sent to token-authenticated endpoints.
func (c *Client) SetToken(token string) {
	c.mu.Lock()
	c.token = token
	c.mu.Unlock()
}

// Token is the current access token ("" when logged out).
func (c *Client) Token() string {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.token
}

// SetRequestInfo sets the Service-Request-Info sent with dialogue and item
// requests (position and conversation ref).
func (c *Client) SetRequestInfo(info RequestInfo) {
	c.mu.Lock()
	c.info = info
	c.mu.Unlock()
}

// RequestInfo is the current Service-Request-Info.
func (c *Client) RequestInfo() RequestInfo {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.info
}

// Config returns the configuration in use.
func (c *Client) Config() Config {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.cfg
}

// SetLanguage changes the Accept-Language of the requests that follow
// ("en" or "es"; "" sends none, so each query is answered in its own
// language), as a person switches language in the app.
func (c *Client) SetLanguage(lang string) {
	c.mu.Lock()
	c.cfg.Language = lang
	c.mu.Unlock()
}

// APIError is an error answer of the platform.
type APIError struct {
	Status      int    `json:"-"`
	Code        string `json:"code"`
	Description string `json:"description"`
	// RetryAfter is the server's Retry-After, when it sent one.
	RetryAfter time.Duration `json:"-"`
}

func (e *APIError) Error() string {
	if e.Description == "" {
		return fmt.Sprintf("%d %s", e.Status, e.Code)
	}
	return fmt.Sprintf("%d %s: %s", e.Status, e.Code, e.Description)
}

// IsCode tells whether err is an *APIError with the given code.
func IsCode(err error, code string) bool {
	var e *APIError
	return errors.As(err, &e) && e.Code == code
}

// IsNotFound reports whether err is the platform's 404.
func IsNotFound(err error) bool {
	var e *APIError
	return errors.As(err, &e) && e.Status == http.StatusNotFound
}

// Sign returns the Base64 HMAC-SHA1 of "<resource>:<timestamp>:<nonce>".
func Sign(privateKey, resource, timestamp, nonce string) string {
	m := hmac.New(sha1.New, []byte(privateKey))
	fmt.Fprintf(m, "%s:%s:%s", resource, timestamp, nonce)
	return base64.StdEncoding.EncodeToString(m.Sum(nil))
}

type authKind int

const (
	authNone authKind = iota
	authSigned
	authToken
)

type service int

const (
	serviceBase service = iota
	serviceStorage
	serviceRecomm
)

// request describes one call. body, when set, returns a fresh reader per
// attempt so the call can be retried; a call whose body can't be replayed
// sets noRetry.
type request struct {
	method      string
	service     service
	path        string // below the service URL, escaped segments
	query       url.Values
	auth        authKind
	body        func() (io.Reader, error)
	length      int64 // -1 when unknown (chunked)
	contentType string
	header      http.Header
	requestInfo bool
	ref         int64 // overrides RequestInfo.Ref for this call
	noRetry     bool
}

func jsonBody(v any) (func() (io.Reader, error), int64, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, 0, err
	}
	return func() (io.Reader, error) { return bytes.NewReader(b), nil }, int64(len(b)), nil
}

func (c *Client) serviceURL(s service) *url.URL {
	switch s {
	case serviceStorage:
		return c.stor
	case serviceRecomm:
		return c.rec
	}
	return c.base
}

// PathEscape joins path segments, escaping each.
func pathOf(segments ...string) string {
	var b strings.Builder
	for _, s := range segments {
		b.WriteByte('/')
		b.WriteString(url.PathEscape(s))
	}
	return b.String()
}

func (c *Client) build(ctx context.Context, r *request) (*http.Request, error) {
	u := *c.serviceURL(r.service)
	u.RawPath = u.EscapedPath() + r.path
	p, err := url.PathUnescape(u.RawPath)
	if err != nil {
		return nil, fmt.Errorf("bad path %q: %w", r.path, err)
	}
	u.Path = p
	if len(r.query) > 0 {
		u.RawQuery = r.query.Encode()
	}
	var body io.Reader
	if r.body != nil {
		if body, err = r.body(); err != nil {
			return nil, err
		}
	}
	req, err := http.NewRequestWithContext(ctx, r.method, u.String(), body)
	if err != nil {
		return nil, err
	}
	if r.body != nil {
		req.ContentLength = r.length
		if r.length == 0 {
			req.Body = http.NoBody
		}
	}
	for k, v := range r.header {
		req.Header[k] = v
	}
	if r.contentType != "" {
		req.Header.Set("Content-Type", r.contentType)
	}
	if req.Header.Get("Accept") == "" {
		req.Header.Set("Accept", "application/json")
	}
	switch r.auth {
	case authSigned:
		c.sign(req)
	case authToken:
		if tok := c.Token(); tok != "" {
			req.Header.Set("Authorization", "Basic "+tok)
		}
	}
	if r.requestInfo {
		ri := c.RequestInfo()
		ri.Ref = r.ref
		info, _ := json.Marshal(ri)
		req.Header.Set("Service-Request-Info", string(info))
		c.mu.RLock()
		lang := c.cfg.Language
		c.mu.RUnlock()
		if lang != "" {
			req.Header.Set("Accept-Language", lang)
		}
		req.Header.Set("Time-Zone", c.cfg.TimeZone)
	}
	return req, nil
}

// sign adds the signature headers. The signed resource is the path as sent
// with its query, which the server accepts alongside the path alone.
func (c *Client) sign(req *http.Request) {
	ts := strconv.FormatInt(c.cfg.Now().UnixMilli(), 10)
	nonceBytes := make([]byte, 16)
	rand.Read(nonceBytes)
	nonce := hex.EncodeToString(nonceBytes)
	resource := req.URL.EscapedPath()
	if req.URL.RawQuery != "" {
		resource += "?" + req.URL.RawQuery
	}
	req.Header.Set("X-Service-apikey", c.cfg.PublicKey)
	req.Header.Set("X-Service-timestamp", ts)
	req.Header.Set("X-Service-nonce", nonce)
	req.Header.Set("X-Service-hmac", Sign(c.cfg.PrivateKey, resource, ts, nonce))
}

// do sends r, retrying 429 and 503 answers, and returns the response of a
// successful status; error statuses come back as *APIError.
func (c *Client) do(ctx context.Context, r *request) (*http.Response, error) {
	attempts := 1 + max(c.cfg.MaxRetries, 0)
	if r.noRetry {
		attempts = 1
	}
	for attempt := 1; ; attempt++ {
		req, err := c.build(ctx, r)
		if err != nil {
			return nil, err
		}
		resp, err := c.hc.Do(req)
		if err != nil {
			return nil, err
		}
		if resp.StatusCode < 400 {
			return resp, nil
		}
		apiErr := readAPIError(resp)
		retryable := resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable
		if !retryable || attempt >= attempts {
			return nil, apiErr
		}
		wait := apiErr.RetryAfter
		if wait <= 0 {
			wait = time.Duration(100<<(attempt-1)) * time.Millisecond
		}
		if wait > 30*time.Second {
			return nil, apiErr // a long wait is the caller's decision
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-t.C:
		}
	}
}

func readAPIError(resp *http.Response) *APIError {
	defer resp.Body.Close()
	e := &APIError{Status: resp.StatusCode}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if json.Unmarshal(body, e) != nil || e.Code == "" {
		e.Code = http.StatusText(resp.StatusCode)
		e.Description = strings.TrimSpace(string(body))
		if len(e.Description) > 200 {
			e.Description = e.Description[:200] + "…"
		}
	}
	if s := resp.Header.Get("Retry-After"); s != "" {
		if secs, err := strconv.Atoi(s); err == nil && secs >= 0 {
			e.RetryAfter = time.Duration(secs) * time.Second
		}
	}
	return e
}

// doJSON sends r and decodes a JSON answer into out (nil discards it).
func (c *Client) doJSON(ctx context.Context, r *request, out any) error {
	resp, err := c.do(ctx, r)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if out == nil {
		io.Copy(io.Discard, resp.Body)
		return nil
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return fmt.Errorf("%s %s: the server answered malformed JSON: %w", r.method, r.path, err)
	}
	return nil
}

func localZoneName() string {
	if tz := time.Local.String(); tz != "" && tz != "Local" {
		return tz
	}
	return "UTC"
}

func decodeBody(resp *http.Response, out any) error {
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return fmt.Errorf("%s %s: the server answered malformed JSON: %w", resp.Request.Method, resp.Request.URL.Path, err)
	}
	return nil
}
