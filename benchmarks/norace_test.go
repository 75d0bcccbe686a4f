//go:build !race

package benchmarks_test

const raceEnabled = false
