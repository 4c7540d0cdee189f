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

// side is one client of a benchmarked pair: its name ("sdk", "baseline",
// "ogen") and one call.
type side struct {
	name string
	call func() error
}

// short is the side's name in the interleaved metrics.
func (s side) short() string {
	if s.name == "baseline" {
		return "base"
	}
	return s.name
}

// pair benchmarks an SDK call and its hand-written baseline: compare with
// these two sides.
func pair(b *testing.B, rate string, sdk, base func() error) {
	compare(b, rate, []side{{"sdk", sdk}, {"baseline", base}})
}

// compare benchmarks the sides of a call (the SDK first) each alone
// (ns/op, B/op, allocs/op, and rate when not empty: calls per second in
// that unit), and "interleaved", which alternates batches of their calls in
// one loop (in every order) and reports per call and side the wall time
// (sdk-ns/call, base-ns/call, ogen-ns/call, and the ratios sdk/base,
// sdk/ogen) and, on Linux, the calling goroutine's CPU time
// (sdk-cpu-ns/call…, ratios sdk/base-cpu, sdk/ogen-cpu). On a shared
// machine these ratios are the ones to read: every side sees the same load,
// and CPU time does not count the time other processes hold the core. For
// a network call the CPU time is the client's work alone (the server, and
// the transport's connection goroutines, which all sides share, are not
// counted): the client's cost on top of the round trip.
func compare(b *testing.B, rate string, sides []side) {
	for _, s := range sides {
		b.Run(s.name, func(b *testing.B) {
			measure(b, s.call)
			if rate != "" {
				perSecond(b, rate)
			}
		})
	}
	b.Run("interleaved", func(b *testing.B) { interleave(b, sides) })
}

func interleave(b *testing.B, sides []side) {
	for _, s := range sides {
		if err := s.call(); err != nil {
			b.Fatal(err)
		}
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	_, cpuOK := threadCPU()
	const batch = 8
	n := len(sides)
	wall, cpu := make([]time.Duration, n), make([]time.Duration, n)
	b.ResetTimer()
	for done, round := 0, 0; done < b.N; round++ {
		k := min(batch, b.N-done)
		for j := 0; j < n; j++ {
			i := (j + round) % n // each side leads in turn
			w0 := time.Now()
			c0, _ := threadCPU()
			for range k {
				if err := sides[i].call(); err != nil {
					b.Fatal(err)
				}
			}
			c1, _ := threadCPU()
			wall[i] += time.Since(w0)
			cpu[i] += c1 - c0
		}
		done += k
	}
	b.StopTimer()
	calls := float64(b.N)
	for i, s := range sides {
		b.ReportMetric(float64(wall[i].Nanoseconds())/calls, s.short()+"-ns/call")
		if cpuOK {
			b.ReportMetric(float64(cpu[i].Nanoseconds())/calls, s.short()+"-cpu-ns/call")
		}
	}
	for i, s := range sides[1:] {
		b.ReportMetric(float64(wall[0])/float64(wall[i+1]), "sdk/"+s.short())
		if cpuOK && cpu[i+1] > 0 {
			b.ReportMetric(float64(cpu[0])/float64(cpu[i+1]), "sdk/"+s.short()+"-cpu")
		}
	}
}
