package components

import (
	"math"
	"strings"
)

// Canvas draws points at 2x4 dots per cell and writes text into
// cells, for maps in a terminal.
type Canvas struct {
	w, h  int // cells
	dots  [][]rune
	text  [][]rune // a written rune wins over dots
	taken [][]bool
}

func NewCanvas(w, h int) *Canvas {
	c := &Canvas{w: w, h: h}
	for range h {
		c.dots = append(c.dots, make([]rune, w))
		c.text = append(c.text, make([]rune, w))
		c.taken = append(c.taken, make([]bool, w))
	}
	return c
}

var brailleBits = [4][2]rune{{0x01, 0x08}, {0x02, 0x10}, {0x04, 0x20}, {0x40, 0x80}}

// dot sets the dot at (x, y) in dot coordinates (2w x 4h).
func (c *Canvas) Dot(x, y int) {
	if x < 0 || y < 0 || x >= 2*c.w || y >= 4*c.h {
		return
	}
	c.dots[y/4][x/2] |= brailleBits[y%4][x%2]
}

// disc sets the dots within radius r of (x, y).
func (c *Canvas) Disc(x, y int, r float64) {
	ri := int(math.Ceil(r))
	for dy := -ri; dy <= ri; dy++ {
		for dx := -ri; dx <= ri; dx++ {
			if float64(dx*dx)+float64(dy*dy)*1.0 <= r*r {
				c.Dot(x+dx, y+dy)
			}
		}
	}
}

// write puts s at cell (cx, cy) if those cells are free; it reports
// whether it did.
func (c *Canvas) Write(cx, cy int, s string) bool {
	rs := []rune(s)
	if cy < 0 || cy >= c.h || cx < 0 || cx+len(rs) > c.w {
		return false
	}
	for i := range rs {
		if c.taken[cy][cx+i] {
			return false
		}
	}
	for i, r := range rs {
		c.text[cy][cx+i] = r
		c.taken[cy][cx+i] = true
	}
	return true
}

func (c *Canvas) String() string {
	var b strings.Builder
	for y := range c.h {
		for x := range c.w {
			switch {
			case c.text[y][x] != 0:
				b.WriteRune(c.text[y][x])
			case c.dots[y][x] != 0:
				b.WriteRune(0x2800 + c.dots[y][x])
			default:
				b.WriteByte(' ')
			}
		}
		if y < c.h-1 {
			b.WriteByte('\n')
		}
	}
	return b.String()
}
