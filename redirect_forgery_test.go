package bankpay

import (
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bankpay/bankpay-go/internal/sign"
	"github.com/bankpay/bankpay-go/models"
)

// Issue 10, hole 1: one access key signs establish data, redirects and
// notifications, and the establish canonical string is itself a form body.
// These tests play the attacker: a user who types pairs into a field the
// merchant signs, then presents the signature as a redirect.

// forgedEvent is what a user types into a signed field to make the
// canonical string read as a Completed transaction event.
const forgedEvent = "Eve&eventId=ev-1&eventType=Completed&objectType=Transaction&objectId=100258999999999" +
	"&status=4&createdAt=1700000000000"

// forgedRedirect makes a query-only redirect saying Authorized for a
// transactionId of the attacker's choice.
const forgedRedirect = "Eve&transactionId=100258999999999&transactionType=1&status=2&payment.paymentType=2&panel=1"

// attackerData is ordinary Deferred establish data with v put into the
// signed field named by field.
func attackerData(field, v string) *models.EstablishData {
	d := validDeferred()
	d.Customer.Address = &models.Address{Country: "US"}
	switch field {
	case "customer.name":
		d.Customer.Name = v
	case "customer.email":
		d.Customer.Email = v
	case "customer.address.address1":
		d.Customer.Address.Address1 = v
	case "customer.address.city":
		d.Customer.Address.City = v
	case "description":
		d.Description = v
	case "customer.externalId":
		d.Customer.ExternalID = v
	}
	return &d
}

var attackedFields = []string{"customer.name", "customer.email", "customer.address.address1",
	"customer.address.city", "description", "customer.externalId"}

// TestSignEstablishDataRefusesForgingValues: the SDK refuses to sign
// establish data whose canonical string would carry the attacker's pairs,
// with either algorithm, names the field and produces no signature.
func TestSignEstablishDataRefusesForgingValues(t *testing.T) {
	for _, alg := range []signatureAlgorithm{hmacSHA1, hmacSHA512} {
		c := signingClient(t, "AID-1", redirectKey, "M-1", withSignatureAlgorithm(alg))
		for _, field := range attackedFields {
			for name, payload := range map[string]string{"event": forgedEvent, "redirect": forgedRedirect} {
				d := attackerData(field, payload)
				err := c.SignEstablishData(d)
				var ve *ValidationError
				require.ErrorAs(t, err, &ve, "%s %s %s", alg, field, name)
				assert.Equal(t, field, ve.Field, "%s %s", alg, name)
				assert.True(t, isValidation(err), "%v", err)
				assert.Empty(t, d.RequestSignature, "no signature produced")
				assert.Empty(t, d.AccessID, "d left unchanged")
				assert.NotContains(t, err.Error(), "eventId", "the value is not echoed")

				// Caller-set credentials fields are left as they were.
				d.AccessID, d.MerchantID = "caller-id", "caller-merchant"
				require.Error(t, c.SignEstablishData(d))
				assert.Equal(t, "caller-id", d.AccessID)
				assert.Equal(t, "caller-merchant", d.MerchantID)
				assert.Empty(t, d.RequestSignature)

				s, err := canonicalEstablishData(d)
				require.ErrorAs(t, err, &ve)
				assert.Equal(t, field, ve.Field)
				assert.Empty(t, s)
			}
		}
	}
}

// TestForgedRedirectFromEstablishSignature is the redirect side: even a
// signature made over such establish data (by a signer that does not
// refuse it: an older SDK, the merchant's own code) never passes for a
// redirect, in query-only or full-URL mode, SHA-1 or SHA-512.
func TestForgedRedirectFromEstablishSignature(t *testing.T) {
	for _, alg := range []sign.Algorithm{sign.SHA1, sign.SHA512} {
		for _, field := range attackedFields {
			for name, payload := range map[string]string{"event": forgedEvent, "redirect": forgedRedirect} {
				d := attackerData(field, payload)
				d.AccessID, d.MerchantID = "AID-1", "M-1"
				canonical := sign.EstablishMessage(d)
				sig := sign.Sign(alg, redirectKey, canonical)
				require.True(t, sign.Verify(redirectKey, canonical, sig))

				queryOnly := "https://shop.example/return?" + canonical + "&requestSignature=" + url.QueryEscape(sig)
				r, err := VerifyRedirect(queryOnly, keyCreds(redirectKey), RedirectQueryOnly())
				assert.ErrorIs(t, err, ErrMalformedRedirect, "%v %s %s query-only", alg, field, name)
				assert.Nil(t, r)

				full := canonical + "&requestSignature=" + url.QueryEscape(sig)
				r, err = VerifyRedirect(full, keyCreds(redirectKey))
				assert.ErrorIs(t, err, ErrMalformedRedirect, "%v %s %s full URL", alg, field, name)
				assert.Nil(t, r)
			}
		}
	}
}

// TestForgedRedirectHidesEstablishPrefix: in full-URL mode only the query
// after the first "?" was read, so a "?" in the last signed value could
// hide the establish keys before it. The message must be an http(s) URL.
func TestForgedRedirectHidesEstablishPrefix(t *testing.T) {
	d := &models.EstablishData{AccessID: "AID-1", MerchantID: "M-1", PaymentType: models.PaymentTypeRetrieval,
		TransactionID: "x?transactionId=100258999999999&status=2"}
	canonical := sign.EstablishMessage(d)
	for _, alg := range []sign.Algorithm{sign.SHA1, sign.SHA512} {
		raw := canonical + "&requestSignature=" + url.QueryEscape(sign.Sign(alg, redirectKey, canonical))
		r, err := VerifyRedirect(raw, keyCreds(redirectKey))
		assert.ErrorIs(t, err, ErrMalformedRedirect)
		assert.Contains(t, err.Error(), "not an absolute http(s) URL")
		assert.Nil(t, r)
	}
}

// TestForgedRedirectFromNotificationSignature: a notification signature
// (over the URL-decoded body) never passes for a redirect either.
func TestForgedRedirectFromNotificationSignature(t *testing.T) {
	bodies := []string{
		"merchantId=M-1&merchantReference=order-42&paymentType=2&transactionType=1&eventId=ev-1&eventType=Authorize" +
			"&objectId=100258123456789&objectType=Transaction&createdAt=1700000000000&accessId=AID-1&status=2",
		// The fields a redirect shares, and each notification-only key alone.
		"transactionId=100258123456789&status=2&eventId=ev-1",
		"transactionId=100258123456789&status=2&eventType=Authorize",
		"transactionId=100258123456789&status=2&objectId=1",
		"transactionId=100258123456789&status=2&objectType=Transaction",
		"transactionId=100258123456789&status=2&createdAt=1700000000000",
		"transactionId=100258123456789&status=2&paymentProviderTransaction.status=AC100",
	}
	for _, body := range bodies {
		msg, err := sign.NotificationMessage([]byte(body))
		require.NoError(t, err)
		raw := "https://shop.example/return?" + msg + "&requestSignature=" + url.QueryEscape(sign.Sign(sign.SHA1, redirectKey, msg))
		r, err := VerifyRedirect(raw, keyCreds(redirectKey), RedirectQueryOnly())
		assert.ErrorIs(t, err, ErrMalformedRedirect, body)
		assert.Nil(t, r)
	}
}

// TestVerifyRedirectRefusesNonRedirects: a signed part that is not a
// redirect is refused, each rule alone, in both modes.
func TestVerifyRedirectRefusesNonRedirects(t *testing.T) {
	const ok = "transactionId=100258123456789&status=2"
	cases := map[string]string{
		"duplicate key":             ok + "&panel=1&panel=1",
		"duplicate merchant key":    "order=1&order=2&" + ok,
		"duplicate transactionId":   ok + "&transactionId=100258123456789",
		"accessId":                  "accessId=AID-1&" + ok,
		"merchantId":                ok + "&merchantId=M-1",
		"currency":                  ok + "&currency=USD",
		"amount":                    ok + "&amount=10.00",
		"description":               ok + "&description=x",
		"paymentType (establish)":   ok + "&paymentType=Deferred",
		"customer.name":             ok + "&customer.name=Eve",
		"account.accountNumber":     ok + "&account.accountNumber=1",
		"recurrence.frequency":      ok + "&recurrence.frequency=1",
		"eventId":                   ok + "&eventId=1",
		"eventType":                 ok + "&eventType=Completed",
		"objectId":                  ok + "&objectId=1",
		"objectType":                ok + "&objectType=Transaction",
		"createdAt":                 ok + "&createdAt=1",
		"requestSignature in query": "requestSignature=x&" + ok,
		"status not a number":       "transactionId=100258123456789&status=Authorized",
		"status signed":             "transactionId=100258123456789&status=%2B2",
		"status spaced":             "transactionId=100258123456789&status=+2",
		"transactionType name":      ok + "&transactionType=Authorize",
		"paymentType name":          ok + "&payment.paymentType=Deferred",
		"provider type not number":  ok + "&payment.paymentProvider.type=x",
		"panel not a number":        ok + "&panel=one",
		"verified not a boolean":    ok + "&payment.account.verified=maybe",
		"missing transactionId":     "status=2&transactionType=1",
		"empty transactionId":       "transactionId=&status=2",
		"missing status":            "transactionId=100258123456789&transactionType=1",
		"empty status":              "transactionId=100258123456789&status=",
		"spellings disagree":        ok + "&payment.paymentProvider.instantPayoutAvailable=true&instantPayoutAvail=false",
		"semicolon":                 ok + ";panel=1",
		"bad escape":                ok + "&x=%zz",
	}
	for name, q := range cases {
		for _, queryOnly := range []bool{false, true} {
			raw := signURL(redirectKey, "https://shop.example/return?"+q, queryOnly)
			var opts []Option
			if queryOnly {
				opts = append(opts, RedirectQueryOnly())
			}
			r, err := VerifyRedirect(raw, keyCreds(redirectKey), opts...)
			assert.ErrorIs(t, err, ErrMalformedRedirect, "%s (query-only %v)", name, queryOnly)
			assert.Nil(t, r)
		}
	}
	// The fault reported does not depend on map order.
	raw := signURL(redirectKey, "https://shop.example/r?"+ok+"&zeta=1&zeta=2&amount=1&currency=USD&eventId=1", false)
	for i := 0; i < 20; i++ {
		_, err := VerifyRedirect(raw, keyCreds(redirectKey))
		require.Error(t, err)
		assert.Equal(t, "bankpay: verify redirect: malformed redirect: amount: not a redirect parameter", err.Error())
	}
}

// TestRedirectRulesAgreeWithReturnURLCheck: every key a genuine redirect
// carries is one SignEstablishData refuses in a returnUrl's own query, and
// a key VerifyRedirect refuses is refused there too.
func TestRedirectRulesAgreeWithReturnURLCheck(t *testing.T) {
	for _, k := range strings.Split("transactionId transactionType merchantReference status payment.paymentType "+
		"payment.paymentProvider.type payment.paymentProvider.instantPayoutAvailable instantPayoutAvailable "+
		"instantPayoutAvail payment.account.verified panel payment.paymentProviderTransaction.status requestSignature "+
		"accessId merchantId amount customer.name eventId eventType objectId objectType createdAt", " ") {
		assert.True(t, reservedRedirectKey(k), k)
		d := validDeferred()
		d.ReturnURL = "https://merchant.test/return?" + url.QueryEscape(k) + "=1"
		var ve *ValidationError
		require.ErrorAs(t, validateEstablishData(&d), &ve, k)
		assert.Equal(t, "returnUrl", ve.Field)
	}
	for _, k := range []string{"order", "session", "lang", "ref"} {
		assert.False(t, reservedRedirectKey(k), k)
	}
}
