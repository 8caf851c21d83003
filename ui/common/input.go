package common

import (
	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/textinput"
)

// NewInput is a text field following the program's cursor preference.
func NewInput(pc *Context) textinput.Model {
	in := textinput.New()
	if pc.StaticCursor {
		in.Cursor.SetMode(cursor.CursorStatic)
	}
	return in
}
