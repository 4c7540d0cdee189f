package bankpay

import (
	"context"
	"errors"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// respondCounting responds every request with status and counts them.
func respondCounting(mock *httpmock.MockTransport, status int, body string) *atomic.Int32 {
	var n atomic.Int32
	mock.RegisterNoResponder(func(req *http.Request) (*http.Response, error) {
		n.Add(1)
		return jsonResponse(status, body)(req)
	})
	return &n
}

// A call's options apply over the client's for that call only.
func TestCallOptionsOverrideClientForOneCall(t *testing.T) {
	c, mock, _ := newTestClient(t, WithMaxRetries(3))
	calls := respondCounting(mock, http.StatusServiceUnavailable, `{}`)

	_, err := c.Transactions.Get(context.Background(), "1", WithMaxRetries(0))
	require.ErrorIs(t, err, ErrServer)
	assert.EqualValues(t, 1, calls.Load(), "WithMaxRetries(0) on the call: no retry")

	calls.Store(0)
	_, err = c.Transactions.Get(context.Background(), "1")
	require.ErrorIs(t, err, ErrServer)
	assert.EqualValues(t, 4, calls.Load(), "the client's 3 retries are back on the next call")

	// A state-changing call is retried only with WithRetryNonIdempotent.
	calls.Store(0)
	require.ErrorIs(t, postDeposit(c), ErrServer)
	assert.EqualValues(t, 1, calls.Load())
	calls.Store(0)
	require.ErrorIs(t, postDeposit(c, WithRetryNonIdempotent(), WithMaxRetries(1)), ErrServer)
	assert.EqualValues(t, 2, calls.Load())
}

// A call's WithUserAgent and WithBaseURL change that call's request.
func TestCallOptionsUserAgentAndBaseURL(t *testing.T) {
	c, mock, _ := newTestClient(t)
	var ua, host string
	mock.RegisterNoResponder(func(req *http.Request) (*http.Response, error) {
		ua, host = req.Header.Get("User-Agent"), req.URL.Host
		return jsonResponse(200, `{"transaction":{"transactionId":"1"}}`)(req)
	})
	_, err := c.Transactions.Get(context.Background(), "1", WithUserAgent("job/7"), WithBaseURL("https://other.bankpay.test/api/v1"))
	require.NoError(t, err)
	assert.Equal(t, "job/7 bankpay-go/"+version, ua)
	assert.Equal(t, "other.bankpay.test", host)
	_, err = c.Transactions.Get(context.Background(), "1")
	require.NoError(t, err)
	assert.Equal(t, "bankpay-go/"+version, ua)
	assert.Equal(t, "api.bankpay.test", host)
}

// Client-only options, and invalid ones, given to a call are a
// *ValidationError and nothing is sent.
func TestCallOptionsRejected(t *testing.T) {
	c, mock, _ := newTestClient(t)
	calls := respondCounting(mock, http.StatusOK, `{}`)
	for name, tc := range map[string]struct {
		opt   Option
		field string
	}{
		"WithHTTPClient":   {WithHTTPClient(&http.Client{}), "opts"},
		"WithHMACSHA512":   {WithHMACSHA512(), "opts"},
		"negative retries": {WithMaxRetries(-1), "maxRetries"},
		"bad backoff":      {WithRetryBackoff(time.Second, time.Millisecond), "retryBackoff"},
		"http base URL":    {WithBaseURL("http://bankpay.example/api/v1"), "baseURL"},
	} {
		_, err := c.Transactions.Get(context.Background(), "1", tc.opt)
		var ve *ValidationError
		if assert.True(t, errors.As(err, &ve), "%s: %v", name, err) {
			assert.Equal(t, tc.field, ve.Field, name)
			if tc.field == "opts" {
				assert.Contains(t, ve.Reason, name)
			}
		}
	}
	assert.EqualValues(t, 0, calls.Load(), "nothing sent")
	// The client is unchanged: a call without options goes through.
	_, err := c.Accounts.Balance(context.Background(), "1")
	assert.NotErrorIs(t, err, context.Canceled)
	assert.EqualValues(t, 1, calls.Load())
}
