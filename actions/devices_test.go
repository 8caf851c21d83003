package actions

import (
	"context"
	"errors"
	"testing"
)

func TestDevicePanel(t *testing.T) {
	g := newRig(t, "tmp")
	d := g.Devices()
	if d.Power["tv"] || d.Power["lights"] || d.Brightness != 100 || d.Volume != 100 || d.Channel != "" {
		t.Fatalf("defaults %+v", d)
	}
	steps := []struct{ code, data string }{
		{"CHANNEL_SELECT", `{"channel":"7"}`},
		{"BRIGHTNESS_UPDATE", `{"level":30}`},
		{"BRIGHTNESS_UPDATE", `{"delta":15}`},
		{"ACTIVATE", `{"feature":"Bluetooth"}`},
		{"ACTIVATE", `{"feature":"wifi"}`},
		{"DEACTIVATE", `{"feature":"wifi"}`},
		{"POWER", `{"device":"coffee machine","state":"on"}`},
	}
	for _, s := range steps {
		if o := g.do(t, s.code, s.data); o.Kind != Done {
			t.Fatalf("%s: %v %v", s.code, o.Kind, o.Err)
		}
	}
	d = g.Devices()
	if !d.Power["tv"] || d.Channel != "7" || !d.Power["lights"] || d.Brightness != 45 ||
		!d.Features["bluetooth"] || d.Features["wifi"] || !d.Power["coffee_machine"] {
		t.Fatalf("panel %+v", d)
	}
	// Every change was reported with the state after it.
	evs := g.drain()
	if len(evs) != len(steps) {
		t.Fatalf("%d events for %d changes", len(evs), len(steps))
	}
	last := evs[len(evs)-1]
	if last.Kind != DevicesChanged || last.Summary != "coffee machine on" || !last.Devices.Power["coffee_machine"] {
		t.Fatalf("last event %+v", last)
	}
	// Devices returns a copy.
	d.Power["tv"] = false
	if !g.Devices().Power["tv"] {
		t.Fatal("Devices shares its maps")
	}
	// Dimming to zero switches the lights off.
	g.do(t, "BRIGHTNESS_UPDATE", `{"level":0}`)
	if g.Devices().Power["lights"] {
		t.Fatal("lights on at 0%")
	}
}

func TestVolumeClampsAndReachesThePlayer(t *testing.T) {
	g := newRig(t, "")
	for _, c := range []struct {
		data string
		want int
	}{
		{`{"level":40}`, 40},
		{`{"delta":-60}`, 0},
		{`{"delta":"25"}`, 25},
		{`{"delta":100}`, 100},
		{`{"level":"70"}`, 70},
	} {
		o := g.do(t, "VOLUME_UPDATE", c.data)
		_, vol, _ := g.player.state()
		if o.Kind != Done || g.Volume() != c.want || vol != c.want {
			t.Fatalf("%s: %v, volume %d player %d, want %d", c.data, o.Kind, g.Volume(), vol, c.want)
		}
	}
}

func TestPlayMusic(t *testing.T) {
	g := newRig(t, "")
	g.do(t, "VOLUME_UPDATE", `{"level":35}`)
	g.drain()
	o := g.do(t, "PLAY_MUSIC", `{"url":"http://127.0.0.1:8080/music/3.mp3","title":"Blue","artist":"Joni"}`)
	if o.Kind != Done || o.Summary != "playing Blue — Joni" {
		t.Fatalf("%v %q %v", o.Kind, o.Summary, o.Err)
	}
	track, vol, plays := g.player.state()
	if plays != 1 || track.URL != "http://127.0.0.1:8080/music/3.mp3" || track.Title != "Blue" || vol != 35 {
		t.Fatalf("player %+v volume %d plays %d", track, vol, plays)
	}
	evs := g.drain()
	if len(evs) != 1 || evs[0].Kind != NowPlaying || evs[0].Track.Artist != "Joni" || !evs[0].Track.Playing {
		t.Fatalf("events %+v", evs)
	}
	g.player.playErr = errors.New("connection refused")
	if o := g.do(t, "PLAY_MUSIC", `{"url":"https://x.example/a.mp3"}`); o.Kind != Failed {
		t.Fatalf("a failing player: %v", o.Kind)
	}
}

func TestPlayMusicWithoutPlayer(t *testing.T) {
	r, err := New(Config{Clock: NewManualClock(start), Opener: &recordingOpener{}, Notifier: &recordingNotifier{}, Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	o := r.Dispatch(context.Background(), Action{Code: "PLAY_MUSIC", Data: []byte(`{"url":"https://x.example/a.mp3"}`)}, 0)
	if o.Kind != Failed || !errors.Is(o.Err, ErrNoPlayer) {
		t.Fatalf("got %v %v", o.Kind, o.Err)
	}
	// The volume is still kept for when there is a player.
	o = r.Dispatch(context.Background(), Action{Code: "VOLUME_UPDATE", Data: []byte(`{"level":20}`)}, 0)
	if o.Kind != Done || r.Volume() != 20 {
		t.Fatalf("got %v volume %d", o.Kind, r.Volume())
	}
}

func TestVolumeRestoredToThePlayerOnStart(t *testing.T) {
	g := newRig(t, "tmp")
	g.do(t, "VOLUME_UPDATE", `{"level":15}`)
	g.Close()
	g2 := openRig(t, g.path, g.clock)
	if _, vol, _ := g2.player.state(); vol != 15 {
		t.Fatalf("player volume %d after restart, want 15", vol)
	}
}

func TestDisplayName(t *testing.T) {
	for in, want := range map[string]string{"tv": "TV", "wifi": "Wi-Fi", "washing_machine": "washing machine", "oven": "oven"} {
		if got := DisplayName(in); got != want {
			t.Errorf("%q: %q, want %q", in, got, want)
		}
	}
}

func TestMusicKeys(t *testing.T) {
	g := newRig(t, "")
	g.do(t, "PLAY_MUSIC", `{"url":"https://x.example/a.mp3","title":"A"}`)
	g.drain()
	if err := g.PauseMusic(); err != nil || !g.NowPlaying().Paused {
		t.Fatalf("pause: %v %+v", err, g.NowPlaying())
	}
	if err := g.ResumeMusic(); err != nil || g.NowPlaying().Paused {
		t.Fatalf("resume: %v %+v", err, g.NowPlaying())
	}
	if err := g.StopMusic(); err != nil || g.NowPlaying().URL != "" {
		t.Fatalf("stop: %v %+v", err, g.NowPlaying())
	}
	evs := g.drain()
	if len(evs) != 3 || evs[0].Summary != "music paused" || !evs[0].Track.Paused || evs[2].Summary != "music stopped" {
		t.Fatalf("events %+v", evs)
	}
	r, err := New(Config{Clock: NewManualClock(start), Opener: &recordingOpener{}, Notifier: &recordingNotifier{}, Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := r.PauseMusic(); !errors.Is(err, ErrNoPlayer) {
		t.Fatalf("no player: %v", err)
	}
	if r.NowPlaying() != (Track{}) {
		t.Fatal("no player yet a track")
	}
}
