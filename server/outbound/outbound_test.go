package outbound

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"
)

func TestCheck(t *testing.T) {
	a := NewAllowlist("import", []string{"data.example", "127.0.0.1:8700", " [::1] ", "169.254.169.254", "[::2]:8080"})
	ok := []string{"http://data.example/x.csv", "https://DATA.example/x", "http://data.example:443/x", "https://data.example:80/x",
		"http://127.0.0.1:8700/v2/datasets/london.json", "http://[::1]/x", "https://[::1]:443/x", "http://[::2]:8080/x"}
	for _, s := range ok {
		u, _ := url.Parse(s)
		if err := a.Check(u); err != nil {
			t.Errorf("%s refused: %v", s, err)
		}
	}
	bad := map[string]string{
		"ftp://data.example/x":    "http or https",
		"http://other.example/x":  "not on the import allowlist",
		"http://127.0.0.1:8701/x": "not on the import allowlist",
		// a host alone allows 80 and 443, not the host's other services
		"https://data.example:9999/x":   "not on the import allowlist",
		"http://data.example:8080/x":    "not on the import allowlist",
		"http://[::1]:5/x":              "not on the import allowlist",
		"http://127.0.0.1/x":            "not on the import allowlist",
		"http://[::2]/x":                "not on the import allowlist",
		"http://user:pw@data.example/x": "credentials",
		"http://169.254.169.254/latest": "link-local",
		"http://[fe80::1]/x":            "link-local",
		"http:///x":                     "no host",
		"file:///etc/passwd":            "http or https",
		"http://[::ffff:169.254.1.1]/x": "link-local",
	}
	for s, why := range bad {
		u, err := url.Parse(s)
		if err != nil {
			continue
		}
		if err := a.Check(u); err == nil || !strings.Contains(err.Error(), why) {
			t.Errorf("%s: %v, want %q", s, err, why)
		}
	}
}

func TestRedirectsAreChecked(t *testing.T) {
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("secret")) }))
	defer target.Close()
	hop := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target.URL+"/x", http.StatusFound)
	}))
	defer hop.Close()
	a := NewAllowlist("dataset", []string{hop.Listener.Addr().String()})
	_, err := a.Client(nil, time.Second, false).Get(hop.URL)
	if err == nil || !strings.Contains(err.Error(), "refused") {
		t.Fatalf("a redirect off the allowlist was followed: %v", err)
	}
}

func TestDialRefusesLinkLocal(t *testing.T) {
	for _, addr := range []string{"169.254.169.254:80", "[fe80::1]:443", "[::ffff:169.254.0.1]:80"} {
		if err := refuseLinkLocal("tcp", addr, nil); !errors.Is(err, ErrLinkLocal) {
			t.Errorf("refuseLinkLocal(%s) = %v", addr, err)
		}
	}
	for _, addr := range []string{"127.0.0.1:80", "[::1]:80", "93.184.216.34:443"} {
		if err := refuseLinkLocal("tcp", addr, nil); err != nil {
			t.Errorf("refuseLinkLocal(%s) = %v", addr, err)
		}
	}
}
