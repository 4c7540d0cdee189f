package bankpay

import (
	"os"
	"testing"
	"time"

	"github.com/bankpay/bankpay-go/internal/faultinject"
)

// TestMain runs the package's tests and then fails the run if any goroutine
// they started (a connection's read or write loop, a server handler, a
// retry timer, a webhook worker) is still running after a short grace
// period. Set BANKPAY_LEAKCHECK_VERBOSE=1 to print the goroutine counts.
func TestMain(m *testing.M) {
	os.Exit(faultinject.VerifyTestMain(m, 5*time.Second))
}
