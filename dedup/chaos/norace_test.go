//go:build !race

package chaos_test

import "time"

// ackP99Limit is the acknowledgement p99 the inbox must stay under.
const ackP99Limit = 250 * time.Millisecond
