package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/harkhq/hark/server"
	"github.com/harkhq/hark/server/servertest"
)

// steady starts a platform and waits for the speech models, which load in
// the background, so their loading is not measured.
func steady(b *testing.B) *servertest.Platform {
	p := servertest.Start(b, server.Config{})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	p.Server.Recognizer(ctx)
	return p
}

// tokenFor logs in an anonymous user and returns its access token.
func tokenFor(b *testing.B, p *servertest.Platform, id string) string {
	body := fmt.Sprintf(`{"externalId": %q}`, id)
	req, _ := http.NewRequest("POST", p.BaseURL+"/auth/user", bytes.NewBufferString(body))
	signed{key: p.PublicKey, secret: p.PrivateKey, resource: "/v2/auth/user", nonce: id, at: time.Now()}.apply(req)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	var tok struct{ Token string }
	if err := json.NewDecoder(resp.Body).Decode(&tok); err != nil || tok.Token == "" {
		b.Fatalf("login: %d %v", resp.StatusCode, err)
	}
	return tok.Token
}

// latencies runs b.N requests from 64 concurrent clients and reports the
// p50 and p99 latency and the throughput.
func latencies(b *testing.B, newRequest func() *http.Request) {
	const clients = 64
	tr := &http.Transport{MaxIdleConnsPerHost: clients}
	hc := &http.Client{Transport: tr}
	defer tr.CloseIdleConnections()
	work := make(chan struct{}, b.N)
	for i := 0; i < b.N; i++ {
		work <- struct{}{}
	}
	close(work)
	var mu sync.Mutex
	var all []time.Duration
	var failed int
	var wg sync.WaitGroup
	b.ResetTimer()
	start := time.Now()
	for c := 0; c < clients; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mine []time.Duration
			for range work {
				t0 := time.Now()
				resp, err := hc.Do(newRequest())
				if err == nil {
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
				d := time.Since(t0)
				mu.Lock()
				if err != nil || resp.StatusCode != 200 {
					failed++
				}
				mu.Unlock()
				mine = append(mine, d)
			}
			mu.Lock()
			all = append(all, mine...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	if failed > 0 {
		b.Fatalf("%d of %d requests failed", failed, b.N)
	}
	sort.Slice(all, func(i, j int) bool { return all[i] < all[j] })
	pct := func(p float64) float64 { return float64(all[int(p*float64(len(all)-1))].Microseconds()) / 1000 }
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "req/s")
}

// BenchmarkQueryText: POST /query/text with 64 concurrent clients
// (target p99 <= 10 ms on 2 cores).
func BenchmarkQueryText(b *testing.B) {
	p := steady(b)
	token := tokenFor(b, p, "bench-text")
	queries := []string{"what time is it", "set a timer for five minutes", "what's the weather in Madrid",
		"turn on the lights", "play some jazz", "set an alarm for seven thirty am", "what's on tv", "tell me a joke"}
	var n int
	var mu sync.Mutex
	latencies(b, func() *http.Request {
		mu.Lock()
		q := queries[n%len(queries)]
		n++
		mu.Unlock()
		body, _ := json.Marshal(map[string]string{"q": q})
		req, _ := http.NewRequest("POST", p.BaseURL+"/query/text", bytes.NewReader(body))
		req.Header.Set("Authorization", "Basic "+token)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Service-Request-Info", `{"lat": 40.4168, "lon": -3.7038}`)
		return req
	})
}

// BenchmarkItemList: GET /items/restaurants with 64 concurrent clients
// (target p99 <= 5 ms on 2 cores).
func BenchmarkItemList(b *testing.B) {
	p := steady(b)
	token := tokenFor(b, p, "bench-items")
	latencies(b, func() *http.Request {
		req, _ := http.NewRequest("GET", p.BaseURL+"/items/restaurants?rowsPerPage=10", nil)
		req.Header.Set("Authorization", "Basic "+token)
		req.Header.Set("Service-Request-Info", `{"lat": 40.4168, "lon": -3.7038}`)
		return req
	})
}
