package bankpay

import (
	"context"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/bankpay/bankpay-go/models"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const depositResponseJSON = `{"transaction":{
  "transactionId":"1002590000001","transactionType":6,"originalTransactionId":"1002581234567",
  "payment":{"paymentId":"1002581234568","paymentType":2,"merchantId":"1002463580","amount":"10.00","currency":"USD",
    "account":{"name":"Checking","type":1,"accountNumber":"1234","verified":true},
    "paymentProvider":{"paymentProviderId":"051000017","name":"Demo Bank","instantPayoutAvailable":true,"type":1}},
  "currency":"USD","amount":"10.00",
  "paymentProviderTransaction":{"paymentProviderTransactionId":"pp-77","status":1,"statusMessage":"Submitted","instantSettle":true},
  "status":2,"statusMessage":"Authorized","createdAt":"1700000500000","merchantReference":"payout-42",
  "paymentProcessorType":"RTP","recordVersion":1}}`

const depositPath = "/api/v1/transactions/1002581234567/deposit"

func TestTransactions_Deposit(t *testing.T) {
	c, mock, _ := newTestClient(t)
	calls := expect(t, mock, wantRequest{Method: "POST", Path: depositPath,
		ContentType: "application/x-www-form-urlencoded",
		Body:        "amount=10.00&instantPayoutRequest=true&merchantReference=payout-42"}, 200, depositResponseJSON)

	p := &DepositParams{MerchantReference: "payout-42", Amount: "10.00", InstantPayoutRequest: true, AuthorizationAmount: "0.00"}
	txn, err := c.Transactions.Deposit(context.Background(), "1002581234567", p)
	require.NoError(t, err)
	require.Equal(t, int32(1), calls.Load(), "calls = %d", calls.Load())
	assert.Equal(t, "1002590000001", txn.TransactionID, "decoded %+v", txn)
	assert.Equal(t, models.TypeDeposit, txn.TransactionType, "decoded %+v", txn)
	assert.Equal(t, models.StatusAuthorized, txn.Status, "decoded %+v", txn)
	assert.Equal(t, "1002581234567", txn.OriginalTransactionID, "decoded %+v", txn)
	assert.Equal(t, models.Amount("10.00"), txn.Amount, "fields %+v", txn)
	assert.Equal(t, "RTP", txn.PaymentProcessorType, "fields %+v", txn)
	assert.Equal(t, "payout-42", txn.MerchantReference, "fields %+v", txn)
	assert.True(t, txn.CreatedAt.Time().Equal(time.UnixMilli(1700000500000)), "fields %+v", txn)
	pt := txn.PaymentProviderTransaction
	if assert.NotNil(t, pt, "provider transaction %+v", pt) && assert.NotNil(t, pt.InstantSettle, "provider transaction %+v", pt) {
		assert.True(t, *pt.InstantSettle, "provider transaction %+v", pt)
	}
	assert.Equal(t, DepositParams{MerchantReference: "payout-42", Amount: "10.00", InstantPayoutRequest: true, AuthorizationAmount: "0.00"}, *p,
		"params modified: %+v", p)
}

func TestTransactions_DepositMinimal(t *testing.T) {
	// No amount (the full authorization amount is used), no instant payout,
	// and authorizationAmount, which is never sent.
	c, mock, _ := newTestClient(t)
	expect(t, mock, wantRequest{Method: "POST", Path: depositPath,
		ContentType: "application/x-www-form-urlencoded", Body: "merchantReference=payout+43%2Fx%3Fy%231"}, 200, depositResponseJSON)
	p := &DepositParams{MerchantReference: "payout 43/x?y#1", AuthorizationAmount: "50.00"}
	_, err := c.Transactions.Deposit(context.Background(), "1002581234567", p)
	require.NoError(t, err)
}

func TestTransactions_DepositUpToAuthorizationAmount(t *testing.T) {
	c, mock, _ := newTestClient(t)
	expect(t, mock, wantRequest{Method: "POST", Path: depositPath,
		ContentType: "application/x-www-form-urlencoded", Body: "amount=50.00&merchantReference=payout-44"}, 200, depositResponseJSON)
	p := &DepositParams{MerchantReference: "payout-44", Amount: "50.00", AuthorizationAmount: "50.00"}
	_, err := c.Transactions.Deposit(context.Background(), "1002581234567", p)
	require.NoError(t, err)
}

func TestTransactions_DepositEscapesID(t *testing.T) {
	c, mock, _ := newTestClient(t)
	expect(t, mock, wantRequest{Method: "POST", Path: "/api/v1/transactions/..%2Fcustomers/deposit",
		ContentType: "application/x-www-form-urlencoded", Body: "merchantReference=r"}, 200, withField(depositResponseJSON, "originalTransactionId", "../customers"))
	_, err := c.Transactions.Deposit(context.Background(), "../customers", &DepositParams{MerchantReference: "r"})
	require.NoError(t, err)
}

func TestTransactions_DepositRejects(t *testing.T) {
	for _, tc := range []struct {
		name  string
		id    string
		p     *DepositParams
		field string
	}{
		{"empty id", "", &DepositParams{MerchantReference: "r"}, "transactionId"},
		{"dot-dot id", "..", &DepositParams{MerchantReference: "r"}, "transactionId"},
		{"nil params", "1", nil, "depositParams"},
		{"no merchantReference", "1", &DepositParams{Amount: "10.00"}, "merchantReference"},
		{"amount without places", "1", &DepositParams{MerchantReference: "r", Amount: "10"}, "amount"},
		{"amount negative", "1", &DepositParams{MerchantReference: "r", Amount: "-5.00"}, "amount"},
		{"amount float-like", "1", &DepositParams{MerchantReference: "r", Amount: "1e3"}, "amount"},
		{"amount zero", "1", &DepositParams{MerchantReference: "r", Amount: "0.00"}, "amount"},
		{"amount zero after 0.00 authorization", "1", &DepositParams{MerchantReference: "r", Amount: "0.00", AuthorizationAmount: "0.00"}, "amount"},
		{"amount zero under authorization", "1", &DepositParams{MerchantReference: "r", Amount: "0.00", AuthorizationAmount: "50.00"}, "amount"},
		{"authorizationAmount bad", "1", &DepositParams{MerchantReference: "r", Amount: "1.00", AuthorizationAmount: "abc"}, "authorizationAmount"},
		{"amount required after 0.00 authorization", "1", &DepositParams{MerchantReference: "r", AuthorizationAmount: "0.00"}, "amount"},
		{"amount over authorization", "1", &DepositParams{MerchantReference: "r", Amount: "50.01", AuthorizationAmount: "50.00"}, "amount"},
		{"amount far over authorization", "1", &DepositParams{MerchantReference: "r", Amount: "1000.00", AuthorizationAmount: "999.99"}, "amount"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkRejected(t, tc.field, func(c *Client) error {
				_, err := c.Transactions.Deposit(context.Background(), tc.id, tc.p)
				return err
			})
		})
	}
}

func TestTransactions_DepositErrors(t *testing.T) {
	checkErrorResponses(t, wantRequest{Method: "POST", Path: depositPath,
		ContentType: "application/x-www-form-urlencoded", Body: "amount=10.00&merchantReference=payout-42"},
		func(c *Client) error {
			_, err := c.Transactions.Deposit(context.Background(), "1002581234567",
				&DepositParams{MerchantReference: "payout-42", Amount: "10.00"})
			return err
		})
}

func TestTransactions_DepositRetriedOnlyWithOptIn(t *testing.T) {
	// With RetryNonIdempotent the same body is sent again after a 500.
	c, mock, w := newTestClient(t)
	var bodies []string
	record := func(req *http.Request) {
		b, _ := io.ReadAll(req.Body)
		bodies = append(bodies, string(b))
	}
	calls := sequence(t, mock,
		func(req *http.Request) (*http.Response, error) {
			record(req)
			return jsonResponse(500, `{"errors":[{"code":100,"message":"Internal error"}]}`)(req)
		},
		func(req *http.Request) (*http.Response, error) {
			record(req)
			return jsonResponse(200, depositResponseJSON)(req)
		})
	txn, err := c.Transactions.Deposit(context.Background(), "1002581234567",
		&DepositParams{MerchantReference: "payout-42", Amount: "10.00"}, WithRetryNonIdempotent())
	require.NoError(t, err)
	require.Equal(t, int32(2), calls.Load(), "calls = %d, waits = %v, txn = %+v", calls.Load(), w.list, txn)
	require.Len(t, w.list, 1, "calls = %d, waits = %v, txn = %+v", calls.Load(), w.list, txn)
	require.Equal(t, models.TypeDeposit, txn.TransactionType, "calls = %d, waits = %v, txn = %+v", calls.Load(), w.list, txn)
	want := "amount=10.00&merchantReference=payout-42"
	if assert.Len(t, bodies, 2, "bodies = %q", bodies) {
		assert.Equal(t, want, bodies[0], "bodies = %q", bodies)
		assert.Equal(t, want, bodies[1], "bodies = %q", bodies)
	}
}

func TestTransactions_DepositZeroAmountReason(t *testing.T) {
	err := (&DepositParams{MerchantReference: "r", Amount: "0.00"}).validate()
	ve, ok := err.(*ValidationError)
	require.True(t, ok, "err = %v", err)
	require.Equal(t, "amount", ve.Field, "err = %v", err)
	require.Equal(t, "must be greater than 0.00", ve.Reason, "err = %v", err)
	// The smallest amount passes.
	err = (&DepositParams{MerchantReference: "r", Amount: "0.01", AuthorizationAmount: "0.00"}).validate()
	require.NoError(t, err, "0.01: %v", err)
}

func TestDepositExternalTier(t *testing.T) {
	c, mock, _ := newTestClient(t)
	calls := expect(t, mock, wantRequest{Method: "POST", Path: "/api/v1/transactions/T1/deposit", ContentType: "application/x-www-form-urlencoded",
		Body: "externalTier=Gold+4%2A&merchantReference=payout-45"}, 200, withField(depositResponseJSON, "originalTransactionId", "T1"))
	_, err := c.Transactions.Deposit(context.Background(), "T1", &DepositParams{MerchantReference: "payout-45", ExternalTier: "Gold 4*"})
	require.NoError(t, err)
	assert.Equal(t, int32(1), calls.Load())
	checkRejected(t, "externalTier", func(c *Client) error {
		_, err := c.Transactions.Deposit(context.Background(), "T1", &DepositParams{MerchantReference: "payout-45", ExternalTier: "vip\n"})
		return err
	})
}

// A deposit's amount is capped at the OpenAPI's 10 characters, as
// capture's, refund's and reclaim's are: a longer one is a
// *ValidationError on amount and nothing is sent.
func TestTransactions_DepositAmountChars(t *testing.T) {
	for _, a := range []models.Amount{"10000000.00", "99999999999.99"} {
		checkRejected(t, "amount", func(c *Client) error {
			_, err := c.Transactions.Deposit(context.Background(), "A1", &DepositParams{MerchantReference: "r", Amount: a})
			return err
		})
	}
	c, mock, _ := newTestClient(t)
	calls := expect(t, mock, wantRequest{Method: "POST", Path: "/api/v1/transactions/A1/deposit",
		ContentType: "application/x-www-form-urlencoded", Body: "amount=9999999.99&merchantReference=r"}, 200, withField(depositResponseJSON, "originalTransactionId", "A1"))
	_, err := c.Transactions.Deposit(context.Background(), "A1", &DepositParams{MerchantReference: "r", Amount: "9999999.99"})
	require.NoError(t, err, "10 characters are sent")
	assert.Equal(t, int32(1), calls.Load())
}

// A negative amount says so (it said "must be a decimal with two places").
func TestNegativeAmountReason(t *testing.T) {
	c, _, _ := newTestClient(t)
	_, err := c.Transactions.Deposit(context.Background(), "A1", &DepositParams{MerchantReference: "r", Amount: "-1.00"})
	var ve *ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, "amount", ve.Field)
	assert.Contains(t, ve.Reason, "must be positive")
	_, err = c.Transactions.Refund(context.Background(), "C1", &RefundParams{Amount: "-1.00"})
	require.ErrorAs(t, err, &ve)
	assert.Contains(t, ve.Reason, "must be positive")
	_, err = c.Transactions.Deposit(context.Background(), "A1", &DepositParams{MerchantReference: "r", Amount: "1.00", AuthorizationAmount: "-1.00"})
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, "authorizationAmount", ve.Field)
	assert.Equal(t, "must not be negative", ve.Reason)
	_, err = c.Transactions.Deposit(context.Background(), "A1", &DepositParams{MerchantReference: "r", Amount: "-1"})
	require.ErrorAs(t, err, &ve)
	assert.Contains(t, ve.Reason, "two places", "a malformed amount is still called malformed")
}
