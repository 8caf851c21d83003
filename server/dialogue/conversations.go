package dialogue

import (
	"container/list"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"sync"
	"time"

	"github.com/harkhq/hark/server/store"
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
// first, so expiry and the size bound both drop from the front. With a
// store (Engine.KeepConversationsIn) they are also written to the
// database, so another process on the same data (the next run of hark
// say, a console beside it) continues them.
type conversations struct {
	mu    sync.Mutex
	byRef map[int64]*conversation
	order *list.List // of *conversation, least recently used at the front
	max   int
	db    *conversationStore
}

func newConversations(max int) *conversations {
	return &conversations{byRef: map[int64]*conversation{}, order: list.New(), max: max}
}

// take removes and returns the live conversation ref of userID. A ref of
// another user is treated as unknown: refs are not credentials, so one
// user cannot continue another's conversation by guessing.
func (cs *conversations) take(ref, userID int64, now time.Time) *conversation {
	if cs.db != nil && cs.db.shared {
		// Several processes share the store: the table is the only copy,
		// and its conditional delete lets one request continue a turn.
		c := cs.db.take(ref, userID)
		if c == nil || now.Sub(c.seen) > ConversationTTL {
			return nil
		}
		return c
	}
	cs.mu.Lock()
	cs.expire(now)
	c, ok := cs.byRef[ref]
	if ok && c.userID != userID {
		cs.mu.Unlock()
		return nil
	}
	if ok {
		cs.remove(c)
		if cs.db != nil {
			cs.db.forget(ref)
		}
	}
	cs.mu.Unlock()
	if !ok {
		if cs.db == nil {
			return nil
		}
		// Not started here (or pushed out by the bound): another process,
		// or an earlier run, may have kept it.
		if c = cs.db.take(ref, userID); c == nil {
			return nil
		}
	}
	if now.Sub(c.seen) > ConversationTTL {
		return nil
	}
	return c
}

// put stores c as the most recent conversation.
func (cs *conversations) put(c *conversation) {
	if cs.db != nil && cs.db.shared {
		// Written before the answer leaves: the client may send the next
		// turn to another process.
		cs.db.saveNow(c)
		return
	}
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
	if cs.db != nil {
		cs.db.save(c)
	}
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

// KeepConversationsIn keeps e's conversations in db as well as in memory,
// migrating the "dialogue" component, so they outlive the process (an
// embedded platform lives as long as one hark command). Call it before
// the first Answer. Writes are batched by one goroutine, as an answer
// must not wait for a database write; the returned close writes what is
// pending and must run before db closes.
func (e *Engine) KeepConversationsIn(ctx context.Context, db *sql.DB) (close func(), err error) {
	if err := MigrateConversations(ctx, db); err != nil {
		return nil, err
	}
	s := &conversationStore{db: db, e: e, shared: store.EngineOf(db) == store.Postgres, pending: map[int64]pendingConversation{}}
	s.sweep()
	// What is pending is written in one transaction at most every 20 ms,
	// so a burst of answers costs one commit.
	s.writer = store.WriteBehind(20*time.Millisecond, s.flush)
	e.convs.mu.Lock()
	e.convs.db = s
	e.convs.mu.Unlock()
	return s.writer.Close, nil
}

// conversationStore writes conversations to the database behind the
// memory: the memory stays the fast path of the process that started a
// conversation, the table is how others find it.
type conversationStore struct {
	db *sql.DB
	e  *Engine
	// shared is set on PostgreSQL, where other harkd processes continue
	// the conversations this one starts (README, PostgreSQL as the store):
	// states are written before the answer and never kept in memory.
	shared bool

	mu      sync.Mutex
	pending map[int64]pendingConversation // by ref; the latest change wins
	swept   time.Time

	writer *store.Behind
}

// pendingConversation is a write not yet made: a state to keep, or (gone)
// a conversation taken up or finished.
type pendingConversation struct {
	gone   bool
	userID int64
	seenMs int64
	state  []byte
}

// storedConversation is the state column. The fields mirror conversation,
// slotVal and whenExpr (TestStoredConversationCoversEveryField fails when
// one of those gains a field this does not carry).
type storedConversation struct {
	Lang     string                `json:"lang"`
	Intent   string                `json:"intent"`
	Awaiting string                `json:"awaiting,omitempty"`
	Asks     int                   `json:"asks,omitempty"`
	Slots    map[string]storedSlot `json:"slots,omitempty"`
}

type storedSlot struct {
	Text  string        `json:"text,omitempty"`
	Start int           `json:"start,omitempty"`
	End   int           `json:"end,omitempty"`
	Num   int           `json:"num,omitempty"`
	Dur   time.Duration `json:"dur,omitempty"`
	When  *storedWhen   `json:"when,omitempty"`
}

type storedWhen struct {
	Day      dayKind       `json:"day,omitempty"`
	Weekday  time.Weekday  `json:"weekday,omitempty"`
	Next     bool          `json:"next,omitempty"`
	Month    time.Month    `json:"month,omitempty"`
	MDay     int           `json:"mday,omitempty"`
	HasClock bool          `json:"hasClock,omitempty"`
	Hour     int           `json:"hour,omitempty"`
	Minute   int           `json:"minute,omitempty"`
	Mer      string        `json:"mer,omitempty"`
	HasRel   bool          `json:"hasRel,omitempty"`
	Rel      time.Duration `json:"rel,omitempty"`
}

func encodeConversation(c *conversation) []byte {
	sc := storedConversation{Lang: c.lang, Intent: c.intent, Awaiting: c.awaiting, Asks: c.asks}
	if len(c.slots) > 0 {
		sc.Slots = make(map[string]storedSlot, len(c.slots))
		for k, v := range c.slots {
			s := storedSlot{Text: v.text, Start: v.start, End: v.end, Num: v.num, Dur: v.dur}
			if w := v.when; w != (whenExpr{}) {
				s.When = &storedWhen{Day: w.day, Weekday: w.weekday, Next: w.next, Month: w.month, MDay: w.mday,
					HasClock: w.hasClock, Hour: w.hour,
					Minute: w.minute, Mer: w.mer, HasRel: w.hasRel, Rel: w.rel}
			}
			sc.Slots[k] = s
		}
	}
	b, _ := json.Marshal(sc) // plain fields only: cannot fail
	return b
}

func decodeConversation(ref, userID, seenMs int64, state []byte) (*conversation, error) {
	var sc storedConversation
	if err := json.Unmarshal(state, &sc); err != nil {
		return nil, err
	}
	c := &conversation{ref: ref, userID: userID, lang: sc.Lang, intent: sc.Intent, awaiting: sc.Awaiting, asks: sc.Asks,
		seen: time.UnixMilli(seenMs)}
	c.slots = make(map[string]slotVal, len(sc.Slots)) // the engine may add to it
	for k, s := range sc.Slots {
		v := slotVal{text: s.Text, start: s.Start, end: s.End, num: s.Num, dur: s.Dur}
		if w := s.When; w != nil {
			v.when = whenExpr{day: w.Day, weekday: w.Weekday, next: w.Next, month: w.Month, mday: w.MDay,
				hasClock: w.HasClock, hour: w.Hour,
				minute: w.Minute, mer: w.Mer, hasRel: w.HasRel, rel: w.Rel}
		}
		c.slots[k] = v
	}
	return c, nil
}

func (s *conversationStore) save(c *conversation) {
	p := pendingConversation{userID: c.userID, seenMs: c.seen.UnixMilli(), state: encodeConversation(c)}
	s.mu.Lock()
	s.pending[c.ref] = p
	s.mu.Unlock()
	s.nudge()
}

// saveNow writes c at once, for a store other processes share.
func (s *conversationStore) saveNow(c *conversation) {
	p := pendingConversation{userID: c.userID, seenMs: c.seen.UnixMilli(), state: encodeConversation(c)}
	if err := s.write(map[int64]pendingConversation{c.ref: p}); err != nil {
		s.e.log.Warn("keep a conversation", "err", err)
	}
	if s.e.cfg.Clock().Sub(s.sweptAt()) >= time.Minute {
		s.sweep()
	}
}

func (s *conversationStore) sweptAt() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.swept
}

func (s *conversationStore) forget(ref int64) {
	s.mu.Lock()
	s.pending[ref] = pendingConversation{gone: true}
	s.mu.Unlock()
	s.nudge()
}

func (s *conversationStore) nudge() { s.writer.Wake() }

// take finds and removes ref of userID in what is pending or in the table.
// Most refs a client sends back were never kept (every answer carries one),
// so the table is read first and written only when the row is there; the
// conditional delete makes one of two racing takers the winner.
func (s *conversationStore) take(ref, userID int64) *conversation {
	s.mu.Lock()
	if p, ok := s.pending[ref]; ok {
		if p.gone || p.userID != userID {
			s.mu.Unlock()
			return nil
		}
		s.pending[ref] = pendingConversation{gone: true}
		s.mu.Unlock()
		s.nudge()
		c, err := decodeConversation(ref, p.userID, p.seenMs, p.state)
		if err != nil {
			return nil
		}
		return c
	}
	s.mu.Unlock()
	ctx := context.Background()
	var seenMs int64
	var state []byte
	err := s.db.QueryRowContext(ctx, `SELECT seen_ms, state FROM dialogue_conversations WHERE ref = $1 AND user_id = $2`,
		ref, userID).Scan(&seenMs, &state)
	if err != nil {
		if !errors.Is(err, sql.ErrNoRows) {
			s.e.log.Warn("read a kept conversation", "err", err)
		}
		return nil
	}
	res, err := s.db.ExecContext(ctx, `DELETE FROM dialogue_conversations WHERE ref = $1 AND seen_ms = $2`, ref, seenMs)
	if err != nil {
		s.e.log.Warn("take a kept conversation", "err", err)
		return nil
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return nil // another request took it first
	}
	c, err := decodeConversation(ref, userID, seenMs, state)
	if err != nil {
		s.e.log.Warn("a kept conversation is unreadable", "ref", ref, "err", err)
		return nil
	}
	return c
}

func (s *conversationStore) flush() {
	s.mu.Lock()
	batch := s.pending
	s.pending = map[int64]pendingConversation{}
	sweep := s.e.cfg.Clock().Sub(s.swept) >= time.Minute
	s.mu.Unlock()
	if len(batch) > 0 {
		if err := s.write(batch); err != nil {
			s.e.log.Warn("keep conversations", "count", len(batch), "err", err)
		}
	}
	if sweep {
		s.sweep()
	}
}

func (s *conversationStore) write(batch map[int64]pendingConversation) error {
	tx, err := s.db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for ref, p := range batch {
		if p.gone {
			_, err = tx.Exec(`DELETE FROM dialogue_conversations WHERE ref = $1`, ref)
		} else {
			_, err = tx.Exec(`INSERT INTO dialogue_conversations(ref, user_id, seen_ms, state) VALUES($1, $2, $3, $4)
				ON CONFLICT(ref) DO UPDATE SET user_id = excluded.user_id, seen_ms = excluded.seen_ms, state = excluded.state`,
				ref, p.userID, p.seenMs, p.state)
		}
		if err != nil {
			return err
		}
	}
	return tx.Commit()
}

// sweep deletes the conversations idle past ConversationTTL and, beyond
// MaxConversations, the least recently used ones.
func (s *conversationStore) sweep() {
	now := s.e.cfg.Clock()
	s.mu.Lock()
	s.swept = now
	s.mu.Unlock()
	if _, err := s.db.Exec(`DELETE FROM dialogue_conversations WHERE seen_ms < $1`, now.Add(-ConversationTTL).UnixMilli()); err != nil {
		s.e.log.Warn("expire kept conversations", "err", err)
		return
	}
	// SQLite has no OFFSET without LIMIT, and PostgreSQL no negative LIMIT.
	all := "-1"
	if store.EngineOf(s.db) == store.Postgres {
		all = "ALL"
	}
	if _, err := s.db.Exec(`DELETE FROM dialogue_conversations WHERE ref IN
		(SELECT ref FROM dialogue_conversations ORDER BY seen_ms DESC LIMIT `+all+` OFFSET $1)`, s.e.cfg.MaxConversations); err != nil {
		s.e.log.Warn("bound kept conversations", "err", err)
	}
}

// MigrateConversations brings the kept-conversation table of db up to this
// harkd's schema.
func MigrateConversations(ctx context.Context, db *sql.DB) error {
	return store.MigrateSteps(ctx, db, "dialogue", conversationMigrations)
}
