package faultinject

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"time"
)

// Leaked returns the stacks of the goroutines that are neither part of the
// runtime or the testing framework nor the caller. It polls for up to wait
// for them to end (connections closing, handlers returning) and returns
// what is still running then; nil means no leak.
func Leaked(wait time.Duration) []string {
	deadline := time.Now().Add(wait)
	for {
		g := foreignGoroutines()
		if len(g) == 0 || !time.Now().Before(deadline) {
			return g
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// ignoredFrames mark goroutines that belong to the runtime, the testing
// framework or the process, not to the code under test.
var ignoredFrames = []string{
	"faultinject.foreignGoroutines", // the caller
	"testing.(*M).",
	"testing.RunTests",
	"testing.runFuzzTests",
	"testing.runFuzzing",
	"testing.(*F).",
	"testing.fRunner",
	"os/signal.signal_recv",
	"os/signal.loop",
	"runtime.ensureSigM",
	"runtime.ReadTrace",
	"runtime/trace.Start",
	"main.main()",
}

func foreignGoroutines() []string {
	buf := make([]byte, 64<<10)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	var out []string
	for _, g := range strings.Split(string(buf), "\n\n") {
		g = strings.TrimSpace(g)
		if g == "" || ignored(g) {
			continue
		}
		out = append(out, g)
	}
	return out
}

func ignored(stack string) bool {
	for _, f := range ignoredFrames {
		if strings.Contains(stack, f) {
			return true
		}
	}
	return false
}

// M is what VerifyTestMain needs of *testing.M.
type M interface{ Run() int }

// VerifyTestMain runs the tests of m and then fails the test binary if a
// goroutine started by the tests is still running after a grace period of
// wait: call it as os.Exit(faultinject.VerifyTestMain(m, 5*time.Second))
// from TestMain. With BANKPAY_LEAKCHECK_VERBOSE=1 in the environment it
// prints the goroutine counts before and after.
func VerifyTestMain(m M, wait time.Duration) int {
	before := runtime.NumGoroutine()
	code := m.Run()
	ended := runtime.NumGoroutine()
	leaked := Leaked(wait)
	if os.Getenv("BANKPAY_LEAKCHECK_VERBOSE") != "" {
		fmt.Fprintf(os.Stderr, "leakcheck: goroutines before the tests %d, when they ended %d, after the grace period %d, leaked %d\n",
			before, ended, runtime.NumGoroutine(), len(leaked))
	}
	if len(leaked) == 0 {
		return code
	}
	fmt.Fprintf(os.Stderr, "leakcheck: %d goroutine(s) outlived the tests:\n\n%s\n", len(leaked), strings.Join(leaked, "\n\n"))
	if code == 0 {
		code = 1
	}
	return code
}
