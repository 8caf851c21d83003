package dialogue

import (
	"strconv"
	"strings"
)

// parseNumber reads a number written with digits ("45", "50%") or words
// ("forty five", "cuarenta y cinco", "one hundred and ten") at toks[0].
// It returns the value and how many tokens it used, or n == 0.
func (m *langModel) parseNumber(toks []token) (value, n int) {
	if len(toks) == 0 {
		return 0, 0
	}
	if v, ok := digits(strings.TrimSuffix(toks[0].norm, "%")); ok {
		return v, 1
	}
	word := func(i int) (int, bool) {
		if i >= len(toks) {
			return 0, false
		}
		w := toks[i].norm
		if v, ok := m.numbers[w]; ok {
			return v, true
		}
		// "thirty-five" typed with a hyphen.
		if a, b, ok := strings.Cut(w, "-"); ok {
			va, oka := m.numbers[a]
			vb, okb := m.numbers[b]
			if oka && okb && va >= 20 && va%10 == 0 && va < 100 && vb >= 1 && vb <= 9 {
				return va + vb, true
			}
		}
		return 0, false
	}
	isAnd := func(i int) bool {
		return i < len(toks) && m.timeWords.roleAt(toks[i:]) == roleAnd
	}
	i, total := 0, 0
	v, ok := word(i)
	if !ok {
		return 0, 0
	}
	// Hundreds: "one hundred", "doscientos", "hundred".
	if v >= 1 && v <= 9 {
		if h, ok := word(i + 1); ok && h == 100 {
			total, i = v*100, i+2
		}
	} else if v >= 100 && v%100 == 0 && v < 1000 {
		total, i = v, i+1
	}
	if total > 0 {
		j := i
		if isAnd(j) {
			j++
		}
		rest, k := belowHundred(j, word, isAnd)
		if k > 0 {
			return total + rest, j + k
		}
		return total, i
	}
	return belowHundred(0, word, isAnd)
}

// parseCardinal reads a long figure said with scale words, the way a
// reader says "5551234567" ("five billion five hundred fifty one million
// two hundred thirty four thousand five hundred sixty seven") or "1700"
// ("one thousand seven hundred"); "mil millones" is a thousand millions.
// A scale alone is one of it ("mil quinientos"). It returns n == 0 unless
// a scale word is used, so a number parseNumber reads is left to it.
func (m *langModel) parseCardinal(toks []token) (value, n int) {
	total, group, scaled := 0, 0, false
	for n < len(toks) {
		if group == 0 {
			if v, k := m.parseNumber(toks[n:]); k > 0 && v < 1000 {
				group, n = v, n+k
			}
		}
		if n >= len(toks) {
			break
		}
		s, ok := m.scales[toks[n].norm]
		if !ok || total >= 1e15 {
			break
		}
		switch {
		case total == 0:
			total = max(group, 1) * s // "two thousand", "mil"
		case total+group < s:
			total = (total + group) * s // "mil millones"
		default:
			total += max(group, 1) * s // "five billion five hundred fifty one million"
		}
		group, n, scaled = 0, n+1, true
		if n+1 < len(toks) && m.timeWords.roleAt(toks[n:]) == roleAnd {
			if _, k := m.parseNumber(toks[n+1:]); k > 0 {
				n++ // "one thousand and five"
			}
		}
	}
	if !scaled {
		return 0, 0
	}
	return total + group, n
}

// belowHundred reads "forty five", "treinta y cinco", "twelve" at word i.
func belowHundred(i int, word func(int) (int, bool), isAnd func(int) bool) (int, int) {
	v, ok := word(i)
	if !ok || v >= 100 {
		return 0, 0
	}
	if v >= 20 && v%10 == 0 {
		if u, ok := word(i + 1); ok && u >= 1 && u <= 9 {
			return v + u, 2
		}
		if isAnd(i + 1) {
			if u, ok := word(i + 2); ok && u >= 1 && u <= 9 {
				return v + u, 3
			}
		}
	}
	return v, 1
}

// digits parses a plain non-negative decimal integer of at most 9 digits.
func digits(s string) (int, bool) {
	if s == "" || len(s) > 9 {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
	}
	v, err := strconv.Atoi(s)
	return v, err == nil
}

// Number words for answers. Spoken answers say numbers as words so every
// text-to-speech engine reads them the same way.
var (
	enSmall = []string{"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
		"eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen"}
	enTens  = []string{"", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"}
	esSmall = []string{"cero", "uno", "dos", "tres", "cuatro", "cinco", "seis", "siete", "ocho", "nueve", "diez",
		"once", "doce", "trece", "catorce", "quince", "dieciséis", "diecisiete", "dieciocho", "diecinueve",
		"veinte", "veintiuno", "veintidós", "veintitrés", "veinticuatro", "veinticinco", "veintiséis",
		"veintisiete", "veintiocho", "veintinueve"}
	esTens     = []string{"", "", "", "treinta", "cuarenta", "cincuenta", "sesenta", "setenta", "ochenta", "noventa"}
	esHundreds = []string{"", "ciento", "doscientos", "trescientos", "cuatrocientos", "quinientos", "seiscientos",
		"setecientos", "ochocientos", "novecientos"}
)

// sayNumber spells an integer for speech; beyond 999 it keeps digits,
// which engines read correctly anyway.
func sayNumber(lang string, n int) string {
	if n < 0 {
		if lang == "es" {
			return "menos " + sayNumber(lang, -n)
		}
		return "minus " + sayNumber(lang, -n)
	}
	if n >= 1000 {
		return strconv.Itoa(n)
	}
	if lang == "es" {
		switch {
		case n < 30:
			return esSmall[n]
		case n < 100:
			if n%10 == 0 {
				return esTens[n/10]
			}
			return esTens[n/10] + " y " + esSmall[n%10]
		case n == 100:
			return "cien"
		default:
			if n%100 == 0 {
				return esHundreds[n/100]
			}
			return esHundreds[n/100] + " " + sayNumber(lang, n%100)
		}
	}
	switch {
	case n < 20:
		return enSmall[n]
	case n < 100:
		if n%10 == 0 {
			return enTens[n/10]
		}
		return enTens[n/10] + " " + enSmall[n%10]
	default:
		s := enSmall[n/100] + " hundred"
		if n%100 != 0 {
			s += " and " + sayNumber(lang, n%100)
		}
		return s
	}
}
