package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/harkhq/hark/server"
	"github.com/harkhq/hark/server/servertest"
	"github.com/harkhq/hark/server/speechworker"
)

// login returns an access token of an anonymous user.
func login(t testing.TB, p *servertest.Platform, id string) string {
	t.Helper()
	body := fmt.Sprintf(`{"externalId": %q}`, id)
	req, _ := http.NewRequest("POST", p.BaseURL+"/auth/user", bytes.NewBufferString(body))
	signed{key: p.PublicKey, secret: p.PrivateKey, resource: "/v2/auth/user", nonce: id, at: time.Now()}.apply(req)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var tok struct{ Token string }
	if err := json.NewDecoder(resp.Body).Decode(&tok); err != nil || tok.Token == "" {
		t.Fatalf("login: %d %v", resp.StatusCode, err)
	}
	return tok.Token
}

// answerAudio asks q in lang and returns the answer's audio URL.
func answerAudio(t testing.TB, p *servertest.Platform, token, lang, q string) string {
	t.Helper()
	body, _ := json.Marshal(map[string]string{"q": q})
	req, _ := http.NewRequest("POST", p.BaseURL+"/query/text", bytes.NewReader(body))
	req.Header.Set("Authorization", "Basic "+token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept-Language", lang)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var a struct {
		Responses struct{ Audio, Speech string }
	}
	if err := json.NewDecoder(resp.Body).Decode(&a); err != nil || resp.StatusCode != 200 || a.Responses.Audio == "" {
		t.Fatalf("%q: %d %v %+v", q, resp.StatusCode, err, a)
	}
	return a.Responses.Audio
}

// killBusy kills with sig the synthesis workers that serve a request
// (at most limit of them, 0 for no limit) until stopped.
func killBusy(pool *speechworker.Pool, sig syscall.Signal, limit int) (stop func() int) {
	done := make(chan struct{})
	var mu sync.Mutex
	killed := map[int]bool{}
	go func() {
		for {
			select {
			case <-done:
				return
			case <-time.After(time.Millisecond):
			}
			for _, pid := range pool.Stats().Busy {
				mu.Lock()
				if !killed[pid] && (limit == 0 || len(killed) < limit) {
					killed[pid] = true
					syscall.Kill(pid, sig)
				}
				mu.Unlock()
			}
		}
	}()
	return func() int {
		close(done)
		mu.Lock()
		defer mu.Unlock()
		return len(killed)
	}
}

// A synthesis worker that dies mid-request costs nothing but a retry; one
// that dies on every try gives a 503 with the JSON error body; harkd stays
// up throughout and the pool returns to its size.
func TestSpeechWorkerCrashes(t *testing.T) {
	p := servertest.Start(t, server.Config{})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := p.Server.Recognizer(ctx); err != nil {
		t.Skipf("speech is not available here: %v", err)
	}
	synth, _ := p.Server.SpeechWorkers()
	token := login(t, p, "crash-test")
	get := func(url string) *http.Response {
		t.Helper()
		resp, err := http.Get(url)
		if err != nil {
			t.Fatalf("harkd is down: %v", err)
		}
		return resp
	}
	recovered := func() speechworker.Stats {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for {
			st := synth.Stats()
			if st.Live >= 1 && st.Idle == st.Live {
				return st
			}
			if time.Now().After(deadline) {
				t.Fatalf("the synthesis pool did not recover: %+v", st)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	live := recovered().Live

	t.Run("KilledOnceIsRetried", func(t *testing.T) {
		url := answerAudio(t, p, token, "es", "pon una alarma a las siete")
		stop := killBusy(synth, syscall.SIGSEGV, 1)
		resp := get(url)
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if killed := stop(); killed != 1 {
			t.Fatalf("%d workers killed, want 1", killed)
		}
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "audio/mpeg" || len(body) < 1000 {
			t.Fatalf("after a crash: %d %s, %d bytes", resp.StatusCode, resp.Header.Get("Content-Type"), len(body))
		}
		if st := recovered(); st.Live != live || st.Restarts != 1 {
			t.Fatalf("pool after one crash: %+v, want %d live and 1 restart", st, live)
		}
	})

	t.Run("DyingEveryTimeAnswers503", func(t *testing.T) {
		url := answerAudio(t, p, token, "en", "tell me a joke")
		stop := killBusy(synth, syscall.SIGKILL, 0)
		resp := get(url)
		killed := stop()
		if resp.StatusCode != 503 {
			t.Fatalf("%d, want 503", resp.StatusCode)
		}
		code, desc := errorBody(t, resp)
		if code != "Unavailable" || desc != "speech synthesis failed twice; try again" {
			t.Fatalf("error body %q %q", code, desc)
		}
		if killed != 2 {
			t.Fatalf("%d workers killed, want 2", killed)
		}
		if st := recovered(); st.Live != live {
			t.Fatalf("pool after the crashes: %+v, want %d live", st, live)
		}
		// Nothing was kept of the failed synthesis: the next fetch speaks.
		resp = get(url)
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || len(body) < 1000 {
			t.Fatalf("after recovery: %d, %d bytes", resp.StatusCode, len(body))
		}
	})
	if resp := get(p.URL + "/healthz"); resp.StatusCode != 200 {
		t.Fatalf("/healthz: %d", resp.StatusCode)
	} else {
		resp.Body.Close()
	}
}
