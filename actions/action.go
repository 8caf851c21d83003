// Package actions carries out the next actions of dialogue answers on the client
// (DECISIONS §5): a registry with one handler per action code, a scheduler for alarms,
// timers, the stopwatch and appointments persisted under the XDG data home, a simulated
// device panel, music through a Player the UI provides, and desktop side effects (opening
// URLs and apps, call, SMS and e-mail drafts) that only happen after the user confirms.
//
// Nothing here draws or talks HTTP. Dispatch may touch the disk (the schedule file) and the
// Player, so the UI calls it from a tea.Cmd, as it does Confirmation.Do; what it renders comes
// back as an Outcome and as Events on a channel.
package actions

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Action is one next action of an answer: the two fields of client.Action.
type Action struct {
	Code string
	Data json.RawMessage
}

// Kind says what became of an action.
type Kind int

const (
	// Done: carried out; Summary says what changed.
	Done Kind = iota + 1
	// NeedsConfirm: nothing happened yet; Confirm describes what would happen and does it.
	NeedsConfirm
	// Continue: the dialogue asks a question; send the next turn with Outcome.Ref.
	Continue
	// Ignored: an action code this client does not know; nothing happened.
	Ignored
	// Failed: the data was unusable or the action could not be carried out; Err says why.
	Failed
)

func (k Kind) String() string {
	switch k {
	case Done:
		return "done"
	case NeedsConfirm:
		return "needs confirm"
	case Continue:
		return "continue"
	case Ignored:
		return "ignored"
	case Failed:
		return "failed"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Outcome is what Dispatch did with one action, for the console to render.
type Outcome struct {
	Code    string // the action code as received (cleaned of control characters)
	Kind    Kind
	Summary string // one line for the transcript, safe to print
	// Confirm is set when Kind is NeedsConfirm.
	Confirm *Confirmation
	// Ref is the conversation to continue when Kind is Continue.
	Ref int64
	// Err is set when Kind is Failed or Ignored.
	Err error
}

// Confirmation is a side effect waiting for the user's yes.
type Confirmation struct {
	// Prompt is the question to show: "Open https://example.com in the browser?"
	Prompt string
	// Target is exactly what will be handed to the desktop: a URL or an app name.
	Target string
	// Details are the fields of a draft (To, Subject, Body ...) in display order.
	Details []Detail
	// Do carries the action out. Call it only after the user confirms, from a tea.Cmd.
	Do func(ctx context.Context) error
}

// Detail is one labelled line of a draft.
type Detail struct {
	Name, Value string
}

// ErrUnknownCode is the error of an Ignored outcome.
var ErrUnknownCode = errors.New("unknown action code")

// DataError is the error of a Failed outcome whose data did not fit the code.
type DataError struct {
	Code    string
	Field   string // empty when the data as a whole is wrong
	Problem string
}

func (e *DataError) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("%s data: %s", e.Code, e.Problem)
	}
	return fmt.Sprintf("%s data: %s: %s", e.Code, e.Field, e.Problem)
}

func failed(code string, err error) Outcome {
	return Outcome{Code: code, Kind: Failed, Summary: cleanText(err.Error(), 300), Err: err}
}

func done(code, summary string) Outcome {
	return Outcome{Code: code, Kind: Done, Summary: summary}
}

// cleanText makes a string from the server safe and short enough to print in a terminal:
// control characters (escape sequences, newlines) become spaces, runs of spaces shrink to
// one, and the text is cut at max runes with an ellipsis.
func cleanText(s string, max int) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	var b strings.Builder
	space := false
	n := 0
	for _, r := range s {
		if unicode.IsControl(r) || unicode.IsSpace(r) || unicode.Is(unicode.Bidi_Control, r) {
			space = true
			continue
		}
		if n >= max {
			b.WriteString("…")
			break
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
			n++
		}
		space = false
		b.WriteRune(r)
		n++
	}
	return b.String()
}
