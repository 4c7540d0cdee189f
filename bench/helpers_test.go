package bench

import (
	"context"
	"encoding/base64"
	"runtime"
	"testing"
)

var ctx = context.Background()

func basicAuth(user, pass string) string {
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+pass))
}

// measure runs call b.N times with allocations reported, after one call
// that must succeed (a benchmark of a failing call would measure nothing).
// It also reports retained-B/op: the live heap after the loop, minus before,
// per call, both after a GC. A per-call allocation that outlives its call
// (a cache or a log that grows with the number of calls) shows there; a
// value near 0 means none.
func measure(b *testing.B, call func() error) {
	b.Helper()
	if err := call(); err != nil {
		b.Fatalf("first call: %v", err)
	}
	b.ReportAllocs()
	before := liveHeap()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := call(); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	after := liveHeap()
	b.ReportMetric(float64(int64(after)-int64(before))/float64(b.N), "retained-B/op")
}

func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// perSecond reports b.N over the elapsed time in unit ("events/s", "req/s").
func perSecond(b *testing.B, unit string) {
	if s := b.Elapsed().Seconds(); s > 0 {
		b.ReportMetric(float64(b.N)/s, unit)
	}
}
