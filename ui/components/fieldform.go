package components

import (
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/harkhq/hark/ui/common"
)

// FormField is one line of a FieldForm. Check returns why the value is
// not acceptable ("" when it is); it runs on every key so that the rule
// shows in place before anything is sent. Complete, when set, extends the
// value on tab (a path prompt); it runs as a command, never in Update.
type FormField struct {
	Label    string
	Hint     string // what may be typed, shown while the field is empty
	Value    string
	Check    func(value string, all []string) string
	Complete func(value string) string
	input    InputField
	problem  string
}

// FieldForm is a small vertical form: tab/shift+tab (or ↑/↓) move between
// fields, enter on the last field submits when every field passes its
// check, esc cancels.
type FieldForm struct {
	Title  string
	Fields []*FormField
	focus  int
	width  int
	tried  bool // enter was pressed once: every problem shows, empty fields too
	theme  *common.Theme
}

// FormResult ends a form: Values in field order, or Cancelled.
type FormResult struct {
	Values    []string
	Cancelled bool
}

// formCompletedMsg carries a completion back to the field that asked.
type formCompletedMsg struct {
	form  *FieldForm
	field int
	typed string
	value string
}

// NewFieldForm focuses the first field; fields keep their Value as the
// starting text.
func NewFieldForm(pc *common.Context, title string, fields ...*FormField) *FieldForm {
	f := &FieldForm{Title: title, Fields: fields, theme: pc.Theme, width: 60}
	for _, fl := range fields {
		fl.input = NewInputField(pc)
		fl.input.Prompt = ""
		fl.input.Placeholder = fl.Hint
		fl.input.SetValue(fl.Value)
		fl.input.CharLimit = 400
	}
	f.focusField(0)
	f.check()
	return f
}

func (f *FieldForm) SetWidth(w int) {
	f.width = w
	for _, fl := range f.Fields {
		fl.input.Width = max(w-f.labelWidth()-6, 10)
	}
}

func (f *FieldForm) labelWidth() int {
	n := 0
	for _, fl := range f.Fields {
		n = max(n, len(fl.Label))
	}
	return n
}

func (f *FieldForm) focusField(i int) tea.Cmd {
	f.focus = (i + len(f.Fields)) % len(f.Fields)
	for n, fl := range f.Fields {
		if n != f.focus {
			fl.input.Blur()
		}
	}
	return f.Fields[f.focus].input.Focus()
}

// Values are the trimmed values in field order.
func (f *FieldForm) Values() []string {
	out := make([]string, len(f.Fields))
	for i, fl := range f.Fields {
		out[i] = strings.TrimSpace(fl.input.Value())
	}
	return out
}

// check runs every field's rule against the current values.
func (f *FieldForm) check() bool {
	vals, ok := f.Values(), true
	for i, fl := range f.Fields {
		fl.problem = ""
		if fl.Check != nil {
			fl.problem = fl.Check(vals[i], vals)
		}
		ok = ok && fl.problem == ""
	}
	return ok
}

// Focused is the index of the field with the cursor.
func (f *FieldForm) Focused() int { return f.focus }

// Update takes a key or a completion; done is set when the form ended.
func (f *FieldForm) Update(msg tea.Msg) (tea.Cmd, *FormResult) {
	switch msg := msg.(type) {
	case formCompletedMsg:
		if msg.form == f && f.Fields[msg.field].input.Value() == msg.typed {
			f.Fields[msg.field].input.SetValue(msg.value)
			f.Fields[msg.field].input.CursorEnd()
			f.check()
		}
		return nil, nil
	case tea.KeyMsg:
		switch msg.String() {
		case "esc":
			return nil, &FormResult{Cancelled: true}
		case "tab":
			fl := f.Fields[f.focus]
			if fl.Complete != nil && fl.input.Value() != "" {
				typed, complete, i := fl.input.Value(), fl.Complete, f.focus
				return func() tea.Msg { return formCompletedMsg{form: f, field: i, typed: typed, value: complete(typed)} }, nil
			}
			return f.focusField(f.focus + 1), nil
		case "down":
			return f.focusField(f.focus + 1), nil
		case "shift+tab", "up":
			return f.focusField(f.focus - 1), nil
		case "enter":
			if f.focus < len(f.Fields)-1 {
				return f.focusField(f.focus + 1), nil
			}
			if !f.check() {
				f.tried = true
				for i, fl := range f.Fields {
					if fl.problem != "" {
						return f.focusField(i), nil
					}
				}
			}
			return nil, &FormResult{Values: f.Values()}
		}
		cmd := f.Fields[f.focus].input.Update(msg)
		f.check()
		return cmd, nil
	}
	return nil, nil
}

// IsFormMsg tells whether msg belongs to a form (a completion).
func IsFormMsg(msg tea.Msg) bool { _, ok := msg.(formCompletedMsg); return ok }

func (f *FieldForm) View() string {
	t := f.theme
	lw := f.labelWidth()
	lines := []string{t.Header.Render(common.Fit(f.Title, f.width))}
	for i, fl := range f.Fields {
		mark := "  "
		if i == f.focus {
			mark = "> "
		}
		line := mark + fl.Label + strings.Repeat(" ", lw-len(fl.Label)) + " " + fl.input.View()
		lines = append(lines, common.AnsiFit(line, f.width))
		if fl.problem != "" && (fl.input.Value() != "" || f.tried) {
			lines = append(lines, t.Error.Render(common.Fit("  "+strings.Repeat(" ", lw)+" ✗ "+fl.problem, f.width)))
		}
	}
	help := "tab next field · shift+tab back · enter on the last field sends · esc cancels"
	if f.Fields[f.focus].Complete != nil {
		help = "tab completes the path · ↓ next field · enter sends · esc cancels"
	}
	lines = append(lines, t.Muted.Render(common.Fit(help, f.width)))
	return strings.Join(lines, "\n")
}
