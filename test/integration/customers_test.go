package integration

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	bankpay "github.com/bankpay/bankpay-go"
	"github.com/bankpay/bankpay-go/bankpaytest"
	"github.com/bankpay/bankpay-go/models"
)

func TestVIP(t *testing.T) {
	eachShape(t, func(t *testing.T, sh shape) {
		plain := bankpaytest.Merchant{Credentials: bankpay.Credentials{AccessID: "ITEST0000000000000004", AccessKey: bankpay.NewSecret("plain-key"), MerchantID: "1100000004"}, NoVIP: true}
		s := startSandbox(t, sh, bankpaytest.WithMerchant(plain))
		ctx := context.Background()
		tier := func(n int) *int { return &n }

		c, err := s.client.Customers.UpdateByExternalID(ctx, "player-9", &bankpay.CustomerParams{Name: "Olivia Nguyen", VIP: tier(1)})
		require.NoError(t, err)
		require.NotNil(t, c.VIP)
		assert.Equal(t, 1, *c.VIP)
		assert.Equal(t, "player-9", c.ExternalID)
		require.NotEmpty(t, c.CustomerID)

		c, err = s.client.Customers.Update(ctx, c.CustomerID, &bankpay.CustomerParams{VIP: tier(4)})
		require.NoError(t, err)
		assert.Equal(t, 4, *c.VIP)
		// vip 0 is sent and removes the tier.
		c, err = s.client.Customers.Update(ctx, c.CustomerID, &bankpay.CustomerParams{Name: "Olivia Nguyen", VIP: tier(0)})
		require.NoError(t, err)
		require.NotNil(t, c.VIP, "vip 0 is a value")
		assert.Equal(t, 0, *c.VIP)
		rec, ok := s.Customer("player-9")
		require.True(t, ok)
		require.NotNil(t, rec.VIP)
		assert.Equal(t, 0, *rec.VIP)
		// Without vip the tier is left alone.
		c, err = s.client.Customers.UpdateByExternalID(ctx, "player-9", &bankpay.CustomerParams{Email: "olivia@example.com"})
		require.NoError(t, err)
		assert.Equal(t, 0, *c.VIP)
		assert.Equal(t, "olivia@example.com", c.Email)

		_, err = s.client.Customers.Update(ctx, c.CustomerID, &bankpay.CustomerParams{VIP: tier(-1)})
		var ve *bankpay.ValidationError
		require.ErrorAs(t, err, &ve)
		_, err = s.client.Customers.Update(ctx, "3999999999", &bankpay.CustomerParams{VIP: tier(1)})
		assert.ErrorIs(t, err, bankpay.ErrNotFound)

		// A new customer's tier from establish data with customer.name and vip:
		// through the user interface, and through the Disbursement establish.
		d := deferredData("vip-auth-1", "")
		d.Customer = &models.Customer{ExternalID: "player-10", Name: "Diego Kowalski", VIP: tier(2)}
		s.authorize(t, d, bankpaytest.OutcomeAuthorize)
		rec, ok = s.Customer("player-10")
		require.True(t, ok)
		require.NotNil(t, rec.VIP)
		assert.Equal(t, 2, *rec.VIP)
		p := disbursementParams("vip-auth-2", "", "5.00", bankpaytest.AccountVerified)
		p.Customer = &models.Customer{ExternalID: "player-11", Name: "Chen Brown", VIP: tier(3)}
		auth, err := s.client.Transactions.Establish(ctx, p)
		require.NoError(t, err)
		rec, ok = s.CustomerOf(auth.TransactionID)
		require.True(t, ok)
		assert.Equal(t, "player-11", rec.ExternalID)
		require.NotNil(t, rec.VIP)
		assert.Equal(t, 3, *rec.VIP)

		// A merchant not configured for VIP tiers: refused, and establish data
		// does not set a tier.
		pc := clientFor(t, s.Server, plain.Credentials)
		_, err = pc.Customers.UpdateByExternalID(ctx, "player-12", &bankpay.CustomerParams{Name: "Priya Smith", VIP: tier(1)})
		requireAPIError(t, err, http.StatusBadRequest, codeInvalidParameter, bankpay.ErrBadRequest)
		pp := disbursementParams("vip-auth-3", "", "5.00", bankpaytest.AccountVerified)
		pp.Customer = &models.Customer{ExternalID: "player-13", Name: "Sam Garcia", VIP: tier(2)}
		pauth, err := pc.Transactions.Establish(ctx, pp)
		require.NoError(t, err)
		rec, ok = s.CustomerOf(pauth.TransactionID)
		require.True(t, ok)
		assert.Nil(t, rec.VIP, "no tier for a merchant not configured for VIP")
	})
}
