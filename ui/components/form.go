package components

import (
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/harkhq/hark/ui/common"
)

// InputField is a text field whose Update takes only keys, with pasted
// control characters removed.
type InputField struct{ textinput.Model }

func NewInputField(pc *common.Context) InputField { return InputField{common.NewInput(pc)} }

func (f *InputField) Update(msg tea.KeyMsg) tea.Cmd {
	if msg.Paste {
		msg.Runes = []rune(common.OneLine(string(msg.Runes)))
	}
	var cmd tea.Cmd
	f.Model, cmd = f.Model.Update(msg)
	return cmd
}
