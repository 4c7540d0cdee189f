package integration

// The fault tests that run against the bankpaytest sandbox (an external
// test package: bankpaytest imports bankpay).

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/url"
	"testing"
	"time"

	bankpay "github.com/bankpay/bankpay-go"
	"github.com/hashicorp/go-retryablehttp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bankpay/bankpay-go/bankpaytest"
	"github.com/bankpay/bankpay-go/internal/faultinject"
	"github.com/bankpay/bankpay-go/models"
)

// TestOptInRetryAgainstTheSandbox: the response to a deposit is lost after
// the sandbox made it; the opted-in retry, with the same merchantReference,
// gets the sandbox's own duplicate response (code 210) as ErrDuplicate, and
// the caller reads the state back. Without the opt-in the deposit is sent
// once and the caller learns it may have been made.
func TestOptInRetryAgainstTheSandbox(t *testing.T) {
	eachShape(t, func(t *testing.T, sh shape) {
		sb, s, tr := proxiedSandbox(t, sh)
		c, err := bankpay.NewClient(sb.Credentials(),
			bankpay.WithBaseURL(s.URL+"/api/v1"), bankpay.WithHTTPClient(&http.Client{Transport: tr}), bankpay.WithRetryBackoff(time.Millisecond, 2*time.Millisecond))
		require.NoError(t, err)
		ctx := context.Background()
		auth := establishPayout(t, c, "sb-est-1")
		// Default: sent once, the response lost: the caller is told it may have
		// been made, and nothing is sent again.
		before := s.Requests()
		s.Script(faultinject.PassAndReset())
		_, err = c.Transactions.Deposit(ctx, auth.TransactionID, &bankpay.DepositParams{MerchantReference: "sb-dep-1", Amount: "10.00"})
		var ne *bankpay.NetworkError
		require.ErrorAs(t, err, &ne, "default: err %v after %d requests", err, s.Requests()-before)
		require.True(t, ne.Sent, "default: err %v after %d requests", err, s.Requests()-before)
		require.Equal(t, 1, s.Requests()-before, "default: err %v after %d requests", err, s.Requests()-before)
		// Opted in: the retry carries the same merchantReference and the sandbox
		// responds 210.
		before = s.Requests()
		s.Script(faultinject.PassAndReset())
		_, err = c.Transactions.Deposit(ctx, auth.TransactionID, &bankpay.DepositParams{MerchantReference: "sb-dep-2", Amount: "10.00"}, bankpay.WithRetryNonIdempotent())
		got := s.Received()[before:]
		require.ErrorIs(t, err, bankpay.ErrDuplicate, "opt-in: err %v after %d requests, want ErrDuplicate after 2", err, len(got))
		require.Len(t, got, 2, "opt-in: err %v after %d requests, want ErrDuplicate after 2", err, len(got))
		assert.True(t, bytes.Equal(got[0].Body, got[1].Body), "the retry sent %s, the first attempt %s", got[1].Body, got[0].Body)
		assert.Equal(t, "sb-dep-2", formValue(got[1].Body, "merchantReference"), "the retry sent %s, the first attempt %s", got[1].Body, got[0].Body)
		// The caller reads the authorization back; the sandbox made each
		// deposit once.
		txn, err := c.Transactions.Get(ctx, auth.TransactionID)
		require.NoError(t, err, "read back: %v", err)
		require.Equal(t, auth.TransactionID, txn.TransactionID, "read back: %v", err)
		sb.AdvanceBankingDays(4) // deposits are submitted and complete: one event each
		for _, ref := range []string{"sb-dep-1", "sb-dep-2"} {
			ids := eventTransactions(sb, ref)
			assert.Len(t, ids, 1, "%s: %d deposits made, want 1", ref, len(ids))
			for id := range ids {
				d, ok := sb.Transaction(id)
				if assert.True(t, ok, "%s: %+v", ref, d) {
					assert.Equal(t, models.TypeDeposit, d.TransactionType, "%s: %+v", ref, d)
					assert.Equal(t, auth.TransactionID, d.OriginalTransactionID, "%s: %+v", ref, d)
				}
			}
		}
	})
}

// proxiedSandbox starts a sandbox of shape sh behind a faultinject server
// (a reverse proxy to it), and the transport a client reaches the
// faultinject server with; all are closed when the test ends.
func proxiedSandbox(t *testing.T, sh shape) (*bankpaytest.Server, *faultinject.Server, *http.Transport) {
	t.Helper()
	sb := bankpaytest.NewServer(sh.options()...)
	t.Cleanup(sb.Close)
	target, err := url.Parse(sb.URL)
	require.NoError(t, err)
	proxyTransport := http.DefaultTransport.(*http.Transport).Clone()
	t.Cleanup(proxyTransport.CloseIdleConnections)
	s := faultinject.NewServer(forwardTo(target, proxyTransport))
	t.Cleanup(s.Close)
	tr := s.Transport()
	t.Cleanup(tr.CloseIdleConnections)
	return sb, s, tr
}

// forwardTo is a reverse proxy to target's host through tr: each request
// is sent on as it came (method, path, query, headers and body), and the
// answer is copied back; a request that gets no answer is a 502.
// (net/http/httputil's ReverseProxy does the same and more, but only these
// tests would import it: the last package's build would wait for it.)
func forwardTo(target *url.URL, tr http.RoundTripper) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		out := r.Clone(r.Context())
		out.URL.Scheme, out.URL.Host, out.Host, out.RequestURI = target.Scheme, target.Host, target.Host, ""
		resp, err := tr.RoundTrip(out)
		if err != nil {
			w.WriteHeader(http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		for k, v := range resp.Header {
			w.Header()[k] = v
		}
		w.WriteHeader(resp.StatusCode)
		_, _ = io.Copy(w, resp.Body)
	})
}

// establishPayout establishes a Disbursement of 0.00 to the sandbox's
// verified account, which deposits are then made from.
func establishPayout(t *testing.T, c *bankpay.Client, ref string) *models.Transaction {
	t.Helper()
	auth, err := c.Transactions.Establish(context.Background(), &models.EstablishData{
		PaymentType: models.PaymentTypeDisbursement, Currency: models.USD, Amount: "0.00", MerchantReference: ref,
		Account: &models.Account{AccountNumber: bankpaytest.AccountVerified, RoutingNumber: bankpaytest.SandboxRoutingNumber, NameOnAccount: "Jane Doe"},
	})
	require.NoError(t, err)
	return auth
}

// eventTransactions is the set of transaction ids whose events the sandbox
// sent with merchantReference ref: one per transaction it made.
func eventTransactions(sb *bankpaytest.Server, ref string) map[string]bool {
	ids := map[string]bool{}
	for _, e := range sb.Events() {
		if e.Raw.Get("merchantReference") == ref {
			ids[e.TransactionID] = true
		}
	}
	return ids
}

// formValue reads key from a form-encoded body.
func formValue(body []byte, key string) string {
	v, _ := url.ParseQuery(string(body))
	return v.Get(key)
}

// TestRetryingMiddlewareAgainstTheSandbox: go-retryablehttp's RoundTripper
// in WithTransport, and the sandbox's deposit response lost after it made
// the deposit (then a 503 for the middleware's retry, were it sent): the
// deposit reaches the sandbox once, the sandbox makes one deposit, and the
// caller is told it may have been made.
func TestRetryingMiddlewareAgainstTheSandbox(t *testing.T) {
	eachShape(t, func(t *testing.T, sh shape) {
		sb, s, tr := proxiedSandbox(t, sh)
		middleware := func(next http.RoundTripper) http.RoundTripper {
			rc := retryablehttp.NewClient()
			rc.HTTPClient = &http.Client{Transport: next}
			rc.RetryWaitMin, rc.RetryWaitMax, rc.Logger = time.Millisecond, 2*time.Millisecond, nil
			return &retryablehttp.RoundTripper{Client: rc}
		}
		c, err := bankpay.NewClient(sb.Credentials(), bankpay.WithBaseURL(s.URL+"/api/v1"),
			bankpay.WithHTTPClient(&http.Client{Transport: tr}), bankpay.WithTransport(middleware))
		require.NoError(t, err)
		ctx := context.Background()
		auth := establishPayout(t, c, "sb-mw-est")
		before := s.Requests()
		s.Script(faultinject.PassAndReset(), faultinject.Respond(503, `{"errors":[{"code":100,"message":"unavailable"}]}`))
		_, err = c.Transactions.Deposit(ctx, auth.TransactionID, &bankpay.DepositParams{MerchantReference: "sb-mw-dep", Amount: "10.00"})
		var ne *bankpay.NetworkError
		require.ErrorAs(t, err, &ne, "err %v", err)
		assert.True(t, ne.Sent)
		assert.ErrorContains(t, err, "second send of one attempt refused")
		assert.Equal(t, 1, s.Requests()-before, "the deposit reached the sandbox %d times", s.Requests()-before)
		sb.AdvanceBankingDays(4)
		ids := eventTransactions(sb, "sb-mw-dep")
		assert.Len(t, ids, 1, "deposits made")
	})
}
