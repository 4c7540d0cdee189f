package bankpay

import (
	"context"
	"encoding/base64"
	"errors"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const getPath = testBaseURL + "/transactions/T1"

// WithHeader adds headers for the client and for one call; a call's header
// does not stay on the client, and the SDK's own headers cannot be replaced.
func TestWithHeader(t *testing.T) {
	c, mock, _ := newTestClient(t, WithHeader("X-Tenant", "shop-1"))
	var seen []http.Header
	mock.RegisterResponder(http.MethodGet, getPath, func(r *http.Request) (*http.Response, error) {
		seen = append(seen, r.Header.Clone())
		return httpmock.NewStringResponse(200, `{"transaction":{"transactionId":"T1"}}`), nil
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

	for _, k := range []string{"Authorization", "content-type", "Host", "User-Agent", "Bad Name", ""} {
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
		jsonResponse(200, `{"transaction":{"transactionId":"T1"}}`, "X-Request-Id", "rq-1"),
		jsonResponse(404, `{"errors":[{"code":200,"message":"no such transaction"}]}`, "Request-Id", "rq-2"))
	var resp *http.Response
	_, err := c.Transactions.Get(context.Background(), "T1", WithResponseInto(&resp))
	require.NoError(t, err)
	require.NotNil(t, resp)
	assert.Equal(t, 200, resp.StatusCode)
	assert.Equal(t, "rq-1", resp.Header.Get("X-Request-Id"))

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
	sequence(t, mock, jsonResponse(503, `{}`), jsonResponse(200, `{"transaction":{"transactionId":"T1"}}`))
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
