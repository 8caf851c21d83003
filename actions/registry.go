package actions

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"sort"
	"strings"
	"sync"
	"time"
)

// Config wires a Registry to its surroundings. Every field is optional.
type Config struct {
	// StatePath is the file the schedule, the stopwatch and the device panel are kept in.
	// Empty keeps them in memory.
	StatePath string
	// Clock defaults to SystemClock.
	Clock Clock
	// Player plays music; nil makes PLAY_MUSIC fail with ErrNoPlayer (volume is still kept).
	Player Player
	// Opener defaults to DesktopOpener.
	Opener Opener
	// Notifier defaults to DesktopNotifier; it is told when an alarm, timer or appointment is due.
	Notifier Notifier
	// Bell, when set, gets "\a" when something is due (the terminal's bell).
	Bell io.Writer
	// Location is the zone times are shown in; defaults to time.Local.
	Location *time.Location
	// HomePage is what OPEN_BROWSER opens; defaults to DefaultHomePage.
	HomePage string
	// Logger defaults to slog.Default().
	Logger *slog.Logger
	// EventBuffer is the capacity of the Events channel; defaults to 64.
	EventBuffer int
}

// DefaultHomePage is the page OPEN_BROWSER opens unless Config.HomePage says otherwise.
const DefaultHomePage = "https://www.wikipedia.org/"

// handler carries out one action code.
type handler func(ctx context.Context, code string, data json.RawMessage, ref int64) Outcome

// Registry carries out next actions: one handler per action code. Its methods are safe for
// concurrent use.
type Registry struct {
	clock    Clock
	player   Player
	opener   Opener
	notifier Notifier
	bell     io.Writer
	loc      *time.Location
	home     string
	log      *slog.Logger
	path     string
	handlers map[string]handler

	mu     sync.Mutex
	st     state
	timer  Timer
	closed bool

	evMu     sync.Mutex
	events   chan Event
	evClosed bool
}

// New builds a registry and loads the saved state. Alarms and timers that fell due while
// hark was closed ring at once, marked Missed, when they are less than MissedGrace late, and
// are dropped otherwise; appointments that have ended are dropped. A state file that cannot
// be read is an error (the file is left alone for the user to inspect or remove).
func New(cfg Config) (*Registry, error) {
	r := &Registry{
		clock:    cfg.Clock,
		player:   cfg.Player,
		opener:   cfg.Opener,
		notifier: cfg.Notifier,
		bell:     cfg.Bell,
		loc:      cfg.Location,
		home:     cfg.HomePage,
		log:      cfg.Logger,
		path:     cfg.StatePath,
	}
	if r.clock == nil {
		r.clock = SystemClock{}
	}
	if r.opener == nil {
		r.opener = DesktopOpener{}
	}
	if r.notifier == nil {
		r.notifier = DesktopNotifier{}
	}
	if r.loc == nil {
		r.loc = time.Local
	}
	if r.home == "" {
		r.home = DefaultHomePage
	}
	if r.log == nil {
		r.log = slog.Default()
	}
	buf := cfg.EventBuffer
	if buf <= 0 {
		buf = 64
	}
	r.events = make(chan Event, buf)
	r.handlers = map[string]handler{
		"OPEN_ASR":          r.openASR,
		"SET_ALARM":         r.setAlarm,
		"DELETE_ALARM":      r.deleteAlarm,
		"SET_TIMER":         r.setTimer,
		"DELETE_TIMER":      r.deleteTimer,
		"SET_CRONO":         r.setCrono,
		"RESET_CRONO":       r.resetCrono,
		"SET_APPOINTMENT":   r.setAppointment,
		"PLAY_MUSIC":        r.playMusic,
		"VOLUME_UPDATE":     r.volumeUpdate,
		"POWER":             r.power,
		"CHANNEL_SELECT":    r.channelSelect,
		"BRIGHTNESS_UPDATE": r.brightnessUpdate,
		"ACTIVATE":          r.activate,
		"DEACTIVATE":        r.deactivate,
		"OPEN_URL":          r.openURL,
		"OPEN_BROWSER":      r.openBrowser,
		"OPEN_APP":          r.openApp,
		"NAVIGATE":          r.navigate,
		"MAKE_CALL":         r.makeCall,
		"SEND_SMS":          r.sendSMS,
		"SEND_EMAIL":        r.sendEmail,
	}

	st, err := loadState(r.path)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	r.st = st
	due := r.takeDueLocked(r.clock.Now(), true)
	if len(due.fired) > 0 || due.changed {
		if err := r.saveLocked(); err != nil {
			r.log.Warn("actions: save state after load", "err", err)
		}
	}
	r.replanLocked()
	r.mu.Unlock()
	for _, f := range due.fired {
		r.announce(f)
	}
	if r.player != nil {
		if err := r.player.SetVolume(st.Devices.Volume); err != nil {
			r.log.Warn("actions: set player volume", "err", err)
		}
	}
	return r, nil
}

// Codes lists the action codes the registry handles, sorted.
func (r *Registry) Codes() []string {
	codes := make([]string, 0, len(r.handlers))
	for c := range r.handlers {
		codes = append(codes, c)
	}
	sort.Strings(codes)
	return codes
}

// Dispatch carries out one action of an answer whose context ref is ref. It may write the
// state file and call the Player, so the UI runs it in a tea.Cmd. Side effects on the desktop
// never happen here: they come back as NeedsConfirm.
func (r *Registry) Dispatch(ctx context.Context, a Action, ref int64) Outcome {
	code := strings.ToUpper(strings.TrimSpace(a.Code))
	h, ok := r.handlers[code]
	if !ok {
		shown := cleanText(a.Code, 40)
		if shown == "" {
			shown = "(empty)"
		}
		r.log.Info("actions: unknown action code ignored", "code", shown)
		return Outcome{Code: shown, Kind: Ignored, Summary: fmt.Sprintf("unknown action %s ignored", shown),
			Err: fmt.Errorf("%w: %s", ErrUnknownCode, shown)}
	}
	return h(ctx, code, a.Data, ref)
}

// DispatchAll carries out the actions of one answer in order.
func (r *Registry) DispatchAll(ctx context.Context, list []Action, ref int64) []Outcome {
	out := make([]Outcome, 0, len(list))
	for _, a := range list {
		out = append(out, r.Dispatch(ctx, a, ref))
	}
	return out
}

// Events delivers what happens outside Dispatch's return value: alarms ringing, schedule and
// device changes, now playing. The UI waits on it from a tea.Cmd and turns each Event into a
// message. When the buffer is full (nobody reading) events are dropped, never blocking the
// scheduler; the state stays readable through Scheduled, Crono and Devices. Closed by Close.
func (r *Registry) Events() <-chan Event { return r.events }

// Close stops the scheduler and closes Events. The saved state stays for the next start.
func (r *Registry) Close() {
	r.mu.Lock()
	r.closed = true
	if r.timer != nil {
		r.timer.Stop()
		r.timer = nil
	}
	r.mu.Unlock()
	r.evMu.Lock()
	if !r.evClosed {
		r.evClosed = true
		close(r.events)
	}
	r.evMu.Unlock()
}

func (r *Registry) emit(ev Event) {
	r.evMu.Lock()
	defer r.evMu.Unlock()
	if r.evClosed {
		return
	}
	select {
	case r.events <- ev:
	default:
		r.log.Warn("actions: event dropped, nobody is reading", "kind", ev.Kind.String())
	}
}

func (r *Registry) openASR(_ context.Context, code string, _ json.RawMessage, ref int64) Outcome {
	// The data is "" by contract; whatever else arrives carries nothing to act on.
	return Outcome{Code: code, Kind: Continue, Ref: ref, Summary: "the assistant is waiting for your answer"}
}
