package ui

import (
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/lipgloss"

	"github.com/harkhq/hark/ui/common"
)

// helpGroups are every key of the active screen, then the global ones.
func (a *App) helpGroups() [][]key.Binding {
	groups := append([][]key.Binding{}, a.screens[a.active].FullHelp()...)
	k := a.keys
	if a.signedIn() {
		lang := common.WithHelp(k.Language, "alt+g", "language (now "+languageName(a.ctx.Client.Config().Language)+")")
		nav := []key.Binding{k.Console, k.Items, k.Storage, k.Surveys, k.Recomm, k.Places}
		if tt, ok := a.screens[a.active].(tabTaker); !ok || !tt.TakesTab() {
			nav = append(nav, k.NextTab) // else tab is the screen's own
		}
		groups = append(groups, append(nav, lang, k.Logout))
	}
	return append(groups, []key.Binding{k.Help, k.Back, k.QuitQ, k.Quit})
}

// helpPages lays the full help out in columns that fit width x height, a
// group kept whole in a column where it fits and an entry wrapped at
// word boundaries (never cut). Columns that do not fit the width go to a
// next page.
func (a *App) helpPages(width, height int) []string {
	height = max(height, 3)
	// Balanced columns read better than one long one: the shortest column
	// height that still fits on one page, else full pages.
	tallest := 0
	for _, g := range a.helpGroups() {
		tallest = max(tallest, len(g))
	}
	for h := min(max(8, tallest), height); h < height; h++ {
		if pages := a.layoutHelp(width, h); len(pages) == 1 {
			return pages
		}
	}
	return a.layoutHelp(width, height)
}

func (a *App) layoutHelp(width, height int) []string {
	t := a.ctx.Theme
	var cols [][]string
	var col []string
	flush := func() {
		if len(col) > 0 {
			cols = append(cols, col)
			col = nil
		}
	}
	for _, g := range a.helpGroups() {
		var entries []string
		kw := 0
		for _, b := range g {
			if b.Enabled() && b.Help().Key != "" {
				kw = max(kw, lipgloss.Width(b.Help().Key))
			}
		}
		for _, b := range g {
			h := b.Help()
			if !b.Enabled() || h.Key == "" {
				continue
			}
			text := common.Wrap(h.Desc, max(width-kw-2, 8))
			for i, l := range text {
				k := strings.Repeat(" ", kw)
				if i == 0 {
					k = h.Key + strings.Repeat(" ", kw-lipgloss.Width(h.Key))
				}
				entries = append(entries, t.Key.Render(k)+"  "+t.Muted.Render(l))
			}
		}
		if len(entries) == 0 {
			continue
		}
		need := len(entries)
		if len(col) > 0 {
			need++ // the blank line between groups
		}
		if len(col)+need > height && len(col) > 0 {
			flush()
		} else if len(col) > 0 {
			col = append(col, "")
		}
		for _, e := range entries {
			if len(col) == height {
				flush()
			}
			col = append(col, e)
		}
	}
	flush()
	var pages []string
	var row []string
	used := 0
	for _, c := range cols {
		w := 0
		for _, l := range c {
			w = max(w, lipgloss.Width(l))
		}
		block := lipgloss.NewStyle().Width(w).Render(strings.Join(c, "\n"))
		gap := 0
		if len(row) > 0 {
			gap = 3
		}
		if used+gap+w > width && len(row) > 0 {
			pages = append(pages, lipgloss.JoinHorizontal(lipgloss.Top, row...))
			row, used, gap = nil, 0, 0
		}
		if gap > 0 {
			row = append(row, strings.Repeat(" ", gap))
		}
		row = append(row, block)
		used += gap + w
	}
	if len(row) > 0 {
		pages = append(pages, lipgloss.JoinHorizontal(lipgloss.Top, row...))
	}
	if len(pages) == 0 {
		pages = []string{""}
	}
	return pages
}

// helpView is the full help in place of the screen, with how to leave it
// and, when it takes more than one page, how to turn them.
func (a *App) helpView(width, height int) string {
	t := a.ctx.Theme
	title := "Keys of the " + strings.ToLower(screenTitles[a.active]) + " screen: esc or ? closes"
	lines := common.Wrap(title, width)
	pages := a.helpPages(width, height-len(lines)-2)
	if len(pages) > 1 {
		title += ", pgdn/pgup turn the page"
		lines = common.Wrap(title, width)
		pages = a.helpPages(width, height-len(lines)-2)
	}
	a.helpPage = min(max(a.helpPage, 0), len(pages)-1)
	if len(pages) > 1 {
		lines = common.Wrap(title+" ("+common.Itoa(int64(a.helpPage+1))+" of "+common.Itoa(int64(len(pages)))+")", width)
	}
	for i := range lines {
		lines[i] = t.Header.Render(lines[i])
	}
	return strings.Join(lines, "\n") + "\n\n" + pages[a.helpPage]
}
