package bankpay

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// returnUrl and cancelUrl are not signed by the merchant (they travel
// through the user's browser with the establish data), and the service
// signs whatever URL it is given plus its own parameters, which start with
// transactionId. A user who adds a redirect parameter the service's real
// shape does not sign (instantPayoutAvailable: the service sends
// instantPayoutAvail after the signature; payment.account.verified and
// panel: absent from the short cancel shape) to the returnUrl's query gets
// it signed by the service. It must not fill a typed field: a redirect
// parameter before transactionId is not the service's.
func TestAttackRewrittenReturnURLFillsNoTypedField(t *testing.T) {
	const service = "transactionId=100258123456789&transactionType=1&merchantReference=order-42&status=2" +
		"&payment.paymentType=2&payment.paymentProvider.type=1&payment.paymentProviderTransaction.status=AC100"
	for name, injected := range map[string]string{
		"payout":         "instantPayoutAvailable=true",
		"payout, nested": "payment.paymentProvider.instantPayoutAvailable=true",
		"payout, short":  "instantPayoutAvail=true",
		"verified":       "payment.account.verified=true",
		"panel":          "panel=3",
		"merchant's too": "order=42&payment.account.verified=true",
		"encoded key":    "payment.account.verifie%64=true",
	} {
		for _, alg := range []signatureAlgorithm{hmacSHA1, hmacSHA512} {
			for _, queryOnly := range []bool{false, true} {
				raw := signShape(t, alg, "https://shop.example/return?"+injected+"&"+service, queryOnly, "&instantPayoutAvail=false")
				var opts []Option
				if queryOnly {
					opts = append(opts, RedirectQueryOnly())
				}
				r, err := VerifyRedirect(raw, keyCreds(shapeKey), opts...)
				assert.Error(t, err, "%s %v queryOnly=%v", name, alg, queryOnly)
				assert.Nil(t, r, name)
			}
		}
	}
}
