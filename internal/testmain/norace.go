//go:build !race || !unix

package testmain

// restarts: without the race detector (or where a process cannot exec)
// there is no pause to leave out.
const restarts = false

// restart is never called (restarts is false).
func restart() {}
