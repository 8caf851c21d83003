package ui

import (
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/lipgloss"

	"github.com/harkhq/hark/ui/common"
)

// tab is a screen of the tab bar with the key that opens it.
type tab struct {
	id    common.ScreenID
	key   key.Binding
	name  string
	short string // the name when the full one does not fit
}

// tabs are the screens reachable once signed in, in the bar's order.
func (a *App) tabs() []tab {
	k := a.keys
	return []tab{
		{common.ScreenConsole, k.Console, "Console", "Console"},
		{common.ScreenItems, k.Items, "Items", "Items"},
		{common.ScreenStorage, k.Storage, "Storage", "Storage"},
		{common.ScreenSurveys, k.Surveys, "Surveys", "Surveys"},
		{common.ScreenRecomm, k.Recomm, "Recommendations", "Recomm"},
		{common.ScreenPlaces, k.Places, "Places", "Places"},
	}
}

// tabBar names every screen with its key, abbreviating as the width
// shrinks and never dropping a screen: "alt+c Console", then the names
// shortened, then one "alt+" for all, then names cut to four letters.
func (a *App) tabBar(width int) string {
	t := a.ctx.Theme
	title := t.Title.Render("hark") + " "
	if !a.signedIn() {
		return common.AnsiFit(title+t.Header.Render(screenTitles[a.active]), width)
	}
	tabs := a.tabs()
	render := func(label func(tb tab) string, prefix, sep string) string {
		parts := make([]string, len(tabs))
		for i, tb := range tabs {
			l := label(tb)
			// Brackets as well as a style, so the current screen shows
			// without colour (NO_COLOR, dumb terminals).
			if tb.id == a.active {
				parts[i] = t.ActiveTab.Render("[" + l + "]")
			} else {
				parts[i] = t.Tab.Render(" " + l + " ")
			}
		}
		return title + prefix + strings.Join(parts, sep)
	}
	letter := func(tb tab) string { return strings.TrimPrefix(tb.key.Help().Key, "alt+") }
	candidates := []string{
		render(func(tb tab) string { return tb.key.Help().Key + " " + tb.name }, "", ""),
		render(func(tb tab) string { return tb.key.Help().Key + " " + tb.short }, "", ""),
		render(func(tb tab) string { return letter(tb) + " " + tb.short }, t.Muted.Render("alt+")+" ", ""),
		render(func(tb tab) string { return letter(tb) + ":" + tb.short }, t.Muted.Render("alt+"), ""),
		render(func(tb tab) string { return letter(tb) + ":" + cut(tb.short, 4) }, t.Muted.Render("alt+"), ""),
		render(func(tb tab) string { return letter(tb) + cut(tb.short, 3) }, "", ""),
	}
	for _, c := range candidates {
		if lipgloss.Width(c) <= width {
			return c
		}
	}
	return common.AnsiFit(candidates[len(candidates)-1], width)
}

func cut(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n])
}
