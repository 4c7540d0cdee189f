//go:build !race

package examples_test

// raceEnabled builds the examples with the race detector when the tests run
// with it.
const raceEnabled = false
