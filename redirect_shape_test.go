package bankpay

import (
	"crypto/sha512"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bankpay/bankpay-go/models"
)

// shapeKey is a key invented for these tests.
const shapeKey = "shape-test-key-7f3a"

// signShape signs unsigned (a URL with its redirect parameters) with alg,
// over the whole URL or its query, and appends tail after the signature.
func signShape(t *testing.T, alg signatureAlgorithm, unsigned string, queryOnly bool, tail string) string {
	t.Helper()
	msg := unsigned
	if queryOnly {
		_, msg, _ = strings.Cut(unsigned, "?")
	}
	var sig string
	switch alg {
	case hmacSHA1:
		return signURL(shapeKey, unsigned, queryOnly) + tail
	case hmacSHA512:
		sig = "HmacSHA512:" + hmacB64(sha512.New, shapeKey, msg)
	default:
		require.Failf(t, "unknown algorithm", "algorithm %v", alg)
	}
	return unsigned + "&requestSignature=" + url.QueryEscape(sig) + tail
}

// TestVerifyRedirectGenuineShapes: every documented shape of a genuine
// redirect is accepted, with both algorithms, in both modes, and the typed
// fields come from the signed part only.
func TestVerifyRedirectGenuineShapes(t *testing.T) {
	const tx = "transactionId=100258123456789"
	type want struct {
		status   models.TransactionStatus
		provider models.ProviderStatus
		payout   bool
		panel    int
		unsigned url.Values
		params   int
	}
	cases := map[string]struct {
		query, tail string
		want        want
	}{
		// The real return URL: instantPayoutAvail appended after the signature.
		"return, trailing instantPayoutAvail": {
			query: tx + "&transactionType=1&merchantReference=order-42&status=2&payment.paymentType=2" +
				"&payment.paymentProvider.type=1&payment.account.verified=true&payment.paymentProviderTransaction.status=AC100&panel=1",
			tail: "&instantPayoutAvail=true",
			want: want{status: 2, provider: "AC100", panel: 1, unsigned: url.Values{"instantPayoutAvail": {"true"}}, params: 9},
		},
		// The real cancel URL: the provider status is a letter code.
		"cancel, UC01": {
			query: tx + "&transactionType=1&merchantReference=order-43&status=7&payment.paymentType=2" +
				"&payment.paymentProvider.type=1&payment.account.verified=false&panel=3&payment.paymentProviderTransaction.status=UC01",
			want: want{status: 7, provider: models.ProviderStatus("UC01"), panel: 3, params: 9},
		},
		"cancel, UC01, trailing": {
			query: tx + "&status=7&panel=0&payment.paymentProviderTransaction.status=UC01",
			tail:  "&instantPayoutAvail=false&extra=a%20b",
			want:  want{status: 7, provider: "UC01", unsigned: url.Values{"instantPayoutAvail": {"false"}, "extra": {"a b"}}, params: 4},
		},
		"spec example, numeric provider status": {
			query: tx + "&status=2&payment.paymentProviderTransaction.status=10",
			want:  want{status: 2, provider: "10", params: 3},
		},
		"signed payment.paymentProvider.instantPayoutAvailable": {
			query: tx + "&status=2&payment.paymentProvider.instantPayoutAvailable=true",
			want:  want{status: 2, payout: true, params: 3},
		},
		"signed instantPayoutAvailable (sample spelling)": {
			query: tx + "&status=2&instantPayoutAvailable=true",
			want:  want{status: 2, payout: true, params: 3},
		},
		"signed instantPayoutAvail": {
			query: tx + "&status=2&instantPayoutAvail=true",
			want:  want{status: 2, payout: true, params: 3},
		},
		"two spellings signed, agreeing": {
			query: tx + "&status=2&payment.paymentProvider.instantPayoutAvailable=true&instantPayoutAvailable=true",
			want:  want{status: 2, payout: true, params: 4},
		},
		"unsigned instantPayoutAvailable is not trusted": {
			query: tx + "&status=2&payment.paymentProviderTransaction.status=AC100",
			tail:  "&instantPayoutAvailable=true",
			want:  want{status: 2, provider: "AC100", unsigned: url.Values{"instantPayoutAvailable": {"true"}}, params: 3},
		},
		"unsigned payment.paymentProvider.instantPayoutAvailable is not trusted": {
			query: tx + "&status=2",
			tail:  "&payment.paymentProvider.instantPayoutAvailable=true",
			want:  want{status: 2, unsigned: url.Values{"payment.paymentProvider.instantPayoutAvailable": {"true"}}, params: 2},
		},
		"unsigned typed keys fill nothing": {
			query: tx + "&status=7",
			tail:  "&panel=9&payment.paymentProviderTransaction.status=AC100&payment.account.verified=true",
			want: want{status: 7, params: 2, unsigned: url.Values{"panel": {"9"},
				"payment.paymentProviderTransaction.status": {"AC100"}, "payment.account.verified": {"true"}}},
		},
		"merchant's own query first": {
			query: "order=42&session=abc&" + tx + "&status=2&payment.paymentProviderTransaction.status=AC100&panel=1",
			tail:  "&instantPayoutAvail=true",
			want:  want{status: 2, provider: "AC100", panel: 1, unsigned: url.Values{"instantPayoutAvail": {"true"}}, params: 6},
		},
		"empty tail after the signature": {
			query: tx + "&status=2",
			tail:  "&",
			want:  want{status: 2, params: 2}, // nothing after it: Unsigned is nil
		},
	}
	for name, tc := range cases {
		for _, alg := range []signatureAlgorithm{hmacSHA1, hmacSHA512} {
			for _, queryOnly := range []bool{false, true} {
				raw := signShape(t, alg, "https://shop.example/pay/return?"+tc.query, queryOnly, tc.tail)
				var opts []Option
				if queryOnly {
					opts = append(opts, RedirectQueryOnly())
				}
				r, err := VerifyRedirect(raw, keyCreds(shapeKey), opts...)
				require.NoError(t, err, "%s %v query-only %v", name, alg, queryOnly)
				assert.Equal(t, "100258123456789", r.TransactionID, name)
				assert.Equal(t, tc.want.status, r.Status, name)
				assert.Equal(t, tc.want.provider, r.ProviderTransactionStatus, name)
				assert.Equal(t, tc.want.payout, r.InstantPayoutAvailable, name)
				assert.Equal(t, tc.want.panel, r.Panel, name)
				assert.Equal(t, alg.name(), r.Algorithm, name)
				assert.Len(t, r.Params, tc.want.params, name)
				if tc.want.unsigned == nil {
					assert.Nil(t, r.Unsigned, name)
				} else {
					assert.Equal(t, tc.want.unsigned, r.Unsigned, name)
				}
				for k := range r.Unsigned {
					assert.NotContains(t, r.Params, k, "%s: unsigned %s in Params", name, k)
				}
			}
		}
	}
}

// TestVerifyRedirectRealReturnTail: the brief's genuine return URL ends
// "…&panel=1&requestSignature=<sig>&instantPayoutAvail=true"; the same shape
// signed with our key verifies, and InstantPayoutAvailable is only in
// Unsigned.
func TestVerifyRedirectRealReturnTail(t *testing.T) {
	unsigned := "https://shop.example/return?transactionId=100258123456789&transactionType=1&merchantReference=ref-1" +
		"&status=2&payment.paymentType=2&payment.paymentProvider.type=1&payment.account.verified=true&panel=1"
	raw := signURL(shapeKey, unsigned, false) + "&instantPayoutAvail=true"
	r, err := VerifyRedirect(raw, keyCreds(shapeKey))
	require.NoError(t, err)
	assert.Equal(t, models.StatusAuthorized, r.Status)
	assert.False(t, r.InstantPayoutAvailable)
	assert.Equal(t, "true", r.Unsigned.Get("instantPayoutAvail"))
	assert.Equal(t, models.TypeAuthorize, r.TransactionType)
	assert.Equal(t, models.PaymentTypeDeferred, r.PaymentType)
	assert.Equal(t, 1, r.ProviderType)
	assert.True(t, r.AccountVerified)

	// The same URL before the change of the tail: nothing trusted changes.
	r0, err := VerifyRedirect(signURL(shapeKey, unsigned, false), keyCreds(shapeKey))
	require.NoError(t, err)
	r.Unsigned = nil
	assert.Equal(t, r0, r)
}

// TestVerifyRedirectUnsignedTampering: the tail cannot override or repeat a
// signed parameter nor carry a second signature, and a tail that cannot be
// decoded is refused; the signature still ends at the first "&".
func TestVerifyRedirectUnsignedTampering(t *testing.T) {
	signed := signURL(shapeKey, "https://shop.example/return?order=42&transactionId=100258123456789&status=7&panel=1", false)
	for name, tail := range map[string]string{
		"status":           "&status=2",
		"escaped status":   "&st%61tus=2",
		"transactionId":    "&transactionId=100258999999999",
		"merchant's own":   "&order=43",
		"second signature": "&requestSignature=abc",
		"after another":    "&instantPayoutAvail=true&status=2",
	} {
		r, err := VerifyRedirect(signed+tail, keyCreds(shapeKey))
		assert.ErrorIs(t, err, ErrInvalidSignature, name)
		assert.Nil(t, r, name)
	}
	r, err := VerifyRedirect(signed+"&x=%zz", keyCreds(shapeKey))
	assert.ErrorIs(t, err, ErrMalformedRedirect)
	assert.Nil(t, r)
	// Anything glued to the signature value is part of it.
	for _, tail := range []string{"x", "#frag", "%3D", "=&instantPayoutAvail=true"} {
		_, err := VerifyRedirect(signed+tail, keyCreds(shapeKey))
		assert.ErrorIs(t, err, ErrInvalidSignature, tail)
	}
	// RedirectExpectReference still reads the signed part only.
	ref := signURL(shapeKey, "https://shop.example/return?transactionId=1&merchantReference=order-42&status=2", false)
	_, err = VerifyRedirect(ref+"&merchantReference=order-43", keyCreds(shapeKey), RedirectExpectReference("order-43"))
	assert.ErrorIs(t, err, ErrInvalidSignature)
	_, err = VerifyRedirect(ref+"&ref=order-43", keyCreds(shapeKey), RedirectExpectReference("order-43"))
	assert.ErrorIs(t, err, ErrReferenceMismatch)
}
