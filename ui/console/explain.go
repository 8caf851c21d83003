package console

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/harkhq/hark/client"
	"github.com/harkhq/hark/ui/common"
)

// languageNames are the languages the console can name in its status line.
var languageNames = map[string]string{"en": "English", "es": "Spanish"}

// languageStatus says which language answers come in: the one chosen with
// the language key, or, in auto, the one the last answer was in.
func (c *Model) languageStatus() string {
	chosen := c.ctx.Client.Config().Language
	name := func(code string) string {
		if n, ok := languageNames[code]; ok {
			return n
		}
		return common.OneLine(code)
	}
	switch {
	case chosen != "":
		return "answers in " + name(chosen)
	case c.lang != "":
		return "auto: answered in " + name(c.lang)
	}
	return "language auto"
}

// explainLines draw how a query was read under its answer: the language
// and where it came from, the intent, the pattern and its cost, each slot
// with its words and value, the corrections made.
func explainLines(x *client.Explanation, t *common.Theme, width int) []string {
	if x == nil {
		return nil
	}
	w := max(width-4, 8)
	// indent shows the details belong to the ⓘ line; OneLine would eat it.
	line := func(s string) string {
		indent := s[:len(s)-len(strings.TrimLeft(s, " "))]
		return "  " + t.Muted.Render(common.AnsiFit(indent+common.OneLine(s), w))
	}
	head := fmt.Sprintf("ⓘ %s (%s) · intent %s", x.Lang, x.LangFrom, x.Intent)
	lines := []string{line(head)}
	if s := x.SeveralRequests(); s != "" {
		lines = append(lines, line("  "+s))
	}
	if x.Pattern != "" {
		lines = append(lines, line(fmt.Sprintf("  pattern %q · cost %.2f", x.Pattern, x.Cost)))
	}
	if x.Answers != "" {
		lines = append(lines, line("  answers the question for "+x.Answers))
	}
	for _, s := range x.Slots {
		if s.Words != "" {
			lines = append(lines, line(fmt.Sprintf("  slot %s: %q = %s", s.Name, s.Words, s.Value)))
		} else {
			lines = append(lines, line(fmt.Sprintf("  slot %s = %s", s.Name, s.Value)))
		}
	}
	if len(x.Corrections) > 0 {
		var cs []string
		for _, c := range x.Corrections {
			cs = append(cs, fmt.Sprintf("%q → %q", c.Typed, c.Read))
		}
		lines = append(lines, line("  corrected "+strings.Join(cs, ", ")))
	}
	// Spoken queries: why a first answer was slow, when it was, then the
	// readings of the audio, the chosen one marked with ✓ and the server's
	// reason, so a misheard turn shows whether the right words were among
	// the candidates.
	if x.SpeechWaitMs > 0 {
		lines = append(lines, line(fmt.Sprintf("  waited %.1f s for the speech engines to start", float64(x.SpeechWaitMs)/1000)))
	}
	if x.Speaker != nil {
		lines = append(lines, line("  "+x.Speaker.String()))
	}
	if len(x.Hypotheses) > 0 {
		lines = append(lines, line("  heard as:"))
	}
	for _, l := range heardLines(x.Hypotheses) {
		lines = append(lines, line(l))
	}
	return lines
}

// heardLines are the "heard as" lines of a spoken turn: the chosen
// reading and those that competed with it (or were turned down for
// another reason), one per line, then one line for those the acoustic
// gate turned down (Gate set): since the in-domain decoder's n-best joined
// they are most of a turn's up to 11 readings, which pushed the
// conversation off an 80x24 screen, and they never had a chance. `hark
// ask --explain` still lists each. A single such reading keeps its line
// (a summary would not be shorter). The server's field is read rather
// than its reason's words, which may change.
func heardLines(hyps []client.Hypothesis) []string {
	var lines []string
	var gated []client.Hypothesis
	for _, h := range hyps {
		if h.Gate != nil && !h.Chosen {
			gated = append(gated, h)
		}
	}
	fold := len(gated) > 1
	for _, h := range hyps {
		if fold && h.Gate != nil && !h.Chosen {
			continue
		}
		mark := "·"
		if h.Chosen {
			mark = "✓"
		}
		s := fmt.Sprintf("    %s %q", mark, h.Text)
		if h.Source != "" {
			s += " (" + h.Source + ")"
		}
		s += fmt.Sprintf(" score %.2f", h.Score)
		if h.Reason != "" {
			s += " — " + h.Reason
		}
		lines = append(lines, s)
	}
	if fold {
		var values []float64
		for _, h := range gated {
			values = append(values, *h.Gate)
		}
		slices.Sort(values)
		var gates []string
		for _, v := range values {
			if g := strconv.FormatFloat(v, 'f', 1, 64); !slices.Contains(gates, g) {
				gates = append(gates, g)
			}
		}
		lines = append(lines, fmt.Sprintf("    · %d more readings, over %s per frame below their decoder's best path",
			len(gated), strings.Join(gates, "/")))
	}
	return lines
}
