package voice

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/harkhq/hark/ui/common"
	"io"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/harkhq/hark/audio"
	"github.com/harkhq/hark/client"
)

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

func openMic(cfg Config) (*audio.Capture, error) {
	if cfg.OpenMic != nil {
		return cfg.OpenMic(cfg.Mic)
	}
	return audio.OpenCapture(cfg.Mic)
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
	var opts []client.QueryOption
	if v.explain {
		opts = append(opts, client.Explain())
	}
	return func() tea.Msg {
		ans, err := cl.Dialogue.Stream(ctx, body, audio.CaptureRate, ref, opts...)
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

func clockDuration(d time.Duration) string {
	s := int(d / time.Second)
	return fmt.Sprintf("%d:%02d", s/60, s%60)
}

// levelMeter draws the RMS level from -60 to 0 dBFS as eight cells.
func levelMeter(l audio.Level) string {
	const cells = 8
	lit := int((l.RMS + 60) / 60 * cells)
	lit = min(max(lit, 0), cells)
	return "[" + strings.Repeat("▮", lit) + strings.Repeat("·", cells-lit) + "]"
}
