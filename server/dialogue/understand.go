package dialogue

import (
	"context"
	"database/sql"
	"errors"
	"maps"
	"time"
)

// Reading is how the engine would read a query, without answering it:
// what harkd weighs when it chooses among the readings of spoken audio.
type Reading struct {
	Lang   string
	Intent string // as Response.Intent; "fallback" when nothing was read
	// Pattern is the phrase that matched and Cost its edit distance to the
	// query (lower is closer); empty and 0 when the query answered a
	// question, was read by a rule, or nothing matched.
	Pattern string
	Cost    float32
	// Missing is the required slot the engine would ask for next ("" when
	// the request is complete).
	Missing string
	// Answers is the slot of the conversation's open question the query
	// fills: an answer counts as understood, whatever its words.
	Answers string
	// Slots are the values the reading gave its slots (as the explain
	// view writes them), for a request read by one pattern or rule; nil
	// for several requests in one query, an answer, or nothing read.
	Slots map[string]string
}

// Understood reports whether the query was read as a request or as an
// answer to the question asked: not the fallback, and not the same
// question asked again because the reply did not answer it.
func (r Reading) Understood() bool { return r.Intent != "" && r.Intent != "fallback" }

// Complete reports whether nothing required is missing: the request can
// be carried out, or the answer filled the slot the question asked for.
func (r Reading) Complete() bool { return r.Understood() && (r.Missing == "" || r.Answers != "") }

// Understand reads req as Answer would, in the conversation of req.Ref,
// and changes nothing: the conversation stays as it was (for another
// reading, or the Answer that follows), no topic is reported to OnTopic,
// and the information intents do not ask their Knowledge (what a source
// would say does not change how the query reads). A query that is not
// UTF-8 is a 400 apierr, as for Answer.
func (e *Engine) Understand(ctx context.Context, req Request) (Reading, error) {
	t, _, unread, err := e.begin(ctx, req)
	if err != nil {
		return Reading{}, err
	}
	if unread != "" {
		return Reading{Lang: normLang(req.Lang), Intent: "fallback"}, nil
	}
	t.dry = true
	var conv *conversation
	if req.Ref > 0 {
		conv = e.convs.peek(req.Ref, req.UserID, t.now)
	}
	r := t.respond(conv)
	if err := ctx.Err(); err != nil {
		return Reading{}, err
	}
	rd := Reading{Lang: t.lang, Intent: r.intent, Missing: r.ask, Answers: t.filled}
	if t.unread {
		rd.Intent = "fallback"
	}
	if t.read != nil && t.requests == nil && t.filled == "" {
		rd.Slots = make(map[string]string, len(t.read.slots))
		for name, v := range t.read.slots {
			if name != reminderSlot {
				rd.Slots[name] = t.slotValue(name, v)
			}
		}
	}
	if t.read != nil && t.read.rule == "" {
		v := t.m.variants[t.read.variant]
		rd.Pattern, rd.Cost = t.m.patterns[v.pattern].Text, t.read.cost
		if t.requests != nil {
			// several requests: what all their readings cost, which the
			// choice among a spoken query's readings weighs as it weighs
			// one reading's
			rd.Cost = t.requestsCost
		}
	}
	return rd, nil
}

// peek returns a copy of the live conversation ref of userID, leaving it
// in place; nil as take would give nil.
func (cs *conversations) peek(ref, userID int64, now time.Time) *conversation {
	var c *conversation
	if cs.db == nil || !cs.db.shared {
		cs.mu.Lock()
		if m, ok := cs.byRef[ref]; ok {
			cp := *m
			c = &cp
		}
		cs.mu.Unlock()
	}
	if c == nil && cs.db != nil {
		c = cs.db.peek(ref, userID)
	}
	if c == nil || c.userID != userID || now.Sub(c.seen) > ConversationTTL {
		return nil
	}
	c.elem = nil
	c.slots = maps.Clone(c.slots) // the reading may fill a slot in it
	return c
}

// peek reads ref of userID from what is pending or from the table, without
// taking it.
func (s *conversationStore) peek(ref, userID int64) *conversation {
	s.mu.Lock()
	if p, ok := s.pending[ref]; ok {
		s.mu.Unlock()
		if p.gone || p.userID != userID {
			return nil
		}
		c, err := decodeConversation(ref, p.userID, p.seenMs, p.state)
		if err != nil {
			return nil
		}
		return c
	}
	s.mu.Unlock()
	var seenMs int64
	var state []byte
	err := s.db.QueryRowContext(context.Background(), `SELECT seen_ms, state FROM dialogue_conversations WHERE ref = $1 AND user_id = $2`,
		ref, userID).Scan(&seenMs, &state)
	if err != nil {
		if !errors.Is(err, sql.ErrNoRows) {
			s.e.log.Warn("read a kept conversation", "err", err)
		}
		return nil
	}
	c, err := decodeConversation(ref, userID, seenMs, state)
	if err != nil {
		return nil
	}
	return c
}
