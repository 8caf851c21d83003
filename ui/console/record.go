package console

import (
	"fmt"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/harkhq/hark/client"
	"github.com/harkhq/hark/ui/common"
	"github.com/harkhq/hark/ui/voice"
)

// TurnRecorder keeps the session's answered turns (hark flow record writes them as a flow
// file): typed text, or a spoken turn's PCM at rate, with its answer.
type TurnRecorder interface {
	RecordTurn(typed string, pcm []byte, rate int, resp *client.DialogueResponse) error
	Path() string
	Turns() int
}

// SetRecorder makes the console record every answered turn to r (nil: none).
func (c *Model) SetRecorder(r TurnRecorder) { c.recorder = r }

// pendingRec is a spoken turn answered before its recording ended (the answer can
// overtake the end of the capture): it is recorded once the audio is there.
type pendingRec struct {
	vt   *voice.Turn
	resp *client.DialogueResponse
}

type recordedMsg struct{ err error }

// record writes one turn in a command (file I/O stays out of Update). The recorder
// serialises the writes; turns are answered seconds apart, so they are written in order.
func (c *Model) record(typed string, pcm []byte, rate int, resp *client.DialogueResponse) tea.Cmd {
	r := c.recorder
	return func() tea.Msg { return recordedMsg{err: r.RecordTurn(typed, pcm, rate, resp)} }
}

// flushRecording records the spoken turns whose audio has arrived.
func (c *Model) flushRecording() tea.Cmd {
	var cmds []tea.Cmd
	kept := c.recPending[:0]
	for _, p := range c.recPending {
		if !p.vt.Settled() {
			kept = append(kept, p)
			continue
		}
		pcm, rate := p.vt.Audio()
		if len(pcm) == 0 {
			cmds = append(cmds, common.Toast("not recorded: the spoken turn's audio was not kept"))
			continue
		}
		cmds = append(cmds, c.record("", pcm, rate, p.resp))
	}
	c.recPending = kept
	return tea.Batch(cmds...)
}

// recordingStatus is the status line's note while recording.
func (c *Model) recordingStatus() string {
	if c.recorder == nil {
		return ""
	}
	n := c.recorder.Turns()
	turns := "turns"
	if n == 1 {
		turns = "turn"
	}
	return fmt.Sprintf("● recording to %s (%d %s)", c.recorder.Path(), n, turns)
}
