package voice

import (
	"strings"

	"github.com/harkhq/hark/ui/common"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/harkhq/hark/actions"
	"github.com/harkhq/hark/audio"
	"github.com/harkhq/hark/client"
)

type outcomesMsg struct {
	vt       *Turn
	ref      int64
	outcomes []actions.Outcome
}

type confirmedMsg struct {
	outcome *actions.Outcome // in its turn's outcomes: the transcript shows what came of it
	summary string
	err     error
}

type actionEventMsg struct{ ev actions.Event }

type toneMsg struct {
	pb  *audio.Playback
	err error
}

// listen waits for the next action event.
func (v *Model) listen() tea.Cmd {
	events := v.cfg.Actions.Events()
	return func() tea.Msg {
		ev, ok := <-events
		if !ok {
			return nil
		}
		return actionEventMsg{ev: ev}
	}
}

// dispatch carries out an answer's next actions.
func (v *Model) dispatch(vt *Turn, list []client.Action, ref int64) tea.Cmd {
	reg, ctx := v.cfg.Actions, v.ctx
	acts := make([]actions.Action, len(list))
	for i, a := range list {
		acts[i] = actions.Action{Code: a.Action, Data: a.Data}
	}
	return func() tea.Msg {
		return outcomesMsg{vt: vt, ref: ref, outcomes: reg.DispatchAll(ctx, acts, ref)}
	}
}

// dispatchOne runs one action the console made up itself (the volume keys).
func (v *Model) dispatchOne(a actions.Action) tea.Cmd {
	reg, ctx := v.cfg.Actions, v.ctx
	return func() tea.Msg {
		o := reg.Dispatch(ctx, a, 0)
		if o.Kind != actions.Done {
			return common.ToastMsg{Err: true, Text: o.Summary}
		}
		return common.ToastMsg{Text: o.Summary}
	}
}

// AfterText carries out the actions of a typed turn's answer; the turn it returns (nil when
// voice is off) keeps their outcomes for the transcript. Their events come with the outcomes.
func (v *Model) AfterText(resp *client.DialogueResponse) (*Turn, tea.Cmd) {
	if !v.on() || resp == nil {
		return nil, nil
	}
	v.turnSeq++
	vt := &Turn{id: v.turnSeq}
	return vt, v.dispatch(vt, resp.NextActions, resp.Context.Ref)
}

func (v *Model) outcomesArrived(m outcomesMsg) tea.Cmd {
	m.vt.outcomes, m.vt.dispatched = m.outcomes, true
	for i := range m.outcomes {
		if m.outcomes[i].Kind == actions.NeedsConfirm && m.outcomes[i].Confirm != nil {
			v.confirms = append(v.confirms, &m.outcomes[i])
		}
	}
	asking := v.conv.Answered(m.ref, m.outcomes)
	v.emit(RefChanged{Ref: v.conv.Ref()})
	cmds := []tea.Cmd{v.snapshotCmd()}
	if !asking {
		v.emit(Asking{On: false})
		return tea.Batch(cmds...)
	}
	if !m.vt.spoken || v.micOff != "" {
		v.emit(Asking{On: true})
		return tea.Batch(cmds...)
	}
	if m.vt != v.current {
		return tea.Batch(cmds...)
	}
	if v.phase == voicePlaying {
		v.followUp = true // after the question has been heard
		return tea.Batch(cmds...)
	}
	if v.phase == voiceIdle {
		if v.player == nil && (m.vt.answer == nil || !m.vt.answer.isComplete()) {
			v.followUp = true
			return tea.Batch(cmds...)
		}
		cmds = append(cmds, v.startRecording())
	}
	return tea.Batch(cmds...)
}

func (v *Model) confirm(yes bool) tea.Cmd {
	o := v.confirms[0]
	v.confirms = v.confirms[1:]
	if !yes {
		// Ignored without an error: declined, not unknown.
		o.Kind, o.Summary = actions.Ignored, confirmedText(o, false)
		return common.Toast("not done: " + common.OneLine(o.Confirm.Prompt))
	}
	do, target, ctx := o.Confirm.Do, o.Confirm.Target, v.ctx
	return func() tea.Msg {
		err := do(ctx)
		return confirmedMsg{outcome: o, summary: "done: " + common.OneLine(target), err: err}
	}
}

// confirmed records in the turn what came of a yes.
func confirmed(m confirmedMsg) {
	o := m.outcome
	if o == nil {
		return
	}
	if m.err != nil {
		o.Kind, o.Err = actions.Failed, m.err
		o.Summary = "Not done: " + strings.TrimSuffix(common.OneLine(o.Confirm.Prompt), "?") + ": " + common.Describe(m.err)
		return
	}
	o.Kind, o.Summary = actions.Done, confirmedText(o, true)
}

// confirmedText is the transcript's line for an answered confirmation, in
// the past tense of its question.
func confirmedText(o *actions.Outcome, yes bool) string {
	opens := o.Code == "OPEN_URL" || o.Code == "OPEN_BROWSER" || o.Code == "OPEN_APP"
	q := strings.TrimSuffix(common.OneLine(o.Confirm.Prompt), "?")
	switch {
	case opens && yes:
		return "Opened " + common.OneLine(o.Confirm.Target)
	case opens:
		return "Not opened"
	case yes:
		return "Done: " + q
	}
	return "Not done: " + q
}

// event turns an action event into the panel's state and, when something is due, the
// alarm tone (the registry itself rings the bell and notifies the desktop).
func (v *Model) event(ev actions.Event) tea.Cmd {
	cmds := []tea.Cmd{v.listen(), v.snapshotCmd()}
	if ev.Rings() {
		text := ev.Summary
		if ev.Missed {
			text += " (missed while hark was closed)"
		}
		v.emit(Rang{Text: "⏰ " + common.OneLine(text)})
		cmds = append(cmds, common.Toast(text))
		if v.player != nil {
			player := v.player
			cmds = append(cmds, func() tea.Msg {
				pb, err := player.PlayPCM(actions.AlarmTonePCM(actions.AlarmToneRate), actions.AlarmToneRate)
				return toneMsg{pb: pb, err: err}
			})
		}
	}
	return tea.Batch(cmds...)
}
