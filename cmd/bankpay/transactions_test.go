package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	bankpay "github.com/bankpay/bankpay-go"
	"github.com/bankpay/bankpay-go/bankpaytest"
	"github.com/bankpay/bankpay-go/models"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFindLostCalls: a deposit, capture, refund and reclaim whose response
// was lost, each made after 55 others from the same transaction (past the
// sandbox's page of 50, which serves no itemsPerPage), is found by
// transactions find -original ID -ref REF.
func TestFindLostCalls(t *testing.T) {
	ctx := context.Background()
	const fillers = 55
	for _, tc := range []struct {
		name string
		typ  models.TransactionType
		path string
		// setup returns the transaction calls are made against, and the
		// call made with merchantReference ref.
		setup func(c *cli, sdk *bankpay.Client) (string, func(ref string) error)
	}{
		{"deposit", models.TypeDeposit, "deposit", func(c *cli, sdk *bankpay.Client) (string, func(string) error) {
			auth := c.disbursement("cli-rec-auth").TransactionID
			return auth, func(ref string) error {
				_, err := sdk.Transactions.Deposit(ctx, auth, &bankpay.DepositParams{MerchantReference: ref, Amount: "1.00"})
				return err
			}
		}},
		{"capture", models.TypeCapture, "capture", func(c *cli, sdk *bankpay.Client) (string, func(string) error) {
			auth := c.transferAuthorization("cli-rec-auth")
			return auth, func(ref string) error {
				_, err := sdk.Transactions.Capture(ctx, auth, transferCapture(ref, "1.00"))
				return err
			}
		}},
		{"refund", models.TypeRefund, "refund", func(c *cli, sdk *bankpay.Client) (string, func(string) error) {
			cp, err := sdk.Transactions.Capture(ctx, c.transferAuthorization("cli-rec-auth"), transferCapture("cli-rec-cap", "80.00"))
			require.NoError(c.t, err)
			c.srv.Advance(time.Minute)
			c.srv.AdvanceBankingDays(bankpaytest.CompletionBankingDays)
			return cp.TransactionID, func(ref string) error {
				_, err := sdk.Transactions.Refund(ctx, cp.TransactionID, &bankpay.RefundParams{MerchantReference: ref, Amount: "1.00"})
				return err
			}
		}},
		{"reclaim", models.TypeReclaim, "reclaim", func(c *cli, sdk *bankpay.Client) (string, func(string) error) {
			dep, err := sdk.Transactions.Deposit(ctx, c.disbursement("cli-rec-auth").TransactionID, &bankpay.DepositParams{MerchantReference: "cli-rec-dep", Amount: "100.00"})
			require.NoError(c.t, err)
			c.srv.Advance(time.Minute)
			c.srv.AdvanceBankingDays(bankpaytest.CompletionBankingDays)
			return dep.TransactionID, func(ref string) error {
				_, err := sdk.Transactions.Reclaim(ctx, dep.TransactionID, &bankpay.ReclaimParams{MerchantReference: ref, Amount: "1.00"})
				return err
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newCLI(t)
			sdk := c.srv.Client()
			original, call := tc.setup(c, sdk)
			for i := range fillers {
				require.NoError(t, call(fmt.Sprintf("cli-fill-%d", i)))
			}
			c.srv.LoseResponse(http.MethodPost, "/transactions/"+original+"/"+tc.path)
			var ne *bankpay.NetworkError
			require.ErrorAs(t, call("cli-lost"), &ne)
			require.True(t, ne.Sent)

			code, out, errOut := c.run("", "transactions", "find", "-original", original, "-ref", "cli-lost", "-type", tc.path)
			require.Equal(t, exitOK, code, errOut)
			assert.Regexp(t, fmt.Sprintf(`type\s+%s \(%d\)`, tc.typ, int(tc.typ)), out)
			assert.Regexp(t, `merchantReference\s+cli-lost`, out)
			assert.Regexp(t, `originalTransactionId\s+`+original, out)

			code, _, errOut = c.run("", "transactions", "find", "-original", original, "-ref", "cli-never", "-type", tc.path)
			assert.Equal(t, exitNotFound, code, errOut)
		})
	}
}

// transferAuthorization is an Authorized Deferred authorization of 100.00
// whose originator allows money-transfer captures.
func (c *cli) transferAuthorization(ref string) string {
	d := models.EstablishData{Description: "transfer", Currency: models.USD, Amount: "100.00", MerchantReference: ref,
		PaymentType: models.PaymentTypeDeferred, ReturnURL: "https://shop.example/return", CancelURL: "https://shop.example/cancel",
		Customer: &models.Customer{ExternalID: "sender-1", Name: "Maria Garcia",
			Address: &models.Address{Address1: "200 Oak Ave", City: "Austin", State: "TX", Zip: "73301", Country: "US"}}}
	require.NoError(c.t, c.srv.Client().SignEstablishData(&d))
	_, auth, err := c.srv.Authorize(d, bankpaytest.OutcomeAuthorize)
	require.NoError(c.t, err)
	return auth.TransactionID
}

// transferCapture is a money-transfer capture of amount.
func transferCapture(ref string, amount models.Amount) *bankpay.CaptureParams {
	return &bankpay.CaptureParams{MerchantReference: ref, Amount: amount,
		Beneficiary: &models.Beneficiary{Name: "Luis Garcia", DateOfBirth: "1990-07-21", TaxID: "GAXL900721",
			Address: &models.Address{Address1: "Calle 5", City: "Guadalajara", State: "JAL", Zip: "44100", Country: "MX"}},
		BeneficiaryAccount: &models.BeneficiaryAccount{AccountNumber: "012320001234567891", IBAN: "MX00000000000000000",
			PaymentProvider: &models.PaymentProvider{Name: "Banco Ejemplo", Country: "MX", Swift: "BEJEMXMM", RoutingNumber: "012320001"}},
		Remittance: &models.Remittance{WithdrawalMethod: models.WithdrawalBankDeposit, CountryCorridor: "MX", AccountLastFour: "7891"}}
}

// A lookup that cannot read the whole list exits 7, never 4: a page that
// fails after the first, a server that never ends its list, and the
// default deadline of a server that hangs.
func TestFindIncomplete(t *testing.T) {
	t.Parallel() // waits out a 200 ms timeout: beside the other waiting tests
	page := func(start int) string {
		items := make([]string, 50)
		for i := range items {
			items[i] = fmt.Sprintf(`{"transactionId":"T%d","originalTransactionId":"A1","merchantReference":"other"}`, start+i)
		}
		return `{"transactions":[` + strings.Join(items, ",") + `]}`
	}
	for name, handler := range map[string]http.HandlerFunc{
		"a failing page": func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Query().Get("startIndex") != "0" {
				w.WriteHeader(http.StatusNotFound)
				_, _ = w.Write([]byte(`{"errors":[{"code":200,"message":"not found"}]}`))
				return
			}
			_, _ = w.Write([]byte(page(0)))
		},
		"a list that never ends": func(w http.ResponseWriter, r *http.Request) {
			var start int
			_, _ = fmt.Sscan(r.URL.Query().Get("startIndex"), &start)
			_, _ = w.Write([]byte(page(start)))
		},
		"a server that hangs": nil, // below
	} {
		t.Run(name, func(t *testing.T) {
			stop := make(chan struct{})
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if name == "a server that hangs" {
					select {
					case <-r.Context().Done():
					case <-stop:
					}
					return
				}
				if strings.HasSuffix(r.URL.Path, "/transactions/A1") { // the original, an authorization
					_, _ = w.Write([]byte(`{"transaction":{"transactionId":"A1","transactionType":1,"status":2,"amount":"10.00"}}`))
					return
				}
				handler(w, r)
			}))
			t.Cleanup(func() { close(stop); srv.Close() })
			args := []string{"transactions", "find", "-original", "A1", "-ref", "mine", "-type", "deposit"}
			if name == "a server that hangs" {
				args = append([]string{"-timeout", "200ms"}, args...)
			}
			start := time.Now()
			code, _, errOut := runAgainst(srv, args...)
			assert.Equal(t, exitIncomplete, code, errOut)
			assert.Contains(t, errOut, "do not pay again")
			assert.Less(t, time.Since(start), time.Minute)
		})
	}
}

// transactions find needs -type, by a command's name, a type's name or its
// number; an -original of a type the call is not made from is exit 2
// naming it (never 4: the authorization given for a reclaim has no
// reclaims), and one that does not exist exit 7 (never 4).
func TestFindTypeAndOriginal(t *testing.T) {
	c := newCLI(t)
	auth := c.disbursement("cli-ft").TransactionID
	_, err := c.srv.Client().Transactions.Deposit(context.Background(), auth, &bankpay.DepositParams{MerchantReference: "cli-ft-1", Amount: "1.00"})
	require.NoError(t, err)
	find := func(original, ref string, typ ...string) (int, string, string) {
		args := []string{"transactions", "find", "-original", original, "-ref", ref}
		if len(typ) > 0 {
			args = append(args, "-type", typ[0])
		}
		return c.run("", args...)
	}
	for _, typ := range []string{"deposit", "Deposit", "6"} {
		code, out, errOut := find(auth, "cli-ft-1", typ)
		require.Equal(t, exitOK, code, "%s: %s", typ, errOut)
		assert.Regexp(t, `merchantReference\s+cli-ft-1`, out)
	}
	for _, typ := range []string{"preauthorize", "Preauthorization", "10", "capture"} {
		code, _, errOut := find(auth, "cli-ft-1", typ)
		assert.Equal(t, exitNotFound, code, "%s: no transaction of that type has the reference: %s", typ, errOut)
	}

	code, _, errOut := find(auth, "cli-ft-1", "reclaim")
	assert.Equal(t, exitUsage, code, errOut)
	assert.Contains(t, errOut, "originalTransactionId")
	assert.Contains(t, errOut, "Deposit (6)", "names the original a reclaim needs")
	assert.Contains(t, errOut, "nothing was concluded")

	code, _, errOut = find("999999999999999", "cli-ft-1", "deposit")
	assert.Equal(t, exitIncomplete, code, errOut)
	assert.Contains(t, errOut, "check OriginalTransactionID")

	sent := c.countRequests()
	for _, typ := range []string{"bogus", "authorize", "1", "deposit,capture", ""} {
		code, _, errOut := find(auth, "cli-ft-1", typ)
		assert.Equal(t, exitUsage, code, "%q: %s", typ, errOut)
		assert.Contains(t, errOut, "-type", typ)
	}
	code, _, _ = find(auth, "cli-ft-1")
	assert.Equal(t, exitUsage, code, "-type is required")
	assert.Zero(t, sent.Load(), "nothing sent")
}

// A fake service: GET /transactions/T1 returns a transaction whose payment
// carries a full account number, routing number and tax id; POST deposit
// gets a gateway 504 (the outcome is unknown: the upstream may have paid).
func fakeServiceWithPersonalData(t *testing.T) *httptest.Server {
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

func runAgainst(srv *httptest.Server, args ...string) (int, string, string) {
	vars := map[string]string{"BANKPAY_ACCESS_ID": "id", "BANKPAY_ACCESS_KEY": "secretkey0123456789", "BANKPAY_MERCHANT_ID": "m", "BANKPAY_BASE_URL": srv.URL}
	var out, errOut bytes.Buffer
	e := &env{getenv: func(k string) string { return vars[k] }, stdin: strings.NewReader(""), stdout: &out, stderr: &errOut}
	code := run(context.Background(), args, e)
	return code, out.String(), errOut.String()
}

// The -json output of a transaction prints the payment's full account
// number, routing number and the customer's tax id.
func TestTransactionsGet_JSONMasksAccountNumberAndTaxID(t *testing.T) {
	srv := fakeServiceWithPersonalData(t)
	code, out, _ := runAgainst(srv, "-json", "transactions", "get", "T1")
	require.Equal(t, 0, code, "exit %d", code)
	for _, s := range []string{"9876543210123", "123-45-6789", "1990-01-02"} {
		assert.NotContains(t, out, s, "output prints %q:\n%s", s, out)
	}
	// Masked, not dropped: the last 4 digits identify the account.
	assert.Contains(t, out, `"accountNumber": "*********0123"`, "output:\n%s", out)
	assert.Contains(t, out, `"taxId": "[redacted]"`, "output:\n%s", out)
}

// A deposit answered with a gateway 504 may have been paid: exit 5, not 1.
func TestDeposit_504IsOutcomeUnknown(t *testing.T) {
	srv := fakeServiceWithPersonalData(t)
	code, _, errOut := runAgainst(srv, "deposit", "-ref", "r1", "AUTH1")
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
			code, out, errOut := runAgainst(srv, args...)
			assert.Equal(t, exitUncertain, code, "%s %v: %s", body, args, errOut)
			assert.Empty(t, out, "%s %v", body, args)
		}
		srv.Close()
	}
}
