package common

import (
	"os"

	"github.com/charmbracelet/lipgloss"
)

// Theme holds every style a screen draws with, so colour decisions live in
// one place and NO_COLOR turns them all off at once.
type Theme struct {
	Title, Header, Muted, Error, Success, Warn lipgloss.Style
	Selected, Cursor, Chip, Key, Border        lipgloss.Style
	Query, Answer, Toast, ToastError           lipgloss.Style
	Tab, ActiveTab                             lipgloss.Style
	NoColor                                    bool
}

// NewTheme builds the theme; noColor keeps only bold/reverse attributes.
func NewTheme(noColor bool) *Theme {
	t := &Theme{NoColor: noColor}
	if noColor {
		plain := lipgloss.NewStyle()
		t.Title, t.Header, t.Muted, t.Error = plain.Bold(true), plain.Bold(true), plain, plain.Bold(true)
		t.Success, t.Warn, t.Selected = plain, plain.Bold(true), plain.Bold(true)
		t.Cursor = plain.Reverse(true)
		t.Chip = plain
		t.Key = plain.Bold(true)
		t.Border = plain
		t.Query, t.Answer = plain.Bold(true), plain
		t.Toast, t.ToastError = plain, plain.Bold(true)
		t.Tab, t.ActiveTab = plain, plain.Bold(true)
		return t
	}
	accent := lipgloss.AdaptiveColor{Light: "#5A3FC0", Dark: "#A98BFF"}
	t.Title = lipgloss.NewStyle().Bold(true).Foreground(accent)
	t.Header = lipgloss.NewStyle().Bold(true)
	t.Muted = lipgloss.NewStyle().Foreground(lipgloss.AdaptiveColor{Light: "#777777", Dark: "#8A8A8A"})
	t.Error = lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Color("#E5484D"))
	t.Success = lipgloss.NewStyle().Foreground(lipgloss.Color("#30A46C"))
	t.Warn = lipgloss.NewStyle().Foreground(lipgloss.Color("#F5A524"))
	t.Selected = lipgloss.NewStyle().Foreground(accent).Bold(true)
	t.Cursor = lipgloss.NewStyle().Reverse(true)
	t.Chip = lipgloss.NewStyle().Foreground(lipgloss.Color("#FFFFFF")).Background(lipgloss.Color("#4B3A8F"))
	t.Key = lipgloss.NewStyle().Bold(true).Foreground(accent)
	t.Border = lipgloss.NewStyle().Foreground(lipgloss.AdaptiveColor{Light: "#BBBBBB", Dark: "#444444"})
	t.Query = lipgloss.NewStyle().Bold(true).Foreground(accent)
	t.Answer = lipgloss.NewStyle()
	t.Toast = lipgloss.NewStyle().Foreground(lipgloss.Color("#30A46C"))
	t.ToastError = lipgloss.NewStyle().Foreground(lipgloss.Color("#E5484D")).Bold(true)
	t.Tab = t.Muted
	t.ActiveTab = lipgloss.NewStyle().Bold(true).Foreground(accent)
	return t
}

// NoColorFromEnv follows https://no-color.org: any non-empty NO_COLOR.
func NoColorFromEnv() bool { return os.Getenv("NO_COLOR") != "" }

// Color returns a style for a server-given colour pair (e.g. an onboarding
// button), falling back to the chip style when colours are off or missing.
func (t *Theme) Color(bg, fg string) lipgloss.Style {
	if t.NoColor || (bg == "" && fg == "") {
		return t.Chip.Reverse(t.NoColor)
	}
	s := lipgloss.NewStyle().Padding(0, 1)
	if bg != "" {
		s = s.Background(lipgloss.Color(bg))
	}
	if fg != "" {
		s = s.Foreground(lipgloss.Color(fg))
	}
	return s
}
