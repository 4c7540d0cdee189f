//go:build !race

package readme

// raceEnabled runs the snippets with the race detector when the tests run
// with it: the packages they import are then already built, with the same
// flags, in the build cache.
const raceEnabled = false
