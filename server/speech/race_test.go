//go:build race

package speech

const raceEnabled = true
