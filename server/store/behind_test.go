package store

import (
	"sync/atomic"
	"testing"
	"time"
)

// A burst of wakes within the interval costs one flush, and Close flushes
// what is left even when the interval has not passed.
func TestWriteBehindBatchesAndFlushesOnClose(t *testing.T) {
	var flushes atomic.Int32
	b := WriteBehind(time.Hour, func() { flushes.Add(1) })
	for range 100 {
		b.Wake()
	}
	if n := flushes.Load(); n != 0 {
		t.Fatalf("%d flushes before the interval passed", n)
	}
	b.Close()
	b.Close()
	if n := flushes.Load(); n != 1 {
		t.Fatalf("100 wakes and Close: %d flushes, want 1", n)
	}
}
