package integration

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	bankpay "github.com/bankpay/bankpay-go"
	"github.com/bankpay/bankpay-go/bankpaytest"
	"github.com/bankpay/bankpay-go/models"
)

func TestAccountData(t *testing.T) {
	eachShape(t, func(t *testing.T, sh shape) {
		s := startSandbox(t, sh)
		ctx := context.Background()
		r := s.authorize(t, models.EstablishData{
			Currency: models.USD, Amount: "0.00", MerchantReference: "retrieval-1", PaymentType: models.PaymentTypeRetrieval,
			ReturnURL: "https://shop.example/r", CancelURL: "https://shop.example/c",
			Customer: &models.Customer{ExternalID: "cust-9", Name: "Sam Doe"},
		}, bankpaytest.OutcomeAuthorize)
		assert.Equal(t, models.PaymentTypeRetrieval, r.PaymentType)

		bal, err := s.client.Accounts.Balance(ctx, r.TransactionID)
		require.NoError(t, err)
		a := bal.Account
		require.NotNil(t, a)
		assert.NotEmpty(t, a.AccountNumber)
		assert.Equal(t, "124003116", a.RoutingNumber)
		assert.NotEmpty(t, a.NameOnAccount)
		assert.NotEmpty(t, a.ProviderID)
		assert.Equal(t, models.USD, bal.Currency)
		balCents, err := bal.Amount.Cents()
		require.NoError(t, err)

		u, err := s.client.Accounts.User(ctx, r.TransactionID)
		require.NoError(t, err)
		require.NotEmpty(t, u.Name)
		assert.Equal(t, a.NameOnAccount, u.Name[0], "the bank holds one person")
		assert.NotEmpty(t, u.Address)
		assert.NotEmpty(t, u.Phone)
		assert.NotEmpty(t, u.Email)

		sum, err := s.client.Accounts.Summary(ctx, r.TransactionID)
		require.NoError(t, err)
		require.Len(t, sum.Summary, 1)
		e := sum.Summary[0]
		assert.True(t, e.SelectedAccount)
		assert.Equal(t, a.RoutingNumber, e.RoutingNumber)
		assert.Equal(t, a.AccountNumber, e.AccountNumber)
		assert.NotEmpty(t, sum.CustomerID)
		assert.NotZero(t, sum.LastUpdated)
		var prev *models.Aggregation
		for _, days := range []int{7, 30, 90} {
			ag := e.Aggregation(days)
			require.NotNil(t, ag, "%d-day aggregation", days)
			cents := func(a models.Amount) int64 {
				c, err := a.Cents()
				if err != nil && strings.HasPrefix(string(a), "-") { // a negative balance
					c, err = models.Amount(strings.TrimPrefix(string(a), "-")).Cents()
					c = -c
				}
				require.NoError(t, err, "amount %q", a)
				return c
			}
			bMin, bAvg, bMax := cents(ag.BalanceMin), cents(ag.BalanceAvg), cents(ag.BalanceMax)
			assert.LessOrEqual(t, bMin, bAvg, "%d days", days)
			assert.LessOrEqual(t, bAvg, bMax, "%d days", days)
			assert.LessOrEqual(t, bMin, balCents, "the current balance is within the %d-day range", days)
			assert.LessOrEqual(t, balCents, bMax, "the current balance is within the %d-day range", days)
			assert.LessOrEqual(t, cents(ag.DepositAmountMax), cents(ag.DepositAmountTotal))
			assert.LessOrEqual(t, cents(ag.WithdrawalAmountMax), cents(ag.WithdrawalAmountTotal))
			assert.LessOrEqual(t, ag.ActivityEarliestDate, ag.ActivityLatestDate)
			assert.LessOrEqual(t, ag.ActivityLatestDate, sum.LastUpdated)
			if prev != nil {
				// A longer period contains the shorter one.
				assert.LessOrEqual(t, prev.DepositCount, ag.DepositCount)
				assert.LessOrEqual(t, prev.WithdrawalCount, ag.WithdrawalCount)
				assert.LessOrEqual(t, prev.OverdraftCount, ag.OverdraftCount)
				assert.LessOrEqual(t, prev.NSFCount, ag.NSFCount)
				assert.LessOrEqual(t, cents(prev.DepositAmountTotal), cents(ag.DepositAmountTotal))
				assert.LessOrEqual(t, cents(prev.WithdrawalAmountTotal), cents(ag.WithdrawalAmountTotal))
				assert.LessOrEqual(t, bMin, cents(prev.BalanceMin))
				assert.LessOrEqual(t, cents(prev.BalanceMax), bMax)
			}
			prev = ag
		}
		// The same authorization responds the same figures.
		again, err := s.client.Accounts.Summary(ctx, r.TransactionID)
		require.NoError(t, err)
		assert.Equal(t, sum, again)

		// Account data needs a Retrieval authorization.
		p := s.authorize(t, deferredData("not-retrieval", ""), bankpaytest.OutcomeAuthorize)
		_, err = s.client.Accounts.Balance(ctx, p.TransactionID)
		requireAPIError(t, err, http.StatusBadRequest, codeInvalidParameter, bankpay.ErrBadRequest)
		_, err = s.client.Accounts.Summary(ctx, "100000000999999")
		assert.ErrorIs(t, err, bankpay.ErrNotFound)
	})
}
