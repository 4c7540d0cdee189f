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

// The merchant registers a customer before any payment, reads and lists
// its records, asks whether a shopper is a known user of the service, and
// sees the answer change once that shopper authorizes a payment.
func TestCustomers(t *testing.T) {
	eachShape(t, func(t *testing.T, sh shape) {
		other := bankpaytest.Merchant{Credentials: bankpay.Credentials{AccessID: "ITEST0000000000000031", AccessKey: bankpay.NewSecret("cust-other-key"), MerchantID: "1100000031"}}
		s := startSandbox(t, sh, bankpaytest.WithMerchant(other))
		ctx := context.Background()
		start := s.Now()

		ann, err := s.client.Customers.Create(ctx, &bankpay.CustomerParams{Name: "Ann Lee", ExternalID: "shop-ann",
			Email: "ann.lee@example.net", Phone: "+15125550177", Address: &models.Address{Address1: "9 Elm St", City: "Austin", State: "TX", Zip: "73301", Country: "US"}})
		require.NoError(t, err)
		require.NotEmpty(t, ann.CustomerID)
		assert.Equal(t, itCreds.MerchantID, ann.MerchantID)
		assert.Equal(t, start, ann.CreatedAt.Time())
		bo, err := s.client.Customers.Create(ctx, &bankpay.CustomerParams{Name: "Bo Park", Email: "bo@example.net",
			Phone: "+15125550178", Address: &models.Address{Country: "US"}})
		require.NoError(t, err)

		got, err := s.client.Customers.Get(ctx, ann.CustomerID)
		require.NoError(t, err)
		assert.Equal(t, ann, got)

		// Create with the externalId of a record updates that record.
		upd, err := s.client.Customers.Create(ctx, &bankpay.CustomerParams{ExternalID: "shop-ann", Email: "ann@example.net"})
		require.NoError(t, err)
		assert.Equal(t, ann.CustomerID, upd.CustomerID)
		assert.Equal(t, "ann@example.net", upd.Email)
		assert.Equal(t, "Ann Lee", upd.Name)

		all, err := s.client.Customers.List(ctx, nil)
		require.NoError(t, err)
		ids := []string{}
		for _, c := range all {
			ids = append(ids, c.CustomerID)
		}
		assert.Equal(t, []string{ann.CustomerID, bo.CustomerID}, ids)
		byExt, err := s.client.Customers.List(ctx, &bankpay.CustomerListParams{ExternalID: "shop-ann"})
		require.NoError(t, err)
		require.Len(t, byExt, 1)
		assert.Equal(t, "ann@example.net", byExt[0].Email)
		none, err := s.client.Customers.List(ctx, &bankpay.CustomerListParams{CustomerID: "3999999999"})
		require.NoError(t, err)
		assert.Empty(t, none)

		// Another merchant sees none of them.
		oc := clientFor(t, s.Server, other.Credentials)
		_, err = oc.Customers.Get(ctx, ann.CustomerID)
		requireAPIError(t, err, http.StatusNotFound, codeInvalidParameter, bankpay.ErrNotFound)
		theirs, err := oc.Customers.List(ctx, nil)
		require.NoError(t, err)
		assert.Empty(t, theirs)

		// Known to the service only once Ann authorizes a payment (at any
		// merchant: the other one asks).
		known, err := oc.Customers.Lookup(ctx, "ann@example.net", "")
		require.NoError(t, err)
		assert.False(t, known, "a customer record is not a payment")
		d := deferredData("cust-pay-1", "")
		d.Customer = &models.Customer{ExternalID: "shop-ann"}
		s.authorize(t, d, bankpaytest.OutcomeAuthorize)
		known, err = oc.Customers.Lookup(ctx, "ANN@example.net", "")
		require.NoError(t, err)
		assert.True(t, known)
		known, err = oc.Customers.Lookup(ctx, "someone@example.net", "+15125550177")
		require.NoError(t, err)
		assert.True(t, known, "by phone")
		known, err = oc.Customers.Lookup(ctx, "bo@example.net", "+15125550178")
		require.NoError(t, err)
		assert.False(t, known)

		// Refused before sending, and by the sandbox.
		_, err = s.client.Customers.Lookup(ctx, "not-an-email", "")
		var ve *bankpay.ValidationError
		require.ErrorAs(t, err, &ve)
		assert.Equal(t, "email", ve.Field)
		_, err = s.client.Customers.Create(ctx, &bankpay.CustomerParams{Name: "No Contact"})
		require.ErrorAs(t, err, &ve)
		_, err = s.client.Customers.Create(ctx, &bankpay.CustomerParams{CustomerID: "3999999999", Name: "Nobody"})
		requireAPIError(t, err, http.StatusNotFound, codeInvalidParameter, bankpay.ErrNotFound)
	})
}
