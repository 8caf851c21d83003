package common

import tea "github.com/charmbracelet/bubbletea"

// ScreenID names a screen for routing and for the tab bar.
type ScreenID int

const (
	ScreenSignIn ScreenID = iota
	ScreenOnboarding
	ScreenConsole
	ScreenItems
	ScreenStorage
	ScreenSurveys
	ScreenRecomm
	ScreenPlaces
)

// TaskBeginMsg and TaskEndMsg bracket a Task: the root counts what is in
// flight and hands Inner to the screen that started it.
type TaskBeginMsg struct{ Label string }

type TaskEndMsg struct {
	Label string
	Inner tea.Msg
}

// ToastMsg shows a short notice in the status line.
type ToastMsg struct {
	Text string
	Err  bool
}

// ToastExpiredMsg ends the toast with that number.
type ToastExpiredMsg struct{ ID int }

// ClearToastMsg takes a notice away when its cause has gone.
type ClearToastMsg struct{}

func Toast(text string) tea.Cmd    { return func() tea.Msg { return ToastMsg{Text: text} } }
func ToastErr(text string) tea.Cmd { return func() tea.Msg { return ToastMsg{Text: text, Err: true} } }

// ClearToast takes the current notice away.
func ClearToast() tea.Msg { return ClearToastMsg{} }

// Failure is implemented by results that carry an error, so the root can
// notice an expired session whatever screen asked.
type Failure interface{ Failed() error }

// OpenScreenMsg asks the root to show a screen.
type OpenScreenMsg struct{ ID ScreenID }

func OpenScreen(id ScreenID) tea.Cmd { return func() tea.Msg { return OpenScreenMsg{ID: id} } }

// SignedInMsg ends a sign-in: the session is kept and onboarding resumes.
type SignedInMsg struct{ Session Session }

// DisplayNameMsg tells the root the user's chosen name.
type DisplayNameMsg struct{ Name string }

// CityChangedMsg tells the root the position moved to a sandbox city, to
// be remembered.
type CityChangedMsg struct{ Slug string }

// GoBackMsg asks the root for the screen shown before: a screen sends it
// when esc has nothing of its own left to close.
type GoBackMsg struct{}

func GoBack() tea.Msg { return GoBackMsg{} }

// LanguageChangedMsg tells the root the language changed, to be remembered.
type LanguageChangedMsg struct{ Lang string }
