package ui

import (
	tea "github.com/charmbracelet/bubbletea"

	"github.com/harkhq/hark/ui/common"
)

// screenNames are how screens are remembered in the settings file.
var screenNames = map[common.ScreenID]string{
	common.ScreenConsole: "console", common.ScreenItems: "items", common.ScreenStorage: "storage",
	common.ScreenSurveys: "surveys", common.ScreenRecomm: "recommendations", common.ScreenPlaces: "places",
}

// applySettings puts the remembered city and language into the client and
// returns the screen to open (the console when none is remembered).
func (a *App) applySettings(s common.Settings) common.ScreenID {
	a.settings = s
	if i := common.CityBySlug(s.City); i >= 0 {
		common.SetCity(a.ctx.Client, i)
	}
	if s.Language != "" {
		a.ctx.Client.SetLanguage(s.Language)
	}
	for id, n := range screenNames {
		if n == s.Screen {
			return id
		}
	}
	return common.ScreenConsole
}

// remember saves the settings with the current screen, city and language.
func (a *App) remember() tea.Cmd {
	store := a.ctx.Settings
	if store == nil || !a.signedIn() {
		return nil
	}
	a.settings.Screen = screenNames[a.active]
	if i := common.CityIndex(a.ctx.Client.RequestInfo()); i >= 0 {
		a.settings.City = common.Cities()[i].Slug
	}
	a.settings.Language = a.ctx.Client.Config().Language
	s := a.settings
	return func() tea.Msg {
		if err := store.Save(s); err != nil {
			return common.ToastMsg{Err: true, Text: "hark could not remember your settings: " + common.Describe(err)}
		}
		return nil
	}
}
