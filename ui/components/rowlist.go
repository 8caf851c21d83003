package components

import (
	"github.com/harkhq/hark/ui/common"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
)

// Row is one line of a browser list. Key identifies it for
// multi-select; Text is what is drawn and what the filter searches.
type Row struct {
	Key  string
	Text string
}

type RowListKeys struct {
	Up, Down, PageUp, PageDown, Home, End, Select, Filter, ClearFilter key.Binding
}

func NewRowListKeys() RowListKeys {
	k := common.Keys
	return RowListKeys{Up: k.Up, Down: k.Down, PageUp: k.PageUp, PageDown: k.PageDown, Home: k.Top, End: k.Bottom,
		Select: k.Select, Filter: k.Filter,
		ClearFilter: key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "clear filter"))}
}

// RowList is the list of every browser: a filter line, a cursor, a
// multi-selection, and a window so that only the visible rows are drawn
// (a list of tens of thousands of rows costs the same to draw as a short one).
type RowList struct {
	Keys      RowListKeys
	rows      []Row
	visible   []int // indexes into rows that pass the filter
	cursor    int   // index into visible
	offset    int   // first visible row drawn
	selected  map[string]bool
	filter    textinput.Model
	filtering bool
	height    int
	width     int
	theme     *common.Theme
	empty     string
}

func NewRowList(pc *common.Context) RowList {
	f := common.NewInput(pc)
	f.Prompt = "filter: "
	f.CharLimit = 100
	return RowList{Keys: NewRowListKeys(), selected: map[string]bool{}, filter: f, theme: pc.Theme, height: 10}
}

// SetRows replaces the rows, keeping the cursor on the same key when it
// is still there and dropping selections of rows that went away.
func (l *RowList) SetRows(rows []Row) {
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
func (l *RowList) AppendRows(rows []Row) {
	l.rows = append(l.rows, rows...)
	l.applyFilter()
	l.clamp()
}

func (l *RowList) applyFilter() {
	q := strings.ToLower(strings.TrimSpace(l.filter.Value()))
	l.visible = l.visible[:0]
	for i, r := range l.rows {
		if q == "" || strings.Contains(strings.ToLower(r.Text), q) {
			l.visible = append(l.visible, i)
		}
	}
}

func (l *RowList) clamp() {
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

func (l *RowList) bodyHeight() int {
	h := l.height
	if l.filtering || l.filter.Value() != "" {
		h--
	}
	return max(h, 1)
}

// Current is the row under the cursor, nil when the list is empty.
func (l *RowList) Current() *Row {
	if l.cursor < 0 || l.cursor >= len(l.visible) {
		return nil
	}
	return &l.rows[l.visible[l.cursor]]
}

// Selection is the selected rows, or the current one when none is.
func (l *RowList) Selection() []Row {
	var out []Row
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
func (l *RowList) AtEnd() bool { return len(l.visible) > 0 && l.cursor >= len(l.visible)-3 }

// Filtering tells whether the filter line has the keys.
func (l *RowList) Filtering() bool { return l.filtering }

func (l *RowList) SetSize(w, h int) { l.width, l.height = w, max(h, 1); l.clamp() }

// Update handles the list's own keys and reports whether it used msg.
func (l *RowList) Update(msg tea.KeyMsg) (bool, tea.Cmd) {
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
			msg.Runes = []rune(common.OneLine(string(msg.Runes)))
		}
		var cmd tea.Cmd
		l.filter, cmd = l.filter.Update(msg)
		l.applyFilter()
		l.cursor = 0
		l.clamp()
		return true, cmd
	}
	switch {
	case key.Matches(msg, l.Keys.Up):
		l.cursor--
	case key.Matches(msg, l.Keys.Down):
		l.cursor++
	case key.Matches(msg, l.Keys.PageUp):
		l.cursor -= l.bodyHeight()
	case key.Matches(msg, l.Keys.PageDown):
		l.cursor += l.bodyHeight()
	case key.Matches(msg, l.Keys.Home):
		l.cursor = 0
	case key.Matches(msg, l.Keys.End):
		l.cursor = len(l.visible) - 1
	case key.Matches(msg, l.Keys.Select):
		if c := l.Current(); c != nil {
			if l.selected[c.Key] {
				delete(l.selected, c.Key)
			} else {
				l.selected[c.Key] = true
			}
			l.cursor++
		}
	case key.Matches(msg, l.Keys.Filter):
		l.filtering = true
		return true, l.filter.Focus()
	case key.Matches(msg, l.Keys.ClearFilter) && l.filter.Value() != "":
		l.filter.SetValue("")
		l.applyFilter()
	default:
		return false, nil
	}
	l.clamp()
	return true, nil
}

// View draws the filter line and the visible window of rows.
func (l *RowList) View() string {
	t := l.theme
	var b strings.Builder
	if l.filtering || l.filter.Value() != "" {
		b.WriteString(common.Fit(l.filter.View(), l.width) + "\n")
	}
	h := l.bodyHeight()
	if len(l.visible) == 0 {
		msg := l.empty
		if msg == "" {
			msg = "Nothing here yet."
		}
		if len(l.rows) > 0 {
			msg = "Nothing matches the filter: esc clears it."
		}
		b.WriteString(t.Muted.Render(strings.Join(common.Wrap(msg, max(l.width, 10)), "\n")))
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
		line := common.Fit(mark+r.Text, l.width)
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

// Reset empties the list: rows, filter, selection and cursor.
func (l *RowList) Reset() {
	l.filter.SetValue("")
	l.filtering = false
	l.filter.Blur()
	l.selected = map[string]bool{}
	l.cursor, l.offset = 0, 0
	l.SetRows(nil)
}

// Len is the number of rows (filtered or not).
func (l *RowList) Len() int { return len(l.rows) }

// VisibleLen is the number of rows that pass the filter.
func (l *RowList) VisibleLen() int { return len(l.visible) }

// Rows are the rows, in order.
func (l *RowList) Rows() []Row { return l.rows }

// SelectedCount is how many rows are selected.
func (l *RowList) SelectedCount() int { return len(l.selected) }

// InputEmpty tells that the filter line, when it has the keys, is empty.
func (l *RowList) InputEmpty() bool { return !l.filtering || l.filter.Value() == "" }

// SetEmpty sets what an empty list says: a sentence naming the key to press.
func (l *RowList) SetEmpty(text string) { l.empty = text }

// GoTop puts the cursor on the first row.
func (l *RowList) GoTop() { l.cursor, l.offset = 0, 0 }
