// Package ui is hark's terminal console. app.go is the root model: the
// screen contract, routing by screen, the tab bar and the global keys.
// ui/common holds the program context the screens share, ui/components
// the reusable pieces, and each screen has its own package. Screens talk
// by messages; all I/O runs in tea.Cmd functions through the client
// package, and Update only changes state.
package ui

import (
	"context"
	"time"

	"github.com/harkhq/hark/client"
	"github.com/harkhq/hark/ui/common"
	"github.com/harkhq/hark/ui/components"
	"github.com/harkhq/hark/ui/console"
	"github.com/harkhq/hark/ui/voice"
)

// Session is a signed-in user as remembered between runs.
type Session = common.Session

// SessionStore keeps the session between runs.
type SessionStore = common.SessionStore

// Settings and SettingsStore keep the city, language and screen between runs.
type (
	Settings      = common.Settings
	SettingsStore = common.SettingsStore
)

// Voice wires the console to a microphone, a speaker and the next actions.
type Voice = voice.Config

// MusicPlayer plays PLAY_MUSIC through the process's audio output.
type MusicPlayer = voice.MusicPlayer

// DefaultSilenceStop ends a spoken turn after this much silence.
const DefaultSilenceStop = voice.DefaultSilenceStop

// NewMusicPlayer plays through open (nil: the default output) what c fetches.
var NewMusicPlayer = voice.NewMusicPlayer

// NoColorFromEnv follows https://no-color.org: any non-empty NO_COLOR.
func NoColorFromEnv() bool { return common.NoColorFromEnv() }

// PlainText renders an answer's HTML as plain text (for hark say).
func PlainText(s string) string { return components.HTMLText(s) }

// Options is what the host (cmd/hark or a test) hands the console.
type Options struct {
	Client   *client.Client
	Sessions SessionStore
	// Settings, when set, remembers the city, language and last screen.
	Settings SettingsStore
	// Session, when set, is a remembered sign-in: the console opens on it.
	Session *Session
	// Platform names the server in the header ("embedded platform" or a URL).
	Platform string
	// Now is the clock for relative dates and the transcript (tests fix it).
	Now     func() time.Time
	NoColor bool
	// DownloadDir is the destination storage downloads offer first
	// (default: the XDG download directory).
	DownloadDir string
	// ReportPanic writes a report of a panic caught in a command and
	// returns where it went; nil only logs it in the toast.
	ReportPanic func(recovered any, stack []byte) string
	// StaticCursor stops the input cursors from blinking (fewer repaints
	// over slow links, steady screenshots and tests).
	StaticCursor bool
	// PlatformReady, when set, yields once the platform serves, or the
	// error that stopped it (an embedded platform opening in the background).
	PlatformReady <-chan error
	// Context bounds every command; cancelling it stops work in flight.
	Context context.Context
	// Voice, when set, lets the console talk (microphone, speaker) and carry
	// out the answers' next actions; nil keeps it typed-only.
	Voice *Voice
	// Recorder, when set, keeps every answered turn of the console (hark flow
	// record); the status line says so and where.
	Recorder TurnRecorder
}

// TurnRecorder keeps the console's answered turns (flow.Recorder).
type TurnRecorder = console.TurnRecorder

func (o Options) common() common.Options {
	return common.Options{Client: o.Client, Sessions: o.Sessions, Settings: o.Settings, Platform: o.Platform, Now: o.Now,
		NoColor: o.NoColor, DownloadDir: o.DownloadDir, ReportPanic: o.ReportPanic, StaticCursor: o.StaticCursor, Context: o.Context}
}
