package ui

import (
	"bytes"
	"context"
	"errors"
	"fmt"
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

// Voice wires the console to a microphone, a speaker and the next-action registry. With
// Options.Voice nil the console is typed-only and shows actions as chips without carrying
// them out.
type Voice struct {
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

// voiceTurn is what a turn keeps beyond its text: its sound, its timings and what its
// next actions did.
type voiceTurn struct {
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

// voice is the console's talking and acting part. All of its I/O runs in commands; Update
// only moves state. A nil cfg means voice is not configured and every method is inert.
type voice struct {
	cfg  *Voice
	keys voiceKeys
	// ctx is the program's: quitting stops the actions still running.
	ctx context.Context

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
	current   *voiceTurn
	level     audio.Level
	elapsed   time.Duration
	position  time.Duration
	duration  time.Duration

	turnSeq  int
	spoken   []*voiceTurn // voice turns, oldest first, for retention and focus
	focus    *voiceTurn
	conv     actions.Conversation
	followUp bool // re-open the microphone when the answer has finished playing
	// placeholder is the input's own hint while it shows that the assistant is asking.
	placeholder string

	confirms []*actions.Outcome
	panel    panelState
	ticking  bool
}

func newVoice(ctx context.Context, cfg *Voice) *voice {
	v := &voice{cfg: cfg, keys: newVoiceKeys(), ctx: ctx}
	if cfg != nil && cfg.Mic.SilenceStop == 0 {
		cfg.Mic.SilenceStop = DefaultSilenceStop
	}
	return v
}

func (v *voice) on() bool { return v != nil && v.cfg != nil && v.cfg.Actions != nil }

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
	vt        *voiceTurn
	preRoll   time.Duration
	reason    audio.StopReason
	err       error
	pcm       []byte
	speechEnd time.Time
	at        time.Time
}

type streamedMsg struct {
	gen    int
	vt     *voiceTurn
	answer *client.StreamAnswer
	err    error
	at     time.Time
}

func (m streamedMsg) failed() error { return m.err }

type playingMsg struct {
	gen    int
	vt     *voiceTurn
	pb     *audio.Playback
	err    error
	replay bool
}

type playedMsg struct {
	gen         int
	vt          *voiceTurn
	firstSample time.Time
	err         error
	replay      bool
}

type keptMsg struct {
	gen int
	vt  *voiceTurn
	err error
}

type outcomesMsg struct {
	vt       *voiceTurn
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
func (v *voice) init() tea.Cmd {
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

func openSpeaker(cfg Voice) (*audio.Player, error) {
	if cfg.OpenSpeaker != nil {
		return cfg.OpenSpeaker()
	}
	return audio.NewPlayer()
}

func openMic(cfg Voice) (*audio.Capture, error) {
	if cfg.OpenMic != nil {
		return cfg.OpenMic(cfg.Mic)
	}
	return audio.OpenCapture(cfg.Mic)
}

// listen waits for the next action event.
func (v *voice) listen() tea.Cmd {
	events := v.cfg.Actions.Events()
	return func() tea.Msg {
		ev, ok := <-events
		if !ok {
			return nil
		}
		return actionEventMsg{ev: ev}
	}
}

// update handles the voice messages and keys; handled is false for what belongs to the
// rest of the console.
func (v *voice) update(c *console, msg tea.Msg) (tea.Cmd, bool) {
	if !v.on() {
		return nil, false
	}
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
		return v.micOpened(c, msg), true
	case meterMsg:
		return v.meter(c, msg), true
	case recEndedMsg:
		return v.recEnded(c, msg), true
	case streamedMsg:
		return v.streamed(c, msg), true
	case playingMsg:
		return v.playing(c, msg), true
	case playedMsg:
		return v.played(c, msg), true
	case keptMsg:
		return v.kept(c, msg), true
	case outcomesMsg:
		return v.outcomesArrived(c, msg), true
	case confirmedMsg:
		text := msg.summary
		if msg.err != nil {
			return toastErr(oneLine(text + ": " + describe(msg.err))), true
		}
		return toast(text), true
	case actionEventMsg:
		return v.event(c, msg.ev), true
	case panelMsg:
		return v.panelArrived(msg), true
	case toneMsg:
		if msg.err != nil {
			return toastErr("alarm tone: " + describe(msg.err)), true
		}
		return nil, true
	case tea.KeyMsg:
		return v.key(c, msg)
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
	return "voice input off (" + oneLine(err.Error()) + ")"
}

func (v *voice) key(c *console, msg tea.KeyMsg) (tea.Cmd, bool) {
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
		return v.talk(c), true
	case key.Matches(msg, v.keys.Cancel):
		if v.phase == voiceIdle && !v.conv.Asking() {
			return nil, false
		}
		return v.cancelVoice(c), true
	case key.Matches(msg, v.keys.Replay):
		return v.replay(), true
	case key.Matches(msg, v.keys.Retry):
		return v.retry(c), true
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
				return toastMsg{err: true, text: describe(err)}
			}
			return nil
		}, true
	case key.Matches(msg, v.keys.StopMusic):
		reg := v.cfg.Actions
		return func() tea.Msg {
			if err := reg.StopMusic(); err != nil {
				return toastMsg{err: true, text: describe(err)}
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
func (v *voice) talk(c *console) tea.Cmd {
	switch v.phase {
	case voiceOpening:
		return nil
	case voiceRecording:
		rec := v.rec
		return func() tea.Msg { rec.Stop(); return nil }
	case voiceWaiting, voicePlaying:
		stop := v.interrupt()
		return tea.Batch(stop, v.startRecording(c))
	}
	if v.replaying {
		return tea.Batch(v.interrupt(), v.startRecording(c))
	}
	return v.startRecording(c)
}

// interrupt stops the answer playing and cancels the request in flight (barge-in). The turn
// keeps what it had.
func (v *voice) interrupt() tea.Cmd {
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

func (v *voice) cancelVoice(c *console) tea.Cmd {
	recording := v.phase == voiceRecording || v.phase == voiceOpening
	vt := v.current
	cmd := v.interrupt()
	v.conv.Stop()
	if v.placeholder != "" {
		c.input.Placeholder, v.placeholder = v.placeholder, ""
	}
	if recording && vt != nil {
		c.dropTurn(vt)
		v.forget(vt)
	}
	v.current = nil
	return tea.Batch(cmd, toast("voice cancelled"))
}

func (v *voice) startRecording(c *console) tea.Cmd {
	if v.micOff != "" {
		return toastErr(v.micOff)
	}
	v.gen++
	gen := v.gen
	v.phase = voiceOpening
	v.followUp = false
	v.turnSeq++
	vt := &voiceTurn{id: v.turnSeq, spoken: true}
	v.current = vt
	v.keep(vt)
	c.addTurn(turn{query: "(listening…)", at: c.ctx.now(), pending: true, ref: c.ref, voice: vt})
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
func (v *voice) keep(vt *voiceTurn) {
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

func (v *voice) forget(vt *voiceTurn) {
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

func (v *voice) micOpened(c *console, m micOpenedMsg) tea.Cmd {
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
		c.dropTurn(vt)
		v.forget(vt)
		return toastErr("microphone: " + describe(m.err))
	}
	v.phase = voiceRecording
	v.capture, v.rec, v.recAt = m.capture, m.rec, time.Now()
	v.elapsed, v.level = 0, audio.Level{}
	ctx, cancel := context.WithCancel(c.ctx.Context)
	v.cancel = cancel
	body := io.MultiReader(bytes.NewReader(audio.WAVStreamHeader(audio.CaptureRate)), m.rec)
	return tea.Batch(
		v.upload(ctx, c.ctx.Client, body, c.ref, vt),
		waitRecording(v.gen, vt, m.capture, m.rec, keep),
		v.meterCmd(),
	)
}

// upload streams the spoken query while it is being recorded.
func (v *voice) upload(ctx context.Context, cl *client.Client, body io.Reader, ref int64, vt *voiceTurn) tea.Cmd {
	gen := v.gen
	return func() tea.Msg {
		ans, err := cl.Dialogue.Stream(ctx, body, audio.CaptureRate, ref)
		return streamedMsg{gen: gen, vt: vt, answer: ans, err: err, at: time.Now()}
	}
}

// waitRecording reports the end of the recording and closes the microphone, unless it is
// kept armed and still works.
func waitRecording(gen int, vt *voiceTurn, capture *audio.Capture, rec *audio.Recording, keep bool) tea.Cmd {
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
func (v *voice) meterCmd() tea.Cmd {
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

func (v *voice) meter(c *console, m meterMsg) tea.Cmd {
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
		cmds = append(cmds, toast(n.Reason))
	}
	return tea.Batch(append(cmds, v.meterCmd())...)
}

func (v *voice) recEnded(c *console, m recEndedMsg) tea.Cmd {
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
		c.setQuery(vt, "(recognising…)")
	}
	if m.reason == audio.StopDevice {
		v.micOff = "voice input off: the microphone was lost"
		if m.err != nil {
			v.micOff += " (" + oneLine(m.err.Error()) + ")"
		}
	}
	return nil
}

func (v *voice) streamed(c *console, m streamedMsg) tea.Cmd {
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
		if sessionExpired(m.err) {
			c.failTurn(vt, "session expired: sign in again, then retry with "+v.keys.Retry.Help().Key)
			return nil
		}
		c.failTurn(vt, describe(m.err)+" — the recording is kept: "+v.keys.Retry.Help().Key+" retries")
		return nil
	}
	vt.failed = false
	vt.recognised = m.at
	r := m.answer.Answer
	heard := strings.TrimSpace(oneLine(r.Responses.Query))
	if heard == "" {
		heard = "(nothing recognised)"
	}
	c.answerTurn(vt, heard, &r)
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

func (v *voice) playing(c *console, m playingMsg) tea.Cmd {
	if m.gen != v.gen {
		if m.pb != nil {
			pb := m.pb
			return func() tea.Msg { pb.Stop(); return nil }
		}
		return nil
	}
	if m.err != nil {
		v.phase, v.replaying = voiceIdle, false
		return toastErr("playback: " + describe(m.err))
	}
	v.playback = m.pb
	v.position, v.duration = 0, 0
	gen, vt, pb, replay := m.gen, m.vt, m.pb, m.replay
	return tea.Batch(v.meterCmd(), func() tea.Msg {
		<-pb.Done()
		return playedMsg{gen: gen, vt: vt, firstSample: pb.FirstSample(), err: pb.Err(), replay: replay}
	})
}

func (v *voice) played(c *console, m playedMsg) tea.Cmd {
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
		cmds = append(cmds, toastErr("playback: "+describe(m.err)))
	}
	if v.followUp {
		v.followUp = false
		cmds = append(cmds, v.startRecording(c))
	}
	return tea.Batch(cmds...)
}

func (v *voice) kept(c *console, m keptMsg) tea.Cmd {
	if m.vt != nil && m.vt.answer != nil {
		m.vt.firstByte = m.vt.answer.firstByte()
	}
	if m.err != nil {
		return toastErr("answer audio: " + describe(m.err))
	}
	if m.gen == v.gen && v.followUp {
		v.followUp = false
		return v.startRecording(c)
	}
	return nil
}

// dispatch carries out an answer's next actions.
func (v *voice) dispatch(vt *voiceTurn, list []client.Action, ref int64) tea.Cmd {
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
func (v *voice) dispatchOne(a actions.Action) tea.Cmd {
	reg, ctx := v.cfg.Actions, v.ctx
	return func() tea.Msg {
		o := reg.Dispatch(ctx, a, 0)
		if o.Kind != actions.Done {
			return toastMsg{err: true, text: o.Summary}
		}
		return toastMsg{text: o.Summary}
	}
}

// afterText carries out the actions of a typed turn's answer.
func (v *voice) afterText(t *turn, m answerMsg) tea.Cmd {
	if !v.on() || m.err != nil || m.resp == nil || t.voice != nil {
		return nil
	}
	v.turnSeq++
	t.voice = &voiceTurn{id: v.turnSeq}
	return v.dispatch(t.voice, m.resp.NextActions, m.resp.Context.Ref)
}

func (v *voice) outcomesArrived(c *console, m outcomesMsg) tea.Cmd {
	m.vt.outcomes, m.vt.dispatched = m.outcomes, true
	for i := range m.outcomes {
		if m.outcomes[i].Kind == actions.NeedsConfirm && m.outcomes[i].Confirm != nil {
			v.confirms = append(v.confirms, &m.outcomes[i])
		}
	}
	asking := v.conv.Answered(m.ref, m.outcomes)
	c.ref = v.conv.Ref()
	cmds := []tea.Cmd{v.snapshotCmd()}
	if !asking {
		if v.placeholder != "" {
			c.input.Placeholder, v.placeholder = v.placeholder, ""
		}
		return tea.Batch(cmds...)
	}
	if !m.vt.spoken || v.micOff != "" {
		c.input.Focus()
		if v.placeholder == "" {
			v.placeholder = c.input.Placeholder
		}
		c.input.Placeholder = "The assistant is waiting for your answer"
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
		cmds = append(cmds, v.startRecording(c))
	}
	return tea.Batch(cmds...)
}

func (k *keptAudio) isComplete() bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.complete
}

func (v *voice) confirm(yes bool) tea.Cmd {
	o := v.confirms[0]
	v.confirms = v.confirms[1:]
	if !yes {
		return toast("not done: " + oneLine(o.Confirm.Prompt))
	}
	do, target, ctx := o.Confirm.Do, o.Confirm.Target, v.ctx
	return func() tea.Msg {
		err := do(ctx)
		return confirmedMsg{summary: "done: " + oneLine(target), err: err}
	}
}

// replay plays the focused answer again; it is not a new turn.
func (v *voice) replay() tea.Cmd {
	vt := v.focused()
	if vt == nil {
		return toast("no spoken answer to replay")
	}
	if vt.dropped {
		return toast("that answer's audio is no longer kept")
	}
	if v.player == nil {
		return toastErr("voice output off: nothing to replay on")
	}
	mp3 := vt.answer.snapshot()
	if mp3 == nil {
		return toast("the answer's audio has not arrived yet")
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
func (v *voice) focused() *voiceTurn {
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

func (v *voice) moveFocus(dir int) {
	var with []*voiceTurn
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
func (v *voice) retry(c *console) tea.Cmd {
	var vt *voiceTurn
	for i := len(v.spoken) - 1; i >= 0; i-- {
		if v.spoken[i].failed && v.spoken[i].pcm != nil {
			vt = v.spoken[i]
			break
		}
	}
	if vt == nil {
		return toast("no failed recording to retry")
	}
	stop := v.interrupt()
	v.current = vt
	v.phase = voiceWaiting
	c.retryTurn(vt)
	ctx, cancel := context.WithCancel(c.ctx.Context)
	v.cancel = cancel
	body := io.MultiReader(bytes.NewReader(audio.WAVStreamHeader(audio.CaptureRate)), bytes.NewReader(vt.pcm))
	return tea.Batch(stop, v.upload(ctx, c.ctx.Client, body, c.ref, vt))
}

// event turns an action event into the panel's state and, when something is due, the
// alarm tone (the registry itself rings the bell and notifies the desktop).
func (v *voice) event(c *console, ev actions.Event) tea.Cmd {
	cmds := []tea.Cmd{v.listen(), v.snapshotCmd()}
	if ev.Rings() {
		text := ev.Summary
		if ev.Missed {
			text += " (missed while hark was closed)"
		}
		c.turns = append(c.turns, turn{answer: "⏰ " + oneLine(text), at: c.ctx.now()})
		cmds = append(cmds, toast(text))
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
func (v *voice) status() string {
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
	return ftoa1(d.Seconds()) + " s"
}

// levelMeter draws the RMS level from -60 to 0 dBFS as eight cells.
func levelMeter(l audio.Level) string {
	const cells = 8
	lit := int((l.RMS + 60) / 60 * cells)
	lit = min(max(lit, 0), cells)
	return "[" + strings.Repeat("▮", lit) + strings.Repeat("·", cells-lit) + "]"
}

// turnLines are a turn's extra lines: its outcomes, its timings and what can be done with it.
func (v *voice) turnLines(tr *turn, t *Theme, width int) []string {
	vt := tr.voice
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
		text := oneLine(o.Code) + ": " + oneLine(o.Summary)
		if o.Kind == actions.Ignored {
			text = "unknown action " + oneLine(o.Code) + " (ignored)"
		}
		lines = append(lines, "  "+style.Render(mark+" "+ansiFit(text, max(width-6, 8))))
	}
	if w := waterfall(vt); w != "" {
		mark := ""
		if vt == v.focused() && vt.answer != nil {
			mark = "  ◂ " + v.keys.Replay.Help().Key + " replays"
		}
		lines = append(lines, "  "+t.Muted.Render(ansiFit(w+mark, max(width-4, 8))))
	}
	return lines
}

// waterfall draws the timings of a spoken turn: end of speech → recognised → first audio
// byte → first sample played, each step as a bar proportional to its share.
func waterfall(vt *voiceTurn) string {
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
func (v *voice) dialog(t *Theme, width int) []string {
	if !v.on() || len(v.confirms) == 0 {
		return nil
	}
	cf := v.confirms[0].Confirm
	lines := []string{t.Warn.Render(ansiFit("? "+oneLine(cf.Prompt), width))}
	for _, d := range cf.Details {
		lines = append(lines, "  "+t.Muted.Render(oneLine(d.Name)+": ")+ansiFit(oneLine(d.Value), max(width-len(d.Name)-6, 8)))
	}
	if cf.Target != "" {
		lines = append(lines, "  "+t.Muted.Render("opens: ")+ansiFit(oneLine(cf.Target), max(width-10, 8)))
	}
	more := ""
	if n := len(v.confirms) - 1; n > 0 {
		more = fmt.Sprintf(" (%d more waiting)", n)
	}
	lines = append(lines, t.Key.Render("y")+" yes  "+t.Key.Render("n")+" no"+more)
	return lines
}

// help is the voice key of the short footer: the dialog's answer while one waits, else talk.
func (v *voice) help() []key.Binding {
	if !v.on() {
		return nil
	}
	if len(v.confirms) > 0 {
		return []key.Binding{v.keys.Yes}
	}
	return []key.Binding{v.keys.Talk}
}

// fullHelp are the voice keys of the full help: talking, then music.
func (v *voice) fullHelp() [][]key.Binding {
	if !v.on() {
		return nil
	}
	return [][]key.Binding{
		{v.keys.Talk, v.keys.Cancel, v.keys.Replay, v.keys.Older, v.keys.Retry},
		{v.keys.Pause, v.keys.StopMusic, v.keys.VolUp, v.keys.Yes},
	}
}
