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
// alternates batches of the two calls in one loop (in both orders) and
// reports per call and side the wall time (sdk-ns/call, base-ns/call,
// ratio sdk/base) and, on Linux, the calling goroutine's CPU time
// (sdk-cpu-ns/call, base-cpu-ns/call, ratio sdk/base-cpu). On a shared
// machine these ratios are the ones to read: both sides see the same load,
// and CPU time does not count the time other processes hold the core. For
// a network call the CPU time is the client's work alone (the server, and
// the transport's connection goroutines, which both sides share, are not
// counted): the SDK's cost on top of the round trip.
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
	b.Run("interleaved", func(b *testing.B) { interleave(b, sdk, base) })
}

func interleave(b *testing.B, sdk, base func() error) {
	calls := [2]func() error{sdk, base}
	for _, call := range calls {
		if err := call(); err != nil {
			b.Fatal(err)
		}
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	_, cpuOK := threadCPU()
	const batch = 8
	var wall, cpu [2]time.Duration
	b.ResetTimer()
	for done, round := 0, 0; done < b.N; round++ {
		k := min(batch, b.N-done)
		for j := 0; j < 2; j++ {
			side := (j + round) % 2 // sdk first in even rounds, baseline first in odd ones
			w0 := time.Now()
			c0, _ := threadCPU()
			for i := 0; i < k; i++ {
				if err := calls[side](); err != nil {
					b.Fatal(err)
				}
			}
			c1, _ := threadCPU()
			wall[side] += time.Since(w0)
			cpu[side] += c1 - c0
		}
		done += k
	}
	b.StopTimer()
	n := float64(b.N)
	b.ReportMetric(float64(wall[0].Nanoseconds())/n, "sdk-ns/call")
	b.ReportMetric(float64(wall[1].Nanoseconds())/n, "base-ns/call")
	b.ReportMetric(float64(wall[0])/float64(wall[1]), "sdk/base")
	if cpuOK && cpu[1] > 0 {
		b.ReportMetric(float64(cpu[0].Nanoseconds())/n, "sdk-cpu-ns/call")
		b.ReportMetric(float64(cpu[1].Nanoseconds())/n, "base-cpu-ns/call")
		b.ReportMetric(float64(cpu[0])/float64(cpu[1]), "sdk/base-cpu")
	}
}
