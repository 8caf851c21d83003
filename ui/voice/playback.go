package voice

import (
	"bytes"
	"github.com/harkhq/hark/ui/common"
	"io"
	"strings"
	"sync"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/harkhq/hark/audio"
	"github.com/harkhq/hark/client"
)

// maxKeptAnswer bounds the MP3 kept for one answer's replay (minutes of speech).
const maxKeptAnswer = 4 << 20

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

func openSpeaker(cfg Config) (*audio.Player, error) {
	if cfg.OpenSpeaker != nil {
		return cfg.OpenSpeaker()
	}
	return audio.NewPlayer()
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

func (k *keptAudio) isComplete() bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.complete
}

// replay plays the focused answer again; it is not a new turn.
func (v *Model) replay() tea.Cmd {
	// The reasons in the order the status line gives them: no speaker
	// first, then nothing spoken yet.
	if v.player == nil {
		return common.ToastErr(speakerOff + ": nothing to replay on")
	}
	vt := v.focused()
	if vt == nil {
		return common.Toast("no spoken answer to replay yet: ctrl+t talks")
	}
	if vt.dropped {
		return common.Toast("that answer's audio is no longer kept")
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

func seconds(d time.Duration) string {
	return common.Ftoa1(d.Seconds()) + " s"
}
