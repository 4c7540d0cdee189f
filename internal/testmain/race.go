//go:build race && unix

package testmain

import (
	"os"
	"slices"
	"strings"
	"syscall"
)

// NoExitPause starts the running test binary again with atexit_sleep_ms=0
// in GORACE, unless GORACE names atexit_sleep_ms already (then it returns).
// It returns too when the binary cannot be started again, which then runs
// with the pause.
func NoExitPause() {
	gorace := os.Getenv("GORACE")
	if strings.Contains(gorace, "atexit_sleep_ms") {
		return
	}
	exe, err := os.Executable()
	if err != nil {
		return
	}
	// The environment without its GORACE: a process reads the first of two.
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, "GORACE=") })
	env = append(env, "GORACE="+strings.TrimSpace(gorace+" atexit_sleep_ms=0"))
	_ = syscall.Exec(exe, os.Args, env) // returns only on failure
}
