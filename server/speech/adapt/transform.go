package adapt

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Transform is an MLLR mean transform in the text format of mllr_solve
// and pocketsphinx's ps_mllr_read: one class, and per feature stream a
// matrix A, an offset b and a variance scale h, so that each Gaussian's
// mean μ becomes Aμ + b.
type Transform struct {
	Streams []Stream
}

// Stream is one feature stream's part of a transform.
type Stream struct {
	A    [][]float64 // len(B) rows of len(B)
	B, H []float64
}

// maxDim bounds a stream's length when parsing: the English model's are 13.
const maxDim = 64

// ParseTransform reads a transform file's text, refusing anything
// pocketsphinx could misread: more than one class, a ragged matrix, a
// number that is not finite.
func ParseTransform(text string) (Transform, error) {
	fields := strings.Fields(text)
	pos := 0
	next := func() (float64, error) {
		if pos >= len(fields) {
			return 0, fmt.Errorf("adapt: the transform ends early")
		}
		v, err := strconv.ParseFloat(fields[pos], 64)
		pos++
		if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
			return 0, fmt.Errorf("adapt: %q in a transform is not a finite number", fields[pos-1])
		}
		return v, nil
	}
	count := func(what string, limit int) (int, error) {
		v, err := next()
		if err != nil {
			return 0, err
		}
		if v != math.Trunc(v) || v < 1 || v > float64(limit) {
			return 0, fmt.Errorf("adapt: a transform's %s must be 1 to %d, not %v", what, limit, v)
		}
		return int(v), nil
	}
	// pocketsphinx applies the first class to every Gaussian.
	if _, err := count("class count", 1); err != nil {
		return Transform{}, err
	}
	n, err := count("stream count", 8)
	if err != nil {
		return Transform{}, err
	}
	var t Transform
	for range n {
		dim, err := count("stream length", maxDim)
		if err != nil {
			return Transform{}, err
		}
		s := Stream{A: make([][]float64, dim), B: make([]float64, dim), H: make([]float64, dim)}
		for i := range s.A {
			s.A[i] = make([]float64, dim)
			if err := fill(s.A[i], next); err != nil {
				return Transform{}, err
			}
		}
		if err := fill(s.B, next); err != nil {
			return Transform{}, err
		}
		if err := fill(s.H, next); err != nil {
			return Transform{}, err
		}
		t.Streams = append(t.Streams, s)
	}
	if pos != len(fields) {
		return Transform{}, fmt.Errorf("adapt: %d values after the transform's end", len(fields)-pos)
	}
	return t, nil
}

func fill(dst []float64, next func() (float64, error)) error {
	for i := range dst {
		v, err := next()
		if err != nil {
			return err
		}
		dst[i] = v
	}
	return nil
}

// Identity is the transform that leaves the means of a model with the
// given stream lengths as they are.
func Identity(dims ...int) Transform {
	var t Transform
	for _, d := range dims {
		s := Stream{A: make([][]float64, d), B: make([]float64, d), H: make([]float64, d)}
		for i := range s.A {
			s.A[i] = make([]float64, d)
			s.A[i][i] = 1
			s.H[i] = 1
		}
		t.Streams = append(t.Streams, s)
	}
	return t
}

// identity is the identity of t's shape.
func (t Transform) identity() Transform {
	dims := make([]int, len(t.Streams))
	for i, s := range t.Streams {
		dims[i] = len(s.B)
	}
	return Identity(dims...)
}

// String is the transform in the file format, the same text for the same
// transform.
func (t Transform) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "1\n%d\n", len(t.Streams))
	row := func(v []float64) {
		for i, x := range v {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(strconv.FormatFloat(x, 'g', -1, 64))
		}
		b.WriteByte('\n')
	}
	for _, s := range t.Streams {
		fmt.Fprintf(&b, "%d\n", len(s.B))
		for _, r := range s.A {
			row(r)
		}
		row(s.B)
		row(s.H)
	}
	return b.String()
}

// ID names the transform by its text, so a decoder can tell whether the
// one it holds is the one asked for.
func (t Transform) ID() string {
	h := sha256.Sum256([]byte(t.String()))
	return hex.EncodeToString(h[:8])
}
