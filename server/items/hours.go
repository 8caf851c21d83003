package items

import (
	"fmt"
	"strings"
	"time"
)

// Hours is a weekly opening schedule in local time, parsed from the
// OpenStreetMap-like syntax the seed files use:
//
//	Mo-Fr 11:30-14:30,17:30-22:00; Sa-Su 11:00-22:30
//
// Day ranges may wrap (Fr-Mo). An interval whose end is not after its start
// runs past midnight into the next day (Fr-Sa 19:00-02:30).
type Hours struct {
	// days[w] holds the intervals that start on weekday w (time.Sunday = 0),
	// in minutes after local midnight; end may exceed 1440.
	days [7][]interval
}

type interval struct{ start, end int }

var dayCodes = map[string]time.Weekday{"Su": time.Sunday, "Mo": time.Monday, "Tu": time.Tuesday,
	"We": time.Wednesday, "Th": time.Thursday, "Fr": time.Friday, "Sa": time.Saturday}

// ParseHours parses an opening-hours specification.
func ParseHours(spec string) (Hours, error) {
	var h Hours
	if strings.TrimSpace(spec) == "" {
		return h, fmt.Errorf("empty opening hours")
	}
	for _, rule := range strings.Split(spec, ";") {
		fields := strings.Fields(rule)
		if len(fields) != 2 {
			return h, fmt.Errorf("rule %q: want \"Days HH:MM-HH:MM[,...]\"", strings.TrimSpace(rule))
		}
		days, err := parseDays(fields[0])
		if err != nil {
			return h, err
		}
		var ivs []interval
		for _, span := range strings.Split(fields[1], ",") {
			from, to, ok := strings.Cut(span, "-")
			if !ok {
				return h, fmt.Errorf("interval %q: want HH:MM-HH:MM", span)
			}
			s, err := parseClock(from)
			if err != nil {
				return h, err
			}
			e, err := parseClock(to)
			if err != nil {
				return h, err
			}
			if e <= s {
				e += 24 * 60
			}
			ivs = append(ivs, interval{s, e})
		}
		for _, d := range days {
			h.days[d] = append(h.days[d], ivs...)
		}
	}
	return h, nil
}

func parseDays(s string) ([]time.Weekday, error) {
	from, to, isRange := strings.Cut(s, "-")
	a, ok := dayCodes[from]
	if !ok {
		return nil, fmt.Errorf("day %q: want Mo, Tu, We, Th, Fr, Sa or Su", from)
	}
	if !isRange {
		return []time.Weekday{a}, nil
	}
	b, ok := dayCodes[to]
	if !ok {
		return nil, fmt.Errorf("day %q: want Mo, Tu, We, Th, Fr, Sa or Su", to)
	}
	var out []time.Weekday
	for d := a; ; d = (d + 1) % 7 {
		out = append(out, d)
		if d == b {
			return out, nil
		}
	}
}

func parseClock(s string) (int, error) {
	var hh, mm int
	if len(s) != 5 || s[2] != ':' {
		return 0, fmt.Errorf("time %q: want HH:MM", s)
	}
	for i, c := range []byte(s) {
		if i != 2 && (c < '0' || c > '9') {
			return 0, fmt.Errorf("time %q: want HH:MM", s)
		}
	}
	hh = int(s[0]-'0')*10 + int(s[1]-'0')
	mm = int(s[3]-'0')*10 + int(s[4]-'0')
	if hh > 24 || mm > 59 || (hh == 24 && mm != 0) {
		return 0, fmt.Errorf("time %q out of range", s)
	}
	return hh*60 + mm, nil
}

// OpenAt reports whether the place is open at t, read in loc.
func (h Hours) OpenAt(t time.Time, loc *time.Location) bool {
	local := t.In(loc)
	minute := local.Hour()*60 + local.Minute()
	for _, iv := range h.days[local.Weekday()] {
		if minute >= iv.start && minute < iv.end {
			return true
		}
	}
	// Yesterday's intervals that run past midnight.
	for _, iv := range h.days[(local.Weekday()+6)%7] {
		if iv.end > 24*60 && minute+24*60 < iv.end {
			return true
		}
	}
	return false
}

// Today describes the intervals starting on t's local day, e.g.
// "13:30-16:30, 20:30-00:00", or "closed".
func (h Hours) Today(t time.Time, loc *time.Location) string {
	ivs := h.days[t.In(loc).Weekday()]
	if len(ivs) == 0 {
		return "closed"
	}
	parts := make([]string, len(ivs))
	for i, iv := range ivs {
		parts[i] = fmt.Sprintf("%02d:%02d-%02d:%02d", iv.start/60, iv.start%60, iv.end/60%24, iv.end%60)
	}
	return strings.Join(parts, ", ")
}
