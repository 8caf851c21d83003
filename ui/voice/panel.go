package voice

import (
	"fmt"
	"github.com/harkhq/hark/ui/common"
	"sort"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/harkhq/hark/actions"
)

// panelState is a copy of what the registry holds, taken in a command: the schedule with
// the time left, the stopwatch, the simulated devices and the music.
type panelState struct {
	entries []actions.Entry
	crono   actions.Stopwatch
	devices actions.DeviceState
	track   actions.Track
	read    bool
}

type panelMsg struct {
	state panelState
	tick  bool
}

// panelTick is the refresh of the time left while anything is scheduled.
const panelTick = time.Second

func snapshot(reg *actions.Registry) panelState {
	return panelState{entries: reg.Scheduled(), crono: reg.Crono(), devices: reg.Devices(),
		track: reg.NowPlaying(), read: true}
}

func (v *Model) snapshotCmd() tea.Cmd {
	reg := v.cfg.Actions
	return func() tea.Msg { return panelMsg{state: snapshot(reg)} }
}

func (v *Model) panelArrived(m panelMsg) tea.Cmd {
	v.panel = m.state
	if m.tick {
		v.ticking = false
	}
	if v.ticking || (len(m.state.entries) == 0 && !m.state.crono.Running) {
		return nil
	}
	v.ticking = true
	reg := v.cfg.Actions
	return tea.Tick(panelTick, func(time.Time) tea.Msg { return panelMsg{state: snapshot(reg), tick: true} })
}

// panelLines draws the schedule, the music and the device panel, one line each.
func (v *Model) PanelLines(t *common.Theme, width int) []string {
	if !v.on() || !v.panel.read {
		return nil
	}
	p := v.panel
	var lines []string
	if len(p.entries) > 0 || p.crono.Running {
		var items []string
		for _, e := range p.entries {
			items = append(items, entryText(e))
		}
		if p.crono.Running {
			items = append(items, "crono "+stopwatchText(p.crono.Elapsed))
		}
		lines = append(lines, t.Header.Render("⏰ ")+common.AnsiFit(strings.Join(items, " · "), max(width-4, 8)))
	}
	if p.track.Playing || p.track.Paused {
		name := p.track.Title
		if p.track.Artist != "" {
			name += " — " + p.track.Artist
		}
		if strings.TrimSpace(name) == "" {
			name = p.track.URL
		}
		state := "playing"
		if p.track.Paused {
			state = "paused"
		}
		lines = append(lines, t.Header.Render("♪ ")+common.AnsiFit(fmt.Sprintf("%s (%s, volume %d%%)  ctrl+p pause · ctrl+x stop",
			common.OneLine(name), state, p.devices.Volume), max(width-4, 8)))
	}
	lines = append(lines, t.Muted.Render(common.AnsiFit("⌂ "+devicesText(p.devices), max(width-2, 8))))
	return lines
}

func entryText(e actions.Entry) string {
	left := "due"
	if e.Remaining > 0 {
		left = remainingText(e.Remaining) + " left"
	}
	switch e.Kind {
	case actions.EntryAlarm:
		return fmt.Sprintf("alarm %s (%s)", e.At.Local().Format("Mon 15:04"), left)
	case actions.EntryTimer:
		return fmt.Sprintf("timer %s", left)
	}
	label := common.OneLine(e.Label)
	if label == "" {
		label = "appointment"
	}
	if e.Fired {
		return fmt.Sprintf("%s now, until %s", label, e.End.Local().Format("15:04"))
	}
	return fmt.Sprintf("%s %s (%s)", label, e.At.Local().Format("Mon 15:04"), left)
}

// remainingText rounds up to the second, so a timer never shows 0s while it still runs.
func remainingText(d time.Duration) string {
	s := int64((d + time.Second - 1) / time.Second)
	switch {
	case s >= 86400: // seconds are noise a day out
		return fmt.Sprintf("%dd %02dh %02dm", s/86400, s%86400/3600, s%3600/60)
	case s >= 3600:
		return fmt.Sprintf("%dh %02dm %02ds", s/3600, s%3600/60, s%60)
	case s >= 60:
		return fmt.Sprintf("%dm %02ds", s/60, s%60)
	}
	return fmt.Sprintf("%ds", s)
}

func stopwatchText(d time.Duration) string {
	s := int64(d / time.Second)
	return fmt.Sprintf("%d:%02d:%02d", s/3600, s%3600/60, s%60)
}

// devicesText is the simulated device panel: power by device, the TV's channel, the lights'
// brightness, the volume and the features that are on.
func devicesText(d actions.DeviceState) string {
	names := make([]string, 0, len(d.Power))
	for n := range d.Power {
		names = append(names, n)
	}
	sort.Strings(names)
	var parts []string
	for _, n := range names {
		s := actions.DisplayName(n) + " " + panelOnOff(d.Power[n])
		switch n {
		case "tv":
			if d.Channel != "" {
				s += " ch " + d.Channel
			}
		case "lights":
			s += fmt.Sprintf(" %d%%", d.Brightness)
		}
		parts = append(parts, s)
	}
	parts = append(parts, fmt.Sprintf("volume %d%%", d.Volume))
	var feats []string
	for n, on := range d.Features {
		if on {
			feats = append(feats, actions.DisplayName(n))
		}
	}
	sort.Strings(feats)
	if len(feats) > 0 {
		parts = append(parts, "on: "+strings.Join(feats, ", "))
	}
	return strings.Join(parts, " · ")
}

func panelOnOff(on bool) string {
	if on {
		return "on"
	}
	return "off"
}
