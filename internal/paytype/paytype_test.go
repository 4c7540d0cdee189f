package paytype

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/bankpay/bankpay-go/internal/testmain"
)

// TestMain runs the package's tests without the race detector's exit pause
// (package testmain).
func TestMain(m *testing.M) { testmain.Run(m) }

func TestName(t *testing.T) {
	for code, want := range map[int]string{1: "Instant", 2: "Deferred", 3: "Recurring", 4: "Disbursement", 5: "Verification",
		6: "Retrieval", 0: "", 7: "", -1: ""} {
		assert.Equal(t, want, Name(code), "code %d", code)
	}
}

func TestParse(t *testing.T) {
	for name, want := range map[string]int{"Deferred": 2, "deferred": 2, "RETRIEVAL": 6, "Instant": 1} {
		code, ok := Parse(name)
		assert.True(t, ok, name)
		assert.Equal(t, want, code, name)
	}
	for _, name := range []string{"", "2", "Deferred ", "PaymentType(2)"} {
		_, ok := Parse(name)
		assert.False(t, ok, "%q", name)
	}
}
