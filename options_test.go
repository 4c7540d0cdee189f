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

// One Option type configures a client, a call, the webhook handler and a
// redirect check; each option given where it does not apply is refused
// (NewWebhookHandler panics), naming the option and what it was given to.
func TestOptionTargets(t *testing.T) {
	clientOnly := []Option{WithHTTPClient(&http.Client{}), WithTransport(func(rt http.RoundTripper) http.RoundTripper { return rt }), WithHMACSHA512()}
	api := []Option{WithBaseURL(testBaseURL), WithMaxRetries(1), WithRetryBackoff(0, 0), WithUserAgent("x"),
		WithRetryNonIdempotent(), WithHeader("X-Request-Id", "1"), WithTimeout(time.Second)}
	handler := []Option{WithDeduplicator(NewMemoryDeduplicator(1)), WithEventReadTimeout(time.Second), WithMaxEventAge(time.Hour), WithWebhookClock(time.Now)}
	redirect := []Option{RedirectExpectReference("r"), RedirectQueryOnly()}

	for _, o := range append(append([]Option{}, handler...), redirect...) {
		_, err := NewClient(testCreds, o)
		var ve *ValidationError
		require.ErrorAs(t, err, &ve)
		assert.Equal(t, "opts", ve.Field)
		assert.Contains(t, ve.Reason, "does not configure a Client")
	}
	for _, o := range append(append(append([]Option{}, clientOnly...), api...), redirect...) {
		assert.Panics(t, func() { NewWebhookHandler(testCreds, nil, o) })
	}
	for _, o := range append(append(append([]Option{}, clientOnly...), api...), handler...) {
		r, err := VerifyRedirect("https://shop.example/return?a=1&requestSignature=x", keyCreds("key"), o)
		assert.Nil(t, r)
		var ve *ValidationError
		require.ErrorAs(t, err, &ve)
		assert.Contains(t, ve.Reason, "does not configure a redirect check")
	}
	// Where they apply, they are accepted.
	_, err := NewClient(testCreds, append(append([]Option{}, clientOnly...), api...)...)
	require.NoError(t, err)
	assert.NotPanics(t, func() { NewWebhookHandler(testCreds, nil, append(handler, WithLogger(nil))...) })
	_, err = VerifyRedirect("https://shop.example/return?a=1&requestSignature=x", keyCreds("key"), redirect...)
	assert.NotContains(t, err.Error(), "does not configure")
	assert.PanicsWithValue(t, "bankpay: NewWebhookHandler: bankpay: invalid opts: WithBaseURL does not configure the webhook handler",
		func() { NewWebhookHandler(testCreds, nil, WithBaseURL(testBaseURL)) })
}

// A nil Deduplicator (or a typed nil one) would turn de-duplication off, or
// panic on every request: NewWebhookHandler refuses it at start-up.
func TestWithDeduplicatorNil(t *testing.T) {
	var typedNil *countingStore
	for _, d := range []Deduplicator{nil, typedNil} {
		assert.PanicsWithValue(t, "bankpay: NewWebhookHandler: bankpay: invalid deduplicator: must not be nil",
			func() { NewWebhookHandler(testCreds, nil, WithDeduplicator(d)) })
	}
}

// countingStore is a Deduplicator type for the typed-nil case.
type countingStore struct{ Deduplicator }

// WithHeader refuses, when the option is made, a header net/http would
// refuse to write: a *ValidationError on header, and nothing is sent (a
// refused write must never read as a request that may have left).
func TestWithHeaderRefusesWhatNetHTTPWouldNotWrite(t *testing.T) {
	bad := []struct{ name, key, value string }{
		{"NUL in value", "X-Trace", "a\x00b"},
		{"DEL in value", "X-Trace", "a\x7fb"},
		{"ESC in value", "X-Trace", "a\x1b[31m"},
		{"CR in value", "X-Trace", "a\rb"},
		{"LF in value", "X-Trace", "a\nX-Evil: 1"},
		{"tab in name", "X\tTrace", "1"},
		{"( in name", "X(Trace)", "1"},
		{"space in name", "X Trace", "1"},
		{"colon in name", "X-Trace:", "1"},
		{"non-ASCII name", "X-Tracé", "1"},
		{"empty name", "", "1"},
		// HTTP/2 refuses these after it has a connection: the deposit
		// was reported Sent though no stream was opened.
		{"Connection", "Connection", "upgrade"},
		{"Upgrade", "upgrade", "websocket"},
		{"Transfer-Encoding", "Transfer-Encoding", "gzip"},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewClient(testCreds, WithBaseURL(testBaseURL), WithHeader(tc.key, tc.value))
			var ve *ValidationError
			require.ErrorAs(t, err, &ve)
			assert.Equal(t, "header", ve.Field)
			assert.NotContains(t, ve.Error(), tc.value, "the reason does not repeat the value")

			c, mock, _ := newTestClient(t)
			calls := respondCounting(mock, http.StatusOK, faultTxn)
			_, err = c.Transactions.Deposit(context.Background(), "T1", &DepositParams{MerchantReference: "r", Amount: "1.00"}, WithHeader(tc.key, tc.value))
			require.ErrorAs(t, err, &ve)
			assert.Equal(t, "header", ve.Field)
			assert.EqualValues(t, 0, calls.Load(), "nothing sent")
		})
	}
	// The same for WithUserAgent.
	for _, ua := range []string{"shop\x00", "shop\x1b", "shop\x7f", "shop\r\nX-Evil: 1"} {
		_, err := NewClient(testCreds, WithUserAgent(ua))
		var ve *ValidationError
		require.ErrorAs(t, err, &ve, "%q", ua)
		assert.Equal(t, "userAgent", ve.Field)
	}
	// What net/http writes is accepted: a tab and obs-text in a value,
	// every token character in a name.
	c, mock, _ := newTestClient(t, WithHeader("X-A!#$%&'*+-.^_`|~1", "a\tb é"))
	var got http.Header
	mock.RegisterNoResponder(func(req *http.Request) (*http.Response, error) {
		got = req.Header.Clone()
		return jsonResponse(200, faultTxn)(req)
	})
	_, err := c.Transactions.Get(context.Background(), "T1")
	require.NoError(t, err)
	assert.Equal(t, "a\tb é", got.Get("X-A!#$%&'*+-.^_`|~1"))
}
