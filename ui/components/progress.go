package components

import "strings"

// DetailWidth is the width of the detail pane beside a list.
const DetailWidth = 34

// ProgressBar draws a fraction as a bar of width cells.
func ProgressBar(frac float64, width int) string {
	n := int(frac*float64(width) + 0.5)
	n = min(max(n, 0), width)
	return "[" + strings.Repeat("#", n) + strings.Repeat(".", width-n) + "]"
}
