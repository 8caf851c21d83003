package dialogue

import (
	"container/list"
	"sync"
	"time"
)

// conversation is the state of a dialogue waiting for a slot.
type conversation struct {
	ref      int64
	userID   int64
	lang     string
	intent   string
	slots    map[string]slotVal
	awaiting string
	asks     int
	seen     time.Time
	elem     *list.Element
}

// conversations keeps open conversations in memory, least recently used
// first, so expiry and the size bound both drop from the front.
type conversations struct {
	mu    sync.Mutex
	byRef map[int64]*conversation
	order *list.List // of *conversation, least recently used at the front
	max   int
}

func newConversations(max int) *conversations {
	return &conversations{byRef: map[int64]*conversation{}, order: list.New(), max: max}
}

// take removes and returns the live conversation ref of userID. A ref of
// another user is treated as unknown: refs are not credentials, so one
// user cannot continue another's conversation by guessing.
func (cs *conversations) take(ref, userID int64, now time.Time) *conversation {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	cs.expire(now)
	c, ok := cs.byRef[ref]
	if !ok || c.userID != userID {
		return nil
	}
	cs.remove(c)
	if now.Sub(c.seen) > ConversationTTL {
		return nil
	}
	return c
}

// put stores c as the most recent conversation.
func (cs *conversations) put(c *conversation) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if old, ok := cs.byRef[c.ref]; ok {
		cs.remove(old)
	}
	cs.expire(c.seen)
	for len(cs.byRef) >= cs.max {
		cs.remove(cs.order.Front().Value.(*conversation))
	}
	c.elem = cs.order.PushBack(c)
	cs.byRef[c.ref] = c
}

// expire drops idle conversations from the front of the order.
func (cs *conversations) expire(now time.Time) {
	for f := cs.order.Front(); f != nil; f = cs.order.Front() {
		c := f.Value.(*conversation)
		if now.Sub(c.seen) <= ConversationTTL {
			return
		}
		cs.remove(c)
	}
}

func (cs *conversations) remove(c *conversation) {
	cs.order.Remove(c.elem)
	delete(cs.byRef, c.ref)
}

func (cs *conversations) len() int {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	return len(cs.byRef)
}
