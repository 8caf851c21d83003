package dialogue

import (
	"slices"
	"strings"
	"time"
)

// repetition is how a request asks an alarm or a reminder to come back:
// "every day at 7", "on weekdays", "todos los lunes". The contract's alarm
// and appointment carry one instant each, so hark sets the first
// occurrence and says it will not repeat, where it used to set one
// silently as if that had been asked.
type repetition int

const (
	repeatNone repetition = iota
	repeatDaily
	repeatWeekdays
	repeatWeekends
	repeatWeekly // on one day of the week, which the time's parser reads
	repeatHourly // from an hour from now, when no time is said
)

var (
	// repeatAlone are words that ask for a repetition by themselves (as
	// tokens keep them: folded, "sábados" as "sabados").
	repeatAlone = map[string]repetition{
		"daily": repeatDaily, "everyday": repeatDaily, "nightly": repeatDaily, "recurring": repeatDaily,
		"repeating": repeatDaily, "diario": repeatDaily, "diaria": repeatDaily, "diariamente": repeatDaily,
		"weekdays": repeatWeekdays, "laborables": repeatWeekdays, "laborales": repeatWeekdays,
		"weekends": repeatWeekends,
		"weekly":   repeatWeekly, "semanal": repeatWeekly, "semanalmente": repeatWeekly,
		"hourly": repeatHourly,
	}
	// repeatUnits are what "every", "each", "cada" and "todos los" repeat
	// over (singular after the first three, plural after the last).
	repeatUnits = map[string]repetition{
		"day": repeatDaily, "morning": repeatDaily, "night": repeatDaily, "evening": repeatDaily, "afternoon": repeatDaily,
		"weekday": repeatWeekdays, "weekend": repeatWeekends, "week": repeatWeekly,
		"dia": repeatDaily, "manana": repeatDaily, "noche": repeatDaily, "tarde": repeatDaily, "semana": repeatWeekly,
		"dias": repeatDaily, "mananas": repeatDaily, "noches": repeatDaily, "tardes": repeatDaily, "fines": repeatWeekends,
		"fin": repeatWeekends, "semanas": repeatWeekly, "hour": repeatHourly, "hora": repeatHourly,
		"monday": repeatWeekly, "tuesday": repeatWeekly, "wednesday": repeatWeekly, "thursday": repeatWeekly,
		"friday": repeatWeekly, "saturday": repeatWeekly, "sunday": repeatWeekly,
		"lunes": repeatWeekly, "martes": repeatWeekly, "miercoles": repeatWeekly, "jueves": repeatWeekly,
		"viernes": repeatWeekly, "sabado": repeatWeekly, "domingo": repeatWeekly,
	}
	// repeatOpeners begin a repetition the next word names.
	repeatOpeners = map[string]bool{"every": true, "each": true, "cada": true, "todos": true, "todas": true, "entre": true}
	// esPluralDays are the weekdays whose plural is their singular: "los
	// lunes" repeats where "el lunes" is one day.
	esPluralDays = []string{"lunes", "martes", "miercoles", "jueves", "viernes"}
	// pluralDays are the days said in the plural, which repeat weekly.
	pluralDays = map[string]time.Weekday{
		"mondays": time.Monday, "tuesdays": time.Tuesday, "wednesdays": time.Wednesday, "thursdays": time.Thursday,
		"fridays": time.Friday, "saturdays": time.Saturday, "sundays": time.Sunday,
		"sabados": time.Saturday, "domingos": time.Sunday,
	}
)

func init() {
	for word := range pluralDays {
		repeatAlone[word] = repeatWeekly
	}
}

// repeats reports how the query asks to repeat what it asks for, and the
// word that says so; repeatNone when it does not.
func (t *turn) repeats() (repetition, string) {
	w := make([]string, len(t.toks))
	for i, tok := range t.toks {
		w[i] = tok.norm
		if f := fold(tok.typo); tok.typo != "" && (repeatAlone[f] != repeatNone || repeatUnits[f] != repeatNone || repeatOpeners[f]) {
			// a word of its own the corrector took for another: "entre
			// semana" read as "entra semana"
			w[i] = f
		}
	}
	at := func(i int) string {
		if i < len(w) {
			return w[i]
		}
		return ""
	}
	for i, word := range w {
		if r, ok := repeatAlone[word]; ok {
			return r, word
		}
		switch {
		case word == "every" || word == "each" || word == "cada":
			if r, ok := repeatUnits[at(i+1)]; ok {
				return r, word
			}
		case (word == "todos" || word == "todas") && (at(i+1) == "los" || at(i+1) == "las"):
			if r, ok := repeatUnits[at(i+2)]; ok {
				return r, word
			}
		case word == "los" && (slices.Contains(esPluralDays, at(i+1)) || at(i+1) == "fines"):
			return repeatUnits[at(i+1)], at(i + 1)
		case word == "entre" && at(i+1) == "semana",
			word == "de" && at(i+1) == "lunes" && at(i+2) == "a" && at(i+3) == "viernes",
			word == "monday" && (at(i+1) == "to" || at(i+1) == "through" || at(i+1) == "thru") && at(i+2) == "friday":
			return repeatWeekdays, word
		}
	}
	return repeatNone, ""
}

// repeatsLast cuts a repetition the title ends with ("drink water every
// hour", "beber agua cada hora", "take my pills daily"), reporting whether
// there was one; a repetition inside a title is its own ("the daily
// standup").
func repeatsLast(title *string, word string) bool {
	f := strings.Fields(*title)
	n := len(f)
	switch {
	case n > 1 && fold(f[n-1]) == word:
		n--
	case n > 2 && fold(f[n-2]) == word && repeatUnits[fold(f[n-1])] != repeatNone:
		n -= 2
	default:
		return false
	}
	*title = strings.Join(f[:n], " ")
	return true
}

// hourlyWithoutTime gives, for a request to repeat every hour said with
// no time ("remind me to drink water every hour"), its first occurrence:
// an hour from now.
func (t *turn) hourlyWithoutTime(w slotVal, ok bool) (slotVal, bool) {
	if rep, _ := t.repeats(); rep == repeatHourly && (!ok || !w.when.complete()) {
		return slotVal{when: whenExpr{hasRel: true, rel: time.Hour}}, true
	}
	return w, ok
}

// firstOccurrence is the first instant of a repeated time: the time as
// said, moved to the first day from today the repetition includes ("at 7
// on weekends" on a Wednesday is Saturday at 7 in the morning, as a day
// said outright would read it). A range of days ("de lunes a viernes")
// leaves its first day to the repetition.
func (t *turn) firstOccurrence(rep repetition, word string, e whenExpr, bias hourBias) time.Time {
	includes := func(d time.Weekday) bool {
		weekend := d == time.Saturday || d == time.Sunday
		return rep == repeatWeekdays && !weekend || rep == repeatWeekends && weekend
	}
	if d, ok := pluralDays[word]; ok && e.day == dayNone && !e.hasRel {
		// "at 8 on mondays": the parser of times reads one day, "monday"
		e.day, e.weekday = dayWeekday, d
	}
	if rep != repeatWeekdays && rep != repeatWeekends || e.hasRel {
		return e.resolve(t.now, t.loc, bias)
	}
	if e.day == dayWeekday || e.day == dayToday {
		e.day = dayNone
	}
	if at := e.resolve(t.now, t.loc, bias); includes(at.In(t.loc).Weekday()) {
		return at
	}
	today := t.now.In(t.loc).Weekday()
	for off := 1; off <= 7; off++ {
		if d := (today + time.Weekday(off)) % 7; includes(d) {
			e.day, e.weekday, e.next = dayWeekday, d, false
			break
		}
	}
	return e.resolve(t.now, t.loc, bias)
}
