package bankpay

import (
	"context"
	"errors"
	"testing"

	"github.com/bankpay/bankpay-go/models"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// WithExpand adds one expand parameter per field to the calls that take
// it, and is refused by every other call and by NewClient.
func TestWithExpand(t *testing.T) {
	const userPath = "/api/v1/transactions/T1/payment/paymentProvider/user"
	c, mock, _ := newTestClient(t)
	calls := expect(t, mock, wantRequest{Method: "GET", Path: userPath, RawQuery: "expand=customer.segmentedName&expand=contact"},
		200, `{"user":{"name":["Jane Doe"],"segmentedName":{"firstName":"Jane","lastName":"Doe"}}}`)
	u, err := c.Accounts.User(context.Background(), "T1", WithExpand("customer.segmentedName"), WithExpand("contact"))
	require.NoError(t, err)
	assert.Equal(t, int32(1), calls.Load())
	require.NotNil(t, u.SegmentedName)
	assert.Equal(t, "Doe", u.SegmentedName.LastName)

	// Without the option nothing is added, and the option given to one
	// call leaves the next alone.
	c, mock, _ = newTestClient(t)
	calls = expect(t, mock, wantRequest{Method: "GET", Path: userPath}, 200, bankUserJSON)
	_, err = c.Accounts.User(context.Background(), "T1", WithExpand())
	require.NoError(t, err)
	_, err = c.Accounts.User(context.Background(), "T1")
	require.NoError(t, err)
	assert.Equal(t, int32(2), calls.Load())

	c, mock, _ = newTestClient(t)
	calls = expect(t, mock, wantRequest{Method: "GET", Path: "/api/v1/transactions/T1/user", RawQuery: "expand=segmentedName"},
		200, `{"user":{"name":"Jane Doe","eligible":true,"segmentedName":{"firstName":"Jane","lastName":"Doe"}}}`)
	iu, err := c.Identity.User(context.Background(), "T1", WithExpand("segmentedName"))
	require.NoError(t, err)
	assert.Equal(t, int32(1), calls.Load())
	require.NotNil(t, iu.SegmentedName)
	assert.Equal(t, "Jane", iu.SegmentedName.FirstName)

	// Identity.Detail takes verification (the OpenAPI's one value).
	c, mock, _ = newTestClient(t)
	calls = expect(t, mock, wantRequest{Method: "GET", Path: "/api/v1/transactions/T1/user/detail", RawQuery: "expand=verification"},
		200, `{"detail":{"verification":[{"verificationName":"kyc","result":"1","reasons":[{"code":100,"reason":"matched"}]}]}}`)
	d, err := c.Identity.Detail(context.Background(), "T1", WithExpand("verification"))
	require.NoError(t, err)
	assert.Equal(t, int32(1), calls.Load())
	require.Len(t, d.Verification, 1)
	assert.Equal(t, []models.VerificationReason{{Code: 100, Reason: "matched"}}, d.Verification[0].Reasons)
}

func TestWithExpandRefused(t *testing.T) {
	ctx := context.Background()
	for name, call := range map[string]func(*Client) error{
		"Accounts.Balance": func(c *Client) error { _, err := c.Accounts.Balance(ctx, "T1", WithExpand("names")); return err },
		"Transactions.Get": func(c *Client) error { _, err := c.Transactions.Get(ctx, "T1", WithExpand("names")); return err },
		"Customers.Get":    func(c *Client) error { _, err := c.Customers.Get(ctx, "1", WithExpand("names")); return err },
		"Deposit": func(c *Client) error {
			_, err := c.Transactions.Deposit(ctx, "T1", &DepositParams{MerchantReference: "r"}, WithExpand("names"))
			return err
		},
		"empty field":    func(c *Client) error { _, err := c.Accounts.User(ctx, "T1", WithExpand("names", "")); return err },
		"space in field": func(c *Client) error { _, err := c.Accounts.User(ctx, "T1", WithExpand("a b")); return err },
		"& in field":     func(c *Client) error { _, err := c.Accounts.User(ctx, "T1", WithExpand("a&b=c")); return err },
	} {
		t.Run(name, func(t *testing.T) { checkRejected(t, "expand", call) })
	}
	_, err := NewClient(testCreds, WithExpand("names"))
	var ve *ValidationError
	require.True(t, errors.As(err, &ve), "err = %v", err)
	assert.Equal(t, "opts", ve.Field, "WithExpand configures a call, not a Client")
}
