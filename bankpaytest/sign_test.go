package bankpaytest_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bankpay/bankpay-go"
	"github.com/bankpay/bankpay-go/bankpaytest"
)

func TestSignNotification(t *testing.T) {
	creds := bankpay.Credentials{AccessID: "acc-1", AccessKey: bankpay.NewSecret("key-1"), MerchantID: "m-1"}
	body := []byte("eventId=ev-9&eventType=Complete&objectId=T-1&objectType=Transaction&createdAt=1700000000000&status=4")
	h, err := bankpaytest.SignNotification(body, creds)
	require.NoError(t, err)
	require.NoError(t, verifyErr(bankpay.VerifyNotification(body, h, creds)), "the SDK verifies what the sandbox signs")

	other := creds
	other.AccessKey = bankpay.NewSecret("key-2")
	assert.ErrorIs(t, verifyErr(bankpay.VerifyNotification(body, h, other)), bankpay.ErrInvalidSignature)

	_, err = bankpaytest.SignNotification(body, bankpay.Credentials{AccessID: "x"})
	assert.ErrorContains(t, err, "accessId and accessKey are required")
	_, err = bankpaytest.SignNotification([]byte("a=%zz"), creds)
	assert.ErrorContains(t, err, "not URL-decodable")
}
