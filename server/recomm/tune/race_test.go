//go:build race

package tune

const raceEnabled = true
