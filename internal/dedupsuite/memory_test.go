package dedupsuite

import "testing"

// The suite against the memory deduplicator: the tests of shared stores'
// properties (expiry, per-replica release) skip.
func TestMemory(t *testing.T) { Run(t, Memory) }

func BenchmarkMemory(b *testing.B) { Bench(b, Memory) }
