// Package testmain is the TestMain of the core module's test packages. A
// program built with -race sleeps a second when it exits (GORACE's
// atexit_sleep_ms, 1000 by default), and go test waits for it in each test
// binary: a second of every package's turn on the README's
// `go test -race ./...`. Run starts the test binary again, in place
// (exec, same process), with atexit_sleep_ms=0 added to GORACE, unless
// GORACE already sets it: the race detector is otherwise unchanged (its
// reports, its final check and its exit code), as when the command is run
// as `GORACE=atexit_sleep_ms=0 go test -race ./...`.
//
// Every test package of the module has
//
//	func TestMain(m *testing.M) { testmain.Run(m) }
//
// or calls NoExitPause first in a TestMain of its own
// (TestEveryTestPackageHasTestMain checks it).
package testmain

import (
	"os"
	"testing"
)

// Run runs the package's tests (after NoExitPause) and exits with their
// code.
func Run(m *testing.M) {
	NoExitPause()
	os.Exit(m.Run())
}
