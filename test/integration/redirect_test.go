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

func TestCancelledAuthorization(t *testing.T) {
	eachShape(t, func(t *testing.T, sh shape) {
		s, in := startWithInbox(t, sh)
		d := deferredData("cancel-1", in.URL)
		require.NoError(t, s.client.SignEstablishData(&d))
		u, _, err := s.Authorize(d, bankpaytest.OutcomeCancel)
		require.NoError(t, err)
		assert.True(t, strings.HasPrefix(u, d.CancelURL+"?"), "redirected to the cancelUrl: %s", u)
		r, err := bankpay.VerifyRedirect(u, itCreds)
		require.NoError(t, err)
		assert.Equal(t, models.StatusCanceled, r.Status)
		assert.Equal(t, models.StatusCanceled, r.Status)
		assert.Equal(t, models.StatusCanceled, getStatus(t, s.client, r.TransactionID))

		_, err = s.client.Transactions.Deposit(context.Background(), r.TransactionID, &bankpay.DepositParams{MerchantReference: "cancel-dep", Amount: "1.00"})
		requireAPIError(t, err, http.StatusBadRequest, codeInvalidParameter, bankpay.ErrBadRequest)
		s.flush(t)
		assert.Equal(t, []models.EventType{models.EventCancel}, in.typesFor(r.TransactionID))
	})
}

func TestRedirectSignature(t *testing.T) {
	eachShape(t, func(t *testing.T, sh shape) {
		s := startSandbox(t, sh)
		d := deferredData("redirect-1", "")
		require.NoError(t, s.client.SignEstablishData(&d))
		u, _, err := s.Authorize(d, bankpaytest.OutcomeAuthorize)
		require.NoError(t, err)
		assert.True(t, strings.HasPrefix(u, "https://shop.example/return?order=42&transactionId="), u)

		_, err = bankpay.VerifyRedirect(u, bankpay.Credentials{AccessKey: bankpay.NewSecret("another-key")})
		assert.ErrorIs(t, err, bankpay.ErrInvalidSignature)
		_, err = bankpay.VerifyRedirect(strings.Replace(u, "status=2", "status=7", 1), bankpay.Credentials{AccessKey: bankpay.NewSecret(s.key)})
		assert.ErrorIs(t, err, bankpay.ErrInvalidSignature)
		_, err = bankpay.VerifyRedirect(u+"&status=7", bankpay.Credentials{AccessKey: bankpay.NewSecret(s.key)})
		assert.True(t, err != nil, "a parameter appended after the signature")
		i := strings.Index(u, "&requestSignature=")
		_, err = bankpay.VerifyRedirect(u[:i], bankpay.Credentials{AccessKey: bankpay.NewSecret(s.key)})
		assert.ErrorIs(t, err, bankpay.ErrInvalidSignature)

		// Establish data the user interface refuses: a bad signature, a repeated
		// reference.
		bad := deferredData("redirect-2", "")
		require.NoError(t, s.client.SignEstablishData(&bad))
		bad.Amount = "99.00"
		_, _, err = s.Authorize(bad, bankpaytest.OutcomeAuthorize)
		var se *bankpaytest.Error
		require.ErrorAs(t, err, &se)
		assert.Equal(t, http.StatusUnauthorized, se.Status)
		assert.Equal(t, codeAccessControl, se.Code)
		_, _, err = s.Authorize(d, bankpaytest.OutcomeAuthorize)
		require.ErrorAs(t, err, &se)
		assert.Equal(t, codeDuplicate, se.Code)
	})
}

func TestRedirectSHA512(t *testing.T) {
	eachShape(t, func(t *testing.T, sh shape) {
		s := startSandbox(t, sh)
		c, err := bankpay.NewClient(itCreds, bankpay.WithBaseURL(s.URL), bankpay.WithHMACSHA512())
		require.NoError(t, err)
		d := deferredData("sha512-1", "")
		require.NoError(t, c.SignEstablishData(&d))
		require.True(t, strings.HasPrefix(d.RequestSignature, "HmacSHA512:"))
		u, _, err := s.Authorize(d, bankpaytest.OutcomeAuthorize)
		require.NoError(t, err)
		r, err := bankpay.VerifyRedirect(u, itCreds)
		require.NoError(t, err)
		assert.Equal(t, "HMAC-SHA512", r.Algorithm, "the sandbox signs the redirect with the merchant's algorithm")
	})
}
