package bench

import (
	"context"
	"encoding/base64"
	"runtime"
	"testing"
	"time"
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

// pair benchmarks an SDK call and its hand-written baseline three ways:
// "sdk" and "baseline" alone (ns/op, B/op, allocs/op, and rate when not
// empty: calls per second in that unit), and "interleaved", which
// alternates the two calls in one loop (in both orders) and reports each
// side's time per call and sdk/base, their ratio. On a shared machine the
// interleaved ratio is the one to read: both sides see the same load.
func pair(b *testing.B, rate string, sdk, base func() error) {
	b.Run("sdk", func(b *testing.B) {
		measure(b, sdk)
		if rate != "" {
			perSecond(b, rate)
		}
	})
	b.Run("baseline", func(b *testing.B) {
		measure(b, base)
		if rate != "" {
			perSecond(b, rate)
		}
	})
	b.Run("interleaved", func(b *testing.B) {
		if err := sdk(); err != nil {
			b.Fatal(err)
		}
		if err := base(); err != nil {
			b.Fatal(err)
		}
		var tSDK, tBase time.Duration
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			first, second, tFirst, tSecond := sdk, base, &tSDK, &tBase
			if i%2 == 1 {
				first, second, tFirst, tSecond = base, sdk, &tBase, &tSDK
			}
			t0 := time.Now()
			err1 := first()
			t1 := time.Now()
			err2 := second()
			t2 := time.Now()
			if err1 != nil || err2 != nil {
				b.Fatal(err1, err2)
			}
			*tFirst += t1.Sub(t0)
			*tSecond += t2.Sub(t1)
		}
		b.StopTimer()
		b.ReportMetric(float64(tSDK.Nanoseconds())/float64(b.N), "sdk-ns/call")
		b.ReportMetric(float64(tBase.Nanoseconds())/float64(b.N), "base-ns/call")
		b.ReportMetric(float64(tSDK)/float64(tBase), "sdk/base")
	})
}
