package items

import (
	"testing"
	"time"
)

func TestParseHoursAndOpenAt(t *testing.T) {
	madrid, _ := time.LoadLocation("Europe/Madrid")
	h, err := ParseHours("Tu-Sa 20:30-00:30; Su 13:00-16:00")
	if err != nil {
		t.Fatal(err)
	}
	// 2020-02-15 is a Saturday.
	at := func(day, hh, mm int) time.Time { return time.Date(2020, 2, day, hh, mm, 0, 0, madrid) }
	cases := []struct {
		t    time.Time
		open bool
	}{
		{at(15, 20, 29), false},
		{at(15, 20, 30), true},
		{at(15, 23, 59), true},
		{at(16, 0, 15), true},  // Saturday's interval runs past midnight
		{at(16, 0, 30), false}, // end is exclusive
		{at(16, 13, 0), true},
		{at(17, 0, 15), false}, // Sunday's interval does not run past midnight
		{at(17, 21, 0), false}, // closed on Mondays
		{at(18, 21, 0), true},
	}
	for _, c := range cases {
		if got := h.OpenAt(c.t, madrid); got != c.open {
			t.Errorf("%s: open %v, want %v", c.t.Format("Mon 15:04"), got, c.open)
		}
	}
	if got := h.Today(at(15, 12, 0), madrid); got != "20:30-00:30" {
		t.Errorf("Today = %q", got)
	}
	if got := h.Today(at(17, 12, 0), madrid); got != "closed" {
		t.Errorf("Monday Today = %q", got)
	}
	// Wrapping day ranges.
	w, err := ParseHours("Fr-Mo 10:00-12:00")
	if err != nil {
		t.Fatal(err)
	}
	if !w.OpenAt(at(17, 11, 0), madrid) || w.OpenAt(at(18, 11, 0), madrid) {
		t.Error("Fr-Mo should include Monday and exclude Tuesday")
	}
}

func TestParseHoursRejects(t *testing.T) {
	for _, spec := range []string{"", "Mo", "Xx 10:00-12:00", "Mo-Fr 10:00", "Mo 25:00-26:00", "Mo 10:60-11:00",
		"Mo 1000-1200", "Mo 10:00-12:00 extra", "Mo-Zz 10:00-11:00", "Mo 24:30-01:00", "Mo 1a:00-12:00"} {
		if _, err := ParseHours(spec); err == nil {
			t.Errorf("ParseHours(%q) accepted", spec)
		}
	}
}

func FuzzParseHours(f *testing.F) {
	for _, s := range []string{"Mo-Fr 11:30-14:30,17:30-22:00; Sa-Su 11:00-22:30", "Tu-Sa 20:30-00:30", "Su 00:00-24:00", ";", "Mo 10:00-"} {
		f.Add(s)
	}
	loc := time.UTC
	f.Fuzz(func(t *testing.T, spec string) {
		h, err := ParseHours(spec)
		if err != nil {
			return
		}
		for _, d := range h.days {
			for _, iv := range d {
				if iv.start < 0 || iv.start >= 24*60+1 || iv.end <= iv.start || iv.end > 48*60 {
					t.Fatalf("%q gave interval %+v", spec, iv)
				}
			}
		}
		h.OpenAt(time.Date(2020, 2, 15, 12, 0, 0, 0, loc), loc)
		h.Today(time.Date(2020, 2, 15, 12, 0, 0, 0, loc), loc)
	})
}
