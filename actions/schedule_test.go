package actions

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestAlarmFiresAtItsInstant(t *testing.T) {
	g := newRig(t, "tmp")
	at := start.Add(2*time.Hour + 30*time.Second)
	if o := g.do(t, "SET_ALARM", `{"time":`+ms(at)+`,"label":"stand up"}`); o.Kind != Done {
		t.Fatalf("SET_ALARM: %v %v", o.Kind, o.Err)
	}
	g.drain()
	g.clock.AdvanceTo(at.Add(-time.Millisecond))
	if evs := ringing(g.drain()); len(evs) != 0 {
		t.Fatalf("rang early: %+v", evs)
	}
	if g.bell.String() != "" || len(g.notifier.all()) != 0 {
		t.Fatal("bell or notification before the alarm's time")
	}
	if list := g.Scheduled(); len(list) != 1 || list[0].Remaining != time.Millisecond {
		t.Fatalf("listing before the alarm: %+v", list)
	}
	g.clock.Advance(time.Millisecond)
	evs := g.drain()
	rang := ringing(evs)
	if len(rang) != 1 {
		t.Fatalf("events at the alarm's time: %+v", evs)
	}
	ev := rang[0]
	if ev.Kind != AlarmFired || !ev.At.Equal(at) || !ev.Entry.At.Equal(at) || ev.Entry.Label != "stand up" || ev.Missed {
		t.Fatalf("alarm event %+v", ev)
	}
	if ev.Summary != "Alarm 11:00 stand up" {
		t.Fatalf("summary %q", ev.Summary)
	}
	if g.bell.String() != "\a" {
		t.Fatalf("bell wrote %q", g.bell.String())
	}
	if n := g.notifier.all(); len(n) != 1 || n[0].title != "hark: Alarm 11:00" || n[0].body != "stand up" {
		t.Fatalf("notifications %+v", n)
	}
	if len(g.Scheduled()) != 0 {
		t.Fatal("a rung alarm stays listed")
	}
	if !hasKind(evs, ScheduleChanged) {
		t.Fatal("no ScheduleChanged after the alarm rang")
	}
	// It rings once.
	g.clock.Advance(24 * time.Hour)
	if evs := ringing(g.drain()); len(evs) != 0 {
		t.Fatalf("rang again: %+v", evs)
	}
}

func hasKind(evs []Event, k EventKind) bool {
	for _, ev := range evs {
		if ev.Kind == k {
			return true
		}
	}
	return false
}

func TestTimerRunsForItsDuration(t *testing.T) {
	g := newRig(t, "")
	g.do(t, "SET_TIMER", `{"duration":300000,"label":"eggs"}`)
	g.clock.Advance(2 * time.Minute)
	list := g.Scheduled()
	if len(list) != 1 || list[0].Kind != EntryTimer || list[0].Remaining != 3*time.Minute {
		t.Fatalf("listing after 2 minutes: %+v", list)
	}
	g.clock.Advance(3*time.Minute - time.Millisecond)
	if evs := ringing(g.drain()); len(evs) != 0 {
		t.Fatalf("done early: %+v", evs)
	}
	g.clock.Advance(time.Millisecond)
	rang := ringing(g.drain())
	if len(rang) != 1 || rang[0].Kind != TimerDone || !rang[0].At.Equal(start.Add(5*time.Minute)) {
		t.Fatalf("timer events %+v", rang)
	}
}

func TestEntriesRingInOrder(t *testing.T) {
	g := newRig(t, "")
	g.do(t, "SET_TIMER", `{"duration":600000,"label":"second"}`)
	g.do(t, "SET_ALARM", `{"time":`+in(3*time.Minute)+`,"label":"first"}`)
	g.do(t, "SET_APPOINTMENT", `{"title":"third","start":`+in(20*time.Minute)+`,"end":`+in(30*time.Minute)+`}`)
	list := g.Scheduled()
	if len(list) != 3 || list[0].Label != "first" || list[1].Label != "second" || list[2].Label != "third" {
		t.Fatalf("listing not by time: %+v", list)
	}
	g.clock.Advance(time.Hour)
	var got []string
	for _, ev := range ringing(g.drain()) {
		got = append(got, ev.Entry.Label+"@"+ev.At.Sub(start).String())
	}
	if strings.Join(got, " ") != "first@3m0s second@10m0s third@20m0s" {
		t.Fatalf("rang %v", got)
	}
}

func TestAppointmentStaysUntilItsEnd(t *testing.T) {
	g := newRig(t, "")
	g.do(t, "SET_APPOINTMENT", `{"title":"Dentist","start":`+in(time.Hour)+`,"end":`+in(90*time.Minute)+`}`)
	g.clock.Advance(time.Hour)
	rang := ringing(g.drain())
	if len(rang) != 1 || rang[0].Kind != AppointmentDue || rang[0].Entry.Label != "Dentist" {
		t.Fatalf("appointment events %+v", rang)
	}
	list := g.Scheduled()
	if len(list) != 1 || !list[0].Fired || list[0].Remaining != 0 || !list[0].End.Equal(start.Add(90*time.Minute)) {
		t.Fatalf("appointment under way: %+v", list)
	}
	g.clock.Advance(30 * time.Minute)
	evs := g.drain()
	if len(ringing(evs)) != 0 || !hasKind(evs, ScheduleChanged) || len(g.Scheduled()) != 0 {
		t.Fatalf("after the end: events %+v, listing %+v", evs, g.Scheduled())
	}
}

func TestAppointmentUnderWayIsListedWithoutRinging(t *testing.T) {
	g := newRig(t, "")
	o := g.do(t, "SET_APPOINTMENT", `{"title":"Standup","start":`+in(-10*time.Minute)+`,"end":`+in(5*time.Minute)+`}`)
	if o.Kind != Done {
		t.Fatalf("%v %v", o.Kind, o.Err)
	}
	g.clock.Advance(time.Minute)
	if evs := ringing(g.drain()); len(evs) != 0 {
		t.Fatalf("an appointment set after its start rang: %+v", evs)
	}
	if len(g.Scheduled()) != 1 {
		t.Fatal("not listed")
	}
}

func TestDeleteAlarm(t *testing.T) {
	g := newRig(t, "")
	seven := start.Add(22 * time.Hour) // 07:00 tomorrow
	g.do(t, "SET_ALARM", `{"time":`+ms(seven)+`,"label":"work"}`)
	g.do(t, "SET_ALARM", `{"time":`+in(time.Hour)+`,"label":"call Ann"}`)
	g.do(t, "SET_TIMER", `{"duration":60000,"label":"work"}`)

	// By time: the dialogue says the minute, seconds may differ.
	o := g.do(t, "DELETE_ALARM", `{"time":`+ms(seven.Add(20*time.Second))+`}`)
	if o.Kind != Done || o.Summary != "alarm at Wed 11 Mar 07:00 deleted: work" {
		t.Fatalf("delete by time: %v %q %v", o.Kind, o.Summary, o.Err)
	}
	// By label, when there is no alarm at the time given.
	o = g.do(t, "DELETE_ALARM", `{"time":`+in(5*time.Hour)+`,"label":"Call ann"}`)
	if o.Kind != Done {
		t.Fatalf("delete by label: %v %v", o.Kind, o.Err)
	}
	list := g.Scheduled()
	if len(list) != 1 || list[0].Kind != EntryTimer {
		t.Fatalf("a timer must survive DELETE_ALARM: %+v", list)
	}
	o = g.do(t, "DELETE_ALARM", `{"label":"work"}`)
	if o.Kind != Failed || !strings.Contains(o.Summary, `no alarm labelled "work"`) {
		t.Fatalf("deleting a missing alarm: %v %q", o.Kind, o.Summary)
	}
}

func TestCancelByID(t *testing.T) {
	g := newRig(t, "")
	g.do(t, "SET_TIMER", `{"duration":60000}`)
	id := g.Scheduled()[0].ID
	if err := g.Cancel(id); err != nil {
		t.Fatal(err)
	}
	if err := g.Cancel(id); err == nil {
		t.Fatal("cancelling twice succeeded")
	}
	g.clock.Advance(time.Hour)
	if evs := ringing(g.drain()); len(evs) != 0 {
		t.Fatal("a cancelled timer rang")
	}
}

func TestCrono(t *testing.T) {
	g := newRig(t, "tmp")
	if sw := g.Crono(); sw.Running || sw.Elapsed != 0 {
		t.Fatalf("fresh stopwatch %+v", sw)
	}
	g.do(t, "SET_CRONO", `{}`)
	g.clock.Advance(83 * time.Second)
	if sw := g.Crono(); !sw.Running || sw.Elapsed != 83*time.Second || !sw.Started.Equal(start) {
		t.Fatalf("running stopwatch %+v", sw)
	}
	if o := g.do(t, "SET_CRONO", `{}`); o.Summary != "stopwatch already running (1m 23s)" {
		t.Fatalf("second start: %q", o.Summary)
	}
	// It keeps running across a restart.
	g.Close()
	g2 := openRig(t, g.path, g.clock)
	g2.clock.Advance(time.Hour)
	if o := g2.do(t, "RESET_CRONO", ``); o.Summary != "stopwatch reset at 1h 1m" {
		t.Fatalf("reset: %q", o.Summary)
	}
	if sw := g2.Crono(); sw.Running || sw.Elapsed != 0 {
		t.Fatalf("after reset %+v", sw)
	}
}

func TestScheduleSurvivesRestart(t *testing.T) {
	g := newRig(t, "tmp")
	at := start.Add(8 * time.Hour)
	g.do(t, "SET_ALARM", `{"time":`+ms(at)+`,"label":"wake"}`)
	g.do(t, "SET_APPOINTMENT", `{"title":"Review","start":`+in(9*time.Hour)+`,"end":`+in(10*time.Hour)+`}`)
	g.do(t, "POWER", `{"device":"lights","state":"on"}`)
	g.Close()

	// Written atomically: the file is complete JSON and no temporary file is left behind.
	b, err := os.ReadFile(g.path)
	if err != nil {
		t.Fatal(err)
	}
	var st state
	if err := json.Unmarshal(b, &st); err != nil || len(st.Entries) != 2 {
		t.Fatalf("state file %s: %v", b, err)
	}
	if files, _ := os.ReadDir(filepath.Dir(g.path)); len(files) != 1 {
		t.Fatalf("files beside the state: %v", files)
	}
	if info, _ := os.Stat(g.path); info.Mode().Perm()&0o077 != 0 {
		t.Fatalf("state file mode %v", info.Mode())
	}

	g.clock.Advance(time.Hour) // hark closed meanwhile
	g2 := openRig(t, g.path, g.clock)
	list := g2.Scheduled()
	if len(list) != 2 || list[0].Label != "wake" || list[0].Remaining != 7*time.Hour || list[1].Label != "Review" {
		t.Fatalf("after restart: %+v", list)
	}
	if !g2.Devices().Power["lights"] {
		t.Fatal("device panel not restored")
	}
	g2.clock.AdvanceTo(at)
	rang := ringing(g2.drain())
	if len(rang) != 1 || rang[0].Entry.Label != "wake" || rang[0].Missed {
		t.Fatalf("restored alarm: %+v", rang)
	}
	// A new entry after the restart does not reuse an ID.
	g2.do(t, "SET_TIMER", `{"duration":1000}`)
	ids := map[int64]bool{}
	for _, e := range g2.Scheduled() {
		if ids[e.ID] {
			t.Fatalf("duplicate id %d", e.ID)
		}
		ids[e.ID] = true
	}
}

func TestPastEntriesOnLoad(t *testing.T) {
	g := newRig(t, "tmp")
	g.do(t, "SET_ALARM", `{"time":`+in(time.Hour)+`,"label":"recent"}`)
	g.do(t, "SET_ALARM", `{"time":`+in(2*time.Hour)+`,"label":"upcoming"}`)
	g.do(t, "SET_TIMER", `{"duration":60000,"label":"old"}`)
	g.do(t, "SET_APPOINTMENT", `{"title":"long meeting","start":`+in(30*time.Minute)+`,"end":`+in(5*time.Hour)+`}`)
	g.do(t, "SET_APPOINTMENT", `{"title":"short meeting","start":`+in(20*time.Minute)+`,"end":`+in(40*time.Minute)+`}`)
	g.Close()

	// Closed from 09:00 to 21:30.
	later := NewManualClock(start.Add(MissedGrace + 30*time.Minute))
	g2 := openRig(t, g.path, later)
	rang := ringing(g2.drain())
	var got []string
	for _, ev := range rang {
		if !ev.Missed {
			t.Fatalf("a late ring is not marked missed: %+v", ev)
		}
		got = append(got, ev.Entry.Label)
	}
	// The timer is 12h29m late: dropped. Both alarms are within the grace. Both meetings
	// ended: dropped without ringing.
	if strings.Join(got, ",") != "recent,upcoming" {
		t.Fatalf("rang on load: %v", got)
	}
	if len(g2.Scheduled()) != 0 {
		t.Fatalf("left after load: %+v", g2.Scheduled())
	}
	if !strings.HasPrefix(rang[0].Summary, "Missed: Alarm 10:00") {
		t.Fatalf("summary %q", rang[0].Summary)
	}
	// The file reflects it, so a second start does not ring again.
	g2.Close()
	g3 := openRig(t, g.path, later)
	if evs := ringing(g3.drain()); len(evs) != 0 {
		t.Fatalf("rang again on the next start: %+v", evs)
	}
}

func TestAppointmentUnderWayOnLoadRingsMissed(t *testing.T) {
	g := newRig(t, "tmp")
	g.do(t, "SET_APPOINTMENT", `{"title":"Workshop","start":`+in(time.Hour)+`,"end":`+in(4*time.Hour)+`}`)
	g.Close()
	g2 := openRig(t, g.path, NewManualClock(start.Add(2*time.Hour)))
	rang := ringing(g2.drain())
	if len(rang) != 1 || rang[0].Kind != AppointmentDue || !rang[0].Missed {
		t.Fatalf("on load: %+v", rang)
	}
	if list := g2.Scheduled(); len(list) != 1 || !list[0].Fired {
		t.Fatalf("listing: %+v", list)
	}
}

func TestCorruptStateFileIsAnError(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "schedule.json")
	for _, content := range []string{"{not json", `{"version":99}`} {
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := New(Config{StatePath: path, Clock: NewManualClock(start), Logger: quietLogger()})
		if err == nil || !strings.Contains(err.Error(), path) {
			t.Fatalf("%q: err %v", content, err)
		}
		if b, _ := os.ReadFile(path); string(b) != content {
			t.Fatal("the bad file was changed")
		}
	}
}

func TestHandEditedStateIsSanitised(t *testing.T) {
	path := filepath.Join(t.TempDir(), "schedule.json")
	content := `{"version":1,"nextID":1,"entries":[
		{"id":7,"kind":"alarm","label":"ok\u001b[31m","at":"2026-03-10T10:00:00Z"},
		{"id":8,"kind":"bogus","at":"2026-03-10T10:00:00Z"},
		{"id":9,"kind":"alarm"},
		{"id":10,"kind":"appointment","at":"2026-03-10T12:00:00Z","end":"2026-03-10T11:00:00Z"}],
		"devices":{"power":{"tv":true,"bad/name":true},"brightness":500,"volume":-3}}`
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	g := openRig(t, path, NewManualClock(start))
	list := g.Scheduled()
	if len(list) != 1 || list[0].ID != 7 || list[0].Label != "ok [31m" {
		t.Fatalf("entries kept: %+v", list)
	}
	d := g.Devices()
	if _, bad := d.Power["bad/name"]; bad || !d.Power["tv"] || d.Brightness != 100 || d.Volume != 0 {
		t.Fatalf("devices: %+v", d)
	}
	g.do(t, "SET_TIMER", `{"duration":1000}`)
	if id := g.Scheduled()[0].ID; id != 8 { // the timer, due first
		t.Fatalf("new id %d, want 8 (after the highest kept)", id)
	}
}

func TestUnsavableChangeDoesNotHappen(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "hark")
	g := openRig(t, filepath.Join(dir, "schedule.json"), NewManualClock(start))
	// The state's directory becomes a regular file: every save fails.
	if err := os.WriteFile(dir, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if o := g.do(t, "SET_ALARM", `{"time":`+in(time.Hour)+`}`); o.Kind != Failed || !strings.Contains(o.Summary, "save schedule") {
		t.Fatalf("got %v %q", o.Kind, o.Summary)
	}
	if o := g.do(t, "POWER", `{"device":"tv","state":"on"}`); o.Kind != Failed {
		t.Fatalf("got %v", o.Kind)
	}
	if len(g.Scheduled()) != 0 || g.Devices().Power["tv"] {
		t.Fatal("an unsaved change was kept")
	}
}

func TestLongWaitsWakeToCheckTheWallClock(t *testing.T) {
	g := newRig(t, "")
	g.do(t, "SET_ALARM", `{"time":`+in(5*time.Hour)+`}`)
	if g.clock.Pending() != 1 {
		t.Fatalf("pending timers %d, want 1", g.clock.Pending())
	}
	g.clock.Advance(maxWait)
	if g.clock.Pending() != 1 || len(ringing(g.drain())) != 0 {
		t.Fatal("the scheduler did not re-arm after a capped wait")
	}
}

func TestInMemoryScheduleWithoutPath(t *testing.T) {
	g := newRig(t, "")
	g.do(t, "SET_TIMER", `{"duration":1000}`)
	g.clock.Advance(time.Second)
	if len(ringing(g.drain())) != 1 {
		t.Fatal("in-memory timer did not ring")
	}
}

func TestSystemClockRingsForReal(t *testing.T) {
	r, err := New(Config{Notifier: &recordingNotifier{}, Opener: &recordingOpener{}, Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	r.Dispatch(context.Background(), Action{Code: "SET_TIMER", Data: []byte(`{"duration":20}`)}, 0)
	deadline := time.After(5 * time.Second)
	for {
		select {
		case ev := <-r.Events():
			if ev.Kind == TimerDone {
				return
			}
		case <-deadline:
			t.Fatal("a 20 ms timer did not ring within 5 s on the real clock")
		}
	}
}

// A wait of days is said in days and hours: "in 4d 14h", where it read
// "in 110h 19m".
func TestFormatDurationSaysDays(t *testing.T) {
	for d, want := range map[time.Duration]string{
		110*time.Hour + 19*time.Minute: "4d 14h", 24 * time.Hour: "1d", 25*time.Hour + 30*time.Second: "1d 1h",
		14*time.Hour + 20*time.Minute: "14h 20m", 90 * time.Second: "1m 30s", 0: "0s",
	} {
		if got := formatDuration(d); got != want {
			t.Errorf("formatDuration(%v) = %q, want %q", d, got, want)
		}
	}
}
