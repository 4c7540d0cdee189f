package bankpay

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// One Client shared by many goroutines, the request's context being its
// Call: each call gets its own answer, a call canceled during the retry
// layer's backoff ends with context.Canceled at once (the backoff is a
// minute), one whose WithTimeout ends while the server holds the answer
// ends with a deadline error, and a handed-back response keeps nothing of
// the call's context.
func TestSharedClientCallsAsContexts(t *testing.T) {
	busy := make(chan struct{}, 64)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.URL.Path[strings.LastIndexByte(r.URL.Path, '/')+1:]
		switch {
		case strings.HasPrefix(id, "busy"):
			w.WriteHeader(http.StatusServiceUnavailable)
			busy <- struct{}{}
		case strings.HasPrefix(id, "slow"):
			<-r.Context().Done()
		default:
			_, _ = io.WriteString(w, aboutID(faultTxn, id))
		}
	}))
	t.Cleanup(srv.Close)
	c, err := NewClient(Credentials{AccessID: "id", AccessKey: NewSecret("key0123456789abcdef"), MerchantID: "m"},
		WithBaseURL(srv.URL), WithRetryBackoff(time.Minute, time.Minute), WithMaxRetries(2))
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })

	var wg sync.WaitGroup
	for g := 0; g < 16; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 10; i++ {
				id := fmt.Sprintf("T%d-%d", g, i)
				var resp *http.Response
				tx, err := c.Transactions.Get(context.Background(), id, WithResponseInto(&resp))
				if assert.NoError(t, err) {
					assert.Equal(t, id, tx.TransactionID)
					assert.Equal(t, context.Background(), resp.Request.Context())
				}
			}
			_, err := c.Transactions.Get(context.Background(), fmt.Sprintf("slow%d", g), WithTimeout(20*time.Millisecond))
			assert.ErrorIs(t, err, context.DeadlineExceeded)
		}()
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { _, err := c.Transactions.Get(ctx, "busy1"); done <- err }()
	<-busy
	cancel() // during the minute's backoff
	select {
	case err := <-done:
		assert.ErrorIs(t, err, context.Canceled)
	case <-time.After(10 * time.Second):
		t.Fatal("the canceled call still waits its backoff")
	}
	wg.Wait()
}

// A middleware that logs its request's context (fmt, slog's text and JSON
// handlers) logs no account number of a tokenize call, nor its Idempotency
// or WithHeader values: the request's context is the SDK's call.
func TestMiddlewareLoggingTheContextLogsNoAccountNumber(t *testing.T) {
	mock := httpmock.NewMockTransport()
	mock.RegisterResponder(http.MethodPost, testBaseURL+"/accounts/tokenize", httpmock.NewStringResponder(401, `{}`))
	var logged bytes.Buffer
	var mu sync.Mutex
	wrap := func(next http.RoundTripper) http.RoundTripper {
		return roundTripperFunc(func(r *http.Request) (*http.Response, error) {
			mu.Lock()
			fmt.Fprintf(&logged, "%s %v %+v %#v\n", r.Context(), r.Context(), r.Context(), r.Context())
			slog.New(slog.NewJSONHandler(&logged, nil)).Info("send", "ctx", r.Context())
			slog.New(slog.NewTextHandler(&logged, nil)).Info("send", "ctx", r.Context())
			mu.Unlock()
			return next.RoundTrip(r)
		})
	}
	c, err := NewClient(testCreds, WithBaseURL(testBaseURL), WithHTTPClient(&http.Client{Transport: mock}),
		WithTransport(wrap), WithHeader("X-Partner-Token", "tok-7e3b"))
	require.NoError(t, err)
	_, err = c.Accounts.Tokenize(context.Background(), &TokenizeParams{AccountNumber: "1003750000", RoutingNumber: "124003116"})
	require.Error(t, err)
	mu.Lock()
	defer mu.Unlock()
	require.NotEmpty(t, logged.String())
	for _, secret := range []string{"1003750000", "124003116", "tok-7e3b", base64.StdEncoding.EncodeToString([]byte("1003750000"))[:8]} {
		assert.NotContains(t, logged.String(), secret)
	}
	assert.NotContains(t, logged.String(), `"Body"`)
}
