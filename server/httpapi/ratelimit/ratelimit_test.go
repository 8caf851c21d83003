package ratelimit

import (
	"testing"
	"time"
)

func TestLimiter(t *testing.T) {
	l := New[int64](10, 2)
	now := time.Unix(0, 0)
	if l.Take(1, now) != 0 || l.Take(1, now) != 0 {
		t.Fatal("the burst was not available")
	}
	wait := l.Take(1, now)
	if wait <= 0 || wait > 100*time.Millisecond {
		t.Fatalf("third take waits %s", wait)
	}
	if l.Take(2, now) != 0 {
		t.Fatal("another key shares the bucket")
	}
	if l.Take(1, now.Add(100*time.Millisecond)) != 0 {
		t.Fatal("the bucket did not refill")
	}
}

// A flood of distinct keys (addresses) does not grow the map without
// bound: full buckets are shed once it passes sweepAbove.
func TestLimiterShedsIdleKeys(t *testing.T) {
	l := New[int](1000, 1)
	now := time.Unix(0, 0)
	for i := 0; i < 4*sweepAbove; i++ {
		now = now.Add(time.Millisecond)
		l.Take(i, now)
	}
	if n := len(l.buckets); n > sweepAbove+1100 {
		t.Fatalf("%d buckets kept", n)
	}
}
