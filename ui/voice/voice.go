package voice

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/harkhq/hark/ui/common"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/harkhq/hark/actions"
	"github.com/harkhq/hark/audio"
	"github.com/harkhq/hark/client"
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

// maxKeptAnswer bounds the MP3 kept for one answer's replay (minutes of speech).
const maxKeptAnswer = 4 << 20

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

// keptAudio collects an answer's MP3 as it streams by, for replay.
type keptAudio struct {
	mu       sync.Mutex
	buf      bytes.Buffer
	first    time.Time
	complete bool
	tooLong  bool
}

func (k *keptAudio) write(p []byte) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.first.IsZero() && len(p) > 0 {
		k.first = time.Now()
	}
	if k.buf.Len()+len(p) > maxKeptAnswer {
		k.tooLong = true
		return
	}
	k.buf.Write(p)
}

func (k *keptAudio) finish() {
	k.mu.Lock()
	k.complete = true
	k.mu.Unlock()
}

// snapshot is a copy of the MP3 when it arrived whole, nil otherwise.
func (k *keptAudio) snapshot() []byte {
	k.mu.Lock()
	defer k.mu.Unlock()
	if !k.complete || k.tooLong || k.buf.Len() == 0 {
		return nil
	}
	return bytes.Clone(k.buf.Bytes())
}

func (k *keptAudio) firstByte() time.Time {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.first
}

// teeBody keeps what the player reads from the answer's body.
type teeBody struct {
	r io.ReadCloser
	k *keptAudio
}

func (t teeBody) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	t.k.write(p[:n])
	if err == io.EOF {
		t.k.finish()
	}
	return n, err
}

func (t teeBody) Close() error { return t.r.Close() }

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
		Yes:       key.NewBinding(key.WithKeys("y", "Y"), key.WithHelp("y/n", "confirm")),
		No:        key.NewBinding(key.WithKeys("n", "N")),
	}
}

// Model is the console's talking and acting part. It never touches the console: what the
// console must show (a turn started, what was heard, the answer, a failure, the conversation
// ref, the assistant asking) goes out as the event messages of events.go. All of its I/O runs in commands; Update
// only moves state. A nil cfg means voice is not configured and every method is inert.
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
	ticking  bool
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

// Messages.

type voiceProbeMsg struct {
	armed   *audio.Capture
	player  *audio.Player
	spkErr  error
	micErr  error
	micName string
}

type micOpenedMsg struct {
	gen     int
	capture *audio.Capture
	rec     *audio.Recording
	err     error
}

type meterMsg struct {
	gen      int
	level    audio.Level
	hasLevel bool
	notices  []audio.Notice
	position time.Duration
	duration time.Duration
}

type recEndedMsg struct {
	gen       int
	vt        *Turn
	preRoll   time.Duration
	reason    audio.StopReason
	err       error
	pcm       []byte
	speechEnd time.Time
	at        time.Time
}

type streamedMsg struct {
	gen    int
	vt     *Turn
	answer *client.StreamAnswer
	err    error
	at     time.Time
}

func (m streamedMsg) Failed() error { return m.err }

type playingMsg struct {
	gen    int
	vt     *Turn
	pb     *audio.Playback
	err    error
	replay bool
}

type playedMsg struct {
	gen         int
	vt          *Turn
	firstSample time.Time
	err         error
	replay      bool
}

type keptMsg struct {
	gen int
	vt  *Turn
	err error
}

type outcomesMsg struct {
	vt       *Turn
	ref      int64
	outcomes []actions.Outcome
}

type confirmedMsg struct {
	summary string
	err     error
}

type actionEventMsg struct{ ev actions.Event }

type toneMsg struct {
	pb  *audio.Playback
	err error
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

func openSpeaker(cfg Config) (*audio.Player, error) {
	if cfg.OpenSpeaker != nil {
		return cfg.OpenSpeaker()
	}
	return audio.NewPlayer()
}

func openMic(cfg Config) (*audio.Capture, error) {
	if cfg.OpenMic != nil {
		return cfg.OpenMic(cfg.Mic)
	}
	return audio.OpenCapture(cfg.Mic)
}

// listen waits for the next action event.
func (v *Model) listen() tea.Cmd {
	events := v.cfg.Actions.Events()
	return func() tea.Msg {
		ev, ok := <-events
		if !ok {
			return nil
		}
		return actionEventMsg{ev: ev}
	}
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
			v.spkOff = "voice output off: answers are kept for replay"
		case msg.player == nil:
			v.spkOff = "voice output off"
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

func micOffReason(err error) string {
	switch {
	case errors.Is(err, audio.ErrNoInput):
		return "voice input off (no microphone): type instead"
	case errors.Is(err, audio.ErrNoAudioBuild):
		return "voice input off (built without audio)"
	}
	return "voice input off (" + common.OneLine(err.Error()) + ")"
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

// talk is the toggle: start a recording, stop and send it, or barge in on an answer.
func (v *Model) talk() tea.Cmd {
	switch v.phase {
	case voiceOpening:
		return nil
	case voiceRecording:
		rec := v.rec
		return func() tea.Msg { rec.Stop(); return nil }
	case voiceWaiting, voicePlaying:
		stop := v.interrupt()
		return tea.Batch(stop, v.startRecording())
	}
	if v.replaying {
		return tea.Batch(v.interrupt(), v.startRecording())
	}
	return v.startRecording()
}

// interrupt stops the answer playing and cancels the request in flight (barge-in). The turn
// keeps what it had.
func (v *Model) interrupt() tea.Cmd {
	v.gen++
	v.followUp = false
	if v.cancel != nil {
		v.cancel()
		v.cancel = nil
	}
	pb, rec, capture := v.playback, v.rec, v.capture
	keepArmed := capture != nil && capture == v.armed
	v.playback, v.rec, v.capture = nil, nil, nil
	v.phase, v.replaying = voiceIdle, false
	if pb == nil && rec == nil {
		return nil
	}
	return func() tea.Msg {
		if pb != nil {
			pb.Stop()
		}
		if rec != nil {
			rec.Cancel()
		}
		if capture != nil && !keepArmed {
			capture.Close()
		}
		return nil
	}
}

func (v *Model) cancelVoice() tea.Cmd {
	recording := v.phase == voiceRecording || v.phase == voiceOpening
	vt := v.current
	cmd := v.interrupt()
	v.conv.Stop()
	v.emit(Asking{On: false})
	if recording && vt != nil {
		v.emit(TurnDropped{Turn: vt})
		v.forget(vt)
	}
	v.current = nil
	return tea.Batch(cmd, common.Toast("voice cancelled"))
}

func (v *Model) startRecording() tea.Cmd {
	if v.micOff != "" {
		return common.ToastErr(v.micOff)
	}
	v.gen++
	gen := v.gen
	v.phase = voiceOpening
	v.followUp = false
	v.turnSeq++
	vt := &Turn{id: v.turnSeq, spoken: true}
	v.current = vt
	v.keep(vt)
	v.emit(TurnStarted{Turn: vt, Query: "(listening…)"})
	cfg, armed := *v.cfg, v.armed
	return func() tea.Msg {
		if armed != nil {
			if rec, err := armed.Start(); err == nil {
				return micOpenedMsg{gen: gen, capture: armed, rec: rec}
			}
			armed.Close() // failed since it was armed: open afresh
		}
		capture, err := openMic(cfg)
		if err != nil {
			return micOpenedMsg{gen: gen, err: err}
		}
		rec, err := capture.Start()
		if err != nil {
			capture.Close()
			return micOpenedMsg{gen: gen, err: err}
		}
		return micOpenedMsg{gen: gen, capture: capture, rec: rec}
	}
}

// keep records a new voice turn and drops the audio of those beyond keptVoiceTurns.
func (v *Model) keep(vt *Turn) {
	v.spoken = append(v.spoken, vt)
	if n := len(v.spoken) - keptVoiceTurns; n > 0 {
		for _, old := range v.spoken[:n] {
			if old.answer != nil || old.pcm != nil {
				old.answer, old.pcm, old.dropped = nil, nil, true
			}
		}
		v.spoken = append(v.spoken[:0:0], v.spoken[n:]...)
	}
	v.focus = nil
}

func (v *Model) forget(vt *Turn) {
	for i, x := range v.spoken {
		if x == vt {
			v.spoken = append(v.spoken[:i], v.spoken[i+1:]...)
			break
		}
	}
	if v.focus == vt {
		v.focus = nil
	}
}

func (v *Model) micOpened(m micOpenedMsg) tea.Cmd {
	keep := v.cfg.KeepMicArmed
	if m.err != nil {
		v.armed = nil
	} else if keep {
		v.armed = m.capture
	}
	if m.gen != v.gen {
		if m.capture != nil {
			capture, rec := m.capture, m.rec
			return func() tea.Msg {
				rec.Cancel()
				if !keep {
					capture.Close()
				}
				return nil
			}
		}
		return nil
	}
	vt := v.current
	if m.err != nil {
		v.phase = voiceIdle
		if errors.Is(m.err, audio.ErrNoInput) || errors.Is(m.err, audio.ErrNoAudioBuild) {
			v.micOff = micOffReason(m.err)
		}
		v.emit(TurnDropped{Turn: vt})
		v.forget(vt)
		return common.ToastErr("microphone: " + common.Describe(m.err))
	}
	v.phase = voiceRecording
	v.capture, v.rec, v.recAt = m.capture, m.rec, time.Now()
	v.elapsed, v.level = 0, audio.Level{}
	ctx, cancel := context.WithCancel(v.ctx)
	v.cancel = cancel
	body := io.MultiReader(bytes.NewReader(audio.WAVStreamHeader(audio.CaptureRate)), m.rec)
	return tea.Batch(
		v.upload(ctx, v.pc.Client, body, v.ref, vt),
		waitRecording(v.gen, vt, m.capture, m.rec, keep),
		v.meterCmd(),
	)
}

// upload streams the spoken query while it is being recorded.
func (v *Model) upload(ctx context.Context, cl *client.Client, body io.Reader, ref int64, vt *Turn) tea.Cmd {
	gen := v.gen
	return func() tea.Msg {
		ans, err := cl.Dialogue.Stream(ctx, body, audio.CaptureRate, ref)
		return streamedMsg{gen: gen, vt: vt, answer: ans, err: err, at: time.Now()}
	}
}

// waitRecording reports the end of the recording and closes the microphone, unless it is
// kept armed and still works.
func waitRecording(gen int, vt *Turn, capture *audio.Capture, rec *audio.Recording, keep bool) tea.Cmd {
	return func() tea.Msg {
		<-rec.Done()
		m := recEndedMsg{gen: gen, vt: vt, preRoll: rec.PreRoll(), reason: rec.Reason(), err: rec.Err(),
			pcm: rec.PCM(), speechEnd: rec.SpeechEnd(), at: time.Now()}
		if !keep || m.reason == audio.StopDevice {
			capture.Close()
		}
		return m
	}
}

// meterCmd samples the microphone's level and the playback's position.
func (v *Model) meterCmd() tea.Cmd {
	gen := v.gen
	var levels <-chan audio.Level
	var notices <-chan audio.Notice
	if v.capture != nil {
		levels, notices = v.capture.Levels(), v.capture.Notices()
	}
	pb := v.playback
	return tea.Tick(meterEvery, func(time.Time) tea.Msg {
		m := meterMsg{gen: gen}
		for drained := false; !drained; {
			select {
			case l := <-levels:
				m.level, m.hasLevel = l, true
			default:
				drained = true
			}
		}
		for drained := false; !drained; {
			select {
			case n := <-notices:
				m.notices = append(m.notices, n)
			default:
				drained = true
			}
		}
		if pb != nil {
			m.position = pb.Position()
			m.duration, _ = pb.Duration()
		}
		return m
	})
}

func (v *Model) meter(m meterMsg) tea.Cmd {
	if m.gen != v.gen || (v.phase != voiceRecording && v.phase != voicePlaying && !v.replaying) {
		return nil
	}
	if m.hasLevel {
		v.level = m.level
	}
	if v.phase == voiceRecording {
		v.elapsed = time.Since(v.recAt)
	}
	v.position, v.duration = m.position, m.duration
	var cmds []tea.Cmd
	for _, n := range m.notices {
		v.micName = n.Using
		cmds = append(cmds, common.Toast(n.Reason))
	}
	return tea.Batch(append(cmds, v.meterCmd())...)
}

func (v *Model) recEnded(m recEndedMsg) tea.Cmd {
	vt := m.vt
	vt.pcm, vt.preRoll = m.pcm, m.preRoll
	vt.speechEnd = m.speechEnd
	if m.reason == audio.StopDevice {
		v.armed = nil
	}
	if vt.speechEnd.IsZero() {
		vt.speechEnd = m.at
	}
	if m.gen != v.gen {
		return nil
	}
	v.capture, v.rec = nil, nil
	if v.phase == voiceRecording {
		v.phase = voiceWaiting
		v.emit(TurnQuery{Turn: vt, Query: "(recognising…)"})
	}
	if m.reason == audio.StopDevice {
		v.micOff = "voice input off: the microphone was lost"
		if m.err != nil {
			v.micOff += " (" + common.OneLine(m.err.Error()) + ")"
		}
	}
	return nil
}

func (v *Model) streamed(m streamedMsg) tea.Cmd {
	vt := m.vt
	if m.gen != v.gen {
		if m.answer != nil {
			body := m.answer.Audio
			return func() tea.Msg { body.Close(); return nil }
		}
		return nil
	}
	v.cancel = nil
	if m.err != nil {
		v.phase = voiceIdle
		vt.failed = true
		v.followUp = false
		if common.SessionExpired(m.err) {
			v.emitFailed(vt, "session expired: sign in again, then retry with "+v.keys.Retry.Help().Key)
			return nil
		}
		v.emitFailed(vt, common.Describe(m.err)+" — the recording is kept: "+v.keys.Retry.Help().Key+" retries")
		return nil
	}
	vt.failed = false
	vt.recognised = m.at
	r := m.answer.Answer
	heard := strings.TrimSpace(common.OneLine(r.Responses.Query))
	if heard == "" {
		heard = "(nothing recognised)"
	}
	v.emit(TurnAnswered{Turn: vt, Heard: heard, Answer: &r})
	vt.answer = &keptAudio{}
	body := teeBody{r: m.answer.Audio, k: vt.answer}
	dispatch := v.dispatch(vt, r.NextActions, r.Context.Ref)
	gen := v.gen
	if v.player == nil {
		// No output: the answer is shown and its sound kept for replay later.
		v.phase = voiceIdle
		return tea.Batch(dispatch, func() tea.Msg {
			_, err := io.Copy(io.Discard, body)
			body.k.finish()
			body.Close()
			return keptMsg{gen: gen, vt: vt, err: err}
		})
	}
	v.phase = voicePlaying
	player := v.player
	return tea.Batch(dispatch, func() tea.Msg {
		pb, err := player.Play(body)
		return playingMsg{gen: gen, vt: vt, pb: pb, err: err}
	})
}

func (v *Model) playing(m playingMsg) tea.Cmd {
	if m.gen != v.gen {
		if m.pb != nil {
			pb := m.pb
			return func() tea.Msg { pb.Stop(); return nil }
		}
		return nil
	}
	if m.err != nil {
		v.phase, v.replaying = voiceIdle, false
		return common.ToastErr("playback: " + common.Describe(m.err))
	}
	v.playback = m.pb
	v.position, v.duration = 0, 0
	gen, vt, pb, replay := m.gen, m.vt, m.pb, m.replay
	return tea.Batch(v.meterCmd(), func() tea.Msg {
		<-pb.Done()
		return playedMsg{gen: gen, vt: vt, firstSample: pb.FirstSample(), err: pb.Err(), replay: replay}
	})
}

func (v *Model) played(m playedMsg) tea.Cmd {
	if !m.replay && m.vt != nil {
		m.vt.firstSample = m.firstSample
		if m.vt.answer != nil {
			m.vt.firstByte = m.vt.answer.firstByte()
		}
	}
	if m.gen != v.gen {
		return nil
	}
	v.playback = nil
	v.phase, v.replaying = voiceIdle, false
	var cmds []tea.Cmd
	if m.err != nil {
		cmds = append(cmds, common.ToastErr("playback: "+common.Describe(m.err)))
	}
	if v.followUp {
		v.followUp = false
		cmds = append(cmds, v.startRecording())
	}
	return tea.Batch(cmds...)
}

func (v *Model) kept(m keptMsg) tea.Cmd {
	if m.vt != nil && m.vt.answer != nil {
		m.vt.firstByte = m.vt.answer.firstByte()
	}
	if m.err != nil {
		return common.ToastErr("answer audio: " + common.Describe(m.err))
	}
	if m.gen == v.gen && v.followUp {
		v.followUp = false
		return v.startRecording()
	}
	return nil
}

// dispatch carries out an answer's next actions.
func (v *Model) dispatch(vt *Turn, list []client.Action, ref int64) tea.Cmd {
	reg, ctx := v.cfg.Actions, v.ctx
	acts := make([]actions.Action, len(list))
	for i, a := range list {
		acts[i] = actions.Action{Code: a.Action, Data: a.Data}
	}
	return func() tea.Msg {
		return outcomesMsg{vt: vt, ref: ref, outcomes: reg.DispatchAll(ctx, acts, ref)}
	}
}

// dispatchOne runs one action the console made up itself (the volume keys).
func (v *Model) dispatchOne(a actions.Action) tea.Cmd {
	reg, ctx := v.cfg.Actions, v.ctx
	return func() tea.Msg {
		o := reg.Dispatch(ctx, a, 0)
		if o.Kind != actions.Done {
			return common.ToastMsg{Err: true, Text: o.Summary}
		}
		return common.ToastMsg{Text: o.Summary}
	}
}

// AfterText carries out the actions of a typed turn's answer; the turn it returns (nil when
// voice is off) keeps their outcomes for the transcript. Their events come with the outcomes.
func (v *Model) AfterText(resp *client.DialogueResponse) (*Turn, tea.Cmd) {
	if !v.on() || resp == nil {
		return nil, nil
	}
	v.turnSeq++
	vt := &Turn{id: v.turnSeq}
	return vt, v.dispatch(vt, resp.NextActions, resp.Context.Ref)
}

func (v *Model) outcomesArrived(m outcomesMsg) tea.Cmd {
	m.vt.outcomes, m.vt.dispatched = m.outcomes, true
	for i := range m.outcomes {
		if m.outcomes[i].Kind == actions.NeedsConfirm && m.outcomes[i].Confirm != nil {
			v.confirms = append(v.confirms, &m.outcomes[i])
		}
	}
	asking := v.conv.Answered(m.ref, m.outcomes)
	v.emit(RefChanged{Ref: v.conv.Ref()})
	cmds := []tea.Cmd{v.snapshotCmd()}
	if !asking {
		v.emit(Asking{On: false})
		return tea.Batch(cmds...)
	}
	if !m.vt.spoken || v.micOff != "" {
		v.emit(Asking{On: true})
		return tea.Batch(cmds...)
	}
	if m.vt != v.current {
		return tea.Batch(cmds...)
	}
	if v.phase == voicePlaying {
		v.followUp = true // after the question has been heard
		return tea.Batch(cmds...)
	}
	if v.phase == voiceIdle {
		if v.player == nil && (m.vt.answer == nil || !m.vt.answer.isComplete()) {
			v.followUp = true
			return tea.Batch(cmds...)
		}
		cmds = append(cmds, v.startRecording())
	}
	return tea.Batch(cmds...)
}

func (k *keptAudio) isComplete() bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.complete
}

func (v *Model) confirm(yes bool) tea.Cmd {
	o := v.confirms[0]
	v.confirms = v.confirms[1:]
	if !yes {
		return common.Toast("not done: " + common.OneLine(o.Confirm.Prompt))
	}
	do, target, ctx := o.Confirm.Do, o.Confirm.Target, v.ctx
	return func() tea.Msg {
		err := do(ctx)
		return confirmedMsg{summary: "done: " + common.OneLine(target), err: err}
	}
}

// replay plays the focused answer again; it is not a new turn.
func (v *Model) replay() tea.Cmd {
	vt := v.focused()
	if vt == nil {
		return common.Toast("no spoken answer to replay")
	}
	if vt.dropped {
		return common.Toast("that answer's audio is no longer kept")
	}
	if v.player == nil {
		return common.ToastErr("voice output off: nothing to replay on")
	}
	mp3 := vt.answer.snapshot()
	if mp3 == nil {
		return common.Toast("the answer's audio has not arrived yet")
	}
	stop := v.interrupt()
	v.replaying = true
	gen, player := v.gen, v.player
	return tea.Batch(stop, func() tea.Msg {
		pb, err := player.Play(bytes.NewReader(mp3))
		return playingMsg{gen: gen, vt: vt, pb: pb, err: err, replay: true}
	})
}

// focused is the answer replay acts on: the one chosen with the focus keys, else the latest
// with audio.
func (v *Model) focused() *Turn {
	if v.focus != nil {
		return v.focus
	}
	for i := len(v.spoken) - 1; i >= 0; i-- {
		if v.spoken[i].answer != nil {
			return v.spoken[i]
		}
	}
	return nil
}

func (v *Model) moveFocus(dir int) {
	var with []*Turn
	for _, vt := range v.spoken {
		if vt.answer != nil {
			with = append(with, vt)
		}
	}
	if len(with) == 0 {
		return
	}
	i := len(with) - 1
	for k, vt := range with {
		if vt == v.focused() {
			i = k
		}
	}
	v.focus = with[min(max(i+dir, 0), len(with)-1)]
}

// retry sends the kept recording of the latest failed turn again.
func (v *Model) retry() tea.Cmd {
	var vt *Turn
	for i := len(v.spoken) - 1; i >= 0; i-- {
		if v.spoken[i].failed && v.spoken[i].pcm != nil {
			vt = v.spoken[i]
			break
		}
	}
	if vt == nil {
		return common.Toast("no failed recording to retry")
	}
	stop := v.interrupt()
	v.current = vt
	v.phase = voiceWaiting
	v.emit(TurnRetried{Turn: vt})
	ctx, cancel := context.WithCancel(v.ctx)
	v.cancel = cancel
	body := io.MultiReader(bytes.NewReader(audio.WAVStreamHeader(audio.CaptureRate)), bytes.NewReader(vt.pcm))
	return tea.Batch(stop, v.upload(ctx, v.pc.Client, body, v.ref, vt))
}

// event turns an action event into the panel's state and, when something is due, the
// alarm tone (the registry itself rings the bell and notifies the desktop).
func (v *Model) event(ev actions.Event) tea.Cmd {
	cmds := []tea.Cmd{v.listen(), v.snapshotCmd()}
	if ev.Rings() {
		text := ev.Summary
		if ev.Missed {
			text += " (missed while hark was closed)"
		}
		v.emit(Rang{Text: "⏰ " + common.OneLine(text)})
		cmds = append(cmds, common.Toast(text))
		if v.player != nil {
			player := v.player
			cmds = append(cmds, func() tea.Msg {
				pb, err := player.PlayPCM(actions.AlarmTonePCM(actions.AlarmToneRate), actions.AlarmToneRate)
				return toneMsg{pb: pb, err: err}
			})
		}
	}
	return tea.Batch(cmds...)
}

// status is the voice part of the console's status line.
func (v *Model) Status() string {
	if !v.on() {
		return ""
	}
	var parts []string
	switch {
	case v.phase == voiceOpening:
		parts = append(parts, "● opening the microphone")
	case v.phase == voiceRecording:
		parts = append(parts, fmt.Sprintf("● mic open %s %s  %s stops, esc cancels", clockDuration(v.elapsed),
			levelMeter(v.level), v.keys.Talk.Help().Key))
	case v.phase == voiceWaiting:
		parts = append(parts, "… recognising")
	case v.phase == voicePlaying || v.replaying:
		s := "▶ answer " + seconds(v.position)
		if v.duration > 0 {
			s += " / " + seconds(v.duration)
		}
		if v.replaying {
			s = "▶ replay " + strings.TrimPrefix(s, "▶ answer ")
		}
		parts = append(parts, s+"  "+v.keys.Talk.Help().Key+" interrupts")
	case v.conv.Asking():
		parts = append(parts, "the assistant is waiting for your answer")
	case v.armed != nil:
		parts = append(parts, "○ mic armed")
	}
	if v.micOff != "" {
		parts = append(parts, v.micOff)
	}
	if v.spkOff != "" {
		parts = append(parts, v.spkOff)
	}
	return strings.Join(parts, " · ")
}

func clockDuration(d time.Duration) string {
	s := int(d / time.Second)
	return fmt.Sprintf("%d:%02d", s/60, s%60)
}

func seconds(d time.Duration) string {
	return common.Ftoa1(d.Seconds()) + " s"
}

// levelMeter draws the RMS level from -60 to 0 dBFS as eight cells.
func levelMeter(l audio.Level) string {
	const cells = 8
	lit := int((l.RMS + 60) / 60 * cells)
	lit = min(max(lit, 0), cells)
	return "[" + strings.Repeat("▮", lit) + strings.Repeat("·", cells-lit) + "]"
}

// turnLines are a turn's extra lines: its outcomes, its timings and what can be done with it.
func (v *Model) TurnLines(vt *Turn, t *common.Theme, width int) []string {
	if !v.on() || vt == nil {
		return nil
	}
	var lines []string
	for _, o := range vt.outcomes {
		mark, style := "✓", t.Success
		switch o.Kind {
		case actions.NeedsConfirm:
			mark, style = "?", t.Warn
		case actions.Continue:
			mark, style = "↻", t.Muted
		case actions.Ignored:
			mark, style = "·", t.Muted
		case actions.Failed:
			mark, style = "✗", t.Error
		}
		text := common.OneLine(o.Code) + ": " + common.OneLine(o.Summary)
		if o.Kind == actions.Ignored {
			text = "unknown action " + common.OneLine(o.Code) + " (ignored)"
		}
		lines = append(lines, "  "+style.Render(mark+" "+common.AnsiFit(text, max(width-6, 8))))
	}
	if w := waterfall(vt); w != "" {
		mark := ""
		if vt == v.focused() && vt.answer != nil {
			mark = "  ◂ " + v.keys.Replay.Help().Key + " replays"
		}
		lines = append(lines, "  "+t.Muted.Render(common.AnsiFit(w+mark, max(width-4, 8))))
	}
	return lines
}

// waterfall draws the timings of a spoken turn: end of speech → recognised → first audio
// byte → first sample played, each step as a bar proportional to its share.
func waterfall(vt *Turn) string {
	if !vt.spoken || vt.speechEnd.IsZero() || vt.recognised.IsZero() {
		return ""
	}
	type step struct {
		name string
		at   time.Time
	}
	steps := []step{{"recognised", vt.recognised}, {"first byte", vt.firstByte}, {"first sample", vt.firstSample}}
	from := vt.speechEnd
	var parts []string
	var bars strings.Builder
	total := time.Duration(0)
	for _, s := range steps {
		if s.at.IsZero() {
			break
		}
		d := max(s.at.Sub(from), 0)
		total += d
		parts = append(parts, fmt.Sprintf("%s +%d ms", s.name, d.Milliseconds()))
		from = s.at
	}
	from = vt.speechEnd
	glyphs := []string{"█", "▓", "▒"}
	for i, s := range steps {
		if s.at.IsZero() || total <= 0 {
			break
		}
		n := int(20 * s.at.Sub(from) / total)
		bars.WriteString(strings.Repeat(glyphs[i], max(n, 1)))
		from = s.at
	}
	return fmt.Sprintf("⏱ %s %d ms from end of speech: %s", bars.String(), total.Milliseconds(), strings.Join(parts, " → "))
}

// dialog is the confirmation shown instead of the input line, nil when none waits.
func (v *Model) Dialog(t *common.Theme, width int) []string {
	if !v.on() || len(v.confirms) == 0 {
		return nil
	}
	cf := v.confirms[0].Confirm
	lines := []string{t.Warn.Render(common.AnsiFit("? "+common.OneLine(cf.Prompt), width))}
	for _, d := range cf.Details {
		lines = append(lines, "  "+t.Muted.Render(common.OneLine(d.Name)+": ")+common.AnsiFit(common.OneLine(d.Value), max(width-len(d.Name)-6, 8)))
	}
	if cf.Target != "" {
		lines = append(lines, "  "+t.Muted.Render("opens: ")+common.AnsiFit(common.OneLine(cf.Target), max(width-10, 8)))
	}
	more := ""
	if n := len(v.confirms) - 1; n > 0 {
		more = fmt.Sprintf(" (%d more waiting)", n)
	}
	lines = append(lines, t.Key.Render("y")+" yes  "+t.Key.Render("n")+" no"+more)
	return lines
}

// help is the voice key of the short footer: the dialog's answer while one waits, else talk.
func (v *Model) Help() []key.Binding {
	if !v.on() {
		return nil
	}
	if len(v.confirms) > 0 {
		return []key.Binding{v.keys.Yes}
	}
	return []key.Binding{v.keys.Talk}
}

// fullHelp are the voice keys of the full help: talking, then music.
func (v *Model) FullHelp() [][]key.Binding {
	if !v.on() {
		return nil
	}
	return [][]key.Binding{
		{v.keys.Talk, v.keys.Cancel, v.keys.Replay, v.keys.Older, v.keys.Retry},
		{v.keys.Pause, v.keys.StopMusic, v.keys.VolUp, v.keys.Yes},
	}
}

func (v *Model) emitFailed(vt *Turn, text string) { v.emit(TurnFailed{Turn: vt, Err: text}) }
