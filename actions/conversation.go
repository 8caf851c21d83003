package actions

// MaxFollowUps bounds the OPEN_ASR loop: after this many questions in a row the console
// stops re-opening the microphone by itself (a dialogue that keeps asking, or a user who is
// not answering), and the next turn waits for the user.
const MaxFollowUps = 8

// Conversation tracks one dialogue across turns: the ref to send and whether the assistant
// is waiting for an answer (OPEN_ASR). The zero value is a fresh conversation. Not safe for
// concurrent use: it belongs to the console model.
type Conversation struct {
	ref       int64
	asking    bool
	followUps int
}

// Answered records an answer: its context ref and the outcomes of its actions. It reports
// whether the console should re-open the microphone (or the input line) at once and send the
// next turn with Ref.
func (c *Conversation) Answered(ref int64, outcomes []Outcome) bool {
	c.ref = ref
	c.asking = false
	for _, o := range outcomes {
		if o.Kind == Continue {
			c.asking = true
			if o.Ref != 0 {
				c.ref = o.Ref
			}
		}
	}
	if !c.asking {
		c.followUps = 0
		return false
	}
	c.followUps++
	if c.followUps > MaxFollowUps {
		c.asking = false
		c.followUps = 0
	}
	return c.asking
}

// Ref is the ref to send with the next turn. The server continues the conversation when it
// still knows it and starts a new one otherwise, so it is always sent.
func (c *Conversation) Ref() int64 { return c.ref }

// Asking tells whether the assistant waits for an answer.
func (c *Conversation) Asking() bool { return c.asking }

// Stop ends the follow-up loop (the user pressed Esc): the next turn still carries Ref, but
// nothing re-opens by itself.
func (c *Conversation) Stop() {
	c.asking = false
	c.followUps = 0
}
