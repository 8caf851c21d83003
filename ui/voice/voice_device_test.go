//go:build cgo && linux

package voice

import (
	"bytes"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hajimehoshi/go-mp3"

	"github.com/harkhq/hark/actions"
	"github.com/harkhq/hark/audio"
)

// mp3Duration decodes an answer as the player would and returns its length.
func mp3Duration(t testing.TB, data []byte) time.Duration {
	t.Helper()
	d, err := mp3.NewDecoder(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("the kept answer is not MP3: %v", err)
	}
	pcm, err := io.ReadAll(d)
	if err != nil || len(pcm) == 0 {
		t.Fatalf("decoding the kept answer: %d bytes, %v", len(pcm), err)
	}
	return time.Duration(len(pcm)/4) * time.Second / time.Duration(d.SampleRate())
}

// lastSpoken is the newest voice turn of the console.
func lastSpoken(c *console) (*turn, *Turn) {
	for i := len(c.turns) - 1; i >= 0; i-- {
		if c.turns[i].voice != nil && c.turns[i].voice.spoken {
			return &c.turns[i], c.turns[i].voice
		}
	}
	return nil, nil
}

func outcomeOf(vt *Turn, code string) *actions.Outcome {
	for i := range vt.outcomes {
		if vt.outcomes[i].Code == code {
			return &vt.outcomes[i]
		}
	}
	return nil
}

// TestVoiceConsoleEndToEnd speaks to a real harkd through the real capture and playback:
// a timer by voice (recognised, carried out, answered aloud, then ringing through the
// player), a replay, the two-turn alarm through the OPEN_ASR loop, and a barge-in.
func TestVoiceConsoleEndToEnd(t *testing.T) {
	spk := voiceDevices(t)
	timerSpeech := flitePCM(t, "set a timer for five minutes")
	alarmAsk := flitePCM(t, "please set an alarm")
	alarmTime := flitePCM(t, "seven thirty am")
	cl := voicePlatform(t)

	clock := actions.NewManualClock(time.Now())
	mic := newTestMic(t)
	mic.set(t, timerSpeech)
	reg, desk, ring := testRegistry(t, clock, nil)
	opt := testOptions(cl, true)
	opt.Session.Token = cl.Token()
	opt.Now = time.Now
	opt.Voice = &Config{Actions: reg, OpenMic: mic.open}
	r := newRig(t, opt)
	c := r.console()
	v := c.voice
	r.until("the devices are probed", 30*time.Second, func() bool { return v.probed })
	// A new user is sent to onboarding once at start; this test talks in the console.
	r.settle(time.Second)
	if v.micOff != "" || v.spkOff != "" || v.player == nil {
		t.Fatalf("devices: mic %q, speaker %q", v.micOff, v.spkOff)
	}

	// One spoken turn: a timer.
	spk.Quiet(t)
	r.ctrl("ctrl+t")
	r.until("the microphone opens", 10*time.Second, func() bool { return v.phase == voiceRecording })
	if view := r.view(); !strings.Contains(view, "● mic open 0:00 [") {
		t.Errorf("no mic-open pill with a meter while recording:\n%s", view)
	}
	tr, vt := lastSpoken(c)
	r.until("the timer is answered", 90*time.Second, func() bool { tr, _ = lastSpoken(c); return !tr.pending })
	if tr.err != "" {
		t.Fatalf("the spoken turn failed: %s", tr.err)
	}
	if tr.query != "set a timer for five minutes" {
		t.Fatalf("recognised %q", tr.query)
	}
	r.until("the answer has played", 60*time.Second, func() bool { return v.phase == voiceIdle && !vt.firstSample.IsZero() })
	r.until("the actions are carried out", 10*time.Second, func() bool { return vt.dispatched })
	if o := outcomeOf(vt, "SET_TIMER"); o == nil || o.Kind != actions.Done {
		t.Fatalf("SET_TIMER outcome: %+v (all %+v)", o, vt.outcomes)
	}
	sched := reg.Scheduled()
	if len(sched) != 1 || sched[0].Kind != actions.EntryTimer || sched[0].Remaining != 5*time.Minute {
		t.Fatalf("schedule after the timer: %+v", sched)
	}
	r.until("the panel lists the timer", 5*time.Second, func() bool { return strings.Contains(r.view(), "timer 5m 00s left") })
	if !(vt.speechEnd.Before(vt.recognised) && !vt.firstByte.Before(vt.speechEnd) && !vt.firstSample.Before(vt.firstByte)) {
		t.Errorf("timings out of order: end %v recognised %v byte %v sample %v", vt.speechEnd, vt.recognised, vt.firstByte, vt.firstSample)
	}
	if view := r.view(); !strings.Contains(view, "ms from end of speech") || !strings.Contains(view, "first sample +") {
		t.Errorf("no waterfall under the turn:\n%s", view)
	}
	// The MP3 answer arrived at the speaker as audio of its length.
	answer := vt.answer.snapshot()
	if answer == nil {
		t.Fatal("the answer's audio was not kept")
	}
	want := mp3Duration(t, answer)
	span, rms, first := spk.Sound()
	if rms < 0.01 || span < want-400*time.Millisecond || span > want+200*time.Millisecond {
		t.Fatalf("the speaker got %v of sound (rms %.4f) for a %v answer", span, rms, want)
	}
	t.Logf("timer turn: answer %v, speaker %v (rms %.3f); %s", want, span, rms, waterfall(vt))
	if first.Before(vt.speechEnd) {
		t.Errorf("sound at the speaker before the end of speech")
	}

	// Replay: the same sound again, no new turn.
	turns := len(c.turns)
	spk.Quiet(t)
	r.ctrl("ctrl+r")
	r.until("the replay plays", 10*time.Second, func() bool { return v.replaying })
	r.until("the replay ends", 30*time.Second, func() bool { return !v.replaying })
	if span, _, _ := spk.Sound(); span < want-400*time.Millisecond || span > want+200*time.Millisecond {
		t.Errorf("replay gave %v of sound for a %v answer", span, want)
	}
	if len(c.turns) != turns {
		t.Errorf("a replay added a turn")
	}

	// The timer rings: the tone through the player, the bell, a desktop notification.
	spk.Quiet(t)
	clock.Advance(5 * time.Minute)
	r.until("the timer rings in the transcript", 10*time.Second, func() bool { return strings.Contains(r.view(), "⏰") })
	var tone *audio.Playback
	r.until("the alarm tone plays", 10*time.Second, func() bool {
		r.mu.Lock()
		defer r.mu.Unlock()
		for _, m := range r.seen {
			if m, ok := m.(toneMsg); ok && m.pb != nil {
				tone = m.pb
			}
		}
		return tone != nil
	})
	select {
	case <-tone.Done():
	case <-time.After(10 * time.Second):
		t.Fatalf("the tone did not end: position %v, first sample %v", tone.Position(), tone.FirstSample())
	}
	time.Sleep(300 * time.Millisecond) // the device's buffers play out
	toneLength, _ := tone.Duration()
	if span, rms, _ := spk.Sound(); rms < 0.05 || span < toneLength-700*time.Millisecond {
		t.Errorf("alarm tone of %v (rms %.3f) at the speaker, %v played (first sample %v, err %v)", span, rms, toneLength, tone.FirstSample(), tone.Err())
	}
	if !strings.Contains(strings.Join(ring.list(), ""), "\a") {
		t.Errorf("no bell: %q", ring.list())
	}
	if n := desk.list(); len(n) == 0 || !strings.HasPrefix(n[0], "notify ") {
		t.Errorf("no desktop notification: %q", n)
	}
	r.until("the panel drops the timer", 5*time.Second, func() bool { return !strings.Contains(r.view(), "timer 5m") })

	// Two turns: the question re-opens the microphone by itself, with the answer's ref.
	spk.Quiet(t)
	mic.set(t, alarmAsk)
	r.ctrl("ctrl+t")
	var askTurn *Turn
	r.until("the alarm question is answered", 90*time.Second, func() bool {
		tr, vt := lastSpoken(c)
		if tr.query == "please set an alarm" && !tr.pending {
			askTurn = vt
			return true
		}
		return false
	})
	mic.set(t, alarmTime) // heard when the microphone re-opens after the question
	askRef := c.ref
	var timeTurn *turn
	r.until("the follow-up is recorded and answered without a key", 120*time.Second, func() bool {
		tr, vt := lastSpoken(c)
		if vt != askTurn && !tr.pending && vt.dispatched {
			timeTurn = tr
			return true
		}
		return false
	})
	if askTurn.dispatched && outcomeOf(askTurn, "OPEN_ASR") == nil {
		t.Errorf("the question carried no OPEN_ASR: %+v", askTurn.outcomes)
	}
	if timeTurn.query != "seven thirty am" || timeTurn.ref != askRef || askRef == 0 {
		t.Fatalf("follow-up heard %q with ref %d (the question's ref %d)", timeTurn.query, timeTurn.ref, askRef)
	}
	if o := outcomeOf(timeTurn.voice, "SET_ALARM"); o == nil || o.Kind != actions.Done {
		t.Fatalf("SET_ALARM outcome: %+v", timeTurn.voice.outcomes)
	}
	var alarm *actions.Entry
	for _, e := range reg.Scheduled() {
		if e.Kind == actions.EntryAlarm {
			alarm = &e
		}
	}
	if alarm == nil || alarm.At.UTC().Format("15:04") != "07:30" {
		t.Fatalf("schedule after the alarm: %+v", reg.Scheduled())
	}
	r.until("the loop stops once the dialogue stops asking", 60*time.Second, func() bool {
		return v.phase == voiceIdle && !v.conv.Asking() && !v.followUp
	})
	r.settle(300 * time.Millisecond)
	if v.phase != voiceIdle {
		t.Fatalf("the microphone re-opened after an answer that does not ask (phase %d)", v.phase)
	}

	// Barge-in: the talk key during the answer stops it at once and listens.
	spk.Quiet(t)
	mic.set(t, timerSpeech)
	r.ctrl("ctrl+t")
	r.until("the answer starts playing", 90*time.Second, func() bool {
		return v.phase == voicePlaying && spk.Audible(time.Now().Add(-time.Second))
	})
	pb, answered := v.playback, v.current
	// The next microphone opens only when the test says, so that the speaker can be watched
	// for the rest of the interrupted answer.
	hold := make(chan struct{})
	mic.mu.Lock()
	mic.hold = hold
	mic.mu.Unlock()
	r.ctrl("ctrl+t")
	interrupted := time.Now()
	r.until("the playback stops", 5*time.Second, func() bool {
		select {
		case <-pb.Done():
			return true
		default:
			return false
		}
	})
	if !pb.Stopped() {
		t.Errorf("the interrupted answer was not stopped")
	}
	if pb.Position() >= want-200*time.Millisecond { // the same command, the same answer
		t.Errorf("the interrupted answer played to its end (%v of %v)", pb.Position(), want)
	}
	r.settle(time.Second)
	// What was already in the device's buffers when the key was pressed still plays out;
	// nothing of the rest of the answer.
	tail := spk.LastSound().Sub(interrupted)
	t.Logf("barge-in: the answer's sound ended %v after the key (%v of %v had played)", tail, pb.Position(), want)
	if tail > 500*time.Millisecond {
		t.Errorf("the answer still sounded %v after the barge-in", tail)
	}
	// Silence for the new recording: the file plugin delivers it at once, so it ends at its
	// maximum length, is not recognised, and the dialogue asks again.
	mic.set(t, make([]byte, audio.CaptureRate))
	mic.mu.Lock()
	mic.hold = nil
	mic.mu.Unlock()
	close(hold)
	r.until("a new recording starts", 10*time.Second, func() bool { return v.current != answered && v.phase >= voiceRecording })
	// Esc ends the voice exchange: nothing re-opens the microphone by itself.
	r.ctrl("esc")
	r.settle(1500 * time.Millisecond)
	if v.phase != voiceIdle || v.conv.Asking() || v.followUp {
		t.Errorf("after esc: phase %d, asking %v", v.phase, v.conv.Asking())
	}
}

// TestVoiceMusicThroughThePlayer asks the real platform for music: PLAY_MUSIC streams the
// track's URL through the console's MusicPlayer to the speaker, and the keys pause, turn
// down and stop it.
func TestVoiceMusicThroughThePlayer(t *testing.T) {
	spk := voiceDevices(t)
	cl := voicePlatform(t)
	music := NewMusicPlayer(cl, nil)
	reg, _, _ := testRegistry(t, actions.NewManualClock(time.Now()), music)
	mic := newTestMic(t)
	mic.set(t, nil)
	opt := testOptions(cl, true)
	opt.Session.Token = cl.Token()
	opt.Now = time.Now
	opt.Voice = &Config{Actions: reg, OpenMic: mic.open}
	r := newRig(t, opt)
	c := r.console()
	r.until("the devices are probed", 30*time.Second, func() bool { return c.voice.probed })
	r.settle(time.Second)
	spk.Quiet(t)
	typeAndSend(r, "play some jazz")
	r.until("now playing", 30*time.Second, func() bool { return strings.Contains(r.view(), "(playing, volume 100%)") })
	if tr := music.NowPlaying(); !tr.Playing || tr.URL == "" || tr.Title == "" {
		t.Fatalf("now playing %+v", tr)
	}
	deadline := time.Now().Add(20 * time.Second)
	for !spk.Audible(time.Now().Add(-200 * time.Millisecond)) {
		if time.Now().After(deadline) {
			music.mu.Lock()
			pb := music.pb
			music.mu.Unlock()
			if pb == nil {
				t.Fatalf("no music playback; track %+v", music.NowPlaying())
			}
			d, _ := pb.Duration()
			t.Fatalf("no music at the speaker: position %v of %v, first sample %v, err %v", pb.Position(), d, pb.FirstSample(), pb.Err())
		}
		r.settle(50 * time.Millisecond)
	}
	r.ctrl("ctrl+p")
	r.until("paused", 5*time.Second, func() bool { return strings.Contains(r.view(), "(paused, volume 100%)") })
	r.settle(600 * time.Millisecond)
	if spk.Audible(time.Now().Add(-200 * time.Millisecond)) {
		t.Error("sound still arrives while paused")
	}
	r.ctrl("ctrl+p")
	r.update(keyMsg("alt+-"))
	r.update(keyMsg("alt+-"))
	r.until("turned down", 5*time.Second, func() bool { return strings.Contains(r.view(), "(playing, volume 80%)") })
	// The view follows the keys at once; the player gets each change through
	// a command of its own, so it may lag the view by a moment.
	r.until("the player at volume 80", 5*time.Second, func() bool {
		music.mu.Lock()
		defer music.mu.Unlock()
		return music.volume == 80
	})
	r.settle(300 * time.Millisecond)
	if !spk.Audible(time.Now().Add(-200 * time.Millisecond)) {
		t.Error("no sound after resuming")
	}
	r.ctrl("ctrl+x")
	r.until("stopped", 5*time.Second, func() bool { return !strings.Contains(r.view(), "♪") })
	r.settle(600 * time.Millisecond)
	if spk.Audible(time.Now().Add(-200 * time.Millisecond)) {
		t.Error("sound still arrives after stop")
	}
}

// TestVoiceWithoutDevices re-runs this binary under an ALSA configuration whose devices
// cannot be opened, and one with a microphone but no speaker.
func TestVoiceWithoutDevices(t *testing.T) {
	if os.Getenv(voiceChildEnv) != "" {
		t.Skip("in the child process")
	}
	for name, conf := range map[string]string{
		"NoDevices": "testdata/voice/asound-nodevice.conf",
		"NoOutput":  "testdata/voice/asound-nooutput.conf",
	} {
		t.Run(name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run", "^TestVoiceChild"+name+"$", "-test.v")
			cmd.Env = append(os.Environ(), voiceChildEnv+"="+conf)
			out, err := cmd.CombinedOutput()
			if err != nil || !strings.Contains(string(out), "--- PASS: TestVoiceChild"+name) {
				t.Fatalf("child: %v\n%s", err, out)
			}
		})
	}
}

func TestVoiceChildNoDevices(t *testing.T) {
	if os.Getenv(voiceChildEnv) == "" {
		t.Skip("runs in a child process (TestVoiceWithoutDevices)")
	}
	voiceDevices(t)
	f := newFakePlatform(t)
	f.JSON("POST /v2/query/text", 200, map[string]any{
		"context":     map[string]any{"ref": 5},
		"responses":   map[string]any{"text": "Timer set."},
		"nextActions": []map[string]any{{"action": "SET_TIMER", "data": map[string]any{"duration": 60}}},
	})
	reg, _, _ := testRegistry(t, actions.NewManualClock(fixedNow), nil)
	opt := testOptions(f.Client(t), true)
	opt.Voice = &Config{Actions: reg}
	r := newRig(t, opt)
	c := r.console()
	r.until("the devices are probed", 20*time.Second, func() bool { return c.voice.probed })
	view := r.view()
	for _, want := range []string{"voice input off (no microphone): type instead", "voice output off"} {
		if !strings.Contains(view, want) {
			t.Errorf("status lacks %q:\n%s", want, view)
		}
	}
	r.ctrl("ctrl+t")
	r.until("the talk key says why not", 5*time.Second, func() bool { return r.hasToast("voice input off") })
	if len(c.turns) != 0 {
		t.Fatalf("a turn was added without a microphone")
	}
	for _, k := range "one minute timer" {
		r.update(keys(string(k)))
	}
	r.ctrl("enter")
	r.until("the typed turn's action is carried out", 10*time.Second, func() bool {
		return len(c.turns) == 1 && c.turns[0].voice != nil && c.turns[0].voice.dispatched
	})
	if s := reg.Scheduled(); len(s) != 1 || s[0].Kind != actions.EntryTimer {
		t.Fatalf("schedule: %+v", s)
	}
}

func TestVoiceChildNoOutput(t *testing.T) {
	if os.Getenv(voiceChildEnv) == "" {
		t.Skip("runs in a child process (TestVoiceWithoutDevices)")
	}
	voiceDevices(t)
	speech := flitePCM(t, "what time is it")
	answerMP3 := []byte("ID3 not really an mp3, kept as it came")
	f := newFakePlatform(t)
	var uploaded []byte
	f.Handle("POST /v2/query/audio/stream", func(w http.ResponseWriter, r *http.Request) {
		uploaded, _ = io.ReadAll(r.Body)
		w.Header().Set("Service-Response-Info", `{"context":{"ref":9},"responses":{"text":"It is noon.","query":"what time is it"},"nextActions":[]}`)
		w.Header().Set("Content-Type", "audio/mpeg")
		w.Write(answerMP3)
	})
	mic := newTestMic(t)
	mic.set(t, speech)
	reg, _, _ := testRegistry(t, actions.NewManualClock(fixedNow), nil)
	opt := testOptions(f.Client(t), true)
	opt.Voice = &Config{Actions: reg, OpenMic: mic.open}
	r := newRig(t, opt)
	c := r.console()
	r.until("the devices are probed", 20*time.Second, func() bool { return c.voice.probed })
	if c.voice.micOff != "" || !strings.Contains(r.view(), "voice output off (no speaker): answers are shown, not spoken") {
		t.Fatalf("mic %q; view:\n%s", c.voice.micOff, r.view())
	}
	r.ctrl("ctrl+t")
	r.until("the answer is shown", 30*time.Second, func() bool {
		tr, vt := lastSpoken(c)
		return tr != nil && !tr.pending && vt.answer != nil && vt.answer.isComplete() && vt.pcm != nil
	})
	tr, vt := lastSpoken(c)
	if tr.query != "what time is it" || !strings.Contains(r.view(), "It is noon.") {
		t.Fatalf("turn %+v; view:\n%s", *tr, r.view())
	}
	if got := vt.answer.snapshot(); !bytes.Equal(got, answerMP3) {
		t.Fatalf("kept answer %q", got)
	}
	// The upload was the WAV stream header and the recording, as captured.
	head := audio.WAVStreamHeader(audio.CaptureRate)
	if !bytes.HasPrefix(uploaded, head) || !bytes.HasPrefix(speech, uploaded[len(head):len(head)+len(speech)/2]) {
		t.Fatalf("uploaded %d bytes that are not the header and the speech", len(uploaded))
	}
	if !bytes.Equal(uploaded[len(head):], vt.pcm) {
		t.Errorf("the kept recording differs from what was uploaded")
	}
	r.ctrl("ctrl+r")
	r.until("replay says there is no output", 5*time.Second, func() bool { return r.hasToast("voice output off") })
}

// TestVoiceArmedMicStartsWithThePreRoll keeps the microphone armed between turns: every
// recording begins with the pre-roll and uses the same open device.
func TestVoiceArmedMicStartsWithThePreRoll(t *testing.T) {
	voiceDevices(t)
	f := newFakePlatform(t)
	var uploads int
	var mu sync.Mutex
	f.Handle("POST /v2/query/audio/stream", func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		mu.Lock()
		uploads++
		mu.Unlock()
		w.Header().Set("Service-Response-Info", `{"context":{"ref":2},"responses":{"text":"Noted.","query":"hello"},"nextActions":[]}`)
	})
	mic := newTestMic(t)
	mic.set(t, make([]byte, audio.CaptureRate)) // the file plugin's audio is consumed at arming
	reg, _, _ := testRegistry(t, actions.NewManualClock(fixedNow), nil)
	opt := testOptions(f.Client(t), true)
	opt.Voice = &Config{Actions: reg, OpenMic: mic.open, KeepMicArmed: true,
		Mic:         audio.CaptureConfig{MaxDuration: time.Second},
		OpenSpeaker: func() (*audio.Player, error) { return nil, audio.ErrNoOutput }}
	r := newRig(t, opt)
	c := r.console()
	v := c.voice
	r.until("armed", 20*time.Second, func() bool { return v.probed && v.armed != nil })
	armed := v.armed
	if !strings.Contains(r.view(), "○ mic armed") {
		t.Errorf("no armed indicator:\n%s", r.view())
	}
	for n := 1; n <= 2; n++ {
		// the pre-roll fills at the device's pace, slower on a loaded machine
		for deadline := time.Now().Add(20 * time.Second); armed.PreRollHeld() < audio.DefaultPreRoll; time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("turn %d: the pre-roll holds %v after 20 s", n, armed.PreRollHeld())
			}
		}
		r.ctrl("ctrl+t")
		r.until("answered", 20*time.Second, func() bool {
			tr, vt := lastSpoken(c)
			return tr != nil && !tr.pending && vt.pcm != nil && v.phase == voiceIdle
		})
		_, vt := lastSpoken(c)
		if vt.preRoll != audio.DefaultPreRoll {
			t.Errorf("turn %d: pre-roll %v, want %v", n, vt.preRoll, audio.DefaultPreRoll)
		}
		if len(vt.pcm) != audio.CaptureRate*2 { // the maximum length, pre-roll included
			t.Errorf("turn %d: %d bytes recorded", n, len(vt.pcm))
		}
		if v.armed != armed {
			t.Fatalf("turn %d: the microphone was reopened", n)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if uploads != 2 {
		t.Errorf("%d uploads", uploads)
	}
}
