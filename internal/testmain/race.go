//go:build race && unix

package testmain

import (
	"os"
	"slices"
	"strings"
	"syscall"
)

// restarts: under the race detector, on a system that can exec, there is a
// pause to leave out.
const restarts = true

// restart starts the running test binary again, in place, with
// atexit_sleep_ms=0 added to GORACE; it returns only when it cannot.
func restart() {
	gorace := os.Getenv("GORACE")
	exe, err := os.Executable()
	if err != nil {
		return
	}
	// The environment without its GORACE: a process reads the first of two.
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, "GORACE=") })
	env = append(env, "GORACE="+strings.TrimSpace(gorace+" atexit_sleep_ms=0"))
	_ = syscall.Exec(exe, os.Args, env)
}
