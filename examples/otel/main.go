// Command otel traces the SDK's HTTP attempts with OpenTelemetry: it wraps
// the SDK's transport with otelhttp through bankpay.WithTransport (the SDK's
// timeout, redirect rule and connection pool stay), makes a read that the
// sandbox responds with 503 once, and prints one span per attempt, the retry
// included. It is its own module, so the SDK's go.mod gains nothing.
//
//	go run .   (from examples/otel)
package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"sync/atomic"

	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	bankpay "github.com/bankpay/bankpay-go"
	"github.com/bankpay/bankpay-go/bankpaytest"
)

func main() {
	spans, err := run(context.Background())
	if err != nil {
		fmt.Fprintln(os.Stderr, "otel:", err)
		os.Exit(1)
	}
	for _, s := range spans {
		fmt.Printf("span %q status %s\n", s.Name, s.Status.Code)
	}
	fmt.Printf("otel: OK (%d spans)\n", len(spans))
}

// run makes one traced read against the embedded sandbox, whose first
// attempt is responded to with 503, and returns the spans recorded.
func run(ctx context.Context) ([]tracetest.SpanStub, error) {
	exporter := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exporter))
	defer func() { _ = tp.Shutdown(ctx) }()

	srv := bankpaytest.NewServer()
	defer srv.Close()
	c, err := bankpay.NewClient(srv.Credentials(), bankpay.WithBaseURL(srv.URL),
		bankpay.WithRetryBackoff(0, 0),
		bankpay.WithTransport(func(next http.RoundTripper) http.RoundTripper {
			return otelhttp.NewTransport(unavailableOnce(next), otelhttp.WithTracerProvider(tp))
		}))
	if err != nil {
		return nil, err
	}
	// A write (one attempt), then a read that the 503 makes the SDK retry:
	// the sandbox does not know the id, so the read ends in a 404.
	if _, err := c.Accounts.Tokenize(ctx, &bankpay.TokenizeParams{
		AccountNumber: bankpaytest.AccountVerified, RoutingNumber: bankpaytest.SandboxRoutingNumber}); err != nil {
		return nil, err
	}
	if _, err := c.Transactions.Get(ctx, "100000000000001"); !isNotFound(err) {
		return nil, fmt.Errorf("read: want a 404 after the retry, got %v", err)
	}
	return exporter.GetSpans(), nil
}

func isNotFound(err error) bool {
	var ae *bankpay.APIError
	return errors.As(err, &ae) && ae.StatusCode == http.StatusNotFound
}

// unavailableOnce responses the first GET with 503 without sending it, as a
// busy load balancer would.
func unavailableOnce(next http.RoundTripper) http.RoundTripper {
	var done atomic.Bool
	return roundTripper(func(r *http.Request) (*http.Response, error) {
		if r.Method == http.MethodGet && done.CompareAndSwap(false, true) {
			return &http.Response{StatusCode: http.StatusServiceUnavailable, Header: http.Header{},
				Body: http.NoBody, Request: r, ProtoMajor: 1, ProtoMinor: 1}, nil
		}
		return next.RoundTrip(r)
	})
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
