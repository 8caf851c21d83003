// Package pictogram draws the small PNG icons harkd serves under
// /v2/media/icons/: survey items, weather states and clothing advice. Icons
// are drawn from a shape and a colour instead of shipped as image files, so
// the repository holds no binaries and every icon has the same style: a
// light tinted rounded square with a solid glyph in the middle.
package pictogram

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"sort"
	"strconv"
)

// Size is the width and height of every icon, in pixels.
const Size = 64

// shape reports whether the point (x, y) is inside the glyph; both
// coordinates run from -1 (left, top) to 1 (right, bottom).
type shape func(x, y float64) bool

func circle(cx, cy, r float64) shape {
	return func(x, y float64) bool { return (x-cx)*(x-cx)+(y-cy)*(y-cy) <= r*r }
}

func rect(x0, y0, x1, y1 float64) shape {
	return func(x, y float64) bool { return x >= x0 && x <= x1 && y >= y0 && y <= y1 }
}

func union(parts ...shape) shape {
	return func(x, y float64) bool {
		for _, p := range parts {
			if p(x, y) {
				return true
			}
		}
		return false
	}
}

func minus(a, b shape) shape {
	return func(x, y float64) bool { return a(x, y) && !b(x, y) }
}

// polygon uses the even-odd rule, which is exact for the simple convex and
// star polygons drawn here.
func polygon(pts ...[2]float64) shape {
	return func(x, y float64) bool {
		in := false
		for i, j := 0, len(pts)-1; i < len(pts); j, i = i, i+1 {
			xi, yi, xj, yj := pts[i][0], pts[i][1], pts[j][0], pts[j][1]
			if (yi > y) != (yj > y) && x < (xj-xi)*(y-yi)/(yj-yi)+xi {
				in = !in
			}
		}
		return in
	}
}

func star(points int, outer, inner float64) shape {
	var pts [][2]float64
	for i := 0; i < points*2; i++ {
		r := outer
		if i%2 == 1 {
			r = inner
		}
		a := -math.Pi/2 + float64(i)*math.Pi/float64(points)
		pts = append(pts, [2]float64{r * math.Cos(a), r * math.Sin(a)})
	}
	return polygon(pts...)
}

func cloudAt(dy float64) shape {
	return union(circle(-0.25, dy+0.05, 0.28), circle(0.15, dy-0.08, 0.36), circle(0.42, dy+0.1, 0.22),
		rect(-0.5, dy+0.05, 0.6, dy+0.32))
}

func sunRays() shape {
	var rays []shape
	for i := 0; i < 8; i++ {
		a := float64(i) * math.Pi / 4
		c, s := math.Cos(a), math.Sin(a)
		rays = append(rays, polygon(
			[2]float64{0.5*c - 0.07*s, 0.5*s + 0.07*c},
			[2]float64{0.75 * c, 0.75 * s},
			[2]float64{0.5*c + 0.07*s, 0.5*s - 0.07*c}))
	}
	return union(append(rays, circle(0, 0, 0.38))...)
}

func drops(dy float64) shape {
	return union(
		polygon([2]float64{-0.3, dy}, [2]float64{-0.38, dy + 0.22}, [2]float64{-0.22, dy + 0.22}),
		polygon([2]float64{0.05, dy}, [2]float64{-0.03, dy + 0.22}, [2]float64{0.13, dy + 0.22}),
		polygon([2]float64{0.4, dy}, [2]float64{0.32, dy + 0.22}, [2]float64{0.48, dy + 0.22}))
}

// shapes are the glyphs data files may name.
var shapes = map[string]shape{
	"circle":   circle(0, 0, 0.6),
	"ring":     minus(circle(0, 0, 0.62), circle(0, 0, 0.36)),
	"square":   rect(-0.5, -0.5, 0.5, 0.5),
	"diamond":  polygon([2]float64{0, -0.7}, [2]float64{0.6, 0}, [2]float64{0, 0.7}, [2]float64{-0.6, 0}),
	"triangle": polygon([2]float64{0, -0.65}, [2]float64{0.65, 0.5}, [2]float64{-0.65, 0.5}),
	"star":     star(5, 0.7, 0.3),
	"burst":    star(8, 0.7, 0.42),
	"cross":    union(rect(-0.18, -0.62, 0.18, 0.62), rect(-0.62, -0.18, 0.62, 0.18)),
	"bars":     union(rect(-0.6, 0.1, -0.3, 0.6), rect(-0.15, -0.2, 0.15, 0.6), rect(0.3, -0.55, 0.6, 0.6)),
	"wave": func(x, y float64) bool {
		w := 0.25 * math.Sin(x*math.Pi*1.5)
		return math.Abs(x) <= 0.7 && (math.Abs(y-w+0.25) < 0.1 || math.Abs(y-w-0.2) < 0.1)
	},
	"heart": func(x, y float64) bool {
		// The classic implicit heart curve, flipped because y grows downwards.
		x, y = x*1.3, -y*1.3+0.15
		a := x*x + y*y - 1
		return a*a*a-x*x*y*y*y <= 0
	},
	"hexagon":  polygon(hexagon(0.65)...),
	"moon":     minus(circle(0, 0, 0.6), circle(0.28, -0.18, 0.5)),
	"sun":      sunRays(),
	"cloud":    cloudAt(0),
	"partly":   union(minus(sunRays(), cloudAt(0.25)), cloudAt(0.25)),
	"rain":     union(cloudAt(-0.25), drops(0.35)),
	"snow":     union(cloudAt(-0.25), circle(-0.3, 0.45, 0.09), circle(0.05, 0.5, 0.09), circle(0.4, 0.45, 0.09)),
	"storm":    union(cloudAt(-0.25), polygon([2]float64{0.05, 0.1}, [2]float64{-0.2, 0.45}, [2]float64{0, 0.45}, [2]float64{-0.1, 0.75}, [2]float64{0.25, 0.35}, [2]float64{0.05, 0.35}, [2]float64{0.2, 0.1})),
	"fog":      union(rect(-0.6, -0.4, 0.6, -0.25), rect(-0.45, -0.08, 0.6, 0.07), rect(-0.6, 0.25, 0.45, 0.4)),
	"tshirt":   union(rect(-0.3, -0.45, 0.3, 0.6), polygon([2]float64{-0.3, -0.45}, [2]float64{-0.7, -0.15}, [2]float64{-0.5, 0.1}, [2]float64{-0.3, -0.05})),
	"sweater":  union(rect(-0.35, -0.5, 0.35, 0.6), rect(-0.62, -0.45, -0.35, 0.55), rect(0.35, -0.45, 0.62, 0.55)),
	"coat":     union(rect(-0.38, -0.6, 0.38, 0.75), rect(-0.62, -0.5, -0.38, 0.6), rect(0.38, -0.5, 0.62, 0.6)),
	"umbrella": union(minus(circle(0, 0.05, 0.65), rect(-1, 0.05, 1, 1)), rect(-0.05, 0, 0.05, 0.6), rect(-0.2, 0.5, 0.05, 0.6)),
}

func init() {
	// The t-shirt sleeve above is drawn on the left only; mirror it so the
	// glyph is symmetric without writing every point twice.
	left := shapes["tshirt"]
	shapes["tshirt"] = func(x, y float64) bool { return left(x, y) || left(-x, y) }
}

func hexagon(r float64) [][2]float64 {
	pts := make([][2]float64, 6)
	for i := range pts {
		a := float64(i) * math.Pi / 3
		pts[i] = [2]float64{r * math.Cos(a), r * math.Sin(a)}
	}
	return pts
}

// Shapes lists the shape names Draw accepts, sorted.
func Shapes() []string {
	names := make([]string, 0, len(shapes))
	for n := range shapes {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// ParseColor reads a "#rrggbb" colour.
func ParseColor(s string) (color.NRGBA, error) {
	var c color.NRGBA
	if len(s) != 7 || s[0] != '#' {
		return c, fmt.Errorf("colour %q: want #rrggbb", s)
	}
	v, err := strconv.ParseUint(s[1:], 16, 32)
	if err != nil {
		return c, fmt.Errorf("colour %q: %w", s, err)
	}
	c.R, c.G, c.B, c.A = uint8(v>>16), uint8(v>>8), uint8(v), 255
	return c, nil
}

// Draw renders the named shape in colour c (as "#rrggbb") and returns PNG bytes.
func Draw(shapeName, c string) ([]byte, error) {
	glyph, ok := shapes[shapeName]
	if !ok {
		return nil, fmt.Errorf("unknown shape %q", shapeName)
	}
	fg, err := ParseColor(c)
	if err != nil {
		return nil, err
	}
	// The background is the glyph colour mixed 85% towards white.
	bg := color.NRGBA{R: tint(fg.R), G: tint(fg.G), B: tint(fg.B), A: 255}
	background := roundedSquare(0.92, 0.3)
	img := image.NewNRGBA(image.Rect(0, 0, Size, Size))
	const sub = 3 // 3x3 samples per pixel give smooth edges
	for py := 0; py < Size; py++ {
		for px := 0; px < Size; px++ {
			var inBg, inFg int
			for sy := 0; sy < sub; sy++ {
				for sx := 0; sx < sub; sx++ {
					x := (float64(px)+(float64(sx)+0.5)/sub)/Size*2 - 1
					y := (float64(py)+(float64(sy)+0.5)/sub)/Size*2 - 1
					if background(x, y) {
						inBg++
						if glyph(x/0.8, y/0.8) {
							inFg++
						}
					}
				}
			}
			img.SetNRGBA(px, py, blend(bg, fg, inBg, inFg, sub*sub))
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return nil, fmt.Errorf("encode %s icon: %w", shapeName, err)
	}
	return buf.Bytes(), nil
}

func tint(v uint8) uint8 { return uint8(float64(v) + (255-float64(v))*0.85) }

func roundedSquare(half, radius float64) shape {
	return func(x, y float64) bool {
		dx := math.Max(math.Abs(x)-(half-radius), 0)
		dy := math.Max(math.Abs(y)-(half-radius), 0)
		return dx*dx+dy*dy <= radius*radius
	}
}

// blend mixes glyph over background by sample coverage; alpha is the
// background coverage so the rounded corners stay transparent.
func blend(bg, fg color.NRGBA, inBg, inFg, total int) color.NRGBA {
	if inBg == 0 {
		return color.NRGBA{}
	}
	f := float64(inFg) / float64(inBg)
	mix := func(a, b uint8) uint8 { return uint8(float64(a)*(1-f) + float64(b)*f + 0.5) }
	return color.NRGBA{R: mix(bg.R, fg.R), G: mix(bg.G, fg.G), B: mix(bg.B, fg.B), A: uint8(255 * inBg / total)}
}
