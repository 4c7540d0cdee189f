package bankpay

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// WithResponseInto hands back a response whose request (and the requests
// of the redirects before it) carries no credentials, and whose headers
// are scrubbed of an echo of them; the SDK's own requests still carried the
// Authorization header.
func TestResponseIntoCarriesNoCredentials(t *testing.T) {
	var seen []string
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen = append(seen, r.Header.Get("Authorization"))
		if strings.HasSuffix(r.URL.Path, "/T1") {
			http.Redirect(w, r, "/api/v1/transactions/T2", http.StatusFound)
			return
		}
		w.Header().Set("X-Echo", r.Header.Get("Authorization"))
		w.Header().Set("Content-Type", "application/json")
		_, _ = fmt.Fprint(w, faultTxn)
	}))
	defer ts.Close()
	c, err := NewClient(testCreds, WithBaseURL(ts.URL+"/api/v1"), WithHTTPClient(ts.Client()))
	require.NoError(t, err)
	var resp *http.Response
	_, err = c.Transactions.Get(context.Background(), "T1", WithResponseInto(&resp))
	require.NoError(t, err)
	require.Len(t, seen, 2)
	auth := c.secrets.authHeader()
	assert.Equal(t, []string{auth, auth}, seen, "the requests themselves were authorized")

	require.NotNil(t, resp)
	require.NotNil(t, resp.Request)
	assert.Equal(t, "/api/v1/transactions/T2", resp.Request.URL.Path)
	assert.Empty(t, resp.Request.Header.Values("Authorization"))
	require.NotNil(t, resp.Request.Response, "the redirect's response")
	require.NotNil(t, resp.Request.Response.Request)
	assert.Equal(t, "/api/v1/transactions/T1", resp.Request.Response.Request.URL.Path)
	assert.Empty(t, resp.Request.Response.Request.Header.Values("Authorization"))
	assert.Equal(t, "Basic [redacted]", resp.Header.Get("X-Echo"), "an echo of the key is scrubbed")
	assertNoSecretForm(t, testCreds, "the response handed back", fmt.Sprintf("%+v %+v %+v", resp.Header, resp.Request.Header, resp.Request.Response.Request.Header))
}

// WithRetryNonIdempotent is ignored for a call that carries no
// merchantReference (nothing the service could recognize a repeat by): a
// client-wide opt-in does not send a Refund or a Reclaim without one twice,
// and does not fail it either; with one, it is retried.
func TestOptInIgnoredWithoutMerchantReference(t *testing.T) {
	ok := `{"transaction":{"transactionId":"9","transactionType":4,"status":2}}`
	for name, call := range map[string]func(*Client, string) error{
		"Refund": func(c *Client, ref string) error {
			_, err := c.Transactions.Refund(context.Background(), "1", &RefundParams{MerchantReference: ref, Amount: "5.00"})
			return err
		},
		"Reclaim": func(c *Client, ref string) error {
			_, err := c.Transactions.Reclaim(context.Background(), "1", &ReclaimParams{MerchantReference: ref, Amount: "5.00"})
			return err
		},
		"Cancel": func(c *Client, ref string) error {
			_, err := c.Transactions.Cancel(context.Background(), "1", &CancelParams{MerchantReference: ref})
			return err
		},
	} {
		t.Run(name, func(t *testing.T) {
			c, mock, _ := newTestClient(t, WithRetryNonIdempotent())
			n := sequence(t, mock, jsonResponse(503, errorJSON), jsonResponse(200, ok))
			err := call(c, "")
			require.ErrorIs(t, err, ErrServer, "keyless: the 503, not a second send")
			assert.EqualValues(t, 1, n.Load())

			c, mock, _ = newTestClient(t, WithRetryNonIdempotent())
			n = sequence(t, mock, jsonResponse(503, errorJSON), jsonResponse(200, ok))
			require.NoError(t, call(c, "ref-1"))
			assert.EqualValues(t, 2, n.Load(), "with a merchantReference the opt-in applies")
		})
	}
	for body, want := range map[string]bool{
		`{"merchantReference":"r","amount":"1.00"}`: true,
		`{"merchantReference":"","amount":"1.00"}`:  false,
		`{"amount":"1.00"}`:                         false,
		`{"customer":{"merchantReference":"r"}}`:    false,
	} {
		assert.Equal(t, want, (&request{Body: []byte(body), ContentType: "application/json"}).keyed(), body)
	}
	assert.True(t, (&request{Body: []byte("amount=1.00&merchantReference=r"), ContentType: "application/x-www-form-urlencoded"}).keyed())
	assert.False(t, (&request{Body: []byte("amount=1.00&merchantReference="), ContentType: "application/x-www-form-urlencoded"}).keyed())
	assert.True(t, (&request{Idempotent: true}).keyed(), "an Idempotency-Key")
}

// Every request gets headers of its own: a middleware that writes the
// values of Accept, Content-Type, User-Agent or a WithHeader header in
// place changes that request only, never the next one, another call's or
// the client's settings.
func TestSetHeaders_PerRequest(t *testing.T) {
	mock := httpmock.NewMockTransport()
	var seen []http.Header
	mock.RegisterNoResponder(func(req *http.Request) (*http.Response, error) {
		seen = append(seen, req.Header.Clone())
		return httpmock.NewStringResponse(http.StatusOK, faultTxn), nil
	})
	var found []http.Header // what the middleware found, before it wrote
	mutate := func(next http.RoundTripper) http.RoundTripper {
		return roundTripperFunc(func(req *http.Request) (*http.Response, error) {
			found = append(found, req.Header.Clone())
			for _, k := range []string{"Accept", "Content-Type", "User-Agent", "X-Request-Id"} {
				if vs := req.Header[k]; len(vs) > 0 {
					vs[0] = "mutated"
				}
			}
			return next.RoundTrip(req)
		})
	}
	c, err := NewClient(testCreds, WithBaseURL(testBaseURL), WithHTTPClient(&http.Client{Transport: mock}),
		WithTransport(mutate), WithHeader("X-Request-Id", "r1"))
	require.NoError(t, err)
	ctx := context.Background()
	for i := 0; i < 2; i++ {
		_, err = c.Transactions.Deposit(ctx, "T1", &DepositParams{MerchantReference: "ref", Amount: "1.00"})
		require.NoError(t, err)
		_, err = c.Transactions.Refund(ctx, "T1", &RefundParams{Amount: "1.00"})
		require.NoError(t, err)
		_, err = c.Transactions.Get(ctx, "T1")
		require.NoError(t, err)
	}
	require.Len(t, seen, 6)
	require.Len(t, found, 6)
	// Each request reached the network with the middleware's change, and
	// the values the middleware found were the SDK's, whatever it wrote
	// into the requests before.
	wantCT := []string{contentTypeForm, contentTypeJSON, ""}
	for i, h := range found {
		assert.Equal(t, []string{"application/json"}, h["Accept"], "request %d", i)
		assert.Equal(t, []string{"bankpay-go/" + version}, h["User-Agent"], "request %d", i)
		assert.Equal(t, []string{"r1"}, h["X-Request-Id"], "request %d", i)
		assert.Equal(t, []string{"mutated"}, seen[i]["Accept"], "request %d", i)
		if wantCT[i%3] != "" {
			assert.Equal(t, []string{wantCT[i%3]}, h["Content-Type"], "request %d", i)
			assert.Equal(t, []string{"mutated"}, seen[i]["Content-Type"], "request %d", i)
		} else {
			assert.NotContains(t, h, "Content-Type", "request %d", i)
		}
	}
	// The client's settings are untouched, and a request built now carries
	// the SDK's values.
	assert.Equal(t, []string{"r1"}, c.cfg.header["X-Request-Id"])
	h := http.Header{}
	setHeaders(h, c.cfg.userAgent, contentTypeForm, c.cfg.header)
	assert.Equal(t, http.Header{"Accept": {"application/json"}, "User-Agent": {"bankpay-go/" + version},
		"Content-Type": {"application/x-www-form-urlencoded"}, "X-Request-Id": {"r1"}}, h)

	// What the next request sends, seen below a middleware that only
	// records: a client whose middleware mutated earlier requests sends
	// the SDK's values.
	seen = nil
	var inner []http.Header
	record := func(next http.RoundTripper) http.RoundTripper {
		return roundTripperFunc(func(req *http.Request) (*http.Response, error) {
			inner = append(inner, req.Header.Clone())
			if len(inner) == 1 { // the first request only
				req.Header["Accept"][0], req.Header["Content-Type"][0] = "mutated", "mutated"
			}
			return next.RoundTrip(req)
		})
	}
	c2, err := NewClient(testCreds, WithBaseURL(testBaseURL), WithHTTPClient(&http.Client{Transport: mock}), WithTransport(record))
	require.NoError(t, err)
	for i := 0; i < 2; i++ {
		_, err = c2.Transactions.Deposit(ctx, "T1", &DepositParams{MerchantReference: "ref", Amount: "1.00"})
		require.NoError(t, err)
	}
	require.Len(t, inner, 2)
	require.Len(t, seen, 2)
	assert.Equal(t, []string{"mutated"}, seen[0]["Accept"])
	for _, h := range []http.Header{inner[0], inner[1], seen[1]} {
		assert.Equal(t, []string{"application/json"}, h["Accept"])
		assert.Equal(t, []string{"application/x-www-form-urlencoded"}, h["Content-Type"])
	}

	// A retry is a request of its own too: the second attempt of a
	// dispute (retried like a read, with its Idempotency-Key) finds the
	// SDK's values, not what the middleware wrote into the first.
	found = nil
	var n int
	retrying := httpmock.NewMockTransport()
	retrying.RegisterNoResponder(func(req *http.Request) (*http.Response, error) {
		if n++; n == 1 {
			return httpmock.NewStringResponse(http.StatusServiceUnavailable, `{}`), nil
		}
		return httpmock.NewStringResponse(http.StatusOK, faultTxn), nil
	})
	c3, err := NewClient(testCreds, WithBaseURL(testBaseURL), WithHTTPClient(&http.Client{Transport: retrying}),
		WithTransport(mutate), WithHeader("X-Request-Id", "r1"))
	require.NoError(t, err)
	c3.cfg.waitScale = (&waits{}).record
	_, err = c3.Disputes.Create(ctx, &DisputeParams{IdempotencyKey: "idem-1", TransactionID: "T1", Amount: "1.00"})
	require.NoError(t, err)
	require.Len(t, found, 2)
	for i, h := range found {
		assert.Equal(t, []string{"application/json"}, h["Accept"], "attempt %d", i+1)
		assert.Equal(t, []string{"application/json"}, h["Content-Type"], "attempt %d", i+1)
		assert.Equal(t, []string{"bankpay-go/" + version}, h["User-Agent"], "attempt %d", i+1)
		assert.Equal(t, []string{"r1"}, h["X-Request-Id"], "attempt %d", i+1)
		assert.Equal(t, []string{"idem-1"}, h["Idempotency-Key"], "attempt %d", i+1)
	}
}
