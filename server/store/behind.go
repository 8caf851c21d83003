package store

import (
	"sync"
	"time"
)

// Behind runs a flush on one goroutine of its own, after a Wake, at most
// once per interval, so that a burst of changes costs one commit and the
// request that made them never waits for the database. Close runs a last
// flush and waits for it.
type Behind struct {
	wake, stop, done chan struct{}
	once             sync.Once
}

// WriteBehind starts the goroutine.
func WriteBehind(interval time.Duration, flush func()) *Behind {
	b := &Behind{wake: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(b.done)
		for {
			select {
			case <-b.wake:
			case <-b.stop:
				flush()
				return
			}
			select {
			case <-time.After(interval):
				flush()
			case <-b.stop:
				flush() // the last one: a wake still pending flushes nothing more
				return
			}
		}
	}()
	return b
}

// Wake asks for a flush; it never blocks.
func (b *Behind) Wake() {
	select {
	case b.wake <- struct{}{}:
	default:
	}
}

// Close flushes what is left and stops; later calls do nothing.
func (b *Behind) Close() {
	b.once.Do(func() {
		close(b.stop)
		<-b.done
	})
}
