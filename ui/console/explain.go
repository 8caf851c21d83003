package console

import (
	"fmt"
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
	// Spoken queries: each reading of the audio, the chosen one marked
	// with ✓ and the server's reason, so a misheard turn shows whether the
	// right words were among the candidates.
	if len(x.Hypotheses) > 0 {
		lines = append(lines, line("  heard as:"))
	}
	for _, h := range x.Hypotheses {
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
		lines = append(lines, line(s))
	}
	return lines
}
