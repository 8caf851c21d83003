package dialogue

import (
	"regexp"
	"strconv"
	"strings"
)

var (
	phoneGroup = regexp.MustCompile(`^\+?[0-9][0-9\-]*$`)
	urlToken   = regexp.MustCompile(`^(?:https?://)?(?:[a-z0-9](?:[a-z0-9\-]*[a-z0-9])?\.)+[a-z]{2,}(?:/[^\s]*)?$`)
	emailToken = regexp.MustCompile(`^[a-z0-9._%+\-]+@(?:[a-z0-9\-]+\.)+[a-z]{2,}$`)
	labelWord  = regexp.MustCompile(`^[a-z0-9\-]+$`)
)

// parsePhone reads a phone number given as digit groups ("555 1234",
// "+34-600-123-456") or in words, digit by digit ("five five five ..."),
// in groups ("five five five twelve thirty four") or as one figure ("five
// billion five hundred fifty one million …").
func (m *langModel) parsePhone(toks []token) (string, int) {
	var b strings.Builder
	n := 0
	for n < len(toks) && b.Len() < 20 {
		w := toks[n].norm
		if n == 0 && m.spoken[w] == "+" && len(toks) > 1 { // "plus one six four six…"
			b.WriteByte('+')
			n++
			continue
		}
		if phoneGroup.MatchString(w) {
			b.WriteString(strings.ReplaceAll(w, "-", ""))
			n++
			continue
		}
		if v, k := m.parseCardinal(toks[n:]); v >= 1e6 {
			// a whole number read as one figure, as text-to-speech reads
			// "5551234567": "five billion five hundred fifty one million …"
			b.WriteString(strconv.Itoa(v))
			n += k
			continue
		}
		if v, k := m.parseNumber(toks[n:]); k > 1 || k == 1 && v >= 10 {
			// a group said as a number: "five five five twelve thirty
			// four", "two hundred twelve", as people and flite read
			// "555 1234" and "212"
			b.WriteString(strconv.Itoa(v))
			n += k
			continue
		}
		if d, ok := m.spokenDigit(toks[n:]); ok {
			b.WriteByte(byte('0' + d))
			n++
			continue
		}
		if d, ok := m.digitSounds[w]; ok && n > 0 && n+1 < len(toks) {
			// "six for six five …": between two digits said one by one
			if _, prev := m.spokenDigit(toks[n-1:]); prev {
				if _, next := m.spokenDigit(toks[n+1:]); next {
					b.WriteByte(byte('0' + d))
					n++
					continue
				}
			}
		}
		break
	}
	digitsOnly := strings.TrimPrefix(b.String(), "+")
	if len(digitsOnly) < 3 {
		return "", 0
	}
	return b.String(), n
}

// spokenDigit reads the digit said as the first word of toks ("six", the
// "oh" of "five oh two").
func (m *langModel) spokenDigit(toks []token) (int, bool) {
	if v, ok := m.numbers[toks[0].norm]; ok && v <= 9 {
		return v, true
	}
	if m.timeWords.roleAt(toks) == roleOh {
		return 0, true
	}
	return 0, false
}

// parseURL reads "example.com/path" or, spoken, "example dot com".
func (m *langModel) parseURL(toks []token) (string, int) {
	if len(toks) == 0 {
		return "", 0
	}
	if urlToken.MatchString(toks[0].norm) {
		return toks[0].norm, 1
	}
	host, n := m.spokenHost(toks)
	if n == 0 {
		return "", 0
	}
	return host, n
}

// spokenHost joins "example dot co dot uk" into "example.co.uk".
func (m *langModel) spokenHost(toks []token) (string, int) {
	parts := []string{}
	n := 0
	for n < len(toks) {
		if !labelWord.MatchString(toks[n].norm) {
			break
		}
		parts = append(parts, toks[n].norm)
		n++
		if n+1 < len(toks) && m.spoken[toks[n].norm] == "." {
			n++
			continue
		}
		break
	}
	if len(parts) < 2 || !urlToken.MatchString(strings.Join(parts, ".")) {
		return "", 0
	}
	return strings.Join(parts, "."), n
}

// parseEmail reads "ana@example.com" or, spoken, "ana at example dot com".
func (m *langModel) parseEmail(toks []token) (string, int) {
	if len(toks) == 0 {
		return "", 0
	}
	if emailToken.MatchString(toks[0].norm) {
		return toks[0].norm, 1
	}
	if len(toks) < 4 || !labelWord.MatchString(toks[0].norm) || m.spoken[toks[1].norm] != "@" {
		return "", 0
	}
	host, n := m.spokenHost(toks[2:])
	if n == 0 {
		return "", 0
	}
	return toks[0].norm + "@" + host, n + 2
}
