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

// After a Retrieval authorization the merchant reads the accounts the user
// selected and the bank's user data (with the name split), checks how its
// customer record matches the bank's, and corrects the record.
func TestCustomerVerification(t *testing.T) {
	eachShape(t, func(t *testing.T, sh shape) {
		s := startSandbox(t, sh)
		ctx := context.Background()
		r := s.authorize(t, models.EstablishData{
			Currency: models.USD, Amount: "0.00", MerchantReference: "cv-retrieval-1", PaymentType: models.PaymentTypeRetrieval,
			ReturnURL: "https://shop.example/r", CancelURL: "https://shop.example/c",
			Customer: &models.Customer{ExternalID: "cv-9", Name: "Zed Quill", Email: "zed@example.org", DateOfBirth: "1988-04-02"},
		}, bankpaytest.OutcomeAuthorize)
		id := r.TransactionID

		accts, err := s.client.Accounts.ListSelected(ctx, id)
		require.NoError(t, err)
		require.Len(t, accts, 1)
		bal, err := s.client.Accounts.Balance(ctx, id)
		require.NoError(t, err)
		assert.Equal(t, bal.Account.AccountNumber, accts[0].AccountNumber)
		assert.Equal(t, bal.Account.AccountNumber[len(bal.Account.AccountNumber)-4:], accts[0].AccountNumberLastFour)
		assert.NotEmpty(t, accts[0].Token)

		u, err := s.client.Accounts.User(ctx, id, bankpay.WithExpand("customer.segmentedName"))
		require.NoError(t, err)
		require.NotNil(t, u.SegmentedName)
		assert.Equal(t, u.Name[0], u.SegmentedName.FirstName+" "+u.SegmentedName.LastName)
		plain, err := s.client.Accounts.User(ctx, id)
		require.NoError(t, err)
		assert.Nil(t, plain.SegmentedName, "only when expanded")

		results := func() map[string]int {
			t.Helper()
			matches, err := s.client.Identity.CustomerVerification(ctx, id)
			require.NoError(t, err)
			out := map[string]int{}
			for _, m := range matches {
				out[m.Attribute] = m.Result
			}
			return out
		}
		assert.Equal(t, map[string]int{"customer.name": 0, "customer.email": 0, "customer.dateOfBirth": -1}, results())

		rec, ok := s.CustomerOf(id)
		require.True(t, ok)
		_, err = s.client.Customers.Update(ctx, rec.CustomerID, &bankpay.CustomerParams{
			Name: u.SegmentedName.FirstName + " Quill", Email: strings.ToUpper(u.Email[0]), Phone: u.Phone[0]})
		require.NoError(t, err)
		assert.Equal(t, map[string]int{"customer.name": 1, "customer.email": 2, "customer.phone": 2, "customer.dateOfBirth": -1}, results())

		// Not for an authorization the user cancelled.
		c := s.authorize(t, deferredData("cv-cancelled", ""), bankpaytest.OutcomeCancel)
		_, err = s.client.Identity.CustomerVerification(ctx, c.TransactionID)
		requireAPIError(t, err, http.StatusBadRequest, codeInvalidParameter, bankpay.ErrBadRequest)

		// The identity user's name, split when expanded.
		k := deferredData("cv-kyc", "")
		k.KYCType = models.KYCTypeIdentity
		kr := s.authorize(t, k, bankpaytest.OutcomeAuthorize)
		s.Advance(bankpaytest.IdentityStep * 5)
		iu, err := s.client.Identity.User(ctx, kr.TransactionID, bankpay.WithExpand("segmentedName"))
		require.NoError(t, err)
		require.NotNil(t, iu.SegmentedName)
		assert.Equal(t, iu.Name, iu.SegmentedName.FirstName+" "+iu.SegmentedName.LastName)
		// The detail takes expand=verification (reasons added), and the
		// sandbox refuses the user's expand values there, as the OpenAPI's enum.
		d, err := s.client.Identity.Detail(ctx, kr.TransactionID, bankpay.WithExpand("verification"))
		require.NoError(t, err)
		require.NotEmpty(t, d.Verification)
		for _, v := range d.Verification {
			require.Len(t, v.Reasons, 1)
			assert.NotEmpty(t, v.Reasons[0].Reason)
		}
		plainDetail, err := s.client.Identity.Detail(ctx, kr.TransactionID)
		require.NoError(t, err)
		assert.Empty(t, plainDetail.Verification[0].Reasons, "reasons only when expanded")
		_, err = s.client.Identity.Detail(ctx, kr.TransactionID, bankpay.WithExpand("segmentedName"))
		require.ErrorIs(t, err, bankpay.ErrBadRequest, "not an expand of the detail")
	})
}
