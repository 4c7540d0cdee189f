//go:build !race || !unix

package testmain

// NoExitPause does nothing: without the race detector (or where a process
// cannot exec) there is no pause to leave out.
func NoExitPause() {}
