package dedupsuite

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	bankpay "github.com/bankpay/bankpay-go"
	"github.com/bankpay/bankpay-go/internal/memdedup"
)

// Memory is the memory deduplicator (the webhook handler's default, when
// it is given no WithDeduplicator) as a Store: one instance that every
// "replica" of a test shares, as goroutines of one process would.
var Memory = Store{
	Name: "memory",
	Open: func(testing.TB) func(Config) bankpay.Deduplicator {
		d := memdedup.New[bankpay.ClaimState](0)
		return func(Config) bankpay.Deduplicator { return d }
	},
}

// parallelism is the benchmark's goroutines per GOMAXPROCS: a store's round
// trips wait on the network, as concurrent deliveries would.
const parallelism = 8

// Target is a notification endpoint under benchmark.
type Target struct {
	// Name names it in the benchmark.
	Name string
	// Open returns the endpoint for one benchmark (stopped with
	// tb.Cleanup): a webhook handler with creds (see Notification's
	// callers), acknowledging each new event with 200.
	Open func(tb testing.TB) http.Handler
}

// StoreTarget is a webhook handler whose callback does nothing, with a
// Deduplicator of s.
func StoreTarget(s Store) Target {
	return Target{Name: s.Name, Open: func(tb testing.TB) http.Handler {
		return bankpay.NewWebhookHandler(creds, func(context.Context, *bankpay.Event) error { return nil },
			bankpay.WithDeduplicator(s.Open(tb)(longConfig)))
	}}
}

// Creds are the merchant's credentials of the suite's notifications, for
// the handler of a Target.
func Creds() bankpay.Credentials { return creds }

// Bench is BenchTargets of each store's StoreTarget.
func Bench(b *testing.B, stores ...Store) {
	targets := make([]Target, len(stores))
	for i, s := range stores {
		targets[i] = StoreTarget(s)
	}
	BenchTargets(b, targets...)
}

// BenchTargets measures each target in one run: events/s and the
// acknowledgement latency (p50, p99, reported as b.ReportMetric). Every
// event is new (its own eventId, signed before the timer starts), so each
// is verified, handed on (claimed, a callback that does nothing, completed;
// or queued) and acknowledged. Events are served by b.RunParallel with
// parallelism goroutines per GOMAXPROCS, straight to ServeHTTP (no HTTP
// connection).
func BenchTargets(b *testing.B, targets ...Target) {
	for _, tg := range targets {
		b.Run(tg.Name, func(b *testing.B) {
			h := tg.Open(b)
			prefix := unique("ev-bench")
			type note struct{ body, auth string }
			notes := make([]note, b.N)
			for i := range notes {
				notes[i].body, notes[i].auth = notification(b, prefix+"-"+strconv.Itoa(i))
			}
			latencies := make([]time.Duration, b.N)
			var next atomic.Int64
			b.SetParallelism(parallelism)
			b.ReportAllocs()
			b.ResetTimer()
			start := time.Now()
			b.RunParallel(func(pb *testing.PB) {
				w := &recorder{header: http.Header{}}
				body := new(strings.Reader)
				r := httptest.NewRequest(http.MethodPost, "/bankpay/events", nil)
				r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
				for pb.Next() {
					i := next.Add(1) - 1
					n := notes[i]
					body.Reset(n.body)
					r.Body, r.ContentLength = io.NopCloser(body), int64(len(n.body))
					r.Header.Set("Authorization", n.auth)
					w.status = 0
					t0 := time.Now()
					h.ServeHTTP(w, r)
					latencies[i] = time.Since(t0)
					if w.status != http.StatusOK {
						b.Errorf("status %d", w.status)
						return
					}
				}
			})
			elapsed := time.Since(start)
			b.StopTimer()
			b.ReportMetric(float64(b.N)/elapsed.Seconds(), "events/s")
			p50, p99 := Percentiles(latencies)
			b.ReportMetric(float64(p50.Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(p99.Microseconds())/1000, "p99-ms")
		})
	}
}

// Percentiles returns the 50th and 99th percentiles of ds (sorted in
// place).
func Percentiles(ds []time.Duration) (p50, p99 time.Duration) {
	if len(ds) == 0 {
		return 0, 0
	}
	slices.Sort(ds)
	return ds[len(ds)/2], ds[min(len(ds)-1, len(ds)*99/100)]
}

// recorder is a ResponseWriter that keeps the status only.
type recorder struct {
	header http.Header
	status int
}

func (r *recorder) Header() http.Header         { return r.header }
func (r *recorder) Write(p []byte) (int, error) { return len(p), nil }
func (r *recorder) WriteHeader(status int)      { r.status = status }
