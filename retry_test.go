package bankpay

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"syscall"
	"testing"
	"time"

	"github.com/bankpay/bankpay-go/internal/pipeline"
	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// postDeposit sends a state-changing POST through the pipeline.
func postDeposit(c *Client, opts ...Option) error {
	req, err := pipeline.NewRequest(http.MethodPost, "/transactions/1/deposit", nil, pipeline.FormBody{V: &struct {
		Ref string `url:"merchantReference"`
	}{"dep-1"}})
	if err != nil {
		return err
	}
	return c.do(context.Background(), req, nil, opts)
}

func dialRefused(*http.Request) (*http.Response, error) {
	return nil, &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
}

func resetAfterSend(*http.Request) (*http.Response, error) {
	return nil, &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}
}

func TestGetRetriedOn503(t *testing.T) {
	c, mock, w := newTestClient(t)
	calls := sequence(t, mock, jsonResponse(503, `{"errors":[{"code":100}]}`), jsonResponse(200, aboutID(authorizationJSON, "1")))
	_, err := c.Transactions.Get(context.Background(), "1")
	require.NoError(t, err)
	require.Equal(t, int32(2), calls.Load(), "calls = %d, waits = %v", calls.Load(), w.list)
	require.Len(t, w.list, 1, "calls = %d, waits = %v", calls.Load(), w.list)
	assert.GreaterOrEqual(t, w.list[0], defaultRetryWaitMin/2, "first backoff %v outside [%v, %v]", w.list[0], defaultRetryWaitMin/2, defaultRetryWaitMin)
	assert.LessOrEqual(t, w.list[0], defaultRetryWaitMin, "first backoff %v outside [%v, %v]", w.list[0], defaultRetryWaitMin/2, defaultRetryWaitMin)
}

func TestGetRetriedOnEveryTransientStatus(t *testing.T) {
	for _, status := range []int{429, 500, 502, 503, 504} {
		c, mock, _ := newTestClient(t)
		calls := sequence(t, mock, jsonResponse(status, `{}`), jsonResponse(200, aboutID(authorizationJSON, "1")))
		_, err := c.Transactions.Get(context.Background(), "1")
		assert.NoError(t, err, "status %d: err %v, calls %d", status, err, calls.Load())
		assert.Equal(t, int32(2), calls.Load(), "status %d: err %v, calls %d", status, err, calls.Load())
	}
	for _, status := range []int{400, 401, 404, 501} {
		c, mock, _ := newTestClient(t)
		calls := sequence(t, mock, jsonResponse(status, `{}`))
		_, err := c.Transactions.Get(context.Background(), "1")
		assert.Error(t, err, "status %d retried: calls %d", status, calls.Load())
		assert.Equal(t, int32(1), calls.Load(), "status %d retried: calls %d", status, calls.Load())
	}
}

func TestGetGivesUpWithTypedErrorOfLastResponse(t *testing.T) {
	c, mock, w := newTestClient(t, WithMaxRetries(3))
	rs := make([]httpmock.Responder, 4)
	for i := range rs {
		rs[i] = jsonResponse(500, `{"errors":[{"code":100,"message":"Internal error"}]}`)
	}
	calls := sequence(t, mock, rs...)
	_, err := c.Transactions.Get(context.Background(), "1")
	var e *APIError
	require.ErrorAs(t, err, &e, "err = %v (%+v)", err, e)
	require.ErrorIs(t, err, ErrServer, "err = %v (%+v)", err, e)
	require.Equal(t, 100, e.Code, "err = %v (%+v)", err, e)
	require.Equal(t, 4, e.Attempts, "err = %v (%+v)", err, e)
	assert.Equal(t, int32(4), calls.Load(), "calls = %d, want 4", calls.Load())
	// Exponential, jittered, capped.
	for i, d := range w.list {
		hi := defaultRetryWaitMin << i
		assert.GreaterOrEqual(t, d, hi/2, "wait %d = %v, want in [%v, %v]", i, d, hi/2, hi)
		assert.LessOrEqual(t, d, hi, "wait %d = %v, want in [%v, %v]", i, d, hi/2, hi)
	}
}

func TestDepositNotRetriedByDefault(t *testing.T) {
	for name, r := range map[string]httpmock.Responder{
		"500":          jsonResponse(500, `{"errors":[{"code":100,"message":"Internal error"}]}`),
		"503":          jsonResponse(503, `{}`),
		"429":          jsonResponse(429, `{}`, "Retry-After", "1"),
		"reset":        resetAfterSend,
		"unexpectedEO": func(*http.Request) (*http.Response, error) { return nil, io.ErrUnexpectedEOF },
	} {
		t.Run(name, func(t *testing.T) {
			c, mock, _ := newTestClient(t)
			calls := sequence(t, mock, r, jsonResponse(200, `{}`))
			err := postDeposit(c)
			require.Error(t, err, "err %v, calls %d: a state-changing call must be sent once", err, calls.Load())
			require.Equal(t, int32(1), calls.Load(), "err %v, calls %d: a state-changing call must be sent once", err, calls.Load())
			if name == "500" {
				var e *APIError
				if assert.ErrorAs(t, err, &e, "err = %v", err) {
					assert.Equal(t, 100, e.Code, "err = %v", err)
				}
				assert.ErrorIs(t, err, ErrServer, "err = %v", err)
			}
			var ne *NetworkError
			if errors.As(err, &ne) {
				assert.True(t, ne.Sent, "an error after the request was written must report Sent: %v", err)
			}
		})
	}
}

func TestDepositRetriedWhenNeverSent(t *testing.T) {
	c, mock, _ := newTestClient(t)
	calls := sequence(t, mock, dialRefused, jsonResponse(200, `{}`))
	err := postDeposit(c)
	require.NoError(t, err, "err %v, calls %d", err, calls.Load())
	require.Equal(t, int32(2), calls.Load(), "err %v, calls %d", err, calls.Load())
	// Every attempt refused: the caller learns it was never sent.
	c, mock, _ = newTestClient(t, WithMaxRetries(2))
	calls = sequence(t, mock, dialRefused, dialRefused, dialRefused)
	err = postDeposit(c)
	var ne *NetworkError
	require.ErrorAs(t, err, &ne, "err = %#v", err)
	require.False(t, ne.Sent, "err = %#v", err)
	require.Equal(t, 3, ne.Attempts, "err = %#v", err)
	require.ErrorIs(t, err, syscall.ECONNREFUSED, "err = %#v", err)
	assert.Equal(t, int32(3), calls.Load(), "calls = %d", calls.Load())
}

func TestDepositRetriedWithOptIn(t *testing.T) {
	c, mock, _ := newTestClient(t, WithRetryNonIdempotent())
	calls := sequence(t, mock, jsonResponse(500, `{}`), resetAfterSend, jsonResponse(400, `{"errors":[{"code":210,"message":"Duplicate"}]}`))
	err := postDeposit(c)
	require.ErrorIs(t, err, ErrDuplicate, "err %v, calls %d", err, calls.Load())
	require.Equal(t, int32(3), calls.Load(), "err %v, calls %d", err, calls.Load())

	c, mock, _ = newTestClient(t)
	calls = sequence(t, mock, jsonResponse(502, `{}`), jsonResponse(200, `{}`))
	err = postDeposit(c, WithRetryNonIdempotent())
	require.NoError(t, err, "per-call opt-in: err %v, calls %d", err, calls.Load())
	require.Equal(t, int32(2), calls.Load(), "per-call opt-in: err %v, calls %d", err, calls.Load())
}

func TestRetryAfterObeyedUnderCap(t *testing.T) {
	c, mock, w := newTestClient(t, withMaxRetryAfter(10*time.Second))
	calls := sequence(t, mock, jsonResponse(429, `{}`, "Retry-After", "7"), jsonResponse(200, aboutID(authorizationJSON, "1")))
	_, err := c.Transactions.Get(context.Background(), "1")
	require.NoError(t, err, "err %v calls %d", err, calls.Load())
	require.Equal(t, int32(2), calls.Load(), "err %v calls %d", err, calls.Load())
	if assert.Len(t, w.list, 1, "waits = %v, want [7s]", w.list) {
		assert.Equal(t, 7*time.Second, w.list[0], "waits = %v, want [7s]", w.list)
	}
}

func TestRetryAfterBeyondCapNotObeyed(t *testing.T) {
	for _, ra := range []string{"86400", "99999999999999999999", time.Now().Add(48 * time.Hour).UTC().Format(http.TimeFormat)} {
		c, mock, w := newTestClient(t)
		calls := sequence(t, mock, jsonResponse(503, `{}`, "Retry-After", ra))
		_, err := c.Transactions.Get(context.Background(), "1")
		var e *APIError
		if assert.ErrorAs(t, err, &e, "Retry-After %s: err %v, calls %d, waits %v", ra, err, calls.Load(), w.list) {
			assert.Greater(t, e.RetryAfter, defaultMaxRetryAfter, "Retry-After %s: err %v, calls %d, waits %v", ra, err, calls.Load(), w.list)
		}
		assert.Equal(t, int32(1), calls.Load(), "Retry-After %s: err %v, calls %d, waits %v", ra, err, calls.Load(), w.list)
		assert.Empty(t, w.list, "Retry-After %s: err %v, calls %d, waits %v", ra, err, calls.Load(), w.list)
	}
}

func TestCancelledContextReturnsPromptly(t *testing.T) {
	c, mock, _ := newTestClient(t)
	c.cfg.waitScale = nil // real backoff: the context must cut it short
	c.cfg.retryWaitMin, c.cfg.retryWaitMax = time.Hour, time.Hour
	ctx, cancel := context.WithCancel(context.Background())
	mock.RegisterNoResponder(func(req *http.Request) (*http.Response, error) {
		cancel() // cancelled while the first response is in flight
		return jsonResponse(503, `{}`)(req)
	})
	start := time.Now()
	_, err := c.Transactions.Get(ctx, "1")
	require.ErrorIs(t, err, context.Canceled, "err = %v", err)
	d := time.Since(start)
	require.LessOrEqual(t, d, 2*time.Second, "took %v", d)

	ctx, cancel = context.WithCancel(context.Background())
	cancel()
	_, err = c.Transactions.Get(ctx, "1")
	require.ErrorIs(t, err, context.Canceled, "pre-cancelled: err = %v", err)

	// Cancelled while the client waits its hour of backoff after the 503
	// (above, the context ended before the retry layer decided to wait).
	c2, mock2, _ := newTestClient(t, WithRetryBackoff(time.Hour, time.Hour))
	c2.cfg.waitScale = nil
	responded := make(chan struct{}, 1)
	mock2.RegisterNoResponder(func(req *http.Request) (*http.Response, error) {
		responded <- struct{}{}
		return jsonResponse(503, `{}`)(req)
	})
	ctx2, cancel2 := context.WithCancel(context.Background())
	defer cancel2()
	go func() {
		<-responded
		time.Sleep(50 * time.Millisecond) // the backoff has begun
		cancel2()
	}()
	start2 := time.Now()
	_, err = c2.Transactions.Get(ctx2, "1")
	require.ErrorIs(t, err, context.Canceled, "cancelled during the backoff: err = %v", err)
	d = time.Since(start2)
	require.LessOrEqual(t, d, 2*time.Second, "cancelled during the backoff: took %v", d)
}

// Sent remembers every attempt: a deposit whose first attempt reached the
// server stays Sent even when the retries were refused, so that the caller
// is not invited to pay again under a new reference.
func TestNetworkErrorSentRemembersEarlierAttempts(t *testing.T) {
	for name, first := range map[string]httpmock.Responder{
		"reset after send": resetAfterSend,
		"500 response":     jsonResponse(500, `{}`),
	} {
		t.Run(name, func(t *testing.T) {
			c, mock, _ := newTestClient(t, WithRetryNonIdempotent(), WithMaxRetries(2))
			calls := sequence(t, mock, first, dialRefused, dialRefused)
			err := postDeposit(c)
			var ne *NetworkError
			require.ErrorAs(t, err, &ne)
			assert.True(t, ne.Sent, "the first attempt reached the server: %v", err)
			assert.Equal(t, 3, ne.Attempts)
			assert.ErrorIs(t, err, syscall.ECONNREFUSED)
			assert.NotContains(t, err.Error(), "not sent")
			assert.EqualValues(t, 3, calls.Load())
		})
	}
}

// A context that ended before the call sends nothing and says so.
func TestNetworkErrorNotSentWhenContextEndedBefore(t *testing.T) {
	c, mock, _ := newTestClient(t)
	calls := expectNoRequest(t, mock)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := c.Transactions.Deposit(ctx, "T1", &DepositParams{MerchantReference: "r", Amount: "1.00"})
	var ne *NetworkError
	require.ErrorAs(t, err, &ne)
	assert.False(t, ne.Sent)
	assert.Equal(t, 0, ne.Attempts)
	assert.ErrorIs(t, err, context.Canceled)
	assert.EqualValues(t, 0, calls.Load())

	dctx, dcancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer dcancel()
	_, err = c.Transactions.Get(dctx, "T1")
	require.ErrorAs(t, err, &ne)
	assert.False(t, ne.Sent)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
}
