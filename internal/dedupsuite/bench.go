package dedupsuite

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	bankpay "github.com/bankpay/bankpay-go"
)

// Memory is the memory deduplicator as a Store: one instance that every
// "replica" of a test shares, as goroutines of one process would.
var Memory = Store{
	Name: "memory",
	Open: func(testing.TB) func(Config) bankpay.Deduplicator {
		d := bankpay.NewMemoryDeduplicator(0)
		return func(Config) bankpay.Deduplicator { return d }
	},
}

// parallelism is the benchmark's goroutines per GOMAXPROCS: a store's round
// trips wait on the network, as concurrent deliveries would.
const parallelism = 8

// Bench measures verified events/s through one webhook handler with each
// store's Deduplicator, in one run. Every event is new (its own eventId,
// signed before the timer starts), so each is verified, claimed, handed to
// a callback that does nothing and completed: the handler's cost plus the
// store's two round trips. Events are served by b.RunParallel with
// parallelism goroutines per GOMAXPROCS, straight to ServeHTTP (no HTTP
// connection), and reported as events/s.
func Bench(b *testing.B, stores ...Store) {
	for _, s := range stores {
		b.Run(s.Name, func(b *testing.B) {
			d := s.Open(b)(longConfig)
			h := bankpay.NewWebhookHandler(creds, func(context.Context, *bankpay.Event) error { return nil },
				bankpay.WithDeduplicator(d))
			prefix := unique("ev-bench")
			type note struct{ body, auth string }
			notes := make([]note, b.N)
			for i := range notes {
				notes[i].body, notes[i].auth = notification(b, prefix+"-"+strconv.Itoa(i))
			}
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
					n := notes[next.Add(1)-1]
					body.Reset(n.body)
					r.Body, r.ContentLength = io.NopCloser(body), int64(len(n.body))
					r.Header.Set("Authorization", n.auth)
					w.status = 0
					h.ServeHTTP(w, r)
					if w.status != http.StatusOK {
						b.Errorf("status %d", w.status)
						return
					}
				}
			})
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "events/s")
		})
	}
}

// recorder is a ResponseWriter that keeps the status only.
type recorder struct {
	header http.Header
	status int
}

func (r *recorder) Header() http.Header         { return r.header }
func (r *recorder) Write(p []byte) (int, error) { return len(p), nil }
func (r *recorder) WriteHeader(status int)      { r.status = status }
