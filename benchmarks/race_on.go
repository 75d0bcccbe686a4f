//go:build race

package benchmarks

// raceEnabled: this binary runs under the race detector.
const raceEnabled = true
