package voice

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"github.com/harkhq/hark/ui/common"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/harkhq/hark/actions"
	"github.com/harkhq/hark/audio"
	"github.com/harkhq/hark/client"
)

// These tests drive the voice part of the console through its messages, with no audio device
// touched: the microphone and the speaker are reported missing (or set by hand), so they run
// anywhere. The device paths themselves are in voice_device_test.go.

// noDevices keeps a test away from ALSA: opening either device fails as on a headless box.
func noDevices(reg *actions.Registry) *Config {
	return &Config{Actions: reg,
		OpenMic:     func(audio.CaptureConfig) (*audio.Capture, error) { return nil, audio.ErrNoInput },
		OpenSpeaker: func() (*audio.Player, error) { return nil, audio.ErrNoOutput }}
}

// answering makes the fake platform answer typed queries in turn with the given next actions
// (the last one repeats), echoing the query.
func answering(f *fakePlatform, ref int64, lists ...[]map[string]any) {
	var mu sync.Mutex
	n := 0
	f.Handle("POST /v2/query/text", func(w http.ResponseWriter, r *http.Request) {
		var in struct{ Q string }
		json.NewDecoder(r.Body).Decode(&in)
		mu.Lock()
		acts := lists[min(n, len(lists)-1)]
		n++
		mu.Unlock()
		json.NewEncoder(w).Encode(map[string]any{
			"context":     map[string]any{"ref": ref},
			"responses":   map[string]any{"text": "ok: " + in.Q},
			"nextActions": acts,
		})
	})
}

func typeAndSend(r *rig, q string) {
	for _, k := range q {
		r.update(keys(string(k)))
	}
	r.ctrl("enter")
}

func lastTurnDone(c *console) bool {
	n := len(c.turns)
	return n > 0 && c.turns[n-1].voice != nil && c.turns[n-1].voice.dispatched
}

func TestVoiceNoDevicesTypedTurnsCarryOutActions(t *testing.T) {
	f := newFakePlatform(t)
	answering(f, 12, []map[string]any{
		{"action": "POWER", "data": map[string]any{"device": "tv", "state": "on"}},
		{"action": "CHANNEL_SELECT", "data": map[string]any{"channel": 5}},
		{"action": "BRIGHTNESS_UPDATE", "data": map[string]any{"level": 40}},
		{"action": "ACTIVATE", "data": map[string]any{"feature": "wifi"}},
		{"action": "FLY_TO_THE_MOON", "data": map[string]any{}},
		{"action": "SET_TIMER", "data": map[string]any{"duration": "x"}},
	})
	reg, _, _ := testRegistry(t, actions.NewManualClock(fixedNow), nil)
	opt := testOptions(f.Client(t), true)
	opt.Voice = noDevices(reg)
	r := newRig(t, opt)
	c := r.console()
	r.until("probed", 5*time.Second, func() bool { return c.voice.probed })
	if !strings.Contains(r.view(), "voice input off (no microphone): type instead · voice output off") {
		t.Fatalf("status:\n%s", r.view())
	}
	r.ctrl("ctrl+t")
	r.until("talk refused", 5*time.Second, func() bool { return r.hasToast("voice input off") })
	if len(c.turns) != 0 || c.voice.phase != voiceIdle {
		t.Fatalf("talking without a microphone left %d turns, phase %d", len(c.turns), c.voice.phase)
	}
	typeAndSend(r, "tv on please")
	r.until("actions carried out", 5*time.Second, func() bool { return lastTurnDone(c) })
	// The panel follows the registry's events, the last of which may come after the outcomes.
	r.until("every outcome and the device panel shown", 5*time.Second, func() bool {
		view := r.view()
		for _, want := range []string{"TV on ch 5", "✓ TV on", "lights on 40%", "on: Wi-Fi",
			"· an action this device does not know (ignored)", "✗ SET_TIMER data"} {
			if !strings.Contains(view, want) {
				return false
			}
		}
		return true
	})
	// The transcript says what happened; the codes are the explain view's.
	if view := r.view(); strings.Contains(view, "POWER:") || strings.Contains(view, "FLY_TO_THE_MOON") {
		t.Errorf("action codes in the default transcript:\n%s", view)
	}
	c.voice.SetExplain(true)
	for _, want := range []string{"✓ POWER: TV on", "· unknown action FLY_TO_THE_MOON (ignored)", "✗ SET_TIMER: SET_TIMER data"} {
		if view := r.view(); !strings.Contains(view, want) {
			t.Errorf("explain view lacks %q:\n%s", want, view)
		}
	}
	if d := reg.Devices(); !d.Power["tv"] || d.Channel != "5" || d.Brightness != 40 || !d.Features["wifi"] {
		t.Errorf("devices %+v", d)
	}
}

func TestVoiceConfirmationOnlyAfterYes(t *testing.T) {
	f := newFakePlatform(t)
	answering(f, 3, []map[string]any{
		{"action": "OPEN_URL", "data": map[string]any{"url": "https://example.com/a"}},
		{"action": "SEND_EMAIL", "data": map[string]any{"to": "kim@example.com", "subject": "Hi", "body": "See you"}},
	})
	reg, desk, _ := testRegistry(t, actions.NewManualClock(fixedNow), nil)
	opt := testOptions(f.Client(t), true)
	opt.Voice = noDevices(reg)
	r := newRig(t, opt)
	c := r.console()
	typeAndSend(r, "open it")
	r.until("dialog", 5*time.Second, func() bool { return len(c.voice.confirms) == 2 })
	view := r.view()
	for _, want := range []string{"? Open https://example.com/a in the browser?", "opens: https://example.com/a", "y yes  n no (1 more waiting)"} {
		if !strings.Contains(view, want) {
			t.Errorf("dialog lacks %q:\n%s", want, view)
		}
	}
	r.update(keys("x")) // the dialog is modal: nothing typed
	if c.input.Value() != "" {
		t.Errorf("a key reached the input under the dialog: %q", c.input.Value())
	}
	r.update(keys("n"))
	r.settle(100 * time.Millisecond)
	if got := desk.list(); len(got) != 0 {
		t.Fatalf("no was answered but the desktop got %q", got)
	}
	if !strings.Contains(r.view(), "kim@example.com") {
		t.Fatalf("the e-mail draft is not shown next:\n%s", r.view())
	}
	if !strings.Contains(r.view(), "· Not opened") {
		t.Errorf("the declined outcome is not in the transcript:\n%s", r.view())
	}
	r.update(keys("y"))
	r.until("the mail is handed over", 5*time.Second, func() bool { return len(desk.list()) == 1 })
	if got := desk.list()[0]; !strings.HasPrefix(got, "open mailto:kim@example.com?") || !strings.Contains(got, "subject=Hi") {
		t.Errorf("desktop got %q", got)
	}
	if len(c.voice.confirms) != 0 {
		t.Errorf("%d confirmations left", len(c.voice.confirms))
	}
	r.until("the outcome recorded", 5*time.Second, func() bool {
		return strings.Contains(r.view(), "✓ Done: Open this e-mail draft to kim@example.com in your mail client")
	})
	r.update(keys("y")) // with no dialog, y is typed
	if c.input.Value() != "y" {
		t.Errorf("input %q", c.input.Value())
	}
}

func TestVoiceOpenASRWithoutMicrophoneFocusesTheInput(t *testing.T) {
	f := newFakePlatform(t)
	answering(f, 41,
		[]map[string]any{{"action": "OPEN_ASR"}},
		[]map[string]any{{"action": "SET_ALARM", "data": map[string]any{"time": fixedNow.Add(22 * time.Hour).UnixMilli()}}})
	reg, _, _ := testRegistry(t, actions.NewManualClock(fixedNow), nil)
	opt := testOptions(f.Client(t), true)
	opt.Voice = noDevices(reg)
	r := newRig(t, opt)
	c := r.console()
	typeAndSend(r, "set an alarm")
	r.until("asked", 5*time.Second, func() bool { return lastTurnDone(c) })
	if !c.voice.conv.Asking() || !strings.Contains(r.view(), "the assistant is waiting for your answer") ||
		c.input.Placeholder != "The assistant is waiting for your answer" || !c.input.Focused() {
		t.Fatalf("asking %v, placeholder %q; view:\n%s", c.voice.conv.Asking(), c.input.Placeholder, r.view())
	}
	typeAndSend(r, "seven thirty")
	r.until("answered", 5*time.Second, func() bool { return len(c.turns) == 2 && lastTurnDone(c) })
	reqs := f.Seen("POST /v2/query/text")
	if info := reqs[1].Header.Get("Service-Request-Info"); !strings.Contains(info, `"ref":41`) {
		t.Errorf("the answer to the question lacks the ref: %s", info)
	}
	if c.voice.conv.Asking() || c.input.Placeholder != "Ask something, e.g. what's the weather tomorrow" {
		t.Errorf("after an answer without OPEN_ASR: asking %v, placeholder %q", c.voice.conv.Asking(), c.input.Placeholder)
	}
	if s := reg.Scheduled(); len(s) != 1 || s[0].Kind != actions.EntryAlarm {
		t.Errorf("schedule %+v", s)
	}
}

func TestVoicePanelCountsDownAndRings(t *testing.T) {
	f := newFakePlatform(t)
	answering(f, 1, []map[string]any{{"action": "SET_TIMER", "data": map[string]any{"duration": 90000}}})
	clock := actions.NewManualClock(fixedNow)
	reg, desk, ring := testRegistry(t, clock, nil)
	opt := testOptions(f.Client(t), true)
	opt.Voice = noDevices(reg)
	r := newRig(t, opt)
	c := r.console()
	typeAndSend(r, "timer")
	r.until("listed", 5*time.Second, func() bool { return strings.Contains(r.view(), "⏰ timer 1m 30s left") })
	clock.Advance(61 * time.Second)
	r.until("the next tick counts down", 3*time.Second, func() bool { return strings.Contains(r.view(), "⏰ timer 29s left") })
	clock.Advance(29 * time.Second)
	r.until("rung", 3*time.Second, func() bool { return strings.Contains(r.view(), "⏰ Timer done") })
	r.until("the panel empties", 3*time.Second, func() bool { return !strings.Contains(r.view(), "left") })
	if len(ring.list()) != 1 || len(desk.list()) != 1 {
		t.Errorf("bell %q, desktop %q", ring.list(), desk.list())
	}
	if n := len(c.turns); n != 2 {
		t.Errorf("%d turns after the ring", n)
	}
}

// fakeMusic is an actions.Player that keeps what it was told.
type fakeMusic struct {
	notes
	mu    sync.Mutex
	track actions.Track
}

func (m *fakeMusic) Play(_ context.Context, url, title, artist string) error {
	m.add("play " + url)
	m.mu.Lock()
	m.track = actions.Track{URL: url, Title: title, Artist: artist, Playing: true}
	m.mu.Unlock()
	return nil
}
func (m *fakeMusic) Pause() error {
	m.add("pause")
	m.mu.Lock()
	m.track.Paused = true
	m.mu.Unlock()
	return nil
}
func (m *fakeMusic) Resume() error {
	m.add("resume")
	m.mu.Lock()
	m.track.Paused = false
	m.mu.Unlock()
	return nil
}
func (m *fakeMusic) Stop() error {
	m.add("stop")
	m.mu.Lock()
	m.track = actions.Track{}
	m.mu.Unlock()
	return nil
}
func (m *fakeMusic) SetVolume(level int) error {
	m.add("volume " + common.Itoa(int64(level)))
	return nil
}
func (m *fakeMusic) NowPlaying() actions.Track {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.track
}

func TestVoiceMusicKeysAndVolume(t *testing.T) {
	f := newFakePlatform(t)
	answering(f, 1, []map[string]any{
		{"action": "PLAY_MUSIC", "data": map[string]any{"url": "https://music.example/a.mp3", "title": "Song", "artist": "Band"}},
		{"action": "VOLUME_UPDATE", "data": map[string]any{"level": 50}},
	})
	music := &fakeMusic{}
	reg, _, _ := testRegistry(t, actions.NewManualClock(fixedNow), music)
	opt := testOptions(f.Client(t), true)
	opt.Voice = noDevices(reg)
	r := newRig(t, opt)
	typeAndSend(r, "play something")
	r.until("now playing", 5*time.Second, func() bool {
		return strings.Contains(r.view(), "♪ Song — Band (playing, volume 50%)")
	})
	r.ctrl("ctrl+p")
	r.until("paused", 5*time.Second, func() bool { return strings.Contains(r.view(), "(paused, volume 50%)") })
	r.ctrl("ctrl+p")
	r.until("resumed", 5*time.Second, func() bool { return strings.Contains(r.view(), "(playing, volume 50%)") })
	r.update(keyMsg("alt+-"))
	r.until("quieter", 5*time.Second, func() bool { return strings.Contains(r.view(), "volume 40%") })
	r.update(keyMsg("alt+="))
	r.until("louder", 5*time.Second, func() bool { return strings.Contains(r.view(), "volume 50%") })
	r.update(keyMsg("alt+="))
	r.until("louder still", 5*time.Second, func() bool { return strings.Contains(r.view(), "volume 60%") })
	// The player is called from a command of its own: the view may say 60 % before the player has
	// it, and a stop pressed then may reach the player first.
	r.until("the player louder still", 5*time.Second, func() bool {
		return strings.Contains(strings.Join(music.list(), ","), "volume 60")
	})
	r.ctrl("ctrl+x")
	r.until("stopped", 5*time.Second, func() bool { return !strings.Contains(r.view(), "♪") })
	got := strings.Join(music.list(), ",")
	pause, resume := strings.Index(got, "pause"), strings.Index(got, "resume")
	if !strings.Contains(got, "play https://music.example/a.mp3") || pause < 0 || resume < pause ||
		!strings.Contains(got, "volume 40") || !strings.Contains(got, "volume 60") || !strings.HasSuffix(got, "stop") {
		t.Errorf("player calls %s", got)
	}
}

// closeRecorder is an answer body that notes its closing.
type closeRecorder struct {
	io.Reader
	closed chan struct{}
}

func (c *closeRecorder) Close() error { close(c.closed); return nil }

func TestVoiceBargeInCancelsTheRequestAndDropsItsAnswer(t *testing.T) {
	reg, _, _ := testRegistry(t, actions.NewManualClock(fixedNow), nil)
	f := newFakePlatform(t)
	opt := testOptions(f.Client(t), true)
	opt.Voice = noDevices(reg)
	r := newRig(t, opt)
	c := r.console()
	v := c.voice
	r.until("probed", 5*time.Second, func() bool { return v.probed })
	v.micOff = "" // as if a microphone were there; opening it fails below, after the barge-in
	vt := &Turn{id: 1, spoken: true}
	c.addTurn(turn{query: "(recognising…)", pending: true, voice: vt})
	v.keep(vt)
	cancelled := false
	v.gen, v.phase, v.current, v.cancel = 7, voiceWaiting, vt, func() { cancelled = true }
	r.ctrl("ctrl+t")
	if !cancelled || v.gen == 7 {
		t.Fatalf("barge-in: cancelled %v, gen %d", cancelled, v.gen)
	}
	// The answer of the cancelled request arrives anyway: it is closed, not played or shown.
	body := &closeRecorder{Reader: strings.NewReader("mp3"), closed: make(chan struct{})}
	r.update(streamedMsg{gen: 7, vt: vt, answer: &client.StreamAnswer{Audio: body}, at: time.Now()})
	select {
	case <-body.closed:
	case <-time.After(5 * time.Second):
		t.Fatal("the stale answer's body was not closed")
	}
	if vt.answer != nil {
		t.Error("the stale answer was kept")
	}
	// The new recording could not open (no microphone after all): its turn goes, the status says why.
	r.until("the new turn is dropped", 5*time.Second, func() bool { return v.phase == voiceIdle && v.micOff != "" })
	if strings.Contains(r.view(), "(listening…)") {
		t.Errorf("a turn of a microphone that never opened stays:\n%s", r.view())
	}
}

func TestVoiceFailedUploadKeepsTheRecordingForARetry(t *testing.T) {
	pcm := bytes.Repeat([]byte{1, 2}, 8000)
	f := newFakePlatform(t)
	var got []byte
	f.Handle("POST /v2/query/audio/stream", func(w http.ResponseWriter, r *http.Request) {
		got, _ = io.ReadAll(r.Body)
		w.Header().Set("Service-Response-Info", `{"context":{"ref":4},"responses":{"text":"Done.","query":"turn the lights on"},"nextActions":[{"action":"POWER","data":{"device":"lights","state":"on"}}]}`)
		w.Write([]byte("mp3 bytes"))
	})
	reg, _, _ := testRegistry(t, actions.NewManualClock(fixedNow), nil)
	opt := testOptions(f.Client(t), true)
	opt.Voice = noDevices(reg)
	r := newRig(t, opt)
	c := r.console()
	v := c.voice
	r.until("probed", 5*time.Second, func() bool { return v.probed })
	vt := &Turn{id: 1, spoken: true}
	c.addTurn(turn{query: "(recognising…)", pending: true, voice: vt})
	v.keep(vt)
	v.gen, v.phase, v.current = 3, voiceWaiting, vt
	end := time.Now()
	r.update(recEndedMsg{gen: 3, vt: vt, reason: audio.StopUser, pcm: pcm, speechEnd: end, at: end})
	r.update(streamedMsg{gen: 3, vt: vt, err: errors.New("connection reset by peer"), at: time.Now()})
	if !vt.failed || !strings.Contains(r.view(), "connection reset by peer — the recording is kept: ctrl+g retries") {
		t.Fatalf("failed %v; view:\n%s", vt.failed, r.view())
	}
	r.ctrl("ctrl+g")
	r.until("the retry is answered", 5*time.Second, func() bool { return vt.dispatched })
	if !bytes.Equal(got, append(audio.WAVStreamHeader(audio.CaptureRate), pcm...)) {
		t.Errorf("the retry sent %d bytes, not the header and the kept recording", len(got))
	}
	tr := c.turnOf(vt)
	if tr.query != "turn the lights on" || tr.answer != "Done." || tr.err != "" || vt.failed {
		t.Errorf("turn after the retry: %+v", *tr)
	}
	r.until("the answer's audio is kept (no speaker)", 5*time.Second, func() bool { return vt.answer.isComplete() })
	if string(vt.answer.snapshot()) != "mp3 bytes" {
		t.Errorf("kept %q", vt.answer.snapshot())
	}
	if !reg.Devices().Power["lights"] {
		t.Error("the retried turn's action was not carried out")
	}
	r.ctrl("ctrl+g")
	r.until("nothing left to retry", 5*time.Second, func() bool { return r.hasToast("no failed recording to retry") })
}

func TestVoiceDeviceLossTurnsInputOff(t *testing.T) {
	reg, _, _ := testRegistry(t, actions.NewManualClock(fixedNow), nil)
	f := newFakePlatform(t)
	opt := testOptions(f.Client(t), true)
	opt.Voice = noDevices(reg)
	r := newRig(t, opt)
	c := r.console()
	v := c.voice
	r.until("probed", 5*time.Second, func() bool { return v.probed })
	v.micOff = ""
	vt := &Turn{id: 1, spoken: true}
	c.addTurn(turn{query: "(listening…)", pending: true, voice: vt})
	v.keep(vt)
	v.gen, v.phase, v.current = 2, voiceRecording, vt
	r.update(recEndedMsg{gen: 2, vt: vt, reason: audio.StopDevice, err: errors.New("device unplugged"), pcm: []byte{0, 0}, at: time.Now()})
	if !strings.Contains(r.view(), "voice input off: the microphone was lost (device unplugged)") {
		t.Fatalf("view:\n%s", r.view())
	}
	r.update(streamedMsg{gen: 2, vt: vt, err: errors.New("device unplugged"), at: time.Now()})
	if !vt.failed || vt.pcm == nil {
		t.Error("the partial recording was not kept for a retry")
	}
	r.ctrl("ctrl+t")
	r.until("talk refused", 5*time.Second, func() bool { return r.hasToast("microphone was lost") })
}

func TestVoiceEscCancelsARecording(t *testing.T) {
	reg, _, _ := testRegistry(t, actions.NewManualClock(fixedNow), nil)
	f := newFakePlatform(t)
	opt := testOptions(f.Client(t), true)
	opt.Voice = noDevices(reg)
	r := newRig(t, opt)
	c := r.console()
	v := c.voice
	vt := &Turn{id: 1, spoken: true}
	c.addTurn(turn{query: "(listening…)", pending: true, voice: vt})
	v.keep(vt)
	cancelled := false
	v.gen, v.phase, v.current, v.cancel = 2, voiceRecording, vt, func() { cancelled = true }
	v.conv.Answered(5, []actions.Outcome{{Kind: actions.Continue, Ref: 5}})
	r.ctrl("esc")
	if !cancelled || v.phase != voiceIdle || len(c.turns) != 0 || v.conv.Asking() || v.focused() != nil {
		t.Fatalf("after esc: cancelled %v, phase %d, %d turns, asking %v", cancelled, v.phase, len(c.turns), v.conv.Asking())
	}
	// With nothing going on, esc is the console's again: voice leaves it alone.
	cancelled = false
	if cmd, handled := v.update(keyMsg("esc")); handled || cmd != nil || cancelled {
		t.Fatalf("an idle esc was taken by voice: handled %v, command %v, cancelled %v", handled, cmd != nil, cancelled)
	}
}

func TestVoiceWaterfallAndRetention(t *testing.T) {
	at := time.Date(2026, 3, 14, 9, 30, 0, 0, time.UTC)
	vt := &Turn{spoken: true, speechEnd: at, recognised: at.Add(200 * time.Millisecond),
		firstByte: at.Add(250 * time.Millisecond), firstSample: at.Add(300 * time.Millisecond)}
	got := waterfall(vt)
	want := "⏱ █████████████▓▓▓▒▒▒ 300 ms from end of speech: recognised +200 ms → first byte +50 ms → first sample +50 ms"
	if got != want {
		t.Errorf("waterfall\n got %q\nwant %q", got, want)
	}
	if waterfall(&Turn{spoken: true, speechEnd: at}) != "" || waterfall(&Turn{speechEnd: at, recognised: at}) != "" {
		t.Error("a waterfall without timings or for a typed turn")
	}
	v := New(common.NewContext(common.Options{}), nil)
	var all []*Turn
	for i := range keptVoiceTurns + 5 {
		vt := &Turn{id: i, spoken: true, pcm: []byte{1}, answer: &keptAudio{}}
		all = append(all, vt)
		v.keep(vt)
	}
	for i, vt := range all {
		if old := i < 5; old != vt.dropped || old != (vt.pcm == nil) || old != (vt.answer == nil) {
			t.Errorf("turn %d: dropped %v, pcm %v, answer %v", i, vt.dropped, vt.pcm != nil, vt.answer != nil)
		}
	}
	if len(v.spoken) != keptVoiceTurns || v.focused() != all[len(all)-1] {
		t.Errorf("%d kept; focused %v", len(v.spoken), v.focused())
	}
	v.moveFocus(-1)
	v.moveFocus(-1)
	if v.focused() != all[len(all)-3] {
		t.Errorf("focus after two steps back: %d", v.focused().id)
	}
	for range 20 {
		v.moveFocus(-1)
	}
	if v.focused() != all[5] {
		t.Errorf("focus stops at the oldest kept answer, got %d", v.focused().id)
	}
}

func TestVoiceOffLeavesTheConsoleAlone(t *testing.T) {
	v := New(common.NewContext(common.Options{}), nil)
	if v.on() || v.Init() != nil || v.Status() != "" || v.Help() != nil || v.FullHelp() != nil || v.PanelLines(common.NewTheme(true), 80) != nil {
		t.Fatal("voice without options is not inert")
	}
	if cmd, handled := v.update(keyMsg("esc")); handled || cmd != nil {
		t.Fatal("voice without options took a key")
	}
}

func TestLevelMeterAndTimes(t *testing.T) {
	for _, c := range []struct {
		rms  float64
		want string
	}{{audio.SilenceDBFS, "[········]"}, {-60, "[········]"}, {-30, "[▮▮▮▮····]"}, {0, "[▮▮▮▮▮▮▮▮]"}, {6, "[▮▮▮▮▮▮▮▮]"}} {
		if got := levelMeter(audio.Level{RMS: c.rms}); got != c.want {
			t.Errorf("meter(%v) = %q, want %q", c.rms, got, c.want)
		}
	}
	if clockDuration(75*time.Second) != "1:15" || remainingText(90*time.Second) != "1m 30s" ||
		remainingText(time.Millisecond) != "1s" || remainingText(3*time.Hour+time.Second) != "3h 00m 01s" ||
		remainingText(110*time.Hour+19*time.Minute+56*time.Second) != "4d 14h 19m" {
		t.Error("time formats")
	}
}

// ctrl+r with no speaker gives the reason the status line gives, whether or not an answer
// was spoken yet.
func TestVoiceReplayWithoutSpeakerSaysWhyAsTheStatusDoes(t *testing.T) {
	reg, _, _ := testRegistry(t, actions.NewManualClock(fixedNow), nil)
	f := newFakePlatform(t)
	opt := testOptions(f.Client(t), true)
	opt.Voice = noDevices(reg)
	r := newRig(t, opt)
	c := r.console()
	r.until("probed", 5*time.Second, func() bool { return c.voice.probed })
	r.ctrl("ctrl+r")
	r.until("replay refused", 5*time.Second, func() bool { return r.hasToast(speakerOff) })
	if !strings.Contains(c.voice.Status(), speakerOff) {
		t.Fatalf("status %q does not give the reason replay gave", c.voice.Status())
	}
}
