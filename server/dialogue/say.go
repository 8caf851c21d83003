package dialogue

import (
	"fmt"
	"html"
	"math"
	"strings"
	"time"
	"unicode"
)

// phr is one value of an answer in its written and spoken forms.
type phr struct{ text, speech string }

func same(s string) phr { return phr{s, s} }

// fill replaces {name} in a template by the written or spoken value.
func fill(tmpl string, vals map[string]phr, spoken bool) string {
	if !strings.Contains(tmpl, "{") {
		return tmpl
	}
	var b strings.Builder
	for {
		i := strings.IndexByte(tmpl, '{')
		if i < 0 {
			b.WriteString(tmpl)
			return b.String()
		}
		j := strings.IndexByte(tmpl[i:], '}')
		if j < 0 {
			b.WriteString(tmpl)
			return b.String()
		}
		b.WriteString(tmpl[:i])
		v := vals[tmpl[i+1:i+j]]
		if spoken {
			b.WriteString(v.speech)
		} else {
			b.WriteString(v.text)
		}
		tmpl = tmpl[i+j+1:]
	}
}

// say builds a reply from a template of the language file. A template may
// give a separate spoken form after " || ".
func (t *turn) say(key string, vals map[string]phr) (string, string) {
	tmpl, ok := t.m.say[key]
	if !ok {
		tmpl = key
	}
	written, spoken, found := strings.Cut(tmpl, " || ")
	if !found {
		spoken = written
	}
	return fill(written, vals, false), fill(spoken, vals, true)
}

func (t *turn) reply(key string, vals map[string]phr) reply {
	text, speech := t.say(key, vals)
	return reply{text: text, speech: speech}
}

func escapeHTML(s string) string { return html.EscapeString(s) }

// speakable removes what a speech engine would spell out or stumble on:
// URLs and symbols become spaces, so "18°C" never reaches it (answers use
// words for units) and user text like "a&b" reads as "a b".
func speakable(s string) string {
	var b strings.Builder
	space := false
	for _, w := range strings.Fields(s) {
		if strings.Contains(w, "://") || strings.HasPrefix(w, "www.") {
			continue
		}
		if b.Len() > 0 {
			space = true
		}
		for _, r := range w {
			ok := unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune(".,;?!'¿¡-", r)
			if !ok {
				space = true
				continue
			}
			if space && b.Len() > 0 && !strings.ContainsRune(".,;?!", r) {
				b.WriteByte(' ')
			}
			space = false
			b.WriteRune(r)
		}
	}
	return b.String()
}

var (
	enWeekdays = []string{"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"}
	esWeekdays = []string{"domingo", "lunes", "martes", "miércoles", "jueves", "viernes", "sábado"}
	enMonths   = []string{"", "January", "February", "March", "April", "May", "June", "July", "August",
		"September", "October", "November", "December"}
	esMonths = []string{"", "enero", "febrero", "marzo", "abril", "mayo", "junio", "julio", "agosto",
		"septiembre", "octubre", "noviembre", "diciembre"}
)

// clockPhr says a time of day: "7:30 PM" / "seven thirty PM" in English,
// "19:30" / "las siete y media de la tarde" in Spanish.
func (t *turn) clockPhr(at time.Time) phr {
	h, m := at.Hour(), at.Minute()
	if t.lang == "es" {
		text := fmt.Sprintf("%d:%02d", h, m)
		h12 := h % 12
		if h12 == 0 {
			h12 = 12
		}
		sp := "las " + sayNumber("es", h12)
		if h12 == 1 {
			sp = "la una"
		}
		switch {
		case m == 0:
		case m == 15:
			sp += " y cuarto"
		case m == 30:
			sp += " y media"
		default:
			sp += " y " + sayNumber("es", m)
		}
		switch {
		case h == 0 && m == 0:
			sp = "medianoche"
		case h == 12 && m == 0:
			sp = "mediodía"
		case h < 6:
			sp += " de la madrugada"
		case h < 12:
			sp += " de la mañana"
		case h < 20:
			sp += " de la tarde"
		default:
			sp += " de la noche"
		}
		return phr{text, sp}
	}
	mer := "AM"
	if h >= 12 {
		mer = "PM"
	}
	h12 := h % 12
	if h12 == 0 {
		h12 = 12
	}
	text := fmt.Sprintf("%d:%02d %s", h12, m, mer)
	sp := sayNumber("en", h12)
	switch {
	case m == 0:
	case m < 10:
		sp += " oh " + sayNumber("en", m)
	default:
		sp += " " + sayNumber("en", m)
	}
	switch {
	case h == 0 && m == 0:
		sp = "midnight"
	case h == 12 && m == 0:
		sp = "noon"
	default:
		sp += " " + mer
	}
	return phr{text, sp}
}

// dayPhr names a day relative to today: "today", "tomorrow", "Friday",
// "March 12" ("el viernes", "el 12 de marzo").
func (t *turn) dayPhr(at time.Time) phr {
	local := t.now.In(t.loc)
	y, m, d := local.Date()
	today := time.Date(y, m, d, 0, 0, 0, 0, t.loc)
	ay, am, ad := at.Date()
	day := time.Date(ay, am, ad, 0, 0, 0, 0, t.loc)
	diff := int(math.Round(day.Sub(today).Hours() / 24))
	es := t.lang == "es"
	switch {
	case diff == 0:
		if es {
			return same("hoy")
		}
		return same("today")
	case diff == 1:
		if es {
			return same("mañana")
		}
		return same("tomorrow")
	case diff > 1 && diff < 7:
		if es {
			return same("el " + esWeekdays[at.Weekday()])
		}
		return same(enWeekdays[at.Weekday()])
	}
	if es {
		return phr{fmt.Sprintf("el %d de %s", ad, esMonths[am]), "el " + sayNumber("es", ad) + " de " + esMonths[am]}
	}
	return same(fmt.Sprintf("%s %d", enMonths[am], ad))
}

// whenPhr says an instant: "tomorrow at 7:00 AM", "mañana a las 7:00".
func (t *turn) whenPhr(at time.Time) phr {
	at = at.In(t.loc)
	d, c := t.dayPhr(at), t.clockPhr(at)
	if t.lang == "es" {
		art := "a las "
		if at.Hour()%12 == 1 {
			art = "a la "
		}
		// "a las siete", "a medianoche", but "al mediodía".
		sp := strings.Replace("a "+c.speech, "a mediodía", "al mediodía", 1)
		return phr{d.text + " " + art + c.text, d.speech + " " + sp}
	}
	return phr{d.text + " at " + c.text, d.speech + " at " + c.speech}
}

// durationPhr says "1 hour and 30 minutes" / "una hora y treinta minutos".
func (t *turn) durationPhr(d time.Duration) phr {
	type part struct {
		n          int
		one, other [2]string // en, es
	}
	secs := int(d.Round(time.Second) / time.Second)
	parts := []part{
		{secs / 86400, [2]string{"day", "día"}, [2]string{"days", "días"}},
		{secs % 86400 / 3600, [2]string{"hour", "hora"}, [2]string{"hours", "horas"}},
		{secs % 3600 / 60, [2]string{"minute", "minuto"}, [2]string{"minutes", "minutos"}},
		{secs % 60, [2]string{"second", "segundo"}, [2]string{"seconds", "segundos"}},
	}
	li := 0
	and := " and "
	if t.lang == "es" {
		li, and = 1, " y "
	}
	var texts, speeches []string
	for _, p := range parts {
		if p.n == 0 {
			continue
		}
		unit := p.other[li]
		if p.n == 1 {
			unit = p.one[li]
		}
		texts = append(texts, fmt.Sprintf("%d %s", p.n, unit))
		num := sayNumber(t.lang, p.n)
		if t.lang == "es" && p.n == 1 {
			num = "un"
			if li == 1 && unit == "hora" {
				num = "una"
			}
		}
		speeches = append(speeches, num+" "+unit)
	}
	if len(texts) == 0 {
		return phr{"0", sayNumber(t.lang, 0)}
	}
	joinList := func(xs []string) string {
		if len(xs) == 1 {
			return xs[0]
		}
		return strings.Join(xs[:len(xs)-1], ", ") + and + xs[len(xs)-1]
	}
	return phr{joinList(texts), joinList(speeches)}
}

// tempPhr says a temperature: "18°C" / "eighteen degrees".
func (t *turn) tempPhr(v float64, unit string) phr {
	n := int(math.Round(v))
	deg := " degrees"
	if t.lang == "es" {
		deg = " grados"
	}
	if unit == "" {
		unit = "C"
	}
	if n == 1 || n == -1 {
		deg = strings.TrimSuffix(deg, "s")
	}
	if t.lang == "es" {
		// Spanish writes a space before the degree sign ("7 °C").
		return phr{fmt.Sprintf("%d °%s", n, unit), sayNumber(t.lang, n) + deg}
	}
	return phr{fmt.Sprintf("%d°%s", n, unit), sayNumber(t.lang, n) + deg}
}

// digitsPhr reads a phone number digit by digit.
func (t *turn) digitsPhr(num string) phr {
	var sp []string
	for _, r := range num {
		if r >= '0' && r <= '9' {
			sp = append(sp, sayNumber(t.lang, int(r-'0')))
		}
	}
	return phr{num, strings.Join(sp, " ")}
}

// listPhr joins names: "a, b and c" / "a, b y c".
func (t *turn) listPhr(xs []string) string {
	and := " and "
	if t.lang == "es" {
		and = " y "
	}
	switch len(xs) {
	case 0:
		return ""
	case 1:
		return xs[0]
	}
	return strings.Join(xs[:len(xs)-1], ", ") + and + xs[len(xs)-1]
}
