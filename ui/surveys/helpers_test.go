package surveys

import (
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/harkhq/hark/client"
	"github.com/harkhq/hark/ui/internal/uitest"
)

func TestMain(m *testing.M) { uitest.Main(m) }

func press(t testing.TB, m tea.Model, name string) { t.Helper(); uitest.Press(t, m, name) }
func typeText(t testing.TB, m tea.Model, s string) { uitest.TypeText(t, m, s) }
func keyMsg(name string) tea.KeyMsg                { return uitest.KeyMsg(name) }

// newScreen is the screen on c, signed in, w x h, started.
func newScreen(t *testing.T, c *client.Client, w, h int) (*uitest.Host, *Model) {
	m := New(uitest.Context(c, true))
	return uitest.NewHost(t, m, w, h), m
}
