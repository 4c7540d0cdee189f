package bankpay

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bankpay/bankpay-go/internal/faultinject"
)

// newH2Client is a client with the SDK's default HTTP client (HTTP/2 over
// TLS, as against the real service), trusting s's certificate.
func newH2Client(t *testing.T, s *faultinject.H2Server, opts ...Option) *Client {
	t.Helper()
	all := append([]Option{WithBaseURL(s.URL + "/api/v1"), WithRetryBackoff(time.Millisecond, 2*time.Millisecond)}, opts...)
	c, err := NewClient(testCreds, all...)
	require.NoError(t, err)
	kt, ok := c.hc.Transport.(keepAliveTransport) // base: the innermost transport
	require.True(t, ok)
	tr, ok := kt.base.(*http.Transport)
	require.True(t, ok)
	tr.TLSClientConfig = s.TLSConfig()
	t.Cleanup(func() { _ = c.Close() })
	return c
}

const h2DepositBody = "amount=10.00&merchantReference=dep-h2"

// A server (or load balancer) that reads a deposit and resets its stream
// with PROTOCOL_ERROR must see it once: Go's HTTP/2 transport replays such
// a stream by itself whenever the request can rewind its body (GetBody),
// below the SDK's retry rule and without its backoff.
func TestH2ResetDepositSentOnce(t *testing.T) {
	for _, own := range []bool{false, true} {
		t.Run(map[bool]string{false: "defaultClient", true: "callerClient"}[own], func(t *testing.T) {
			s := faultinject.NewH2Server(faultinject.H2Reset())
			defer s.Close()
			var c *Client
			if own {
				tr := s.Transport()
				defer tr.CloseIdleConnections()
				var err error
				c, err = NewClient(testCreds, WithBaseURL(s.URL+"/api/v1"), WithHTTPClient(&http.Client{Transport: tr, Timeout: 3 * time.Second}))
				require.NoError(t, err)
			} else {
				c = newH2Client(t, s)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
			defer cancel()
			start := time.Now()
			_, err := c.Transactions.Deposit(ctx, "T1", &DepositParams{MerchantReference: "dep-h2", Amount: "10.00"})
			var ne *NetworkError
			require.True(t, errors.As(err, &ne), "err = %v", err)
			assert.True(t, ne.Sent, "the deposit reached the server: Sent must be true")
			assert.Equal(t, 1, ne.Attempts)
			streams := s.Streams()
			require.Equal(t, 1, len(streams), "the server saw the deposit %d times in %v", len(streams), time.Since(start))
			assert.Equal(t, h2DepositBody, string(streams[0].Body))
		})
	}
}

// With the caller's opt-in, the deposit is retried by the SDK's rule only:
// 1 + MaxRetries sends, not the transport's endless replays.
func TestH2ResetDepositRetriedOnlyByTheRetryRule(t *testing.T) {
	s := faultinject.NewH2Server(faultinject.H2Reset())
	defer s.Close()
	c := newH2Client(t, s, WithMaxRetries(2))
	_, err := c.Transactions.Deposit(context.Background(), "T1", &DepositParams{MerchantReference: "dep-h2", Amount: "10.00"}, WithRetryNonIdempotent())
	var ne *NetworkError
	require.True(t, errors.As(err, &ne), "err = %v", err)
	assert.True(t, ne.Sent)
	assert.Equal(t, 3, ne.Attempts)
	streams := s.Streams()
	require.Len(t, streams, 3)
	for _, st := range streams {
		assert.Equal(t, h2DepositBody, string(st.Body), "the retry layer rewinds the body itself")
	}
}

// Reads over HTTP/2 still retry: a reset stream, and a 503 response.
func TestH2ReadsStillRetry(t *testing.T) {
	for name, first := range map[string]faultinject.H2Action{
		"reset": faultinject.H2Reset(),
		"503":   faultinject.H2Respond(http.StatusServiceUnavailable, errorJSON),
	} {
		t.Run(name, func(t *testing.T) {
			s := faultinject.NewH2Server(first, faultinject.H2Respond(http.StatusOK, faultTxn))
			defer s.Close()
			c := newH2Client(t, s)
			tx, err := c.Transactions.Get(context.Background(), "T1")
			require.NoError(t, err)
			assert.NotEmpty(t, tx.TransactionID)
			assert.Len(t, s.Streams(), 2)
		})
	}
}
