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

func transferCapture(ref string) *bankpay.CaptureParams {
	return &bankpay.CaptureParams{
		MerchantReference: ref,
		Amount:            "40.00",
		Beneficiary: &models.Beneficiary{
			Name: "Luis Garcia", DateOfBirth: "1990-07-21", TaxID: "GAXL900721",
			Address: &models.Address{Address1: "Calle 5", City: "Guadalajara", State: "JAL", Zip: "44100", Country: "MX"},
		},
		BeneficiaryAccount: &models.BeneficiaryAccount{
			AccountNumber: "012320001234567891",
			IBAN:          "MX00000000000000000",
			PaymentProvider: &models.PaymentProvider{
				Name: "Banco Ejemplo", Country: "MX", Swift: "BEJEMXMM", RoutingNumber: "012320001",
			},
		},
		Remittance: &models.Remittance{
			WithdrawalMethod: models.WithdrawalBankDeposit, CountryCorridor: "MX", AccountLastFour: "7891",
		},
	}
}

func TestMoneyTransfer(t *testing.T) {
	eachShape(t, func(t *testing.T, sh shape) {
		plain := bankpaytest.Merchant{Credentials: bankpay.Credentials{AccessID: "ITEST0000000000000002", AccessKey: bankpay.NewSecret("plain-key"), MerchantID: "1100000002"}, NoMoneyTransfer: true}
		s := startSandbox(t, sh, bankpaytest.WithMerchant(plain))
		ctx := context.Background()
		originator := &models.Customer{
			ExternalID: "sender-1", Name: "Maria Garcia",
			Address: &models.Address{Address1: "200 Oak Ave", City: "Austin", State: "TX", Zip: "73301", Country: "US"},
		}
		d := deferredData("imt-auth-1", "")
		d.Customer = originator
		r := s.authorize(t, d, bankpaytest.OutcomeAuthorize)

		c, err := s.client.Transactions.Capture(ctx, r.TransactionID, transferCapture("imt-1"))
		require.NoError(t, err)
		assert.Equal(t, models.TypeCapture, c.TransactionType)
		assert.Equal(t, models.StatusAuthorized, c.Status)
		assert.Equal(t, r.TransactionID, c.OriginalTransactionID)
		assert.Equal(t, models.Amount("40.00"), c.Amount)
		got, err := s.client.Transactions.Get(ctx, c.TransactionID)
		require.NoError(t, err)
		assert.Equal(t, c.TransactionID, got.TransactionID)

		_, err = s.client.Transactions.Capture(ctx, r.TransactionID, transferCapture("imt-1"))
		requireAPIError(t, err, http.StatusBadRequest, codeDuplicate, bankpay.ErrDuplicate)
		over := transferCapture("imt-2")
		over.Amount = "60.01"
		_, err = s.client.Transactions.Capture(ctx, r.TransactionID, over)
		requireAPIError(t, err, http.StatusBadRequest, codeInvalidParameter, bankpay.ErrBadRequest)

		// Checked by the SDK before sending: the beneficiary's name and country.
		noCountry := transferCapture("imt-3")
		noCountry.Beneficiary.Address.Country = ""
		_, err = s.client.Transactions.Capture(ctx, r.TransactionID, noCountry)
		var ve *bankpay.ValidationError
		require.ErrorAs(t, err, &ve)
		assert.Equal(t, "beneficiary.address.country", ve.Field)

		// The originator's address is required: establish data without it.
		d2 := deferredData("imt-auth-2", "")
		d2.Customer = &models.Customer{Name: "No Address"}
		r2 := s.authorize(t, d2, bankpaytest.OutcomeAuthorize)
		_, err = s.client.Transactions.Capture(ctx, r2.TransactionID, transferCapture("imt-4"))
		requireAPIError(t, err, http.StatusBadRequest, codeInvalidParameter, bankpay.ErrBadRequest)

		// A merchant not configured for money transfer cannot capture.
		pc := clientFor(t, s.Server, plain.Credentials)
		d3 := deferredData("imt-auth-3", "")
		d3.Customer = originator
		require.NoError(t, pc.SignEstablishData(&d3))
		u, _, err := s.Authorize(d3, bankpaytest.OutcomeAuthorize)
		require.NoError(t, err)
		r3, err := bankpay.VerifyRedirect(u, plain.Credentials)
		require.NoError(t, err)
		_, err = pc.Transactions.Capture(ctx, r3.TransactionID, transferCapture("imt-5"))
		requireAPIError(t, err, http.StatusBadRequest, codeInvalidParameter, bankpay.ErrBadRequest)
		// Nor see another merchant's transaction.
		_, err = pc.Transactions.Get(ctx, r.TransactionID)
		assert.ErrorIs(t, err, bankpay.ErrNotFound)
	})
}
