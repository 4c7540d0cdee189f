//go:build !linux

package bench

import "time"

// threadCPU is not available here: the interleaved benchmarks then report
// wall time only.
func threadCPU() (time.Duration, bool) { return 0, false }
