package actions

import (
	"fmt"
	"time"
)

// EventKind says what an Event reports.
type EventKind int

const (
	// AlarmFired: an alarm is due. The UI rings (AlarmTonePCM) and shows Entry.
	AlarmFired EventKind = iota + 1
	// TimerDone: a timer ran out. The UI rings and shows Entry.
	TimerDone
	// AppointmentDue: an appointment starts. The UI rings and shows Entry.
	AppointmentDue
	// ScheduleChanged: entries or the stopwatch changed; the panel re-reads Scheduled and Crono.
	ScheduleChanged
	// DevicesChanged: the device panel changed; Devices holds the new state.
	DevicesChanged
	// NowPlaying: music started; Track says what.
	NowPlaying
)

func (k EventKind) String() string {
	switch k {
	case AlarmFired:
		return "alarm fired"
	case TimerDone:
		return "timer done"
	case AppointmentDue:
		return "appointment due"
	case ScheduleChanged:
		return "schedule changed"
	case DevicesChanged:
		return "devices changed"
	case NowPlaying:
		return "now playing"
	}
	return fmt.Sprintf("EventKind(%d)", int(k))
}

// Event is something that happened, for the UI to turn into a message.
type Event struct {
	Kind EventKind
	At   time.Time // the clock's time when it happened
	// Entry is the alarm, timer or appointment that is due.
	Entry Entry
	// Missed marks a due entry that rang late: its time passed while hark was closed (or the
	// machine slept).
	Missed bool
	// Summary is one printable line: "Alarm 07:00 wake up", "TV on".
	Summary string
	Devices DeviceState
	Track   Track
}

// Rings tells whether the event should sound the alarm tone.
func (e Event) Rings() bool {
	return e.Kind == AlarmFired || e.Kind == TimerDone || e.Kind == AppointmentDue
}
