package bankpay

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// redirectServer responds every call to a path ending in /deposit or
// /redirected-get with a redirect to /api/v1/transactions/T1, which responses
// an authorization. It records every request it gets.
func redirectServer(t *testing.T, status int) (*httptest.Server, func() []string) {
	t.Helper()
	var mu sync.Mutex
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		got = append(got, r.Method+" "+r.URL.Path+" "+string(b))
		mu.Unlock()
		switch r.URL.Path {
		case "/api/v1/transactions/T1/deposit", "/api/v1/redirected-get":
			http.Redirect(w, r, "/api/v1/transactions/T1", status)
		default:
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"transaction":{"transactionId":"T1","transactionType":1,"status":2}}`)
		}
	}))
	t.Cleanup(srv.Close)
	return srv, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), got...)
	}
}

// A deposit responded with a redirect must not be followed: a 302/303 would
// turn it into a GET whose response (here the authorization) comes back as if
// it were the deposit, and a 307/308 would send the payout again to another
// address. The caller gets the 3xx as an *APIError, and one request was sent.
func TestStateChangingCallNeverFollowsRedirects(t *testing.T) {
	for _, status := range []int{http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther,
		http.StatusTemporaryRedirect, http.StatusPermanentRedirect} {
		for _, own := range []bool{false, true} {
			t.Run(fmt.Sprintf("%d/ownHTTPClient=%v", status, own), func(t *testing.T) {
				srv, requests := redirectServer(t, status)
				opts := []Option{WithBaseURL(srv.URL + "/api/v1"), WithMaxRetries(0)}
				if own {
					opts = append(opts, WithHTTPClient(&http.Client{})) // Go's default redirect policy
				}
				c, err := NewClient(testCreds, opts...)
				require.NoError(t, err)
				defer func() { _ = c.Close() }()
				tx, err := c.Transactions.Deposit(context.Background(), "T1", &DepositParams{MerchantReference: "r", Amount: "1.00"})
				var ae *APIError
				assert.Nil(t, tx, "deposit responded %d: tx %+v, err %v; want an *APIError with status %d", status, tx, err, status)
				if assert.ErrorAs(t, err, &ae, "deposit responded %d: tx %+v, err %v; want an *APIError with status %d", status, tx, err, status) {
					assert.Equal(t, status, ae.StatusCode, "deposit responded %d: tx %+v, err %v; want an *APIError with status %d", status, tx, err, status)
				}
				got := requests()
				assert.Len(t, got, 1, "requests sent: %q, want the deposit only", got)
			})
		}
	}
}

// The SDK's own HTTP client follows no redirect at all: the API responses
// every call itself, so a 3xx is an error, not another object.
func TestDefaultClientFollowsNoRedirect(t *testing.T) {
	srv, requests := redirectServer(t, http.StatusFound)
	c, err := NewClient(testCreds, WithBaseURL(srv.URL+"/api/v1"), WithMaxRetries(0))
	require.NoError(t, err)
	defer func() { _ = c.Close() }()
	req, err := newRequest(http.MethodGet, "/redirected-get", nil, nil)
	require.NoError(t, err)
	var out map[string]any
	err = c.do(context.Background(), req, &out, nil)
	var ae *APIError
	if assert.ErrorAs(t, err, &ae, "err = %v, want an *APIError with status 302", err) {
		assert.Equal(t, http.StatusFound, ae.StatusCode, "err = %v, want an *APIError with status 302", err)
	}
	got := requests()
	assert.Len(t, got, 1, "requests sent: %q, want one", got)

	// A caller's own client keeps its redirect policy for reads.
	c, err = NewClient(testCreds, WithBaseURL(srv.URL+"/api/v1"), WithMaxRetries(0), WithHTTPClient(&http.Client{}))
	require.NoError(t, err)
	defer func() { _ = c.Close() }()
	assert.NoError(t, c.do(context.Background(), req, &out, nil), "GET through the caller's client")
}

// A read redirected to another scheme or host is not followed, whatever
// the caller's client allows: following it would send the Basic
// credentials there (in clear over http). The caller's client is not
// modified, and a redirect on the same scheme and host is still followed.
func TestRedirectElsewhereNotFollowedWithCredentials(t *testing.T) {
	const origin = "https://api.bankpay.test/api/v1/transactions/"
	permissive := func(*http.Request, []*http.Request) error { return nil }
	for _, target := range []string{
		"http://api.bankpay.test/api/v1/transactions/T2",
		"https://evil.example/api/v1/transactions/T2",
		"https://api.bankpay.test:8443/api/v1/transactions/T2",
		"http://127.0.0.1/api/v1/transactions/T2",
		"https://api.bankpay.test/api/v1/transactions/T2", // followed
	} {
		for name, policy := range map[string]func(*http.Request, []*http.Request) error{"default": nil, "permissive": permissive} {
			t.Run(target+"/"+name, func(t *testing.T) {
				mock := httpmock.NewMockTransport()
				var mu sync.Mutex
				var reached []string // URL and Authorization of every request after the first
				mock.RegisterNoResponder(func(r *http.Request) (*http.Response, error) {
					if r.URL.String() == origin+"T1" {
						resp := httpmock.NewStringResponse(http.StatusFound, "")
						resp.Header.Set("Location", target)
						return resp, nil
					}
					mu.Lock()
					reached = append(reached, r.URL.String()+" "+r.Header.Get("Authorization"))
					mu.Unlock()
					return jsonResponse(http.StatusOK, faultTxn)(r)
				})
				hc := &http.Client{Transport: mock, CheckRedirect: policy}
				c, err := NewClient(testCreds, WithBaseURL(testBaseURL), WithHTTPClient(hc), WithMaxRetries(0))
				require.NoError(t, err)
				tx, err := c.Transactions.Get(context.Background(), "T1")
				if strings.HasPrefix(target, origin) {
					require.NoError(t, err)
					assert.Equal(t, "1002600000000001", tx.TransactionID)
					require.Len(t, reached, 1)
				} else {
					var ae *APIError
					require.ErrorAs(t, err, &ae)
					assert.Equal(t, http.StatusFound, ae.StatusCode)
					assert.Empty(t, reached, "the redirect was followed")
				}
				assert.Equal(t, reflect.ValueOf(policy).Pointer(), reflect.ValueOf(hc.CheckRedirect).Pointer(), "the caller's client was modified")
				assert.Equal(t, http.RoundTripper(mock), hc.Transport)
			})
		}
	}
}
