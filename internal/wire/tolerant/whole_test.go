package tolerant_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/bankpay/bankpay-go/internal/wire/tolerant"
)

func TestWholeOfDecimal(t *testing.T) {
	for in, want := range map[string]string{"2": "2", "2.0": "2", "2e1": "20", "-1.50e2": "-150", "0.0": "0",
		"-0": "0", "+5": "5", "007": "7", "0e-5": "0", "120e-1": "12", "9223372036854775807": "9223372036854775807"} {
		got, ok := tolerant.WholeNumber(in)
		assert.True(t, ok, in)
		assert.Equal(t, want, got, in)
	}
	for _, in := range []string{"2.5", "1e-1", "1e31", "1e999999999", "9223372036854775808", "0x10", "1/2", "abc", ".5", "5.", "--1", "1e", "1.e1"} {
		_, ok := tolerant.WholeNumber(in)
		assert.False(t, ok, in)
	}
}
