package ui

import (
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/charmbracelet/x/ansi"
)

// oneLine makes server or user text safe for one terminal line: control
// characters (escape sequences included) go, whitespace runs become one
// space.
func oneLine(s string) string {
	return strings.Join(strings.Fields(clean(s)), " ")
}

// clean drops control characters except newline and tab, so pasted or
// server-sent text can't move the cursor or change the terminal's state.
func clean(s string) string {
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

// fit cuts s to width cells with an ellipsis and pads it to width.
func fit(s string, width int) string {
	if width <= 0 {
		return ""
	}
	s = ansi.Truncate(s, width, "…")
	if w := ansi.StringWidth(s); w < width {
		s += strings.Repeat(" ", width-w)
	}
	return s
}

// wrap breaks s into lines of at most width cells.
func wrap(s string, width int) []string {
	if width < 1 {
		width = 1
	}
	return strings.Split(ansi.Wrap(s, width, " "), "\n")
}

// humanSize is a byte count in B, KiB, MiB or GiB.
func humanSize(n int64) string {
	const unit = 1024
	if n < unit {
		return itoa(n) + " B"
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit && exp < 3; m /= unit {
		div *= unit
		exp++
	}
	v := float64(n) / float64(div)
	s := strings.TrimSuffix(strings.TrimRight(ftoa1(v), "0"), ".")
	return s + " " + []string{"KiB", "MiB", "GiB", "TiB"}[exp]
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func ftoa1(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }

// ansiFit cuts a styled line to width cells (no padding).
func ansiFit(s string, width int) string { return ansi.Truncate(s, max(width, 0), "…") }

func sortStrings(s []string) { sort.Strings(s) }

func cellWidth(s string) int { return ansi.StringWidth(s) }

func formatLatLon(lat, lon float64) string {
	return strconv.FormatFloat(lat, 'f', 4, 64) + "," + strconv.FormatFloat(lon, 'f', 4, 64)
}
