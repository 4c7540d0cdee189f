package bankpay

import (
	"math/rand/v2"
	"time"
)

// jitteredBackoff is "equal jitter" exponential backoff: the n-th retry
// (from 0) waits between half and all of min·2ⁿ, capped at max.
func jitteredBackoff(minWait, maxWait time.Duration, n int) time.Duration {
	d := backoffCeiling(minWait, maxWait, n)
	if d <= 0 {
		return 0
	}
	half := d / 2
	if half <= 0 {
		return d
	}
	return half + rand.N(d-half+1)
}

// backoffCeiling is the longest wait of the n-th retry (from 0): min·2ⁿ,
// capped at max.
func backoffCeiling(minWait, maxWait time.Duration, n int) time.Duration {
	if maxWait <= 0 {
		return 0
	}
	d := minWait
	for i := 0; i < n && d < maxWait; i++ {
		d *= 2
	}
	if d > maxWait || d <= 0 {
		d = maxWait
	}
	return d
}
