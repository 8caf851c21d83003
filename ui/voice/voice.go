package voice

import (
	"context"
	"fmt"
	"github.com/harkhq/hark/ui/common"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/harkhq/hark/actions"
	"github.com/harkhq/hark/audio"
)

// Config wires the console to a microphone, a speaker and the next-action registry. With
// no Config the console is typed-only and shows actions as chips without carrying them out.
type Config struct {
	// Actions carries out every next action of every answer; required.
	Actions *actions.Registry
	// Mic configures the microphone (device by name, silence auto-stop, maximum length).
	Mic audio.CaptureConfig
	// OpenMic opens the microphone for one recording; nil uses audio.OpenCapture.
	OpenMic func(audio.CaptureConfig) (*audio.Capture, error)
	// OpenSpeaker returns the output; nil uses audio.NewPlayer.
	OpenSpeaker func() (*audio.Player, error)
	// KeepMicArmed keeps the microphone open between turns (shown as "mic armed"), so that a
	// recording begins with the pre-roll and the first word is kept. Off, the microphone is
	// opened at the talk key and closed after each recording.
	KeepMicArmed bool
}

// DefaultSilenceStop ends a spoken turn after this much silence following speech, so a
// follow-up answer (OPEN_ASR) needs no second key press.
const DefaultSilenceStop = 900 * time.Millisecond

// keptVoiceTurns is how many recent voice turns keep their audio for replay and retry:
// older turns drop it, so a long session does not grow by every answer's sound.
const keptVoiceTurns = 10

// speakerOff is how the status line and replay name a missing speaker.
const speakerOff = "voice output off (no speaker)"

// meterEvery is the refresh of the level meter and the playback position.
const meterEvery = 50 * time.Millisecond

type voicePhase int

const (
	voiceIdle voicePhase = iota
	voiceOpening
	voiceRecording
	voiceWaiting // the recording ended; recognition and the answer are on their way
	voicePlaying
)

// Turn is what a turn keeps beyond its text: its sound, its timings and what its
// next actions did.
type Turn struct {
	id      int
	spoken  bool
	pcm     []byte        // the recording, for a retried upload
	preRoll time.Duration // how much of it was captured before the talk key
	answer  *keptAudio    // the answer's MP3, for replay
	// The waterfall: end of speech → recognised → first audio byte → first sample played.
	speechEnd, recognised, firstByte, firstSample time.Time
	outcomes                                      []actions.Outcome
	dispatched                                    bool
	failed                                        bool // the upload failed; pcm is kept for a retry
	dropped                                       bool // audio forgotten (older than keptVoiceTurns)
}

type voiceKeys struct {
	Talk, Cancel, Replay, Retry, Older, Newer, Pause, StopMusic, VolUp, VolDown, Yes, No key.Binding
}

func newVoiceKeys() voiceKeys {
	return voiceKeys{
		Talk:      key.NewBinding(key.WithKeys("ctrl+t", "f2"), key.WithHelp("ctrl+t", "talk")),
		Cancel:    key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "cancel voice")),
		Replay:    key.NewBinding(key.WithKeys("ctrl+r"), key.WithHelp("ctrl+r", "replay answer")),
		Retry:     key.NewBinding(key.WithKeys("ctrl+g"), key.WithHelp("ctrl+g", "retry upload")),
		Older:     key.NewBinding(key.WithKeys("alt+,"), key.WithHelp("alt+,/alt+.", "focus answer")),
		Newer:     key.NewBinding(key.WithKeys("alt+.")),
		Pause:     key.NewBinding(key.WithKeys("ctrl+p"), key.WithHelp("ctrl+p", "pause music")),
		StopMusic: key.NewBinding(key.WithKeys("ctrl+x"), key.WithHelp("ctrl+x", "stop music")),
		VolUp:     key.NewBinding(key.WithKeys("alt+="), key.WithHelp("alt+=/alt+-", "volume")),
		VolDown:   key.NewBinding(key.WithKeys("alt+-")),
		Yes:       common.WithHelp(common.Keys.Yes, "y/n", "confirm"),
		No:        key.NewBinding(key.WithKeys("n", "N")),
	}
}

// Model is the console's talking and acting part. It never touches the console: what the
// console must show (a turn started, what was heard, the answer, a failure, the conversation
// ref, the assistant asking) goes out as the event messages of events.go. All of its I/O
// runs in commands; Update only moves state. A nil cfg means voice is not configured and
// every method is inert. recorder.go records and uploads, playback.go plays, keeps and
// replays answers, actions.go carries out next actions, view.go draws.
type Model struct {
	cfg  *Config
	keys voiceKeys
	pc   *common.Context
	// ctx is the program's: quitting stops the actions still running.
	ctx context.Context
	// ref is the console's conversation, given with every Update.
	ref int64
	// out are the events for the console, collected during one Update.
	out []tea.Msg

	started bool
	player  *audio.Player
	micOff  string // why voice input is off ("" when on)
	spkOff  string // why voice output is off ("" when on, or not yet known)
	micName string
	probed  bool

	gen       int            // the interaction in progress; messages of older ones are stale
	armed     *audio.Capture // the microphone kept open between turns (Voice.KeepMicArmed)
	phase     voicePhase
	capture   *audio.Capture
	rec       *audio.Recording
	recAt     time.Time
	cancel    context.CancelFunc
	playback  *audio.Playback
	replaying bool
	current   *Turn
	level     audio.Level
	elapsed   time.Duration
	position  time.Duration
	duration  time.Duration

	turnSeq  int
	spoken   []*Turn // voice turns, oldest first, for retention and focus
	focus    *Turn
	conv     actions.Conversation
	followUp bool // re-open the microphone when the answer has finished playing

	confirms []*actions.Outcome
	panel    panelState
	// explain shows action codes in the transcript and asks the server how
	// it read spoken queries (the console's explain view).
	explain bool
	ticking bool
}

// New is the voice part of a console on pc; a nil cfg makes it inert.
func New(pc *common.Context, cfg *Config) *Model {
	v := &Model{cfg: cfg, keys: newVoiceKeys(), pc: pc, ctx: pc.Context}
	if cfg != nil && cfg.Mic.SilenceStop == 0 {
		cfg.Mic.SilenceStop = DefaultSilenceStop
	}
	return v
}

func (v *Model) on() bool { return v != nil && v.cfg != nil && v.cfg.Actions != nil }

// Confirming tells whether an action waits for y or n: the dialog is modal,
// so the host shows it in place of its input and its keys first.
func (v *Model) Confirming() bool { return v.on() && len(v.confirms) > 0 }

// Busy tells whether voice records, waits for an answer, plays one or
// waits for a spoken reply.
func (v *Model) Busy() bool {
	return v.on() && (v.phase != voiceIdle || v.replaying || v.conv.Asking())
}

// SetExplain turns the explain view on or off: action codes in the
// transcript, and spoken queries sent with the Explain option.
func (v *Model) SetExplain(on bool) {
	if v != nil {
		v.explain = on
	}
}

// Enabled tells whether voice and next actions are configured at all.
func (v *Model) Enabled() bool { return v.on() }

// CanTalk tells whether a microphone was found, so the talk key works.
func (v *Model) CanTalk() bool { return v.on() && v.probed && v.micOff == "" }

// Messages.

type voiceProbeMsg struct {
	armed   *audio.Capture
	player  *audio.Player
	spkErr  error
	micErr  error
	micName string
}

// init starts the probe of the devices and the listener of action events, once.
func (v *Model) Init() tea.Cmd {
	if !v.on() || v.started {
		return nil
	}
	v.started = true
	cfg := *v.cfg
	probe := func() tea.Msg {
		var m voiceProbeMsg
		m.player, m.spkErr = openSpeaker(cfg)
		capture, err := openMic(cfg)
		switch {
		case err != nil:
			m.micErr = err
		case cfg.KeepMicArmed:
			m.micName = capture.Device()
			if err := capture.Arm(); err != nil {
				capture.Close()
				m.micErr = err
			} else {
				m.armed = capture
			}
		default:
			m.micName = capture.Device()
			capture.Close()
		}
		return m
	}
	return tea.Batch(probe, v.listen(), v.snapshotCmd())
}

// Update handles the voice messages and keys, ref being the console's conversation; handled
// is false for what belongs to the rest of the console. events are what the console must
// apply to its transcript, in order.
func (v *Model) Update(msg tea.Msg, ref int64) (cmd tea.Cmd, events []tea.Msg, handled bool) {
	if !v.on() {
		return nil, nil, false
	}
	v.ref = ref
	cmd, handled = v.update(msg)
	events, v.out = v.out, nil
	return cmd, events, handled
}

func (v *Model) emit(ev tea.Msg) { v.out = append(v.out, ev) }

func (v *Model) update(msg tea.Msg) (tea.Cmd, bool) {
	switch msg := msg.(type) {
	case voiceProbeMsg:
		v.probed = true
		v.player = msg.player
		switch {
		case msg.spkErr != nil:
			v.spkOff = speakerOff + ": answers are shown, not spoken"
		case msg.player == nil:
			v.spkOff = speakerOff
		}
		if msg.micErr != nil {
			v.micOff = micOffReason(msg.micErr)
		}
		v.micName = msg.micName
		v.armed = msg.armed
		return nil, true
	case micOpenedMsg:
		return v.micOpened(msg), true
	case meterMsg:
		return v.meter(msg), true
	case recEndedMsg:
		return v.recEnded(msg), true
	case streamedMsg:
		return v.streamed(msg), true
	case playingMsg:
		return v.playing(msg), true
	case playedMsg:
		return v.played(msg), true
	case keptMsg:
		return v.kept(msg), true
	case outcomesMsg:
		return v.outcomesArrived(msg), true
	case confirmedMsg:
		confirmed(msg)
		text := msg.summary
		if msg.err != nil {
			return common.ToastErr(common.OneLine(text + ": " + common.Describe(msg.err))), true
		}
		return common.Toast(text), true
	case actionEventMsg:
		return v.event(msg.ev), true
	case panelMsg:
		return v.panelArrived(msg), true
	case toneMsg:
		if msg.err != nil {
			return common.ToastErr("alarm tone: " + common.Describe(msg.err)), true
		}
		return nil, true
	case tea.KeyMsg:
		return v.key(msg)
	}
	return nil, false
}

func (v *Model) key(msg tea.KeyMsg) (tea.Cmd, bool) {
	if len(v.confirms) > 0 {
		switch {
		case key.Matches(msg, v.keys.Yes):
			return v.confirm(true), true
		case key.Matches(msg, v.keys.No), key.Matches(msg, v.keys.Cancel):
			return v.confirm(false), true
		}
		return nil, true // the dialog is modal
	}
	switch {
	case key.Matches(msg, v.keys.Talk):
		return v.talk(), true
	case key.Matches(msg, v.keys.Cancel):
		if v.phase == voiceIdle && !v.conv.Asking() {
			return nil, false
		}
		return v.cancelVoice(), true
	case key.Matches(msg, v.keys.Replay):
		return v.replay(), true
	case key.Matches(msg, v.keys.Retry):
		return v.retry(), true
	case key.Matches(msg, v.keys.Older):
		v.moveFocus(-1)
		return nil, true
	case key.Matches(msg, v.keys.Newer):
		v.moveFocus(+1)
		return nil, true
	case key.Matches(msg, v.keys.Pause):
		reg := v.cfg.Actions
		paused := reg.NowPlaying().Paused
		return func() tea.Msg {
			var err error
			if paused {
				err = reg.ResumeMusic()
			} else {
				err = reg.PauseMusic()
			}
			if err != nil {
				return common.ToastMsg{Err: true, Text: common.Describe(err)}
			}
			return nil
		}, true
	case key.Matches(msg, v.keys.StopMusic):
		reg := v.cfg.Actions
		return func() tea.Msg {
			if err := reg.StopMusic(); err != nil {
				return common.ToastMsg{Err: true, Text: common.Describe(err)}
			}
			return nil
		}, true
	case key.Matches(msg, v.keys.VolUp), key.Matches(msg, v.keys.VolDown):
		step := 10
		if key.Matches(msg, v.keys.VolDown) {
			step = -10
		}
		return v.dispatchOne(actions.Action{Code: "VOLUME_UPDATE", Data: []byte(fmt.Sprintf(`{"delta":%d}`, step))}), true
	}
	return nil, false
}

func (v *Model) emitFailed(vt *Turn, text string) { v.emit(TurnFailed{Turn: vt, Err: text}) }

// Audio is the turn's recording (16-bit mono PCM) and its rate; nil for a turn that was
// not spoken, whose recording has not ended yet, or whose audio was dropped.
func (t *Turn) Audio() ([]byte, int) { return t.pcm, audio.CaptureRate }

// Settled tells whether the turn's recording is over: its audio is kept, or will never be.
func (t *Turn) Settled() bool { return t.pcm != nil || t.dropped || !t.spoken }
