package items

import "sync"

// memo keeps the last value built for a key. The sandbox's lists depend
// only on the city and the hour or day asked for, so one slot per city and
// domain makes repeated requests cheap while memory stays bounded. Values
// are shared: callers must treat them as read-only.
type memo[T any] struct {
	mu    sync.Mutex
	key   string
	val   T
	valid bool
}

func (m *memo[T]) get(key string, build func() T) T {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.valid && m.key == key {
		return m.val
	}
	m.key, m.val, m.valid = key, build(), true
	return m.val
}

// cityMemos are the caches of one city.
type cityMemos struct {
	restaurants memo[[]Restaurant]
	articles    memo[[]Article]
	showings    memo[[]Showing]
	standings   memo[Standings]
	programmes  memo[[]Programme]
}
