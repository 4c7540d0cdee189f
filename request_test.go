package bankpay

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

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
