package ui

import (
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
)

// listRow is one line of a browser list. Key identifies it for
// multi-select; Text is what is drawn and what the filter searches.
type listRow struct {
	Key  string
	Text string
}

type rowListKeys struct {
	Up, Down, PageUp, PageDown, Home, End, Select, Filter, ClearFilter key.Binding
}

func newRowListKeys() rowListKeys {
	return rowListKeys{
		Up:          key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/↓", "move")),
		Down:        key.NewBinding(key.WithKeys("down", "j")),
		PageUp:      key.NewBinding(key.WithKeys("pgup"), key.WithHelp("pgup/pgdn", "page")),
		PageDown:    key.NewBinding(key.WithKeys("pgdown")),
		Home:        key.NewBinding(key.WithKeys("home", "g")),
		End:         key.NewBinding(key.WithKeys("end", "G")),
		Select:      key.NewBinding(key.WithKeys(" "), key.WithHelp("space", "select")),
		Filter:      key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "filter")),
		ClearFilter: key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "clear filter")),
	}
}

// rowList is the list of every browser: a filter line, a cursor, a
// multi-selection, and a window so that only the visible rows are drawn
// (a list of tens of thousands of rows costs the same to draw as a short one).
type rowList struct {
	keys      rowListKeys
	rows      []listRow
	visible   []int // indexes into rows that pass the filter
	cursor    int   // index into visible
	offset    int   // first visible row drawn
	selected  map[string]bool
	filter    textinput.Model
	filtering bool
	height    int
	width     int
	theme     *Theme
}

func newRowList(pc *programContext) rowList {
	f := newInput(pc)
	f.Prompt = "filter: "
	f.CharLimit = 100
	return rowList{keys: newRowListKeys(), selected: map[string]bool{}, filter: f, theme: pc.Theme, height: 10}
}

// SetRows replaces the rows, keeping the cursor on the same key when it
// is still there and dropping selections of rows that went away.
func (l *rowList) SetRows(rows []listRow) {
	current := l.Current()
	l.rows = rows
	keys := make(map[string]bool, len(rows))
	for _, r := range rows {
		keys[r.Key] = true
	}
	for k := range l.selected {
		if !keys[k] {
			delete(l.selected, k)
		}
	}
	l.applyFilter()
	if current != nil {
		for i, idx := range l.visible {
			if rows[idx].Key == current.Key {
				l.cursor = i
				break
			}
		}
	}
	l.clamp()
}

// AppendRows adds a page at the end (paging as the cursor reaches it).
func (l *rowList) AppendRows(rows []listRow) {
	l.rows = append(l.rows, rows...)
	l.applyFilter()
	l.clamp()
}

func (l *rowList) applyFilter() {
	q := strings.ToLower(strings.TrimSpace(l.filter.Value()))
	l.visible = l.visible[:0]
	for i, r := range l.rows {
		if q == "" || strings.Contains(strings.ToLower(r.Text), q) {
			l.visible = append(l.visible, i)
		}
	}
}

func (l *rowList) clamp() {
	l.cursor = min(max(l.cursor, 0), max(len(l.visible)-1, 0))
	h := l.bodyHeight()
	if l.cursor < l.offset {
		l.offset = l.cursor
	}
	if l.cursor >= l.offset+h {
		l.offset = l.cursor - h + 1
	}
	l.offset = max(min(l.offset, len(l.visible)-h), 0)
}

func (l *rowList) bodyHeight() int {
	h := l.height
	if l.filtering || l.filter.Value() != "" {
		h--
	}
	return max(h, 1)
}

// Current is the row under the cursor, nil when the list is empty.
func (l *rowList) Current() *listRow {
	if l.cursor < 0 || l.cursor >= len(l.visible) {
		return nil
	}
	return &l.rows[l.visible[l.cursor]]
}

// Selection is the selected rows, or the current one when none is.
func (l *rowList) Selection() []listRow {
	var out []listRow
	for _, r := range l.rows {
		if l.selected[r.Key] {
			out = append(out, r)
		}
	}
	if len(out) == 0 {
		if c := l.Current(); c != nil {
			out = append(out, *c)
		}
	}
	return out
}

// AtEnd tells whether the cursor is within a few rows of the end.
func (l *rowList) AtEnd() bool { return len(l.visible) > 0 && l.cursor >= len(l.visible)-3 }

// Filtering tells whether the filter line has the keys.
func (l *rowList) Filtering() bool { return l.filtering }

func (l *rowList) SetSize(w, h int) { l.width, l.height = w, max(h, 1); l.clamp() }

// Update handles the list's own keys and reports whether it used msg.
func (l *rowList) Update(msg tea.KeyMsg) (bool, tea.Cmd) {
	if l.filtering {
		switch msg.String() {
		case "enter":
			l.filtering = false
			l.filter.Blur()
			return true, nil
		case "esc":
			l.filtering = false
			l.filter.Blur()
			l.filter.SetValue("")
			l.applyFilter()
			l.clamp()
			return true, nil
		}
		if msg.Paste {
			msg.Runes = []rune(oneLine(string(msg.Runes)))
		}
		var cmd tea.Cmd
		l.filter, cmd = l.filter.Update(msg)
		l.applyFilter()
		l.cursor = 0
		l.clamp()
		return true, cmd
	}
	switch {
	case key.Matches(msg, l.keys.Up):
		l.cursor--
	case key.Matches(msg, l.keys.Down):
		l.cursor++
	case key.Matches(msg, l.keys.PageUp):
		l.cursor -= l.bodyHeight()
	case key.Matches(msg, l.keys.PageDown):
		l.cursor += l.bodyHeight()
	case key.Matches(msg, l.keys.Home):
		l.cursor = 0
	case key.Matches(msg, l.keys.End):
		l.cursor = len(l.visible) - 1
	case key.Matches(msg, l.keys.Select):
		if c := l.Current(); c != nil {
			if l.selected[c.Key] {
				delete(l.selected, c.Key)
			} else {
				l.selected[c.Key] = true
			}
			l.cursor++
		}
	case key.Matches(msg, l.keys.Filter):
		l.filtering = true
		return true, l.filter.Focus()
	case key.Matches(msg, l.keys.ClearFilter) && l.filter.Value() != "":
		l.filter.SetValue("")
		l.applyFilter()
	default:
		return false, nil
	}
	l.clamp()
	return true, nil
}

// View draws the filter line and the visible window of rows.
func (l *rowList) View() string {
	t := l.theme
	var b strings.Builder
	if l.filtering || l.filter.Value() != "" {
		b.WriteString(fit(l.filter.View(), l.width) + "\n")
	}
	h := l.bodyHeight()
	if len(l.visible) == 0 {
		msg := "(empty)"
		if len(l.rows) > 0 {
			msg = "(nothing matches the filter)"
		}
		b.WriteString(t.Muted.Render(msg))
		return b.String()
	}
	end := min(l.offset+h, len(l.visible))
	for i := l.offset; i < end; i++ {
		r := l.rows[l.visible[i]]
		// Marks as well as styles, so the cursor and the selection show
		// without colour (NO_COLOR, dumb terminals).
		mark := " "
		if i == l.cursor {
			mark = ">"
		}
		if l.selected[r.Key] {
			mark += "*"
		} else {
			mark += " "
		}
		line := fit(mark+r.Text, l.width)
		if i == l.cursor {
			line = t.Cursor.Render(line)
		} else if l.selected[r.Key] {
			line = t.Selected.Render(line)
		}
		b.WriteString(line)
		if i < end-1 {
			b.WriteString("\n")
		}
	}
	return b.String()
}
