package common

import "github.com/charmbracelet/bubbles/key"

// KeyMap holds the bindings every screen shares, declared once; a screen
// adds its own beside them and names these in its help.
type KeyMap struct {
	Quit, QuitQ, Help, Back key.Binding

	Up, Down, PageUp, PageDown, Top, Bottom key.Binding
	Select, Filter, Refresh, Open           key.Binding
	Yes, No                                 key.Binding
}

// Keys are the shared bindings.
var Keys = KeyMap{
	Quit:  key.NewBinding(key.WithKeys("ctrl+c"), key.WithHelp("ctrl+c", "quit")),
	QuitQ: key.NewBinding(key.WithKeys("q"), key.WithHelp("q", "quit")),
	Help:  key.NewBinding(key.WithKeys("?", "f1"), key.WithHelp("?", "help")),
	Back:  key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back")),

	Up:       key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/↓ j/k", "move")),
	Down:     key.NewBinding(key.WithKeys("down", "j")),
	PageUp:   key.NewBinding(key.WithKeys("pgup"), key.WithHelp("pgup/pgdn", "page")),
	PageDown: key.NewBinding(key.WithKeys("pgdown")),
	Top:      key.NewBinding(key.WithKeys("home", "g"), key.WithHelp("g/G", "top/bottom")),
	Bottom:   key.NewBinding(key.WithKeys("end", "G")),
	Select:   key.NewBinding(key.WithKeys(" "), key.WithHelp("space", "select")),
	Filter:   key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "filter")),
	Refresh:  key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "refresh")),
	Open:     key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "open")),
	Yes:      key.NewBinding(key.WithKeys("y", "Y"), key.WithHelp("y/n", "yes/no")),
	No:       key.NewBinding(key.WithKeys("n", "N", "esc")),
}

// WithHelp is b described differently for one screen.
func WithHelp(b key.Binding, k, desc string) key.Binding {
	b.SetHelp(k, desc)
	return b
}
