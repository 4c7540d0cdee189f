package integration

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	bankpay "github.com/bankpay/bankpay-go"
	"github.com/bankpay/bankpay-go/bankpaytest"
	"github.com/bankpay/bankpay-go/models"
)

// The merchant verifies a payee's account (by routing and account number,
// or IBAN) before paying by ACH, then reports how the payment went; a
// return for an invalid account makes later verifications fail.
func TestAccountVerify(t *testing.T) {
	eachShape(t, func(t *testing.T, sh shape) {
		s := startSandbox(t, sh)
		ctx := context.Background()

		for _, row := range bankpaytest.SandboxAccounts() {
			a, err := s.client.Accounts.Verify(ctx, &bankpay.AccountVerifyParams{AccountNumber: row.AccountNumber, RoutingNumber: bankpaytest.SandboxRoutingNumber})
			require.NoError(t, err, row.AccountNumber)
			assert.Equal(t, row.Verified, a.Verified, row.AccountNumber)
			assert.Equal(t, row.Score, *a.Verification.Score, row.AccountNumber)
			assert.Equal(t, row.ThirdPartyScore, a.Verification.ThirdPartyScore, row.AccountNumber)
			assert.Equal(t, row.AccountNumber[len(row.AccountNumber)-4:], a.AccountNumber)
		}

		a, err := s.client.Accounts.Verify(ctx, &bankpay.AccountVerifyParams{AccountNumber: "1000000008", RoutingNumber: bankpaytest.SandboxRoutingNumber,
			NameOnAccount: "Amara Okafor"}, bankpay.WithExpand("account.paymentProvider"))
		require.NoError(t, err)
		require.NotNil(t, a.PaymentProvider)
		assert.Equal(t, bankpaytest.SandboxProviderID, a.PaymentProvider.PaymentProviderID)
		assert.Equal(t, "Amara Okafor", a.NameOnAccount)
		assert.Equal(t, 8, *a.Verification.Score)
		tk, err := s.client.Accounts.Tokenize(ctx, &bankpay.TokenizeParams{AccountNumber: "1000000008", RoutingNumber: bankpaytest.SandboxRoutingNumber})
		require.NoError(t, err)
		assert.Equal(t, tk.Account.Token, a.Token, "one token per account")

		// The payment completed: the account is seen with no returns.
		sent := s.Now()
		require.NoError(t, s.client.Accounts.Feedback(ctx, &bankpay.AccountFeedbackParams{Token: a.Token, ExternalID: "ach-1",
			Status: models.StatusCompleted, SubStatus: "R00", Amount: "25.00", Currency: models.USD, SubmissionDate: sent}))
		a, err = s.client.Accounts.Verify(ctx, &bankpay.AccountVerifyParams{AccountNumber: "1000000008", RoutingNumber: bankpaytest.SandboxRoutingNumber})
		require.NoError(t, err)
		assert.Equal(t, 9, *a.Verification.Score)

		// An IBAN, then its payment returned R03 (no account).
		const iban = "GB82WEST12345698765432"
		ia, err := s.client.Accounts.Verify(ctx, &bankpay.AccountVerifyParams{IBAN: iban})
		require.NoError(t, err)
		assert.True(t, ia.Verified)
		assert.Equal(t, "GB", ia.Country)
		itk, err := s.client.Accounts.Tokenize(ctx, &bankpay.TokenizeParams{IBAN: iban, NameOnAccount: "Sam Brown", VerifyAccount: true})
		require.NoError(t, err)
		assert.Equal(t, ia.Token, itk.Account.Token)
		assert.Equal(t, "Sam Brown", itk.Account.NameOnAccount)
		require.NoError(t, s.client.Accounts.Feedback(ctx, &bankpay.AccountFeedbackParams{Token: ia.Token, Status: models.StatusReversed,
			SubStatus: "R03", SubmissionDate: sent, ReturnDate: sent.Add(48 * time.Hour)}))
		ia, err = s.client.Accounts.Verify(ctx, &bankpay.AccountVerifyParams{IBAN: iban})
		require.NoError(t, err)
		assert.False(t, ia.Verified)
		assert.Equal(t, 2, *ia.Verification.Score)

		// Feedback by account and routing number.
		require.NoError(t, s.client.Accounts.Feedback(ctx, &bankpay.AccountFeedbackParams{AccountNumber: "1000000009",
			RoutingNumber: bankpaytest.SandboxRoutingNumber, Status: models.StatusFailed, SubStatus: "R16"}))
		a, err = s.client.Accounts.Verify(ctx, &bankpay.AccountVerifyParams{AccountNumber: "1000000009", RoutingNumber: bankpaytest.SandboxRoutingNumber})
		require.NoError(t, err)
		assert.False(t, a.Verified, "frozen")

		// Errors: the sandbox's triggers and refusals.
		for _, tr := range bankpaytest.ErrorTriggers() {
			_, err := s.client.Accounts.Verify(ctx, &bankpay.AccountVerifyParams{AccountNumber: tr.AccountNumber, RoutingNumber: bankpaytest.SandboxRoutingNumber},
				bankpay.WithMaxRetries(0))
			requireAPIError(t, err, tr.Status, tr.Code, nil)
			assert.NotContains(t, err.Error(), tr.AccountNumber)
		}
		_, err = s.client.Accounts.Verify(ctx, &bankpay.AccountVerifyParams{AccountNumber: "1234567890", RoutingNumber: bankpaytest.SandboxRoutingNumber})
		requireAPIError(t, err, http.StatusBadRequest, codeInvalidAccount, bankpay.ErrBadRequest)
		err = s.client.Accounts.Feedback(ctx, &bankpay.AccountFeedbackParams{Token: "NOT-A-TOKEN", Status: models.StatusFailed, SubStatus: "R01"})
		requireAPIError(t, err, http.StatusBadRequest, codeInvalidAccount, bankpay.ErrBadRequest)
		_, err = s.client.Accounts.Verify(ctx, &bankpay.AccountVerifyParams{IBAN: "GB82WEST12345698765433"})
		var ve *bankpay.ValidationError
		require.ErrorAs(t, err, &ve, "the checksum is checked before sending")
		assert.Equal(t, "account.iban", ve.Field)
	})
}
