package voice

import "github.com/harkhq/hark/client"

// The events the voice part sends its console. The console keeps the transcript; voice
// names the turn it means by its *Turn.

// TurnStarted: a spoken turn begins, shown with Query until something is heard.
type TurnStarted struct {
	Turn  *Turn
	Query string
}

// TurnDropped: the turn never got anywhere (cancelled, no microphone); it goes.
type TurnDropped struct{ Turn *Turn }

// TurnQuery: the turn's placeholder text changes ("recognising…").
type TurnQuery struct {
	Turn  *Turn
	Query string
}

// TurnFailed: the upload failed; Err says why and how to retry.
type TurnFailed struct {
	Turn *Turn
	Err  string
}

// TurnRetried: the kept recording is being sent again.
type TurnRetried struct{ Turn *Turn }

// TurnAnswered: what was heard and the answer.
type TurnAnswered struct {
	Turn   *Turn
	Heard  string
	Answer *client.DialogueResponse
}

// RefChanged: follow-ups now go to conversation Ref.
type RefChanged struct{ Ref int64 }

// Asking: the assistant waits for a typed answer (On), or no longer does.
type Asking struct{ On bool }

// Rang: an alarm, timer or appointment is due; the transcript notes it.
type Rang struct{ Text string }
