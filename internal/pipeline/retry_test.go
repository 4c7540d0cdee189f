package pipeline

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestJitteredBackoffBounds(t *testing.T) {
	for n := 0; n < 12; n++ {
		for i := 0; i < 50; i++ {
			d := JitteredBackoff(100*time.Millisecond, 2*time.Second, n)
			hi := 100 * time.Millisecond << n
			if hi > 2*time.Second {
				hi = 2 * time.Second
			}
			require.GreaterOrEqual(t, d, hi/2, "n=%d: %v not in [%v, %v]", n, d, hi/2, hi)
			require.LessOrEqual(t, d, hi, "n=%d: %v not in [%v, %v]", n, d, hi/2, hi)
		}
	}
	assert.Equal(t, time.Duration(0), JitteredBackoff(0, 0, 3), "zero bounds must not wait")
}
