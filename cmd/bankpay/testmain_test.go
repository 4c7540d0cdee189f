package main

import (
	"testing"

	"github.com/bankpay/bankpay-go/internal/testmain"
)

// TestMain runs the tests without the race detector's exit pause (package
// testmain).
func TestMain(m *testing.M) { testmain.Run(m) }
