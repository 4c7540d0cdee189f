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
// in its main test file, or calls NoExitPause first in a TestMain of its
// own (TestEveryTestPackageHasTestMain checks it).
package testmain

import (
	"os"
	"strings"
	"testing"
)

// Run runs the package's tests (after NoExitPause) and exits with their
// code.
func Run(m *testing.M) {
	NoExitPause()
	os.Exit(m.Run())
}

// NoExitPause starts the running test binary again with atexit_sleep_ms=0
// in GORACE, under the race detector and unless GORACE names
// atexit_sleep_ms already; otherwise, or when the binary cannot be started
// again (it then runs with the pause), it returns.
func NoExitPause() {
	if restarts && !strings.Contains(os.Getenv("GORACE"), "atexit_sleep_ms") {
		restart()
	}
}
