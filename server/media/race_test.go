//go:build race

package media

// The race detector slows the synthesis about tenfold; under it the
// catalogue sweep renders one track per genre.
const raceEnabled = true
