package actions

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// EntryKind is the kind of a scheduled entry.
type EntryKind string

const (
	EntryAlarm       EntryKind = "alarm"
	EntryTimer       EntryKind = "timer"
	EntryAppointment EntryKind = "appointment"
)

// Entry is one alarm, timer or appointment.
type Entry struct {
	ID    int64     `json:"id"`
	Kind  EntryKind `json:"kind"`
	Label string    `json:"label,omitempty"` // the appointment's title
	At    time.Time `json:"at"`              // when it rings; an appointment's start
	End   time.Time `json:"end,omitzero"`    // an appointment's end
	// Fired marks an appointment whose start has rung; it stays listed until End.
	Fired bool `json:"fired,omitempty"`
	// Remaining is the time left until At (zero once due), filled in by Scheduled.
	Remaining time.Duration `json:"-"`
}

// Stopwatch is the state of the crono.
type Stopwatch struct {
	Running bool
	Started time.Time
	Elapsed time.Duration
}

// MissedGrace is how late an alarm or timer found on start may be and still ring.
const MissedGrace = 12 * time.Hour

// maxWait caps a scheduler sleep, so that a wall clock that jumped (suspend, NTP) is noticed
// within a minute: timers run on the monotonic clock, alarms are wall-clock instants.
const maxWait = time.Minute

// lateAfter is how late a ring may be before it counts as Missed.
const lateAfter = time.Minute

// stateVersion is the format of the state file.
const stateVersion = 1

// state is everything kept across restarts.
type state struct {
	Version      int         `json:"version"`
	NextID       int64       `json:"nextID"`
	Entries      []Entry     `json:"entries"`
	CronoStarted time.Time   `json:"cronoStarted,omitzero"`
	Devices      DeviceState `json:"devices"`
}

func newState() state {
	return state{Version: stateVersion, NextID: 1, Entries: []Entry{}, Devices: defaultDevices()}
}

func (s state) clone() state {
	c := s
	c.Entries = append([]Entry(nil), s.Entries...)
	c.Devices = s.Devices.clone()
	return c
}

// maxStateBytes bounds the state file read at start.
const maxStateBytes = 4 << 20

// maxEntries bounds the schedule, so that a runaway loop of answers cannot grow it forever.
const maxEntries = 1000

func loadState(path string) (state, error) {
	if path == "" {
		return newState(), nil
	}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return newState(), nil
	}
	if err != nil {
		return state{}, fmt.Errorf("read schedule: %w", err)
	}
	defer f.Close()
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(io.LimitReader(f, maxStateBytes+1)); err != nil {
		return state{}, fmt.Errorf("read schedule %s: %w", path, err)
	}
	if buf.Len() > maxStateBytes {
		return state{}, fmt.Errorf("read schedule %s: larger than %d bytes", path, maxStateBytes)
	}
	st := newState()
	if err := json.Unmarshal(buf.Bytes(), &st); err != nil {
		return state{}, fmt.Errorf("read schedule %s: %w (move the file away to start afresh)", path, err)
	}
	if st.Version != stateVersion {
		return state{}, fmt.Errorf("read schedule %s: format version %d, this hark knows %d", path, st.Version, stateVersion)
	}
	// Keep only entries that make sense, so a hand-edited file cannot upset the scheduler.
	kept := st.Entries[:0]
	for _, e := range st.Entries {
		switch e.Kind {
		case EntryAlarm, EntryTimer, EntryAppointment:
		default:
			continue
		}
		if e.At.IsZero() || e.Kind == EntryAppointment && e.End.Before(e.At) {
			continue
		}
		e.Label = cleanText(e.Label, maxLabel)
		if e.ID >= st.NextID {
			st.NextID = e.ID + 1
		}
		kept = append(kept, e)
	}
	if len(kept) > maxEntries {
		kept = kept[:maxEntries]
	}
	st.Entries = kept
	st.Devices = st.Devices.sanitized()
	return st, nil
}

// saveLocked writes the state atomically: a temporary file in the same directory, synced,
// then renamed over the old one, so a crash leaves the old or the new file, never half of one.
func (r *Registry) saveLocked() error {
	if r.path == "" {
		return nil
	}
	return writeState(r.path, r.st)
}

func writeState(path string, st state) error {
	b, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return fmt.Errorf("encode schedule: %w", err)
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("save schedule: %w", err)
	}
	tmp, err := os.CreateTemp(dir, ".schedule-*.tmp")
	if err != nil {
		return fmt.Errorf("save schedule: %w", err)
	}
	defer os.Remove(tmp.Name()) // a no-op once renamed
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		return fmt.Errorf("save schedule: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("save schedule: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("save schedule: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("save schedule: %w", err)
	}
	return nil
}

// mutate applies change to a copy of the state, saves the copy and only then makes it
// current: an action that could not be saved did not happen.
func (r *Registry) mutate(change func(st *state) error) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	next := r.st.clone()
	if err := change(&next); err != nil {
		return err
	}
	if r.path != "" {
		if err := writeState(r.path, next); err != nil {
			return err
		}
	}
	r.st = next
	r.replanLocked()
	return nil
}

// fired is one due entry to announce.
type fired struct {
	entry  Entry
	missed bool
}

type dueResult struct {
	fired   []fired
	changed bool
}

// takeDueLocked rings what is due at now: alarms and timers leave the schedule, appointments
// are marked fired and stay until their end. On load (atStart), entries more than MissedGrace
// late are dropped without ringing.
func (r *Registry) takeDueLocked(now time.Time, atStart bool) dueResult {
	var res dueResult
	kept := r.st.Entries[:0:0]
	for _, e := range r.st.Entries {
		if e.Kind == EntryAppointment && !e.End.After(now) {
			// Over: an appointment that ended unseen is not worth a ring.
			res.changed = true
			if !e.Fired && !atStart && now.Sub(e.At) <= lateAfter {
				res.fired = append(res.fired, fired{entry: e})
			}
			continue
		}
		if e.Fired || e.At.After(now) {
			kept = append(kept, e)
			continue
		}
		late := now.Sub(e.At)
		res.changed = true
		if atStart && late > MissedGrace {
			r.log.Info("actions: dropped an entry long past", "kind", string(e.Kind), "at", e.At)
			continue
		}
		res.fired = append(res.fired, fired{entry: e, missed: atStart || late > lateAfter})
		if e.Kind == EntryAppointment {
			e.Fired = true
			kept = append(kept, e)
		}
	}
	r.st.Entries = kept
	return res
}

// nextWakeLocked is the next instant the scheduler has work: a ring or an appointment's end.
func (r *Registry) nextWakeLocked() (time.Time, bool) {
	var next time.Time
	for _, e := range r.st.Entries {
		t := e.At
		if e.Fired {
			t = e.End
		}
		if next.IsZero() || t.Before(next) {
			next = t
		}
	}
	return next, !next.IsZero()
}

func (r *Registry) replanLocked() {
	if r.timer != nil {
		r.timer.Stop()
		r.timer = nil
	}
	if r.closed {
		return
	}
	next, ok := r.nextWakeLocked()
	if !ok {
		return
	}
	d := max(0, min(maxWait, next.Sub(r.clock.Now())))
	r.timer = r.clock.AfterFunc(d, r.tick)
}

func (r *Registry) tick() {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return
	}
	due := r.takeDueLocked(r.clock.Now(), false)
	if due.changed {
		if err := r.saveLocked(); err != nil {
			r.log.Warn("actions: save schedule", "err", err)
		}
	}
	r.replanLocked()
	r.mu.Unlock()
	for _, f := range due.fired {
		r.announce(f)
	}
	if due.changed {
		r.emit(Event{Kind: ScheduleChanged, At: r.clock.Now()})
	}
}

// notifyTimeout bounds a desktop notification.
const notifyTimeout = 5 * time.Second

// announce rings for a due entry: an event for the UI (which plays the tone), the terminal
// bell, and a desktop notification where there is one.
func (r *Registry) announce(f fired) {
	e := f.entry
	var kind EventKind
	var title string
	switch e.Kind {
	case EntryAlarm:
		kind, title = AlarmFired, "Alarm "+r.clockTime(e.At)
	case EntryTimer:
		kind, title = TimerDone, "Timer done"
	default:
		kind, title = AppointmentDue, "Appointment "+r.clockTime(e.At)
	}
	if f.missed {
		title = "Missed: " + title
	}
	summary := title
	if e.Label != "" {
		summary += " " + e.Label
	}
	if r.bell != nil {
		if _, err := r.bell.Write([]byte{'\a'}); err != nil {
			r.log.Debug("actions: bell", "err", err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), notifyTimeout)
	if err := r.notifier.Notify(ctx, "hark: "+title, e.Label); err != nil && !errors.Is(err, ErrNoDesktop) {
		r.log.Warn("actions: desktop notification", "err", err)
	}
	cancel()
	r.emit(Event{Kind: kind, At: r.clock.Now(), Entry: e, Missed: f.missed, Summary: summary})
}

// Scheduled lists alarms, timers and appointments by time, with the time left.
func (r *Registry) Scheduled() []Entry {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := r.clock.Now()
	out := append([]Entry(nil), r.st.Entries...)
	for i := range out {
		out[i].Remaining = max(0, out[i].At.Sub(now))
	}
	sort.SliceStable(out, func(i, j int) bool {
		if !out[i].At.Equal(out[j].At) {
			return out[i].At.Before(out[j].At)
		}
		return out[i].ID < out[j].ID
	})
	return out
}

// Crono is the stopwatch.
func (r *Registry) Crono() Stopwatch {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.st.CronoStarted.IsZero() {
		return Stopwatch{}
	}
	return Stopwatch{Running: true, Started: r.st.CronoStarted, Elapsed: max(0, r.clock.Now().Sub(r.st.CronoStarted))}
}

// Cancel removes a scheduled entry by ID (the panel's delete key).
func (r *Registry) Cancel(id int64) error {
	err := r.mutate(func(st *state) error {
		for i, e := range st.Entries {
			if e.ID == id {
				st.Entries = append(st.Entries[:i], st.Entries[i+1:]...)
				return nil
			}
		}
		return fmt.Errorf("no scheduled entry %d", id)
	})
	if err == nil {
		r.emit(Event{Kind: ScheduleChanged, At: r.clock.Now()})
	}
	return err
}

func (r *Registry) add(e Entry) error {
	err := r.mutate(func(st *state) error {
		if len(st.Entries) >= maxEntries {
			return fmt.Errorf("the schedule is full (%d entries)", maxEntries)
		}
		e.ID = st.NextID
		st.NextID++
		st.Entries = append(st.Entries, e)
		return nil
	})
	if err == nil {
		r.emit(Event{Kind: ScheduleChanged, At: r.clock.Now()})
	}
	return err
}

func (r *Registry) setAlarm(_ context.Context, code string, data json.RawMessage, _ int64) Outcome {
	var d alarmData
	if err := decode(code, data, &d); err != nil {
		return failed(code, err)
	}
	at, err := requiredEpoch(code, "time", d.Time)
	if err != nil {
		return failed(code, err)
	}
	now := r.clock.Now()
	if at.Before(now.Add(-pastSlack)) {
		return failed(code, fmt.Errorf("the alarm time %s has passed", r.when(at)))
	}
	if at.After(now.Add(maxAhead)) {
		return failed(code, fmt.Errorf("the alarm time %s is too far ahead", r.when(at)))
	}
	label := cleanText(d.Label, maxLabel)
	if err := r.add(Entry{Kind: EntryAlarm, Label: label, At: at}); err != nil {
		return failed(code, err)
	}
	return done(code, withLabel(fmt.Sprintf("alarm set for %s (in %s)", r.when(at), formatDuration(at.Sub(now))), label))
}

func (r *Registry) deleteAlarm(_ context.Context, code string, data json.RawMessage, _ int64) Outcome {
	var d alarmData
	if err := decode(code, data, &d); err != nil {
		return failed(code, err)
	}
	at, set, err := parseEpoch(code, "time", d.Time)
	if err != nil {
		return failed(code, err)
	}
	label := cleanText(d.Label, maxLabel)
	if !set && label == "" && !d.All {
		return failed(code, &DataError{Code: code, Problem: "needs the time or the label of the alarm"})
	}
	var removed []Entry
	err = r.mutate(func(st *state) error {
		// By time first (within the minute: the spoken time is minute-precise); then, for a
		// time said without AM/PM, the next alarm showing the same 12-hour reading; by label
		// when no alarm is at that time or no time was given.
		match := func(e Entry) bool {
			off := e.At.Sub(at)
			return d.All || set && off > -time.Minute && off < time.Minute
		}
		if set && d.Hour12 && !anyAlarm(st.Entries, match) {
			if next, ok := r.sameReading(st.Entries, at); ok {
				match = func(e Entry) bool { return e.At.Equal(next) }
			}
		}
		if !d.All && (!set || !anyAlarm(st.Entries, match)) {
			match = func(e Entry) bool { return label != "" && strings.EqualFold(e.Label, label) }
		}
		kept := st.Entries[:0:0]
		for _, e := range st.Entries {
			if e.Kind == EntryAlarm && match(e) {
				removed = append(removed, e)
				continue
			}
			kept = append(kept, e)
		}
		if len(removed) == 0 {
			if d.All {
				return errors.New("there are no alarms to delete")
			}
			if set {
				return fmt.Errorf("no alarm at %s", r.when(at))
			}
			return fmt.Errorf("no alarm labelled %q", label)
		}
		st.Entries = kept
		return nil
	})
	if err != nil {
		return failed(code, err)
	}
	r.emit(Event{Kind: ScheduleChanged, At: r.clock.Now()})
	if len(removed) == 1 {
		return done(code, withLabel("alarm at "+r.when(removed[0].At)+" deleted", removed[0].Label))
	}
	return done(code, fmt.Sprintf("%d alarms deleted", len(removed)))
}

// sameReading finds the earliest alarm whose clock shows what at shows on a 12-hour dial
// ("the 7 o'clock alarm" is 7:00 AM or 7:00 PM, whichever the person has).
func (r *Registry) sameReading(entries []Entry, at time.Time) (time.Time, bool) {
	want := at.In(r.loc)
	var best time.Time
	for _, e := range entries {
		got := e.At.In(r.loc)
		if e.Kind != EntryAlarm || got.Hour()%12 != want.Hour()%12 || got.Minute() != want.Minute() {
			continue
		}
		if best.IsZero() || e.At.Before(best) {
			best = e.At
		}
	}
	return best, !best.IsZero()
}

// deleteTimer cancels the running timers with the label, or all of them when it is empty.
func (r *Registry) deleteTimer(_ context.Context, code string, data json.RawMessage, _ int64) Outcome {
	var d cancelTimerData
	if err := decode(code, data, &d); err != nil {
		return failed(code, err)
	}
	label := cleanText(d.Label, maxLabel)
	var removed []Entry
	err := r.mutate(func(st *state) error {
		kept := st.Entries[:0:0]
		for _, e := range st.Entries {
			if e.Kind == EntryTimer && (label == "" || strings.EqualFold(e.Label, label)) {
				removed = append(removed, e)
				continue
			}
			kept = append(kept, e)
		}
		if len(removed) == 0 {
			if label != "" {
				return fmt.Errorf("no timer labelled %q is running", label)
			}
			return errors.New("no timer is running")
		}
		st.Entries = kept
		return nil
	})
	if err != nil {
		return failed(code, err)
	}
	r.emit(Event{Kind: ScheduleChanged, At: r.clock.Now()})
	if len(removed) == 1 {
		return done(code, withLabel("timer ending "+r.clockTime(removed[0].At)+" cancelled", removed[0].Label))
	}
	return done(code, fmt.Sprintf("%d timers cancelled", len(removed)))
}

func anyAlarm(entries []Entry, match func(Entry) bool) bool {
	for _, e := range entries {
		if e.Kind == EntryAlarm && match(e) {
			return true
		}
	}
	return false
}

func (r *Registry) setTimer(_ context.Context, code string, data json.RawMessage, _ int64) Outcome {
	var d timerData
	if err := decode(code, data, &d); err != nil {
		return failed(code, err)
	}
	dur, err := decodeDuration(code, d.Duration)
	if err != nil {
		return failed(code, err)
	}
	label := cleanText(d.Label, maxLabel)
	at := r.clock.Now().Add(dur)
	if err := r.add(Entry{Kind: EntryTimer, Label: label, At: at}); err != nil {
		return failed(code, err)
	}
	return done(code, withLabel(fmt.Sprintf("timer for %s set (ends %s)", formatDuration(dur), r.clockTime(at)), label))
}

func (r *Registry) setCrono(_ context.Context, code string, data json.RawMessage, _ int64) Outcome {
	var d struct{}
	if err := decode(code, data, &d); err != nil {
		return failed(code, err)
	}
	var summary string
	err := r.mutate(func(st *state) error {
		now := r.clock.Now()
		if !st.CronoStarted.IsZero() {
			summary = "stopwatch already running (" + formatDuration(now.Sub(st.CronoStarted)) + ")"
			return nil
		}
		st.CronoStarted = now
		summary = "stopwatch started"
		return nil
	})
	if err != nil {
		return failed(code, err)
	}
	r.emit(Event{Kind: ScheduleChanged, At: r.clock.Now()})
	return done(code, summary)
}

// resetCrono stops the stopwatch and sets it back to zero, telling the time it showed.
func (r *Registry) resetCrono(_ context.Context, code string, data json.RawMessage, _ int64) Outcome {
	var d cronoData
	if err := decode(code, data, &d); err != nil {
		return failed(code, err)
	}
	summary := "stopwatch reset"
	if d.Restart {
		summary = "stopwatch restarted from zero"
	}
	err := r.mutate(func(st *state) error {
		now := r.clock.Now()
		if !st.CronoStarted.IsZero() {
			summary += " at " + formatDuration(now.Sub(st.CronoStarted))
		}
		st.CronoStarted = time.Time{}
		if d.Restart {
			st.CronoStarted = now
		}
		return nil
	})
	if err != nil {
		return failed(code, err)
	}
	r.emit(Event{Kind: ScheduleChanged, At: r.clock.Now()})
	return done(code, summary)
}

// defaultAppointmentLength is an appointment's length when the data gives no end.
const defaultAppointmentLength = time.Hour

func (r *Registry) setAppointment(_ context.Context, code string, data json.RawMessage, _ int64) Outcome {
	var d appointmentData
	if err := decode(code, data, &d); err != nil {
		return failed(code, err)
	}
	start, err := requiredEpoch(code, "start", d.Start)
	if err != nil {
		return failed(code, err)
	}
	end, endSet, err := parseEpoch(code, "end", d.End)
	if err != nil {
		return failed(code, err)
	}
	if !endSet {
		end = start.Add(defaultAppointmentLength)
	}
	if end.Before(start) {
		return failed(code, &DataError{Code: code, Field: "end", Problem: "is before start"})
	}
	now := r.clock.Now()
	if !end.After(now) {
		return failed(code, fmt.Errorf("the appointment at %s is already over", r.when(start)))
	}
	if start.After(now.Add(maxAhead)) {
		return failed(code, fmt.Errorf("the appointment at %s is too far ahead", r.when(start)))
	}
	title := cleanText(d.Title, maxLabel)
	if title == "" {
		title = "Appointment"
	}
	e := Entry{Kind: EntryAppointment, Label: title, At: start, End: end}
	if !start.After(now) {
		// Already under way: listed until its end, with nothing left to ring.
		e.Fired = true
	}
	if err := r.add(e); err != nil {
		return failed(code, err)
	}
	return done(code, fmt.Sprintf("%s, %s–%s, added to the calendar", title, r.when(start), r.clockTime(end)))
}

func withLabel(s, label string) string {
	if label == "" {
		return s
	}
	return s + ": " + label
}

// clockTime is "07:05" in the registry's zone.
func (r *Registry) clockTime(t time.Time) string {
	return t.In(r.loc).Format("15:04")
}

// when is "07:05" today, "Tue 3 Mar 07:05" on another day, with the year when not this one.
func (r *Registry) when(t time.Time) string {
	t = t.In(r.loc)
	now := r.clock.Now().In(r.loc)
	switch {
	case t.Year() == now.Year() && t.YearDay() == now.YearDay():
		return t.Format("15:04")
	case t.Year() == now.Year():
		return t.Format("Mon 2 Jan 15:04")
	}
	return t.Format("Mon 2 Jan 2006 15:04")
}

// formatDuration is "1h 5m", "5m 10s", "45s", rounded to the second.
func formatDuration(d time.Duration) string {
	d = d.Round(time.Second)
	if d < 0 {
		d = 0
	}
	days := int64(d / (24 * time.Hour))
	h := int64(d % (24 * time.Hour) / time.Hour)
	m := int64(d % time.Hour / time.Minute)
	s := int64(d % time.Minute / time.Second)
	var parts []string
	if days > 0 {
		// "in 4d 14h", not "in 110h 19m": minutes are noise that far out
		parts = append(parts, fmt.Sprintf("%dd", days))
		m = 0
	}
	if h > 0 {
		parts = append(parts, fmt.Sprintf("%dh", h))
	}
	if m > 0 {
		parts = append(parts, fmt.Sprintf("%dm", m))
	}
	if s > 0 && h == 0 && days == 0 {
		parts = append(parts, fmt.Sprintf("%ds", s))
	}
	if len(parts) == 0 {
		return "0s"
	}
	return strings.Join(parts, " ")
}
