package client_test

import (
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/harkhq/hark/client"
	"github.com/harkhq/hark/server"
)

func TestRegisterLoginLogout(t *testing.T) {
	c, _ := newClient(t, server.Config{})
	ctx := ctxT(t)

	tok, err := c.Auth.Register(ctx, "Ana@Example.com", "correct horse", "Ana", "dev-1")
	if err != nil {
		t.Fatal(err)
	}
	if tok.Type != "basic" || len(tok.Token) < 40 || !strings.HasPrefix(tok.Username, "u_") || len(tok.Username) != 14 {
		t.Fatalf("register answered %+v", tok)
	}
	ttl := time.Until(time.UnixMilli(tok.Expires))
	if ttl < 29*24*time.Hour || ttl > 30*24*time.Hour+time.Minute {
		t.Fatalf("token lives %s, want 30 days", ttl)
	}
	if c.Token() != tok.Token {
		t.Fatal("the client did not keep the token")
	}

	_, err = c.Auth.Register(ctx, "ana@example.com", "another password", "Ana 2", "dev-2")
	wantCode(t, err, http.StatusConflict, "EntityAlreadyExists")

	login, err := c.Auth.Login(ctx, "ana@example.com", "correct horse", "dev-1")
	if err != nil {
		t.Fatal(err)
	}
	if login.Token == tok.Token || login.Username != "" {
		t.Fatalf("login answered %+v", login)
	}

	if err := c.Auth.Logout(ctx); err != nil {
		t.Fatal(err)
	}
	if c.Token() != "" {
		t.Fatal("logout kept the token")
	}
	// The logged-out token is refused at once.
	c.SetToken(login.Token)
	wantCode(t, c.Auth.Logout(ctx), http.StatusUnauthorized, "TokenExpired")
	// The first token is still valid: logout revokes only its own token.
	c.SetToken(tok.Token)
	if err := c.Auth.Logout(ctx); err != nil {
		t.Fatalf("logout of the register token: %v", err)
	}
}

func TestRegisterRules(t *testing.T) {
	c, p := newClient(t, server.Config{})
	ctx := ctxT(t)
	cases := []struct {
		email, password string
		status          int
		code            string
	}{
		{"not-an-email", "long enough", 400, "InvalidArgument"},
		{"a@b", "long enough", 400, "InvalidArgument"},
		{"Ana <ana@example.com>", "long enough", 400, "InvalidArgument"},
		{"", "long enough", 400, "InvalidArgument"},
		{"ok@example.com", "short", 400, "InvalidArgument"},
		{"ok@example.com", "", 400, "InvalidArgument"},
	}
	for _, tc := range cases {
		_, err := c.Auth.Register(ctx, tc.email, tc.password, "x", "d")
		wantCode(t, err, tc.status, tc.code)
	}
	bad := clientFor(t, p, "pk_nobody", "whatever")
	_, err := bad.Auth.Register(ctx, "ok@example.com", "long enough", "x", "d")
	wantCode(t, err, 401, "UnknownApiKey")

	if err := p.Server.Workspaces.SetRegistration(ctx, p.PublicKey, false); err != nil {
		t.Fatal(err)
	}
	_, err = c.Auth.Register(ctx, "ok@example.com", "long enough", "x", "d")
	wantCode(t, err, 403, "Forbidden")
}

func TestLoginFailuresLookAlikeAndAreThrottled(t *testing.T) {
	c, _ := newClient(t, server.Config{})
	ctx := ctxT(t)
	if _, err := c.Auth.Register(ctx, "bob@example.com", "bob's password", "Bob", "d"); err != nil {
		t.Fatal(err)
	}
	_, errWrong := c.Auth.Login(ctx, "bob@example.com", "wrong password", "d")
	_, errUnknown := c.Auth.Login(ctx, "nobody@example.com", "wrong password", "d")
	wantCode(t, errWrong, 401, "InvalidCredentials")
	wantCode(t, errUnknown, 401, "InvalidCredentials")
	if errWrong.Error() != errUnknown.Error() {
		t.Fatalf("unknown e-mail and wrong password differ: %q vs %q", errWrong, errUnknown)
	}

	noRetry, _ := client.New(client.Config{BaseURL: c.Config().BaseURL, PublicKey: c.Config().PublicKey, MaxRetries: -1})
	var throttled *client.APIError
	for i := 0; i < 10 && throttled == nil; i++ {
		_, err := noRetry.Auth.Login(ctx, "bob@example.com", "wrong password", "d")
		if e, ok := err.(*client.APIError); ok && e.Status == http.StatusTooManyRequests {
			throttled = e
		}
	}
	if throttled == nil || throttled.Code != "TooManyRequests" || throttled.RetryAfter <= 0 {
		t.Fatalf("repeated failures were not throttled with Retry-After: %+v", throttled)
	}
	// Even the right password waits while throttled.
	_, err := noRetry.Auth.Login(ctx, "bob@example.com", "bob's password", "d")
	wantCode(t, err, 429, "TooManyRequests")
}

func TestTokenExpires(t *testing.T) {
	c, _ := newClient(t, server.Config{TokenTTL: 300 * time.Millisecond})
	ctx := ctxT(t)
	if _, err := c.Auth.Register(ctx, "eve@example.com", "eve's password", "Eve", "d"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(400 * time.Millisecond)
	wantCode(t, c.Auth.Logout(ctx), 401, "TokenExpired")
}

func TestAnonymousUsers(t *testing.T) {
	c, p := newClient(t, server.Config{})
	ctx := ctxT(t)
	tok, created, err := c.Auth.Anonymous(ctx, "device-42", "dev", "Guest")
	if err != nil || !created || !strings.HasPrefix(tok.Username, "u_") {
		t.Fatalf("first anonymous call: %+v created=%v err=%v", tok, created, err)
	}
	tok2, created, err := c.Auth.Anonymous(ctx, "device-42", "dev", "")
	if err != nil || created || tok2.Username != tok.Username || tok2.Token == tok.Token {
		t.Fatalf("second anonymous call: %+v created=%v err=%v", tok2, created, err)
	}
	for _, bad := range []string{"", "a/b", "a.b", "a:b", strings.Repeat("x", 256)} {
		_, _, err := c.Auth.Anonymous(ctx, bad, "dev", "")
		wantCode(t, err, 400, "InvalidArgument")
	}
	// The same externalId in another workspace is another user.
	other, err := p.Server.Workspaces.Create(ctx, "other")
	if err != nil {
		t.Fatal(err)
	}
	c2 := clientFor(t, p, other.PublicKey, other.PrivateKey)
	tok3, created, err := c2.Auth.Anonymous(ctx, "device-42", "dev", "")
	if err != nil || !created || tok3.Username == tok.Username {
		t.Fatalf("other workspace: %+v created=%v err=%v", tok3, created, err)
	}
	// Concurrent first calls create one user.
	var wg sync.WaitGroup
	names := make([]string, 8)
	for i := range names {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			cc := clientFor(t, p, p.PublicKey, p.PrivateKey)
			tok, _, err := cc.Auth.Anonymous(ctx, "racer", "dev", "")
			if err != nil {
				t.Error(err)
			}
			names[i] = tok.Username
		}(i)
	}
	wg.Wait()
	for _, n := range names {
		if n != names[0] {
			t.Fatalf("concurrent anonymous logins made different users: %v", names)
		}
	}
}
