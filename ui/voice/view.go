package voice

import (
	"fmt"
	"github.com/harkhq/hark/ui/common"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"

	"github.com/harkhq/hark/actions"
)

// status is the voice part of the console's status line.
func (v *Model) Status() string {
	if !v.on() {
		return ""
	}
	var parts []string
	switch {
	case v.phase == voiceOpening:
		parts = append(parts, "● opening the microphone")
	case v.phase == voiceRecording:
		parts = append(parts, fmt.Sprintf("● mic open %s %s  %s stops, esc cancels", clockDuration(v.elapsed),
			levelMeter(v.level), v.keys.Talk.Help().Key))
	case v.phase == voiceWaiting:
		parts = append(parts, "… recognising")
	case v.phase == voicePlaying || v.replaying:
		s := "▶ answer " + seconds(v.position)
		if v.duration > 0 {
			s += " / " + seconds(v.duration)
		}
		if v.replaying {
			s = "▶ replay " + strings.TrimPrefix(s, "▶ answer ")
		}
		parts = append(parts, s+"  "+v.keys.Talk.Help().Key+" interrupts")
	case v.conv.Asking():
		parts = append(parts, "the assistant is waiting for your answer")
	case v.armed != nil:
		parts = append(parts, "○ mic armed")
	}
	if v.micOff != "" {
		parts = append(parts, v.micOff)
	}
	if v.spkOff != "" {
		parts = append(parts, v.spkOff)
	}
	return strings.Join(parts, " · ")
}

// turnLines are a turn's extra lines: its outcomes, its timings and what can be done with it.
func (v *Model) TurnLines(vt *Turn, t *common.Theme, width int) []string {
	if !v.on() || vt == nil {
		return nil
	}
	var lines []string
	for _, o := range vt.outcomes {
		mark, style := "✓", t.Success
		switch o.Kind {
		case actions.NeedsConfirm:
			mark, style = "?", t.Warn
		case actions.Continue:
			mark, style = "↻", t.Muted
		case actions.Ignored:
			mark, style = "·", t.Muted
		case actions.Failed:
			mark, style = "✗", t.Error
		}
		// By default the transcript says what happened; the explain view
		// names the action code too.
		text := common.OneLine(o.Summary)
		if v.explain {
			text = common.OneLine(o.Code) + ": " + text
		}
		if o.Kind == actions.Ignored && o.Err != nil {
			text = "an action this device does not know (ignored)"
			if v.explain {
				text = "unknown action " + common.OneLine(o.Code) + " (ignored)"
			}
		}
		lines = append(lines, "  "+style.Render(mark+" "+common.AnsiFit(text, max(width-6, 8))))
	}
	if w := waterfall(vt); w != "" {
		mark := ""
		if vt == v.focused() && vt.answer != nil {
			mark = "  ◂ " + v.keys.Replay.Help().Key + " replays"
		}
		lines = append(lines, "  "+t.Muted.Render(common.AnsiFit(w+mark, max(width-4, 8))))
	}
	return lines
}

// waterfall draws the timings of a spoken turn: end of speech → recognised → first audio
// byte → first sample played, each step as a bar proportional to its share.
func waterfall(vt *Turn) string {
	if !vt.spoken || vt.speechEnd.IsZero() || vt.recognised.IsZero() {
		return ""
	}
	type step struct {
		name string
		at   time.Time
	}
	steps := []step{{"recognised", vt.recognised}, {"first byte", vt.firstByte}, {"first sample", vt.firstSample}}
	from := vt.speechEnd
	var parts []string
	var bars strings.Builder
	total := time.Duration(0)
	for _, s := range steps {
		if s.at.IsZero() {
			break
		}
		d := max(s.at.Sub(from), 0)
		total += d
		parts = append(parts, fmt.Sprintf("%s +%d ms", s.name, d.Milliseconds()))
		from = s.at
	}
	from = vt.speechEnd
	glyphs := []string{"█", "▓", "▒"}
	for i, s := range steps {
		if s.at.IsZero() || total <= 0 {
			break
		}
		n := int(20 * s.at.Sub(from) / total)
		bars.WriteString(strings.Repeat(glyphs[i], max(n, 1)))
		from = s.at
	}
	return fmt.Sprintf("⏱ %s %d ms from end of speech: %s", bars.String(), total.Milliseconds(), strings.Join(parts, " → "))
}

// dialog is the confirmation shown instead of the input line, nil when none waits.
func (v *Model) Dialog(t *common.Theme, width int) []string {
	if !v.Confirming() {
		return nil
	}
	cf := v.confirms[0].Confirm
	lines := []string{t.Warn.Render(common.AnsiFit("? "+common.OneLine(cf.Prompt), width))}
	for _, d := range cf.Details {
		lines = append(lines, "  "+t.Muted.Render(common.OneLine(d.Name)+": ")+common.AnsiFit(common.OneLine(d.Value), max(width-len(d.Name)-6, 8)))
	}
	if cf.Target != "" {
		lines = append(lines, "  "+t.Muted.Render("opens: ")+common.AnsiFit(common.OneLine(cf.Target), max(width-10, 8)))
	}
	more := ""
	if n := len(v.confirms) - 1; n > 0 {
		more = fmt.Sprintf(" (%d more waiting)", n)
	}
	lines = append(lines, t.Key.Render("y")+" yes  "+t.Key.Render("n")+" no"+more)
	return lines
}

// help is the voice key of the short footer: the dialog's answer while one waits, else talk.
func (v *Model) Help() []key.Binding {
	if !v.on() {
		return nil
	}
	if v.Confirming() {
		return []key.Binding{v.keys.Yes}
	}
	return []key.Binding{v.keys.Talk}
}

// fullHelp are the voice keys of the full help: talking, then music.
func (v *Model) FullHelp() [][]key.Binding {
	if !v.on() {
		return nil
	}
	return [][]key.Binding{
		{v.keys.Talk, v.keys.Cancel, v.keys.Replay, v.keys.Older, v.keys.Retry},
		{v.keys.Pause, v.keys.StopMusic, v.keys.VolUp, v.keys.Yes},
	}
}
