package bankpay

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bankpay/bankpay-go/models"
)

const preauthPath = "/api/v1/transactions/1002581234567/capture/preAuth"

const preauthResponseJSON = `{"transaction":{"transactionId":"1002600000020","transactionType":10,
  "originalTransactionId":"1002581234567","currency":"USD","amount":"80.00","status":2,"statusMessage":"Authorized",
  "paymentProviderTransaction":{"status":"AC107","statusMessage":"waiting for capture"},
  "expiredAt":1700010800000,"preAuthorized":true,"merchantReference":"pa-1","recordVersion":1}}`

func TestTransactionsPreauthorize(t *testing.T) {
	c, mock, _ := newTestClient(t)
	// Form-encoded, sorted, the split token's '+', '/' and '=' escaped.
	calls := expect(t, mock, wantRequest{Method: "POST", Path: preauthPath, ContentType: "application/x-www-form-urlencoded",
		Body: "amount=80.00&externalTier=vip&interactionId=consumerNotPresent&merchantReference=pa-1" +
			"&metadata.remittance.withdrawalMethod=Cash&period=3&splitToken=c3Bs%2BdG9r%2FZW4%3D"}, 200, preauthResponseJSON)
	pa, err := c.Transactions.Preauthorize(context.Background(), "1002581234567", &PreauthorizeParams{
		MerchantReference: "pa-1", Amount: "80.00", Period: 3, SplitToken: "c3Bs+dG9r/ZW4=",
		ExternalTier: "vip", WithdrawalMethod: models.WithdrawalCash, InteractionID: "consumerNotPresent",
	})
	require.NoError(t, err)
	assert.EqualValues(t, 1, calls.Load())
	assert.Equal(t, models.TypePreauthorization, pa.TransactionType)
	assert.Equal(t, "1002581234567", pa.OriginalTransactionID)
	assert.Equal(t, models.EpochMillis(1700010800000), pa.ExpiredAt)
	assert.True(t, pa.PreAuthorized)

	// The minimum: reference, amount, period.
	c, mock, _ = newTestClient(t)
	expect(t, mock, wantRequest{Method: "POST", Path: preauthPath, ContentType: "application/x-www-form-urlencoded",
		Body: "amount=1.00&merchantReference=pa-2&period=6"}, 200,
		`{"transactionId":"1002600000021","transactionType":"10","status":"2","preAuthorized":true}`)
	pa, err = c.Transactions.Preauthorize(context.Background(), "1002581234567", &PreauthorizeParams{MerchantReference: "pa-2", Amount: "1.00", Period: 6})
	require.NoError(t, err)
	assert.Equal(t, models.TypePreauthorization, pa.TransactionType)
}

func TestTransactionsPreauthorizeRejects(t *testing.T) {
	ok := func() *PreauthorizeParams {
		return &PreauthorizeParams{MerchantReference: "pa", Amount: "10.00", Period: 1}
	}
	with := func(f func(*PreauthorizeParams)) *PreauthorizeParams { p := ok(); f(p); return p }
	for _, tc := range []struct {
		name, id string
		p        *PreauthorizeParams
		field    string
	}{
		{"empty id", "", ok(), "transactionId"},
		{"nil params", "1", nil, "preauthorizeParams"},
		{"no reference", "1", with(func(p *PreauthorizeParams) { p.MerchantReference = "" }), "merchantReference"},
		{"reference with +", "1", with(func(p *PreauthorizeParams) { p.MerchantReference = "a+b" }), "merchantReference"},
		{"no amount", "1", with(func(p *PreauthorizeParams) { p.Amount = "" }), "amount"},
		{"amount zero", "1", with(func(p *PreauthorizeParams) { p.Amount = "0.00" }), "amount"},
		{"amount over 10 characters", "1", with(func(p *PreauthorizeParams) { p.Amount = "10000000.00" }), "amount"},
		{"amount leading zero", "1", with(func(p *PreauthorizeParams) { p.Amount = "01.00" }), "amount"},
		{"no period", "1", with(func(p *PreauthorizeParams) { p.Period = 0 }), "period"},
		{"period 7", "1", with(func(p *PreauthorizeParams) { p.Period = 7 }), "period"},
		{"period negative", "1", with(func(p *PreauthorizeParams) { p.Period = -1 }), "period"},
		{"withdrawalMethod unknown", "1", with(func(p *PreauthorizeParams) { p.WithdrawalMethod = "Wire" }), "metadata.remittance.withdrawalMethod"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkRejected(t, tc.field, func(c *Client) error {
				_, err := c.Transactions.Preauthorize(context.Background(), tc.id, tc.p)
				return err
			})
		})
	}
}

func TestTransactionsPreauthorizeErrors(t *testing.T) {
	want := wantRequest{Method: "POST", Path: preauthPath, ContentType: "application/x-www-form-urlencoded",
		Body: "amount=10.00&merchantReference=pa&period=2"}
	call := func(c *Client) error {
		_, err := c.Transactions.Preauthorize(context.Background(), "1002581234567", &PreauthorizeParams{MerchantReference: "pa", Amount: "10.00", Period: 2})
		return err
	}
	checkErrorResponses(t, want, call)
	checkUndecodable(t, want, call)
}
