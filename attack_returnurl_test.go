package bankpay

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bankpay/bankpay-go/internal/sign"
)

// returnUrl and cancelUrl are not signed by the merchant: they travel
// through the user's browser with the establish data, and the user can
// rewrite them. The service then signs, with the merchant's key, the
// user's URL plus its redirect parameters; with the older API versions it
// signs the query string alone. A user who puts event fields in that query
// gets a service signature over "eventId=…&createdAt=…&transactionId=…&
// status=2…": it must not pass for a notification, whatever redirect
// parameters the service appends (the minimal shape of transactionId,
// transactionType, merchantReference and status too).
func TestAttackRewrittenReturnURLIsNoNotification(t *testing.T) {
	creds := Credentials{AccessID: "AID-1", AccessKey: NewSecret(redirectKey), MerchantID: "M-1"}
	now := time.UnixMilli(1700000000000).UTC()
	userQuery := fmt.Sprintf("eventId=ev-forged&eventType=Completed&objectType=Transaction&objectId=100258999999999"+
		"&message=paid&createdAt=%d", now.UnixMilli())
	shapes := map[string]string{
		"minimal": "transactionId=100258123456789&transactionType=1&merchantReference=order-42&status=2",
		"cancel":  "transactionId=100258123456789&merchantReference=order-42&status=7",
		"full": "transactionId=100258123456789&transactionType=1&merchantReference=order-42&status=2" +
			"&payment.paymentType=2&payment.paymentProvider.type=1&panel=3",
	}
	var called int
	h := NewWebhookHandler(creds, func(context.Context, *Event) error { called++; return nil },
		WithWebhookClock(func() time.Time { return now }))
	for name, service := range shapes {
		for _, alg := range []sign.Algorithm{sign.SHA1, sign.SHA512} {
			signed := sign.SignRedirect(alg, redirectKey, "https://attacker.example/r?"+userQuery+"&"+service, true)
			msg, encSig, _, ok := sign.RedirectMessage(signed, true)
			require.True(t, ok)
			sig, err := url.QueryUnescape(encSig)
			require.NoError(t, err)
			body := url.QueryEscape(msg)
			auth := "Basic " + base64.StdEncoding.EncodeToString([]byte(creds.AccessID+":"+sig))
			assert.ErrorIs(t, VerifyNotification([]byte(body), auth, creds), ErrMalformedEvent, name)
			req := httptest.NewRequest(http.MethodPost, "/events", strings.NewReader(body))
			req.Header.Set("Authorization", auth)
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			assert.Equal(t, http.StatusBadRequest, rec.Code, name)
		}
	}
	assert.Zero(t, called, "a forged event reached the callback")
}
