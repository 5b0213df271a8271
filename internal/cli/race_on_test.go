//go:build race

package cli

// raceDetector: the race detector's shadow memory several times a process's own.
const raceDetector = true
