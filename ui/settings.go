package ui

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/harkhq/hark/ui/common"
)

// languages the platform answers in (Accept-Language), in switching order.
// Auto sends none: each query is answered in its own language.
var languages = []struct{ code, name string }{{"", "auto"}, {"en", "English"}, {"es", "Spanish"}}

// autoLanguage is how the settings file remembers the auto choice, which
// must not read as "nothing remembered" (the flag's language then).
const autoLanguage = "auto"

func languageName(code string) string {
	for _, l := range languages {
		if l.code == code {
			return l.name
		}
	}
	return code
}

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
	switch s.Language {
	case "":
	case autoLanguage:
		a.ctx.Client.SetLanguage("")
	default:
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
	if a.settings.Language == "" {
		a.settings.Language = autoLanguage
	}
	s := a.settings
	return func() tea.Msg {
		if err := store.Save(s); err != nil {
			return common.ToastMsg{Err: true, Text: "hark could not remember your settings: " + common.Describe(err)}
		}
		return nil
	}
}

// FileSettings keeps Settings as JSON in path (cmd/hark: settings.json in
// the XDG state directory). A missing file is empty settings.
func FileSettings(path string) SettingsStore { return fileSettings(path) }

type fileSettings string

func (f fileSettings) Load() (common.Settings, error) {
	var s common.Settings
	b, err := os.ReadFile(string(f))
	if errors.Is(err, os.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return s, err
	}
	return s, json.Unmarshal(b, &s)
}

// Save writes a temporary file and renames it, so a crash never leaves
// half a file.
func (f fileSettings) Save(s common.Settings) error {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(string(f)), 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(string(f)), ".settings-*")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), string(f))
}
