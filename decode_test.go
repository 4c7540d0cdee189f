package bankpay

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bankpay/bankpay-go/internal/wire"
	"github.com/bankpay/bankpay-go/internal/wire/tolerant"
	"github.com/bankpay/bankpay-go/models"
)

// decodeResponse reads the spec's wrapped shape and the OpenAPI's bare shape
// to the same value; a null wrapper or an empty bare object is an error.
func TestDecodeResponseWrappedOrBare(t *testing.T) {
	wrapped, err := decodeResponse[models.Transaction]([]byte(`{"transaction":{"transactionId":"T7","status":"2"}}`), "transaction", "GET", "/p")
	require.NoError(t, err)
	bare, err := decodeResponse[models.Transaction]([]byte(`{"transactionId":"T7","status":2}`), "transaction", "GET", "/p")
	require.NoError(t, err)
	assert.Equal(t, wrapped, bare)
	assert.Equal(t, models.StatusAuthorized, bare.Status)

	empty, err := decodeResponse[models.IdentityUser]([]byte(`{"user":{}}`), "user", "GET", "/p")
	require.NoError(t, err, "a wrapper holding an empty object is an (empty) response, as before")
	assert.Equal(t, &models.IdentityUser{}, empty)

	for _, body := range []string{`{"transaction":null}`, `{}`, `{"unknown":1}`, `[]`, `"x"`, `null`} {
		_, err := decodeResponse[models.Transaction]([]byte(body), "transaction", "GET", "/p")
		var re *ResponseError
		require.True(t, errors.As(err, &re), "%s: %v", body, err)
		assert.ErrorIs(t, err, ErrInvalidResponse, body)
		assert.Equal(t, "GET", re.Method)
		assert.Equal(t, "/p", re.Path)
	}
}

// A field of the identity of the result (a transaction's id, type, status,
// amount) of the wrong JSON type fails the call with a *ResponseError whose
// message names the field's JSON path (wrapped or bare), never the value;
// unknown fields and unknown enum values do not fail it.
func TestServiceCallWrongFieldType(t *testing.T) {
	for _, tc := range []struct{ body, path string }{
		{`{"transaction":{"transactionId":"T1","status":"abc"}}`, "transaction.status"},
		{`{"transaction":{"transactionId":"T1","amount":{}}}`, "transaction.amount"},
		{`{"transactionId":"T1","status":"abc"}`, "field status:"},
		{`{"transaction":{"transactionId":"T1","transactionType":["123456789"]}}`, "transaction.transactionType"},
	} {
		c, mock, _ := newTestClient(t)
		expect(t, mock, wantRequest{Method: "GET", Path: "/api/v1/transactions/T1"}, 200, tc.body)
		txn, err := c.Transactions.Get(context.Background(), "T1")
		assert.Nil(t, txn)
		var re *ResponseError
		require.True(t, errors.As(err, &re), "%s: %v", tc.body, err)
		assert.ErrorIs(t, err, ErrInvalidResponse)
		var fe *tolerant.FieldError
		assert.True(t, errors.As(err, &fe), "the cause is a *tolerant.FieldError")
		assert.Contains(t, err.Error(), tc.path)
		assert.NotContains(t, err.Error(), "123456789")
		assertNoSecret(t, err.Error())
	}

	c, mock, _ := newTestClient(t)
	expect(t, mock, wantRequest{Method: "GET", Path: "/api/v1/transactions/T1"}, 200,
		`{"transaction":{"transactionId":"T1","status":"77","transactionType":"55","brandNew":{"a":[1]},"paymentProviderTransaction":{"status":"QQ1"}}}`)
	txn, err := c.Transactions.Get(context.Background(), "T1")
	require.NoError(t, err)
	assert.Equal(t, models.TransactionStatus(77), txn.Status)
	assert.Equal(t, models.TransactionType(55), txn.TransactionType)
	assert.Equal(t, models.ProviderStatus("QQ1"), txn.PaymentProviderTransaction.Status)
}

// Every call that reads a wrong type names the path under its own wrapper.
func TestServiceCallsNameFieldPath(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name, body, path string
		call             func(c *Client) error
	}{
		{"Identity.User", `{"user":{"eligible":{}}}`, "user.eligible",
			func(c *Client) error { _, err := c.Identity.User(ctx, "T1"); return err }},
		{"Identity.Detail", `{"detail":{"verification":[{"verificationName":"kyc","result":1}]}}`, "",
			func(c *Client) error { _, err := c.Identity.Detail(ctx, "T1"); return err }},
		{"Payments.Get", `{"paymentId":"P1","amount":"1.00","customer":{"vip":"12345678"}}`, "",
			func(c *Client) error { _, err := c.Payments.Get(ctx, "P1"); return err }},
		{"Refund", `{"transaction":{"transactionId":"R1","status":"xx 12345678"}}`, "transaction.status",
			func(c *Client) error { _, err := c.Transactions.Refund(ctx, "T1", nil); return err }},
		{"Dispute", `{"transactionId":"R1","amount":["12345678"]}`, "field amount",
			func(c *Client) error {
				_, err := c.Disputes.Create(ctx, &DisputeParams{TransactionID: "T1", Amount: "1.00"})
				return err
			}},
	} {
		if tc.path == "" {
			continue // see TestLeftUnsetIsLoggedWithoutValue
		}
		c, mock, _ := newTestClient(t)
		sequence(t, mock, jsonResponse(200, tc.body))
		err := tc.call(c)
		require.ErrorIs(t, err, ErrInvalidResponse, tc.name)
		assert.Contains(t, err.Error(), tc.path, tc.name)
		assert.NotContains(t, err.Error(), "12345678", tc.name)
	}
}

// A 2xx answer to a call that changed state (refund, cancel, reclaim,
// dispute recovery) is never turned into a failure by a field the SDK can
// do without: its identity decodes, every other field the Go type cannot
// hold is left unset (never a zero that means something), and each is
// logged at debug level with its JSON path, never its value.
func TestLeftUnsetAfterStateChange(t *testing.T) {
	ctx := context.Background()
	calls := map[string]func(c *Client) (*models.Transaction, error){
		"Refund": func(c *Client) (*models.Transaction, error) {
			return c.Transactions.Refund(ctx, "T1", &RefundParams{Amount: "5.00"})
		},
		"Cancel": func(c *Client) (*models.Transaction, error) {
			return c.Transactions.Cancel(ctx, "T1", &CancelParams{MerchantReference: "c-1"})
		},
		"Reclaim": func(c *Client) (*models.Transaction, error) {
			return c.Transactions.Reclaim(ctx, "T1", &ReclaimParams{Amount: "5.00"})
		},
		"Dispute": func(c *Client) (*models.Transaction, error) {
			return c.Disputes.Create(ctx, &DisputeParams{TransactionID: "T1", Amount: "5.00"})
		},
	}
	const secret = "4111222233334444"
	for _, tc := range []struct {
		name, fields string
		unset        []string
		check        func(t *testing.T, tr *models.Transaction)
	}{
		{"account.type an object", `"payment":{"paymentId":"P1","account":{"name":"Main","type":{"code":"` + secret + `"}}}`,
			[]string{"payment.account"}, func(t *testing.T, tr *models.Transaction) {
				require.NotNil(t, tr.Payment)
				assert.Equal(t, "P1", tr.Payment.PaymentID)
				assert.Nil(t, tr.Payment.Account, "never type 0 (Other): the account is unset")
			}},
		{"createdAt an object", `"createdAt":{"epoch":"` + secret + `"},"updatedAt":"1700000000000"`,
			[]string{"createdAt"}, func(t *testing.T, tr *models.Transaction) {
				assert.True(t, tr.CreatedAt.Time().IsZero(), "unset: no time")
				assert.Equal(t, models.EpochMillis(1700000000000), tr.UpdatedAt)
			}},
		{"customer.address a number", `"payment":{"customer":{"name":"Ada","address":` + secret + `}}`,
			[]string{"payment.customer.address"}, func(t *testing.T, tr *models.Transaction) {
				assert.Equal(t, "Ada", tr.Payment.Customer.Name)
				assert.Nil(t, tr.Payment.Customer.Address)
			}},
		{"authorizationStatus a word", `"payment":{"authorizationStatus":"acct ` + secret + `"}`,
			[]string{"payment.authorizationStatus"}, func(t *testing.T, tr *models.Transaction) {
				assert.Nil(t, tr.Payment.AuthorizationStatus, "unset, never 0 (New)")
			}},
		{"vip a word", `"payment":{"customer":{"vip":"low-risk"}}`,
			[]string{"payment.customer.vip"}, func(t *testing.T, tr *models.Transaction) {
				assert.Nil(t, tr.Payment.Customer.VIP, "unset, never 0 (removes VIP)")
				assert.Equal(t, "low-risk", tr.Payment.Customer.VIPText)
			}},
		{"several at once", `"recordVersion":"v` + secret + `","paymentProviderTransaction":{"status":["AC100"],"statusMessage":"ok"},"balance":{}`,
			[]string{"balance", "paymentProviderTransaction.status", "recordVersion"}, func(t *testing.T, tr *models.Transaction) {
				assert.Equal(t, 0, tr.RecordVersion)
				assert.Equal(t, "ok", tr.PaymentProviderTransaction.StatusMessage)
				assert.Equal(t, models.Amount(""), tr.Balance)
			}},
	} {
		for name, call := range calls {
			for _, wrapped := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/%s/wrapped=%v", tc.name, name, wrapped), func(t *testing.T) {
					var logs bytes.Buffer
					logger := slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
					c, mock, _ := newTestClient(t, WithLogger(logger))
					body := `{"transactionId":"R1","transactionType":4,"status":1,"amount":"5.00",` + tc.fields + `}`
					prefix := ""
					if wrapped {
						body, prefix = `{"transaction":`+body+`}`, "transaction."
					}
					sequence(t, mock, jsonResponse(200, body))
					tr, err := call(c)
					require.NoError(t, err, "a 2xx after the state changed is never a failure")
					assert.Equal(t, "R1", tr.TransactionID)
					assert.Equal(t, models.StatusPending, tr.Status)
					assert.Equal(t, models.TypeRefund, tr.TransactionType)
					assert.Equal(t, models.Amount("5.00"), tr.Amount)
					tc.check(t, tr)

					var got []string
					for _, line := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
						var rec struct{ Level, Msg, Field, Reason string }
						require.NoError(t, json.Unmarshal([]byte(line), &rec), line)
						if rec.Msg == "bankpay: response field left unset" {
							assert.Equal(t, "DEBUG", rec.Level)
							got = append(got, rec.Field)
						}
					}
					sort.Strings(got)
					var want []string
					for _, p := range tc.unset {
						want = append(want, prefix+p)
					}
					assert.Equal(t, want, got)
					assert.NotContains(t, logs.String(), secret, "a value left unset is never logged")
					assert.NotContains(t, logs.String(), "low-risk", "a value left unset is never logged")
				})
			}
		}
	}
}

// BenchmarkDecodeResponse compares the tolerant wrapped-or-bare read of a
// transaction with a plain json.Unmarshal of the same wrapped body.
func BenchmarkDecodeResponse(b *testing.B) {
	body := []byte(`{"transaction":` + goldenTxnBody(numEncs[0].n, 1) + `}`)
	b.Run("decodeResponse", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if _, err := decodeResponse[models.Transaction](body, "transaction", "GET", "/p"); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("json.Unmarshal", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			var env wire.TransactionEnvelope
			if err := json.Unmarshal(body, &env); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// topMember agrees with encoding/json on where a top-level member is, and
// declines (scanned false) what it cannot scan simply.
func TestTopMember(t *testing.T) {
	for _, tc := range []struct {
		raw            string
		value          string
		found, scanned bool
	}{
		{`{"transaction":{"a":1}}`, `{"a":1}`, true, true},
		{` { "x" : [1,{"transaction":2}] , "transaction" : {"b":"}\""} } `, `{"b":"}\""}`, true, true},
		{`{"transactionId":"1","status":2}`, ``, false, true},
		{`{}`, ``, false, true},
		{`{"transaction":null}`, `null`, true, true},
		{`{"transaction":"s"}`, `"s"`, true, true},
		{`{"tr\u0061nsaction":{}}`, ``, false, false},
		{`[1]`, ``, false, false},
		{`{"transaction":{}`, ``, false, false},
		{`{"a" 1}`, ``, false, false},
	} {
		v, found, scanned := topMember([]byte(tc.raw), "transaction")
		assert.Equal(t, tc.scanned, scanned, tc.raw)
		assert.Equal(t, tc.found, found, tc.raw)
		assert.Equal(t, tc.value, strings.TrimSpace(string(v)), tc.raw)
	}
}
