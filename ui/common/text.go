package common

import (
	"strconv"
	"strings"
	"unicode"

	"github.com/charmbracelet/x/ansi"
)

// OneLine makes server or user text safe for one terminal line: control
// characters (escape sequences included) go, whitespace runs become one
// space.
func OneLine(s string) string {
	return strings.Join(strings.Fields(Clean(s)), " ")
}

// Clean drops control characters except newline and tab, so pasted or
// server-sent text can't move the cursor or change the terminal's state.
func Clean(s string) string {
	if strings.IndexFunc(s, func(r rune) bool { return unicode.IsControl(r) && r != '\n' && r != '\t' }) < 0 {
		return s
	}
	s = ansi.Strip(s)
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) && r != '\n' && r != '\t' {
			return -1
		}
		return r
	}, s)
}

// Fit cuts s to width cells with an ellipsis and pads it to width.
func Fit(s string, width int) string {
	if width <= 0 {
		return ""
	}
	s = ansi.Truncate(s, width, "…")
	if w := ansi.StringWidth(s); w < width {
		s += strings.Repeat(" ", width-w)
	}
	return s
}

// Wrap breaks s into lines of at most width cells.
func Wrap(s string, width int) []string {
	if width < 1 {
		width = 1
	}
	return strings.Split(ansi.Wrap(s, width, " "), "\n")
}

// HumanSize is a byte count in B, KiB, MiB or GiB.
func HumanSize(n int64) string {
	const unit = 1024
	if n < unit {
		return Itoa(n) + " B"
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit && exp < 3; m /= unit {
		div *= unit
		exp++
	}
	v := float64(n) / float64(div)
	s := strings.TrimSuffix(strings.TrimRight(Ftoa1(v), "0"), ".")
	return s + " " + []string{"KiB", "MiB", "GiB", "TiB"}[exp]
}

func Itoa(n int64) string { return strconv.FormatInt(n, 10) }

func Ftoa1(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }

// AnsiFit cuts a styled line to width cells (no padding).
func AnsiFit(s string, width int) string { return ansi.Truncate(s, max(width, 0), "…") }

func CellWidth(s string) int { return ansi.StringWidth(s) }

func FormatLatLon(lat, lon float64) string {
	return strconv.FormatFloat(lat, 'f', 4, 64) + "," + strconv.FormatFloat(lon, 'f', 4, 64)
}

// Plural is "s" unless n is one.
func Plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// Sentence starts s with a capital letter and ends it with a full stop,
// unless it already ends with punctuation.
func Sentence(s string) string {
	if s == "" {
		return s
	}
	r := []rune(s)
	if r[0] >= 'a' && r[0] <= 'z' && !strings.HasPrefix(s, "hark ") {
		r[0] -= 'a' - 'A'
	}
	s = string(r)
	if !strings.ContainsAny(s[len(s)-1:], ".?!") {
		s += "."
	}
	return s
}
