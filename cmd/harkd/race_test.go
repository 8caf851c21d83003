//go:build race

package main

// raceDetector is true in a -race build, whose shadow memory multiplies
// what the process holds.
const raceDetector = true
