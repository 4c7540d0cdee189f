package bankpay

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bankpay/bankpay-go/models"
)

// A Pay capture: the split token of the Authorize event instead of a
// beneficiary, escaped by the form encoding.
func TestTransactionsCapturePay(t *testing.T) {
	c, mock, _ := newTestClient(t)
	calls := expect(t, mock, wantRequest{Method: "POST", Path: capturePath, ContentType: "application/x-www-form-urlencoded",
		Body: "amount=25.00&interactionId=consumerNotPresent&merchantReference=pay-1&splitToken=c3Bs%2BdG9r%2FZW4%3D"}, 200, captureResponseJSON)
	txn, err := c.Transactions.Capture(context.Background(), "1002581234567", &CaptureParams{
		MerchantReference: "pay-1", Amount: "25.00", SplitToken: "c3Bs+dG9r/ZW4=", InteractionID: "consumerNotPresent"})
	require.NoError(t, err)
	assert.EqualValues(t, 1, calls.Load())
	assert.Equal(t, models.TypeCapture, txn.TransactionType)

	// A split token with a money transfer's fields sends both.
	c, mock, _ = newTestClient(t)
	expect(t, mock, wantRequest{Method: "POST", Path: capturePath, ContentType: "application/x-www-form-urlencoded",
		Body: "amount=5.00&beneficiary.address.country=MX&beneficiary.name=Ana+Ruiz&merchantReference=mt-9&splitToken=t"}, 200, captureResponseJSON)
	_, err = c.Transactions.Capture(context.Background(), "1002581234567", &CaptureParams{
		MerchantReference: "mt-9", Amount: "5.00", SplitToken: "t", Beneficiary: minimalBeneficiary()})
	require.NoError(t, err)
}

func TestTransactionsCapturePayRejects(t *testing.T) {
	for _, tc := range []struct {
		name  string
		p     *CaptureParams
		field string
	}{
		{"neither split token nor beneficiary", &CaptureParams{MerchantReference: "p", Amount: "1.00"}, "beneficiary.name"},
		{"split token, no reference", &CaptureParams{Amount: "1.00", SplitToken: "t"}, "merchantReference"},
		{"split token, no amount", &CaptureParams{MerchantReference: "p", SplitToken: "t"}, "amount"},
		{"split token, amount over 10 characters", &CaptureParams{MerchantReference: "p", Amount: "10000000.00", SplitToken: "t"}, "amount"},
		{"split token, beneficiary without country", &CaptureParams{MerchantReference: "p", Amount: "1.00", SplitToken: "t",
			Beneficiary: &models.Beneficiary{Name: "Ana Ruiz"}}, "beneficiary.address.country"},
		{"money transfer, amount over 10 characters", &CaptureParams{MerchantReference: "p", Amount: "10000000.00",
			Beneficiary: minimalBeneficiary()}, "amount"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkRejected(t, tc.field, func(c *Client) error {
				_, err := c.Transactions.Capture(context.Background(), "1002581234567", tc.p)
				return err
			})
		})
	}
}
