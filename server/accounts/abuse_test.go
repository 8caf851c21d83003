package accounts_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/harkhq/hark/server"
	"github.com/harkhq/hark/server/servertest"
)

type answer struct {
	status      int
	retryAfter  string
	Code        string `json:"code"`
	Description string `json:"description"`
	Token       string `json:"token"`
}

func postJSON(t *testing.T, url string, body any) answer {
	b, _ := json.Marshal(body)
	resp, err := http.Post(url, "application/json", bytes.NewReader(b))
	if err != nil {
		t.Error(err)
		return answer{}
	}
	defer resp.Body.Close()
	a := answer{status: resp.StatusCode, retryAfter: resp.Header.Get("Retry-After")}
	json.NewDecoder(resp.Body).Decode(&a)
	return a
}

// Fifty concurrent wrong passwords for one e-mail get no more password
// checks than five sequential ones would: an attempt counts before its
// hash is computed.
func TestConcurrentFailuresAreThrottledLikeSequential(t *testing.T) {
	p := servertest.Start(t, server.Config{})
	creds := map[string]string{"apiKey": p.PublicKey, "email": "victim@example.com", "password": "right password"}
	if a := postJSON(t, p.BaseURL+"/auth/register", creds); a.status != 201 {
		t.Fatalf("register: %+v", a)
	}
	const attempts = 50
	answers := make(chan answer, attempts)
	var wg sync.WaitGroup
	for i := range attempts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			answers <- postJSON(t, p.BaseURL+"/auth/login", map[string]string{"apiKey": p.PublicKey,
				"email": "victim@example.com", "password": "guess " + strconv.Itoa(i)})
		}()
	}
	wg.Wait()
	close(answers)
	checked := 0
	for a := range answers {
		switch {
		case a.status == 401 && a.Code == "InvalidCredentials":
			checked++
		case a.status == 429 && a.Code == "TooManyRequests" && a.retryAfter != "":
		default:
			t.Errorf("a guess got %+v", a)
		}
	}
	if checked > 5 {
		t.Fatalf("%d of %d concurrent guesses had their password checked; sequential guesses get 5", checked, attempts)
	}
	// The owner is throttled too for now, as after 5 sequential failures.
	if a := postJSON(t, p.BaseURL+"/auth/login", creds); a.status != 429 {
		t.Fatalf("the right password right after the guesses: %+v", a)
	}
}

// Registration and login are limited per workspace and, before that,
// per client address, with 429 TooManyRequests and Retry-After.
func TestSignInRateLimits(t *testing.T) {
	p := servertest.Start(t, server.Config{AuthRate: 0.01, AuthBurst: 3, AuthWorkspaceRate: 0.01, AuthWorkspaceBurst: 2})
	register := func(i int) answer {
		return postJSON(t, p.BaseURL+"/auth/register", map[string]string{"apiKey": p.PublicKey,
			"email": "b" + strconv.Itoa(i) + "@example.com", "password": "long enough"})
	}
	for i := range 2 {
		if a := register(i); a.status != 201 {
			t.Fatalf("registration %d: %+v", i+1, a)
		}
	}
	if a := register(2); a.status != 429 || a.Code != "TooManyRequests" || a.retryAfter == "" ||
		!strings.Contains(a.Description, "for this application") {
		t.Fatalf("the third registration in the workspace: %+v", a)
	}
	if a := register(3); a.status != 429 || a.retryAfter == "" || !strings.Contains(a.Description, "from this address") {
		t.Fatalf("the fourth request from the address: %+v", a)
	}
}
