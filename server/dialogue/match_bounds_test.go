//go:build !race

package dialogue

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// This file is left out of race-detector builds: reading some 5,000
// queries twice took 55 s there (about 8 s without), and it checks
// readings, not concurrency (TestConcurrentAnswers does that under the
// race detector). make test runs it in the package's pass on PostgreSQL,
// which is built without the race detector.

// The bounds that cut patterns early (a pattern without an open slot
// must skip what its steps cannot read; an alignment gives up once its
// cheapest position is dearer than the best reading) change no reading:
// every query of the NLU and development sets, and long run-ons made of
// them, read the same with and without them.
func TestMatcherBoundsChangeNoReading(t *testing.T) {
	e, _ := benchEngine()
	for _, lang := range languages {
		m := e.models[lang]
		var qs []string
		files, _ := filepath.Glob("testdata/nlu_" + lang + ".jsonl")
		devs, _ := filepath.Glob("testdata/blind/dev*_" + lang + ".jsonl")
		for _, f := range append(files, devs...) {
			for _, c := range loadNLU(t, f) {
				if c.Q != "" {
					qs = append(qs, c.Q)
				}
				for _, turn := range c.Turns {
					qs = append(qs, turn.Q)
				}
			}
		}
		if len(qs) < 100 {
			t.Fatalf("%s: only %d queries to compare", lang, len(qs))
		}
		single := len(qs)
		for i := 0; i+8 < single; i += 5 {
			qs = append(qs, qs[i]+" "+qs[i+1], strings.Join(qs[i:i+8], " and "), strings.Join(qs[i:i+8], ", "))
		}
		qs = append(qs, longestQuery())
		for _, q := range qs {
			_, _, b, x, bok, xok := readBoth(m, q)
			if bok != xok || !reflect.DeepEqual(b, x) {
				t.Errorf("%s %q: bounded %v %+v, exhaustive %v %+v", lang, q, bok, b, xok, x)
			}
		}
	}
}
