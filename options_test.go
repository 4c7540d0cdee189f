package bankpay

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bankpay/bankpay-go/models"
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

// A call's User-Agent header and WithBaseURL change that call's request.
func TestCallOptionsUserAgentAndBaseURL(t *testing.T) {
	c, mock, _ := newTestClient(t)
	var ua, host string
	mock.RegisterNoResponder(func(req *http.Request) (*http.Response, error) {
		ua, host = req.Header.Get("User-Agent"), req.URL.Host
		return jsonResponse(200, `{"transaction":{"transactionId":"1","transactionType":6,"status":2,"amount":"1.00"}}`)(req)
	})
	_, err := c.Transactions.Get(context.Background(), "1", WithHeader("User-Agent", "job/7"), WithBaseURL("https://other.bankpay.test/api/v1"))
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

// An Option configures a client, a call or a redirect check, each option
// given where it does not apply is refused, naming the option and what it
// was given to; the webhook handler takes WebhookOptions, which are not
// Options (nor the other way round: the compiler refuses either), and
// WithLogger is both.
func TestOptionTargets(t *testing.T) {
	clientOnly := []Option{WithHTTPClient(&http.Client{}), WithTransport(func(rt http.RoundTripper) http.RoundTripper { return rt }), WithHMACSHA512()}
	api := []Option{WithBaseURL(testBaseURL), WithMaxRetries(1), WithRetryBackoff(0, 0), WithHeader("User-Agent", "x"),
		WithRetryNonIdempotent(), WithHeader("X-Request-Id", "1"), WithTimeout(time.Second)}
	handler := []WebhookOption{WithDeduplicator(newMemoryDeduplicator(1)), WithEventReadTimeout(time.Second), WithMaxEventAge(time.Hour), WithWebhookClock(time.Now)}
	redirect := []Option{RedirectExpectReference("r"), RedirectQueryOnly()}

	optionT, webhookT := reflect.TypeOf(Option(nil)), reflect.TypeOf(WebhookOption(nil))
	assert.False(t, webhookT.AssignableTo(optionT), "a WebhookOption given where an Option goes compiles")
	assert.False(t, optionT.AssignableTo(webhookT), "an Option given to the handler compiles")
	loggerT := reflect.TypeOf(WithLogger(nil))
	assert.True(t, loggerT.AssignableTo(optionT) && loggerT.AssignableTo(webhookT), "WithLogger configures both")

	// An option converted to the other type is still refused.
	asOptions := append([]Option{}, redirect...)
	for _, o := range handler {
		asOptions = append(asOptions, Option(o))
	}
	for _, o := range asOptions {
		_, err := NewClient(testCreds, o)
		var ve *ValidationError
		require.ErrorAs(t, err, &ve)
		assert.Equal(t, "opts", ve.Field)
		assert.Contains(t, ve.Reason, "does not configure a Client")
	}
	for _, o := range append(append(append([]Option{}, clientOnly...), api...), asOptions[len(redirect):]...) {
		r, err := VerifyRedirect("https://shop.example/return?a=1&requestSignature=x", keyCreds("key"), o)
		assert.Nil(t, r)
		var ve *ValidationError
		require.ErrorAs(t, err, &ve)
		assert.Contains(t, ve.Reason, "does not configure a redirect check")
	}
	// Where they apply, they are accepted.
	_, err := NewClient(testCreds, append(append([]Option{}, clientOnly...), api...)...)
	require.NoError(t, err)
	_, err = VerifyRedirect("https://shop.example/return?a=1&requestSignature=x", keyCreds("key"), redirect...)
	assert.NotContains(t, err.Error(), "does not configure")
}

// TestNewWebhookHandler_ConvertedOptionRefusesEveryRequest: an Option
// converted to a WebhookOption does not panic; the handler answers every
// notification 500 (the service re-sends it) and logs why, and the
// callback never runs.
func TestNewWebhookHandler_ConvertedOptionRefusesEveryRequest(t *testing.T) {
	for _, o := range []Option{WithBaseURL(testBaseURL), WithTimeout(time.Second), RedirectQueryOnly()} {
		var logs bytes.Buffer
		called := false
		var h http.Handler
		require.NotPanics(t, func() {
			h = NewWebhookHandler(testCreds, func(context.Context, *Event) error { called = true; return nil },
				WebhookOption(o), WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
		})
		body := "eventId=1&eventType=Authorize&createdAt=1"
		req := httptest.NewRequest(http.MethodPost, "/hook", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		assert.Equal(t, http.StatusInternalServerError, rec.Code)
		assert.False(t, called)
		assert.Contains(t, logs.String(), "does not configure the webhook handler")
	}
}

// A nil Deduplicator (or a typed nil one) would turn de-duplication off, or
// panic on every request: the handler refuses every notification with 500
// (the service re-sends it) and logs why; the callback never runs.
func TestWithDeduplicatorNil(t *testing.T) {
	var typedNil *countingStore
	for _, d := range []Deduplicator{nil, typedNil} {
		var logs bytes.Buffer
		called := false
		var h http.Handler
		require.NotPanics(t, func() {
			h = NewWebhookHandler(testCreds, func(context.Context, *Event) error { called = true; return nil },
				WithDeduplicator(d), WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
		})
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/hook", strings.NewReader("eventId=1")))
		assert.Equal(t, http.StatusInternalServerError, rec.Code)
		assert.False(t, called)
		assert.Contains(t, logs.String(), "invalid deduplicator: must not be nil")
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
	// The same for a User-Agent header, on field userAgent.
	for _, ua := range []string{"shop\x00", "shop\x1b", "shop\x7f", "shop\r\nX-Evil: 1"} {
		_, err := NewClient(testCreds, WithHeader("User-Agent", ua))
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
		return jsonResponse(200, aboutID(faultTxn, "T1"))(req)
	})
	_, err := c.Transactions.Get(context.Background(), "T1")
	require.NoError(t, err)
	assert.Equal(t, "a\tb é", got.Get("X-A!#$%&'*+-.^_`|~1"))
}

const getPath = testBaseURL + "/transactions/T1"

// WithHeader adds headers for the client and for one call; a call's header
// does not stay on the client, and the SDK's own headers cannot be replaced.
func TestWithHeader(t *testing.T) {
	c, mock, _ := newTestClient(t, WithHeader("X-Tenant", "shop-1"))
	var seen []http.Header
	mock.RegisterResponder(http.MethodGet, getPath, func(r *http.Request) (*http.Response, error) {
		seen = append(seen, r.Header.Clone())
		return httpmock.NewStringResponse(200, `{"transaction":{"transactionId":"T1","transactionType":6,"status":2,"amount":"1.00"}}`), nil
	})
	ctx := context.Background()
	_, err := c.Transactions.Get(ctx, "T1", WithHeader("X-Request-Id", "req-7"))
	require.NoError(t, err)
	_, err = c.Transactions.Get(ctx, "T1")
	require.NoError(t, err)
	require.Len(t, seen, 2)
	assert.Equal(t, "shop-1", seen[0].Get("X-Tenant"))
	assert.Equal(t, "req-7", seen[0].Get("X-Request-Id"))
	assert.Equal(t, "shop-1", seen[1].Get("X-Tenant"))
	assert.Empty(t, seen[1].Get("X-Request-Id"), "a call's header stays with that call")
	assert.Equal(t, "Basic "+base64.StdEncoding.EncodeToString([]byte(testCreds.AccessID+":"+testCreds.AccessKey.Reveal())), seen[0].Get("Authorization"))

	for _, k := range []string{"Authorization", "content-type", "Host", "Accept", "Idempotency-Key", "Bad Name", ""} {
		_, err := c.Transactions.Get(ctx, "T1", WithHeader(k, "x"))
		assert.True(t, isValidation(err), "%q: %v", k, err)
	}
	assert.Len(t, seen, 2, "a refused header sends nothing")
	_, err = NewClient(testCreds, WithHeader("Authorization", "Basic eA=="))
	assert.True(t, isValidation(err))
}

// WithTimeout bounds the whole call, retries and waits included.
func TestWithTimeout(t *testing.T) {
	c, mock, _ := newTestClient(t)
	mock.RegisterResponder(http.MethodGet, getPath, func(r *http.Request) (*http.Response, error) {
		<-r.Context().Done() // a server that never responds
		return nil, r.Context().Err()
	})
	start := time.Now()
	_, err := c.Transactions.Get(context.Background(), "T1", WithTimeout(50*time.Millisecond))
	var ne *NetworkError
	require.ErrorAs(t, err, &ne)
	assert.True(t, errors.Is(err, context.DeadlineExceeded), "%v", err)
	assert.Less(t, time.Since(start), 5*time.Second)
	_, err = c.Transactions.Get(context.Background(), "T1", WithTimeout(-time.Second))
	assert.True(t, isValidation(err))
}

// WithResponseInto hands back the last response's status and headers, on
// success and on an error response; APIError carries the request id.
func TestWithResponseIntoAndRequestID(t *testing.T) {
	c, mock, _ := newTestClient(t)
	sequence(t, mock,
		jsonResponse(200, `{"transaction":{"transactionId":"T1","transactionType":6,"status":2,"amount":"1.00"}}`, "X-Request-Id", "rq-1"),
		jsonResponse(404, `{"errors":[{"code":200,"message":"no such transaction"}]}`, "Request-Id", "rq-2"))
	var resp *http.Response
	_, err := c.Transactions.Get(context.Background(), "T1", WithResponseInto(&resp))
	require.NoError(t, err)
	require.NotNil(t, resp)
	assert.Equal(t, 200, resp.StatusCode)
	assert.Equal(t, "rq-1", resp.Header.Get("X-Request-Id"))
	require.NotNil(t, resp.Request)
	// The request handed back keeps nothing of the call's context (which
	// holds the call's state and its body): a context of its own.
	assert.Equal(t, context.Background(), resp.Request.Context())
	assert.Nil(t, resp.Request.Body)

	resp = nil
	_, err = c.Transactions.Get(context.Background(), "T1", WithResponseInto(&resp))
	var ae *APIError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, "rq-2", ae.RequestID)
	require.NotNil(t, resp)
	assert.Equal(t, 404, resp.StatusCode)
}

// WithTransport wraps the SDK's transport: the wrapper sees every attempt,
// and the SDK's own rules (no redirect for a deposit) stay.
func TestWithTransport(t *testing.T) {
	mock := httpmock.NewMockTransport()
	var attempts atomic.Int32
	wrap := func(next http.RoundTripper) http.RoundTripper {
		return roundTripperFunc(func(r *http.Request) (*http.Response, error) {
			attempts.Add(1)
			return next.RoundTrip(r)
		})
	}
	c, err := NewClient(testCreds, WithBaseURL(testBaseURL), WithHTTPClient(&http.Client{Transport: mock}),
		WithTransport(wrap), WithRetryBackoff(0, 0))
	require.NoError(t, err)
	sequence(t, mock, jsonResponse(503, `{}`), jsonResponse(200, `{"transaction":{"transactionId":"T1","transactionType":6,"status":2,"amount":"1.00"}}`))
	_, err = c.Transactions.Get(context.Background(), "T1")
	require.NoError(t, err)
	assert.EqualValues(t, 2, attempts.Load(), "one round trip per attempt, the retry included")

	mock.RegisterResponder(http.MethodPost, testBaseURL+"/transactions/T1/deposit",
		httpmock.NewStringResponder(302, "").HeaderSet(http.Header{"Location": {testBaseURL + "/elsewhere"}}))
	_, err = c.Transactions.Deposit(context.Background(), "T1", &DepositParams{MerchantReference: "r-1", Amount: "1.00"})
	var ae *APIError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, 302, ae.StatusCode, "the redirect is not followed")

	_, err = c.Transactions.Get(context.Background(), "T1", WithTransport(wrap))
	assert.True(t, isValidation(err), "client only")
	_, err = NewClient(testCreds, WithTransport(nil))
	assert.True(t, isValidation(err))
}

type roundTripperFunc func(*http.Request) (*http.Response, error)

func (f roundTripperFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// WithExpand adds one expand parameter per field to the calls that take
// it, and is refused by every other call and by NewClient.
func TestWithExpand(t *testing.T) {
	const userPath = "/api/v1/transactions/T1/payment/paymentProvider/user"
	c, mock, _ := newTestClient(t)
	calls := expect(t, mock, wantRequest{Method: "GET", Path: userPath, RawQuery: "expand=customer.segmentedName&expand=contact"},
		200, `{"user":{"name":["Jane Doe"],"segmentedName":{"firstName":"Jane","lastName":"Doe"}}}`)
	u, err := c.Accounts.User(context.Background(), "T1", WithExpand("customer.segmentedName"), WithExpand("contact"))
	require.NoError(t, err)
	assert.Equal(t, int32(1), calls.Load())
	require.NotNil(t, u.SegmentedName)
	assert.Equal(t, "Doe", u.SegmentedName.LastName)

	// Without the option nothing is added, and the option given to one
	// call leaves the next alone.
	c, mock, _ = newTestClient(t)
	calls = expect(t, mock, wantRequest{Method: "GET", Path: userPath}, 200, bankUserJSON)
	_, err = c.Accounts.User(context.Background(), "T1", WithExpand())
	require.NoError(t, err)
	_, err = c.Accounts.User(context.Background(), "T1")
	require.NoError(t, err)
	assert.Equal(t, int32(2), calls.Load())

	c, mock, _ = newTestClient(t)
	calls = expect(t, mock, wantRequest{Method: "GET", Path: "/api/v1/transactions/T1/user", RawQuery: "expand=segmentedName"},
		200, `{"user":{"name":"Jane Doe","eligible":true,"segmentedName":{"firstName":"Jane","lastName":"Doe"}}}`)
	iu, err := c.Identity.User(context.Background(), "T1", WithExpand("segmentedName"))
	require.NoError(t, err)
	assert.Equal(t, int32(1), calls.Load())
	require.NotNil(t, iu.SegmentedName)
	assert.Equal(t, "Jane", iu.SegmentedName.FirstName)

	// Identity.Detail takes verification (the OpenAPI's one value).
	c, mock, _ = newTestClient(t)
	calls = expect(t, mock, wantRequest{Method: "GET", Path: "/api/v1/transactions/T1/user/detail", RawQuery: "expand=verification"},
		200, `{"detail":{"verification":[{"verificationName":"kyc","result":"1","reasons":[{"code":100,"reason":"matched"}]}]}}`)
	d, err := c.Identity.Detail(context.Background(), "T1", WithExpand("verification"))
	require.NoError(t, err)
	assert.Equal(t, int32(1), calls.Load())
	require.Len(t, d.Verification, 1)
	assert.Equal(t, []models.VerificationReason{{Code: 100, Reason: "matched"}}, d.Verification[0].Reasons)
}

func TestWithExpandRefused(t *testing.T) {
	ctx := context.Background()
	for name, call := range map[string]func(*Client) error{
		"Accounts.Balance": func(c *Client) error { _, err := c.Accounts.Balance(ctx, "T1", WithExpand("names")); return err },
		"Transactions.Get": func(c *Client) error { _, err := c.Transactions.Get(ctx, "T1", WithExpand("names")); return err },
		"Customers.Get":    func(c *Client) error { _, err := c.Customers.Get(ctx, "1", WithExpand("names")); return err },
		"Deposit": func(c *Client) error {
			_, err := c.Transactions.Deposit(ctx, "T1", &DepositParams{MerchantReference: "r"}, WithExpand("names"))
			return err
		},
		"empty field":    func(c *Client) error { _, err := c.Accounts.User(ctx, "T1", WithExpand("names", "")); return err },
		"space in field": func(c *Client) error { _, err := c.Accounts.User(ctx, "T1", WithExpand("a b")); return err },
		"& in field":     func(c *Client) error { _, err := c.Accounts.User(ctx, "T1", WithExpand("a&b=c")); return err },
	} {
		t.Run(name, func(t *testing.T) { checkRejected(t, "expand", call) })
	}
	_, err := NewClient(testCreds, WithExpand("names"))
	var ve *ValidationError
	require.True(t, errors.As(err, &ve), "err = %v", err)
	assert.Equal(t, "opts", ve.Field, "WithExpand configures a call, not a Client")
}
