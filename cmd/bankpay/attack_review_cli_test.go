package main

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A fake service: GET /transactions/T1 returns a transaction whose payment
// carries a full account number, routing number and tax id; POST deposit
// gets a gateway 504 (the outcome is unknown: the upstream may have paid).
func attackReviewServer(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.Method == http.MethodGet {
			_, _ = w.Write([]byte(`{"transaction":{"transactionId":"T1","transactionType":1,"status":4,"amount":"10.00","currency":"USD",
"payment":{"paymentId":"P1","account":{"accountNumber":"9876543210123","routingNumber":"021000021"},
"customer":{"name":"Jane","taxId":"123-45-6789","dateOfBirth":"1990-01-02"}}}}`))
			return
		}
		w.WriteHeader(http.StatusGatewayTimeout)
		_, _ = w.Write([]byte(`<html>gateway timeout</html>`))
	}))
	t.Cleanup(srv.Close)
	return srv
}

func attackReviewRun(srv *httptest.Server, args ...string) (int, string, string) {
	vars := map[string]string{"BANKPAY_ACCESS_ID": "id", "BANKPAY_ACCESS_KEY": "secretkey0123456789", "BANKPAY_MERCHANT_ID": "m", "BANKPAY_BASE_URL": srv.URL}
	var out, errOut bytes.Buffer
	e := &env{getenv: func(k string) string { return vars[k] }, stdin: strings.NewReader(""), stdout: &out, stderr: &errOut}
	code := run(context.Background(), args, e)
	return code, out.String(), errOut.String()
}

// The -json output of a transaction prints the payment's full account
// number, routing number and the customer's tax id.
func TestAttackReviewCLIJSONPrintsAccountNumberAndTaxID(t *testing.T) {
	srv := attackReviewServer(t)
	code, out, _ := attackReviewRun(srv, "-json", "transactions", "get", "T1")
	require.Equal(t, 0, code, "exit %d", code)
	for _, s := range []string{"9876543210123", "123-45-6789", "1990-01-02"} {
		assert.NotContains(t, out, s, "output prints %q:\n%s", s, out)
	}
	// Masked, not dropped: the last 4 digits identify the account.
	assert.Contains(t, out, `"accountNumber": "*********0123"`, "output:\n%s", out)
	assert.Contains(t, out, `"taxId": "[redacted]"`, "output:\n%s", out)
}

// A deposit answered with a gateway 504 may have been paid: exit 5, not 1.
func TestAttackReviewCLIDeposit504IsOutcomeUnknown(t *testing.T) {
	srv := attackReviewServer(t)
	code, _, errOut := attackReviewRun(srv, "deposit", "-ref", "r1", "AUTH1")
	require.Equal(t, exitUncertain, code, "exit %d, want %d; stderr: %s", code, exitUncertain, errOut)
}

// A money command whose 2xx response has no transaction identity (no id,
// an empty one, no status) exits 5: the service accepted the call, its
// outcome must be looked up, never paid again; nothing is printed as if
// it were a transaction.
func TestMoneyCommandWithoutIdentityExitsUncertain(t *testing.T) {
	for _, body := range []string{`{"transaction":{}}`, `{"transaction":{"transactionId":""}}`, `{}`,
		`{"transaction":{"transactionId":"T1","transactionType":6,"amount":"5.00"}}`} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(body))
		}))
		for _, args := range [][]string{
			{"deposit", "-ref", "r", "-amount", "1.00", "100000000001001"},
			{"capture", "-ref", "r", "-amount", "1.00", "-split-token", "t", "100000000001001"},
			{"refund", "-ref", "r", "100000000001001"},
			{"reclaim", "-ref", "r", "-amount", "1.00", "100000000001001"},
			{"cancel", "100000000001001"},
		} {
			code, out, errOut := attackReviewRun(srv, args...)
			assert.Equal(t, exitUncertain, code, "%s %v: %s", body, args, errOut)
			assert.Empty(t, out, "%s %v", body, args)
		}
		srv.Close()
	}
}
