package ui

import (
	"github.com/harkhq/hark/ui/common"
	"github.com/harkhq/hark/ui/internal/uitest"
	"net/http"
	"strings"
	"testing"

	"github.com/harkhq/hark/client"
)

func fillSignIn(t *testing.T, a *App, email, password, name string) {
	t.Helper()
	typeText(t, a, email)
	press(t, a, "tab")
	typeText(t, a, password)
	if name != "" {
		press(t, a, "tab")
		typeText(t, a, name)
	}
	press(t, a, "enter")
}

func TestRegisterThenConflictThenWrongPassword(t *testing.T) {
	c := uitest.PlatformClient(t)
	opt := testOptions(c, false)
	store := opt.Sessions.(*uitest.MemSessions)
	a := newTestApp(t, opt, 80, 24)
	press(t, a, "ctrl+n") // register
	fillSignIn(t, a, "ann@example.com", "correct horse", "Ann")
	if a.ctx.Session.Token == "" || c.Token() == "" {
		t.Fatalf("not signed in; screen:\n%s", a.View())
	}
	if len(store.Saved) == 0 || store.Saved[0].Email != "ann@example.com" {
		t.Fatalf("session not saved: %+v", store.Saved)
	}
	// Onboarding is not served by every platform: the console opens anyway.
	if a.active != common.ScreenConsole && a.active != common.ScreenOnboarding {
		t.Fatalf("after register the active screen is %v", a.active)
	}

	// A second registration with the same e-mail: 409, explained in place.
	b := newTestApp(t, testOptions(c, false), 80, 24)
	press(t, b, "ctrl+n")
	fillSignIn(t, b, "ann@example.com", "correct horse", "Ann")
	if v := b.View(); !strings.Contains(v, "already exists") || b.active != common.ScreenSignIn {
		t.Fatalf("409 not shown in place:\n%s", v)
	}
	// Log in with a wrong password: 401 in place, the password field emptied by nothing.
	d := newTestApp(t, testOptions(c, false), 80, 24)
	fillSignIn(t, d, "ann@example.com", "wrong password", "")
	if v := d.View(); !strings.Contains(v, "Wrong e-mail or password") {
		t.Fatalf("401 not shown:\n%s", v)
	}
	// And the right one works.
	e := newTestApp(t, testOptions(c, false), 80, 24)
	fillSignIn(t, e, "ann@example.com", "correct horse", "")
	if e.ctx.Session.Token == "" {
		t.Fatalf("login failed:\n%s", e.View())
	}
}

func TestAnonymousKeepsTheExternalID(t *testing.T) {
	c := uitest.PlatformClient(t)
	opt := testOptions(c, false)
	a := newTestApp(t, opt, 80, 24)
	press(t, a, "ctrl+n")
	press(t, a, "ctrl+n") // anonymous
	typeText(t, a, "Kim")
	press(t, a, "enter")
	if !a.ctx.Session.Anonymous || a.ctx.Session.Token == "" {
		t.Fatalf("anonymous sign-in failed:\n%s", a.View())
	}
	if opt.Sessions.(*uitest.MemSessions).ID == "" {
		t.Fatal("the external id was not asked for")
	}
}

func TestSignInLocalChecks(t *testing.T) {
	f := uitest.NewFakePlatform(t)
	a := newTestApp(t, testOptions(f.Client(t), false), 80, 24)
	fillSignIn(t, a, "not-an-email", "x", "")
	if !strings.Contains(a.View(), "Enter an e-mail address") {
		t.Fatalf("bad e-mail accepted:\n%s", a.View())
	}
	if len(f.Seen("POST /v2/auth/login")) != 0 {
		t.Fatal("a request went out for a form that fails its own checks")
	}
}

func TestSignInRateLimitedShowsTheWait(t *testing.T) {
	f := uitest.NewFakePlatform(t)
	f.Handle("POST /v2/auth/login", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "42")
		w.WriteHeader(429)
		w.Write([]byte(`{"code":"TooManyRequests","description":"slow down"}`))
	})
	a := newTestApp(t, testOptions(f.Client(t), false), 80, 24)
	fillSignIn(t, a, "ann@example.com", "whatever1", "")
	if v := a.View(); !strings.Contains(v, "Wait 42s") {
		t.Fatalf("429 wait not shown:\n%s", v)
	}
}

func TestUnreachableAndGarbageServers(t *testing.T) {
	f := uitest.NewFakePlatform(t)
	f.JSON("POST /v2/auth/login", 200, "<html>not json")
	a := newTestApp(t, testOptions(f.Client(t), false), 80, 24)
	fillSignIn(t, a, "ann@example.com", "whatever1", "")
	if v := a.View(); !strings.Contains(v, "does not understand") {
		t.Fatalf("garbage answer not explained:\n%s", v)
	}
	f.JSON("POST /v2/auth/login", 500, "internal trouble")
	press(t, a, "enter")
	if v := a.View(); !strings.Contains(v, "The platform failed") {
		t.Fatalf("500 not explained:\n%s", v)
	}
	dead, err := client.New(client.Config{BaseURL: "http://127.0.0.1:1/v2", PublicKey: "pk", PrivateKey: "sk", MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	b := newTestApp(t, testOptions(dead, false), 80, 24)
	fillSignIn(t, b, "ann@example.com", "whatever1", "")
	if v := b.View(); !strings.Contains(v, "hark cannot reach the platform at 127.0.0.1:1: is harkd running?") {
		t.Fatalf("unreachable server not explained:\n%s", v)
	}
}
