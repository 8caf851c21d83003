package dialogue

import "strings"

// alarmJoins are the words that may stand between the times of several
// alarms asked at once: "at 7 and another one at 7:30", "at 6 and again
// at 6:30", "a las 7 y otra a las 8".
var alarmJoins = map[string]bool{"and": true, "another": true, "one": true, "alarm": true, "again": true,
	"also": true, "then": true, "more": true, "y": true, "otra": true, "tambien": true, "alarma": true}

// alarmTimes reads every clock of a request that sets several alarms at
// once, in order; a time that names no day or half of the day takes the
// one before's ("at 7 am and 8": both in the morning). With fewer than
// two clocks, or another word between two, it is nil: one alarm, or a
// second request that is not an alarm ("at 7 and call mom").
func (t *turn) alarmTimes() []whenExpr {
	var times []whenExpr
	end := 0
	for j := 0; j < len(t.toks); {
		if len(times) > 0 && alarmJoins[t.toks[j].norm] {
			j++ // "another one at 6:15" names no alarm at one
			continue
		}
		w, n := t.m.parseWhen(t.toks[j:])
		if n == 0 || !w.hasClock || w.hasRel || n == 1 && !hasDigit(t.toks[j].norm) {
			// a number word alone is no clock here: "una alarma", "two
			// alarms"
			j++
			continue
		}
		if len(times) > 0 {
			for _, tok := range t.toks[end:j] {
				if !alarmJoins[tok.norm] {
					return nil
				}
			}
			prev := times[len(times)-1]
			if w.day == dayNone {
				w.setDay(prev)
			}
			if w.mer == "" && w.hour <= 12 {
				w.mer = prev.mer
			}
		}
		times = append(times, w)
		j += n
		end = j
	}
	if len(times) < 2 {
		return nil
	}
	return times
}

// alarms sets one alarm at each of the times, in one answer: "set an
// alarm for 7 am and 8 am" set only the one at 8, "for 7 and another for
// 7:30" one at 7 labelled "7:30".
func (t *turn) alarms(times []whenExpr, waking bool) reply {
	var when []string
	var spoken []string
	var actions []NextAction
	for _, e := range times {
		at := wakingHours(e, waking).resolve(t.now, t.loc, biasMorning)
		p := t.whenPhr(at)
		when, spoken = append(when, p.text), append(spoken, p.speech)
		actions = append(actions, NextAction{Action: "SET_ALARM", Data: AlarmData{Time: ms(at)}})
	}
	r := t.reply("alarms_set", map[string]phr{"when": {t.listPhr(when), t.listPhr(spoken)}})
	r.actions = actions
	return r
}

// wakingHours reads an hour from 4 to 9 said without am or pm as the
// morning when the request asks to be woken: "wake me up at 6",
// "despiértame a las seis"; an evening alarm to wake from a nap is said
// with its pm.
func wakingHours(e whenExpr, waking bool) whenExpr {
	if waking && e.hasClock && !e.hasRel && e.mer == "" && e.day == dayNone && e.hour >= 4 && e.hour <= 9 {
		e.mer = roleMorning
	}
	return e
}

func hasDigit(s string) bool { return strings.ContainsAny(s, "0123456789") }
