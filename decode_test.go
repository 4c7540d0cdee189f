package bankpay

import (
	"context"
	"encoding/json"
	"errors"
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

// A field of the wrong JSON type fails the call with a *ResponseError whose
// message names the field's JSON path (wrapped or bare), never the value;
// unknown fields and unknown enum values do not fail it.
func TestServiceCallWrongFieldType(t *testing.T) {
	for _, tc := range []struct{ body, path string }{
		{`{"transaction":{"transactionId":"T1","status":"abc"}}`, "transaction.status"},
		{`{"transaction":{"transactionId":"T1","amount":{}}}`, "transaction.amount"},
		{`{"transactionId":"T1","status":"abc"}`, "field status:"},
		{`{"transaction":{"transactionId":"T1","payment":{"account":{"accountNumber":["123456789"]}}}}`, "transaction.payment.account.accountNumber"},
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
		{"Balance", `{"accountBalance":{"account":{"type":"x"}}}`, "accountBalance.account.type",
			func(c *Client) error { _, err := c.Accounts.Balance(ctx, "T1"); return err }},
		{"Accounts.User", `{"user":{"name":"Jane"}}`, "user.name",
			func(c *Client) error { _, err := c.Accounts.User(ctx, "T1"); return err }},
		{"Summary", `{"summary":[{"aggregations":[{"days":"week"}]}]}`, "summary[0].aggregations[0].days",
			func(c *Client) error { _, err := c.Accounts.Summary(ctx, "T1"); return err }},
		{"Identity.User", `{"user":{"eligible":{}}}`, "user.eligible",
			func(c *Client) error { _, err := c.Identity.User(ctx, "T1"); return err }},
		{"Identity.Detail", `{"detail":{"attribute":[{"source":{"type":"x"}}]}}`, "detail.attribute[0].source.type",
			func(c *Client) error { _, err := c.Identity.Detail(ctx, "T1"); return err }},
		{"Customers.Update", `{"customer":{"vip":"gold"}}`, "customer.vip",
			func(c *Client) error {
				_, err := c.Customers.Update(ctx, "C1", &CustomerParams{})
				return err
			}},
		{"Tokenize", `{"merchantId":"1","account":{"verification":{"score":"high"}}}`, "account.verification.score",
			func(c *Client) error {
				_, err := c.Accounts.Tokenize(ctx, &TokenizeParams{AccountNumber: "12345678", RoutingNumber: "124003116"})
				return err
			}},
		{"Tokenize bare", `{"token":"t","verification":{"score":"high"}}`, "field verification.score",
			func(c *Client) error {
				_, err := c.Accounts.Tokenize(ctx, &TokenizeParams{AccountNumber: "12345678", RoutingNumber: "124003116"})
				return err
			}},
	} {
		c, mock, _ := newTestClient(t)
		sequence(t, mock, jsonResponse(200, tc.body))
		err := tc.call(c)
		require.ErrorIs(t, err, ErrInvalidResponse, tc.name)
		assert.Contains(t, err.Error(), tc.path, tc.name)
		assert.NotContains(t, err.Error(), "12345678", tc.name)
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
