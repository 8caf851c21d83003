package engines

import (
	"errors"
	"math"
	"sync"
)

func dot(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

func dot32(a []float32, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += float64(a[i]) * b[i]
	}
	return s
}

// dotF32 is the float32 dot product used when ranking: factor vectors are stored as float32, and
// accumulating in float32 is precise enough to order candidates while avoiding conversions.
func dotF32(a, b []float32) float32 {
	var s0, s1, s2, s3 float32
	n := min(len(a), len(b))
	i := 0
	for ; i+4 <= n; i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < n; i++ {
		s0 += a[i] * b[i]
	}
	return (s0 + s1) + (s2 + s3)
}

func axpy(alpha float64, x, y []float64) {
	for i := range x {
		y[i] += alpha * x[i]
	}
}

func norm(a []float64) float64 { return math.Sqrt(dot(a, a)) }

// gram returns MᵀM (k×k, row-major) of an n×k row-major matrix, summed over workers.
func gram(m []float64, n, k, workers int) []float64 {
	parts := make([][]float64, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			g := make([]float64, k*k)
			for r := w; r < n; r += workers {
				row := m[r*k : (r+1)*k]
				for a := range k {
					ra := row[a]
					if ra == 0 {
						continue
					}
					ga := g[a*k : (a+1)*k]
					for b := a; b < k; b++ {
						ga[b] += ra * row[b]
					}
				}
			}
			parts[w] = g
		}()
	}
	wg.Wait()
	g := parts[0]
	for _, p := range parts[1:] {
		for i := range g {
			g[i] += p[i]
		}
	}
	for a := range k {
		for b := a + 1; b < k; b++ {
			g[b*k+a] = g[a*k+b]
		}
	}
	return g
}

var errNotPositiveDefinite = errors.New("engines: matrix not positive definite")

// cholesky factors the symmetric positive definite n×n matrix a in place (lower triangle).
func cholesky(a []float64, n int) error {
	for j := range n {
		d := a[j*n+j]
		for p := range j {
			d -= a[j*n+p] * a[j*n+p]
		}
		if d <= 0 || math.IsNaN(d) {
			return errNotPositiveDefinite
		}
		d = math.Sqrt(d)
		a[j*n+j] = d
		for i := j + 1; i < n; i++ {
			s := a[i*n+j]
			for p := range j {
				s -= a[i*n+p] * a[j*n+p]
			}
			a[i*n+j] = s / d
		}
	}
	return nil
}

// cholSolve solves L Lᵀ x = b in place, with L from cholesky.
func cholSolve(l []float64, n int, b []float64) {
	for i := range n {
		s := b[i]
		for p := range i {
			s -= l[i*n+p] * b[p]
		}
		b[i] = s / l[i*n+i]
	}
	for i := n - 1; i >= 0; i-- {
		s := b[i]
		for p := i + 1; p < n; p++ {
			s -= l[p*n+i] * b[p]
		}
		b[i] = s / l[i*n+i]
	}
}

// parallelRows runs fn over rows [0,n) split into contiguous chunks across workers; fn gets its
// worker number so it can use per-worker scratch space. It stops early when stop returns true.
func parallelRows(n, workers int, stop func() bool, fn func(worker, row int)) {
	var wg sync.WaitGroup
	chunk := (n + workers - 1) / workers
	for w := range workers {
		lo, hi := w*chunk, min(n, (w+1)*chunk)
		if lo >= hi {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := lo; r < hi; r++ {
				if r%256 == 0 && stop() {
					return
				}
				fn(w, r)
			}
		}()
	}
	wg.Wait()
}

// rowNorms returns the Euclidean norm of each k-wide row of x.
func rowNorms(x []float32, k int) []float64 {
	out := make([]float64, len(x)/k)
	for i := range out {
		s := 0.0
		for _, v := range x[i*k : (i+1)*k] {
			s += float64(v) * float64(v)
		}
		out[i] = math.Sqrt(s)
	}
	return out
}
