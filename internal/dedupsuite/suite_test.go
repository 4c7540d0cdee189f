package dedupsuite

import (
	"testing"

	"github.com/bankpay/bankpay-go/internal/testmain"
)

// TestMain runs the package's tests without the race detector's exit pause
// (package testmain).
func TestMain(m *testing.M) { testmain.Run(m) }

// The suite against the memory deduplicator: the tests of shared stores'
// properties (expiry, per-replica release) skip.
func TestMemory(t *testing.T) { Run(t, Memory) }

func BenchmarkMemory(b *testing.B) { Bench(b, Memory) }
