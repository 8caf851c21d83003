package components

import (
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/harkhq/hark/ui/common"
)

// Confirm is a yes/no question that takes the keys while it is asked:
// y goes ahead, n, esc or enter keep things as they are.
type Confirm struct {
	question string
	onYes    func() tea.Cmd
	onNo     func()
}

// Ask shows question; yes runs on y, no (may be nil) on a refusal.
func (c *Confirm) Ask(question string, yes func() tea.Cmd, no func()) {
	c.question, c.onYes, c.onNo = question, yes, no
}

// Active tells whether a question waits for its answer.
func (c *Confirm) Active() bool { return c.question != "" }

// Update answers the question with msg; every key is taken while active.
func (c *Confirm) Update(msg tea.KeyMsg) tea.Cmd {
	switch {
	case key.Matches(msg, common.Keys.Yes):
		yes := c.onYes
		c.question, c.onYes, c.onNo = "", nil, nil
		return yes()
	case key.Matches(msg, common.Keys.No), msg.String() == "enter":
		if c.onNo != nil {
			c.onNo()
		}
		c.question, c.onYes, c.onNo = "", nil, nil
		return common.Toast("cancelled: nothing was changed")
	}
	return nil
}

// Help is the dialog's keys.
func (c *Confirm) Help() []key.Binding {
	return []key.Binding{common.WithHelp(common.Keys.Yes, "y", "yes"), common.WithHelp(common.Keys.No, "n/esc", "no")}
}

// View draws the question wrapped to width.
func (c *Confirm) View(t *common.Theme, width int) string {
	var out []string
	for _, l := range common.Wrap(c.question, width) {
		out = append(out, t.Warn.Render(l))
	}
	return strings.Join(out, "\n")
}
