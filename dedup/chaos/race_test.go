//go:build race

package chaos_test

import "time"

// ackP99Limit is looser under the race detector, which slows every
// replica several times over; the 250 ms target holds without it.
const ackP99Limit = time.Second
