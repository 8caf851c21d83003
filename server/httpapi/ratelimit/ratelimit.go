// Package ratelimit is a token bucket per key: per workspace, per user and
// per client address in the HTTP layer, per workspace for logins.
package ratelimit

import (
	"math"
	"sync"
	"time"
)

// Limiter holds one bucket per key. A bucket idle long enough to be full
// again carries no state and is swept, so memory follows the keys seen in
// the last burst/rate seconds, not all keys ever seen.
type Limiter[K comparable] struct {
	mu      sync.Mutex
	rate    float64
	burst   float64
	buckets map[K]*bucket
	swept   time.Time
}

type bucket struct {
	tokens float64
	last   time.Time
}

// New makes a limiter that lets each key spend rate tokens a second, at
// most burst at once.
func New[K comparable](rate, burst float64) *Limiter[K] {
	return &Limiter[K]{rate: rate, burst: max(burst, 1), buckets: make(map[K]*bucket)}
}

// sweepEvery is how often full buckets are dropped; a flood of new keys
// brings the sweep forward so the map cannot outgrow what it sheds.
const (
	sweepEvery = time.Minute
	sweepAbove = 1 << 16
)

// Take spends one token of key and returns zero, or how long to wait
// until one is there.
func (l *Limiter[K]) Take(key K, now time.Time) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	if since := now.Sub(l.swept); since > sweepEvery || (len(l.buckets) > sweepAbove && since > time.Second) {
		full := time.Duration(l.burst / l.rate * float64(time.Second))
		for k, b := range l.buckets {
			if now.Sub(b.last) > full {
				delete(l.buckets, k)
			}
		}
		l.swept = now
	}
	b, ok := l.buckets[key]
	if !ok {
		b = &bucket{tokens: l.burst, last: now}
		l.buckets[key] = b
	}
	b.tokens = math.Min(l.burst, b.tokens+now.Sub(b.last).Seconds()*l.rate)
	b.last = now
	if b.tokens >= 1 {
		b.tokens--
		return 0
	}
	return time.Duration((1 - b.tokens) / l.rate * float64(time.Second))
}
