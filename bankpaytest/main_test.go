package bankpaytest

import (
	"os"
	"testing"
	"time"

	"github.com/bankpay/bankpay-go/internal/faultinject"

	"github.com/bankpay/bankpay-go/internal/testmain"
)

// TestMain runs the sandbox's tests and then fails the run if any goroutine
// they started (the event deliverer, a delivery's connection, a server
// handler) is still running after a short grace period. Set
// BANKPAY_LEAKCHECK_VERBOSE=1 to print the goroutine counts.
func TestMain(m *testing.M) {
	testmain.NoExitPause()
	os.Exit(faultinject.VerifyTestMain(m, 5*time.Second))
}

// WithWallClockTick makes a WithWallClock clock catch up with the real time
// every d instead of every WallClockTick, for the package's tests
// (clock_test.go): they follow the real time without waiting whole ticks.
// It exists in the test binary only; cmd/bankpay-sandbox's
// TestDefaultFlagsEventsAccepted checks the default tick.
func WithWallClockTick(d time.Duration) Option {
	return func(c *config) { c.tick = d }
}
