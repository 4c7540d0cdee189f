package bankpay

import (
	"context"
	"crypto/hmac"
	"crypto/sha1"
	"crypto/sha512"
	"encoding/base64"
	"hash"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/bankpay/bankpay-go/internal/sign"
	"github.com/bankpay/bankpay-go/models"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hmacB64 is the tests' own HMAC: expected signatures never come from the
// code under test.
func hmacB64(h func() hash.Hash, key, msg string) string {
	m := hmac.New(h, []byte(key))
	m.Write([]byte(msg))
	return base64.StdEncoding.EncodeToString(m.Sum(nil))
}

// The worked example of SignEstablishData's godoc, written out again here.
const (
	exampleAccessID   = "A48B73F694C4C8EE6306"
	exampleMerchantID = "110005514"
	exampleKey        = "my-access-key"
	exampleCanonical  = "accessId=A48B73F694C4C8EE6306&merchantId=110005514&description=Order 42&currency=USD&amount=10.00&merchantReference=ref-42&paymentType=Deferred&customer.name=Jane Doe&customer.address.city=Austin&customer.address.country=US"
	exampleSHA1       = "bKKk8jN+SU93sX+ckaBV2kjzKZU="
	exampleSHA512     = "HmacSHA512:EcJv3My02jKhVTn5udCQF2rS15A3SmrdcOUSvjeHQ0BQxxOjZWlHLLSTJjw0DYc1qKWAdzsxPMJAZZXxmISRnQ=="
)

func exampleData() *models.EstablishData {
	return &models.EstablishData{
		Description: "Order 42", Currency: models.USD, Amount: "10.00",
		MerchantReference: "ref-42", PaymentType: models.PaymentTypeDeferred,
		ReturnURL: "https://shop.example/return", CancelURL: "https://shop.example/cancel",
		Customer: &models.Customer{Name: "Jane Doe",
			Address: &models.Address{City: "Austin", Country: "US"}},
	}
}

func signingClient(t *testing.T, id, key, merchant string, opts ...Option) *Client {
	t.Helper()
	c, err := NewClient(Credentials{AccessID: id, AccessKey: NewSecret(key), MerchantID: merchant}, opts...)
	require.NoError(t, err)
	return c
}

func TestSignEstablishDataGodocExample(t *testing.T) {
	src, err := os.ReadFile("client.go")
	require.NoError(t, err)
	for _, s := range []string{exampleCanonical, exampleSHA1, exampleSHA512} {
		assert.Contains(t, string(src), "//\t"+s+"\n", "the godoc of SignEstablishData does not show %q", s)
	}
	for _, s := range []string{exampleAccessID, exampleMerchantID, `"` + exampleKey + `"`} {
		assert.Contains(t, string(src), s, "the godoc does not name %s", s)
	}
	// The documented values are the real HMACs of the documented string.
	got := hmacB64(sha1.New, exampleKey, exampleCanonical)
	assert.Equal(t, exampleSHA1, got, "documented SHA-1 signature is wrong: HMAC gives %s", got)
	got = "HmacSHA512:" + hmacB64(sha512.New, exampleKey, exampleCanonical)
	assert.Equal(t, exampleSHA512, got, "documented SHA-512 signature is wrong: HMAC gives %s", got)

	// And the SDK produces them from the documented data.
	d := exampleData()
	require.NoError(t, signingClient(t, exampleAccessID, exampleKey, exampleMerchantID).SignEstablishData(d))
	got, err = canonicalEstablishData(d)
	assert.NoError(t, err, "canonical:\n got %s\nwant %s", got, exampleCanonical)
	assert.Equal(t, exampleCanonical, got, "canonical:\n got %s\nwant %s", got, exampleCanonical)
	assert.Equal(t, exampleSHA1, d.RequestSignature, "signed: sig %s accessId %s merchantId %s", d.RequestSignature, d.AccessID, d.MerchantID)
	assert.Equal(t, exampleAccessID, d.AccessID, "signed: sig %s accessId %s merchantId %s", d.RequestSignature, d.AccessID, d.MerchantID)
	assert.Equal(t, exampleMerchantID, d.MerchantID, "signed: sig %s accessId %s merchantId %s", d.RequestSignature, d.AccessID, d.MerchantID)
	d = exampleData()
	require.NoError(t, signingClient(t, exampleAccessID, exampleKey, exampleMerchantID, withSignatureAlgorithm(hmacSHA512)).SignEstablishData(d))
	assert.Equal(t, exampleSHA512, d.RequestSignature, "SHA-512 signature %s, want %s", d.RequestSignature, exampleSHA512)
}

func TestSignEstablishDataVectors(t *testing.T) {
	vip := 3
	for _, tc := range []struct {
		name      string
		data      models.EstablishData
		alg       signatureAlgorithm
		canonical string // written out by hand
	}{
		{
			name: "value with spaces and 0.00 amount",
			data: models.EstablishData{Description: "Payout for  order 7 ", Currency: models.USD, Amount: "0.00",
				MerchantReference: "m ref", PaymentType: models.PaymentTypeDeferred,
				ReturnURL: "https://shop.example/r?a=1&b=2", CancelURL: "https://shop.example/c"},
			canonical: "accessId=AID-1&merchantId=M-1&description=Payout for  order 7 &currency=USD&amount=0.00&merchantReference=m ref&paymentType=Deferred",
		},
		{
			name: "nested customer and address keys",
			data: models.EstablishData{Currency: models.CAD, Amount: "25.50", MerchantReference: "r1",
				PaymentType: models.PaymentTypeRetrieval, ReturnURL: "https://shop.example/r", CancelURL: "https://shop.example/c",
				Customer: &models.Customer{ExternalID: "ext-9", Name: "José Q. Public", VIP: &vip, Email: "jq@example.com",
					DriverLicense: &models.DriverLicense{Number: "X12", State: "ON"},
					Address:       &models.Address{Address1: "12 Queen St W", City: "Toronto", State: "ON", Zip: "M5H 2N2", Country: "CA"}}},
			canonical: "accessId=AID-1&merchantId=M-1&currency=CAD&amount=25.50&merchantReference=r1&paymentType=Retrieval" +
				"&customer.externalId=ext-9&customer.name=José Q. Public&customer.vip=3" +
				"&customer.driverLicense.number=X12&customer.driverLicense.state=ON" +
				"&customer.address.address1=12 Queen St W&customer.address.city=Toronto&customer.address.state=ON" +
				"&customer.address.zip=M5H 2N2&customer.address.country=CA&customer.email=jq@example.com",
		},
		{
			name: "empty, false and zero left out; URLs, metadata, kycType and beneficiary never signed",
			data: models.EstablishData{Description: "", Currency: models.USD, Amount: "5.00", MerchantReference: "r2",
				PaymentType: models.PaymentTypeDisbursement, DeviceType: "web", KYCType: 1,
				NotificationURL: "https://shop.example/events",
				Metadata:        &models.Metadata{FlowType: "f", Remittance: &models.Remittance{CountryCorridor: "MX"}},
				Recurrence:      &models.Recurrence{AutomaticCapture: false},
				Verification:    &models.EstablishVerify{VerifyCustomer: false},
				Customer:        &models.Customer{Name: "", Phone: "", Address: &models.Address{}},
				Beneficiary:     &models.Beneficiary{Name: "Bob", Address: &models.Address{Country: "MX"}},
				Account:         &models.Account{Type: 0, Profile: 0, AccountNumber: "1000000001", RoutingNumber: "124003116"}},
			canonical: "accessId=AID-1&merchantId=M-1&currency=USD&amount=5.00&merchantReference=r2&paymentType=Disbursement" +
				"&account.accountNumber=1000000001&account.routingNumber=124003116",
		},
		{
			name: "SHA-512 prefix",
			data: models.EstablishData{Description: "with sha 512", Currency: models.USD, Amount: "1.00",
				MerchantReference: "r3", PaymentType: models.PaymentTypeInstant,
				ReturnURL: "https://shop.example/r", CancelURL: "https://shop.example/c",
				Account: &models.Account{Type: 1, AccountNumber: "9"}},
			alg: hmacSHA512,
			canonical: "accessId=AID-1&merchantId=M-1&description=with sha 512&currency=USD&amount=1.00&merchantReference=r3" +
				"&paymentType=Instant&account.type=1&account.accountNumber=9",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const key = "k3y with spaces & symbols=+/"
			c := signingClient(t, "AID-1", key, "M-1", withSignatureAlgorithm(tc.alg))
			d := tc.data
			require.NoError(t, c.SignEstablishData(&d))
			got, err := canonicalEstablishData(&d)
			assert.NoError(t, err, "canonical:\n got %s\nwant %s", got, tc.canonical)
			assert.Equal(t, tc.canonical, got, "canonical:\n got %s\nwant %s", got, tc.canonical)
			want := hmacB64(sha1.New, key, tc.canonical)
			if tc.alg == hmacSHA512 {
				want = "HmacSHA512:" + hmacB64(sha512.New, key, tc.canonical)
			}
			assert.Equal(t, want, d.RequestSignature, "signature %s, want %s", d.RequestSignature, want)
		})
	}
}

func TestSignEstablishDataRejectsInvalidData(t *testing.T) {
	c := signingClient(t, "AID", "key", "MID")
	d := exampleData()
	d.Currency = "EUR"
	err := c.SignEstablishData(d)
	var ve *ValidationError
	require.ErrorAs(t, err, &ve, "err = %v, want a ValidationError on currency", err)
	require.Equal(t, "currency", ve.Field, "err = %v, want a ValidationError on currency", err)
	assert.Empty(t, d.RequestSignature, "invalid data was signed")
	assert.Empty(t, d.AccessID, "invalid data was signed")
	assert.Empty(t, d.MerchantID, "invalid data was signed")
	err = c.SignEstablishData(nil)
	assert.True(t, isValidation(err), "nil: %v", err)
}

func TestSignEstablishDataReplacesCallerValues(t *testing.T) {
	d := exampleData()
	d.AccessID, d.MerchantID, d.RequestSignature = "forged", "forged", "forged"
	require.NoError(t, signingClient(t, exampleAccessID, exampleKey, exampleMerchantID).SignEstablishData(d))
	assert.Equal(t, exampleAccessID, d.AccessID, "%s %s %s", d.AccessID, d.MerchantID, d.RequestSignature)
	assert.Equal(t, exampleMerchantID, d.MerchantID, "%s %s %s", d.AccessID, d.MerchantID, d.RequestSignature)
	assert.Equal(t, exampleSHA1, d.RequestSignature, "%s %s %s", d.AccessID, d.MerchantID, d.RequestSignature)
}

func TestSignatureAlgorithm(t *testing.T) {
	_, err := NewClient(testCreds, withSignatureAlgorithm(signatureAlgorithm(7)))
	assert.True(t, isValidation(err), "unknown algorithm: %v", err)
	assert.Equal(t, "HMAC-SHA1", hmacSHA1.name(), "String")
	assert.Equal(t, "HMAC-SHA512", hmacSHA512.name(), "String")
	assert.Equal(t, "signatureAlgorithm(9)", signatureAlgorithm(9).name(), "String")
}

func TestFlattenEstablishData(t *testing.T) {
	zero := 0
	d := &models.EstablishData{
		AccessID: "AID", MerchantID: "MID", RequestSignature: "sig=",
		Description: "Order 42", Currency: models.USD, Amount: "0.00", MerchantReference: "r",
		PaymentType: models.PaymentTypeDeferred, ReturnURL: "https://shop.example/r", KYCType: 1,
		Metadata:   &models.Metadata{FlowType: "onboarding", Remittance: &models.Remittance{WithdrawalMethod: models.WithdrawalCash}},
		Customer:   &models.Customer{Name: "Jane Doe", VIP: &zero, Address: &models.Address{City: "Austin", Country: "US"}},
		Recurrence: &models.Recurrence{AutomaticCapture: true, StartDate: 1700000000000},
	}
	want := map[string]string{
		"accessId": "AID", "merchantId": "MID", "requestSignature": "sig=",
		"description": "Order 42", "currency": "USD", "amount": "0.00", "merchantReference": "r",
		"paymentType": "Deferred", "returnUrl": "https://shop.example/r", "kycType": "1",
		"metadata.flowType": "onboarding", "metadata.remittance.withdrawalMethod": "Cash",
		"customer.name":         "Jane Doe", // a VIP tier of 0 is not sent in establish data
		"customer.address.city": "Austin", "customer.address.country": "US",
		"recurrence.automaticCapture": "true", "recurrence.startDate": "1700000000000",
	}
	got := FlattenEstablishData(d)
	assert.Equal(t, want, got, "flat:\n got %v\nwant %v", got, want)
	got = FlattenEstablishData(nil)
	if assert.NotNil(t, got, "nil: %v", got) {
		assert.Len(t, got, 0, "nil: %v", got)
	}
	var ve *ValidationError
	s, err := canonicalEstablishData(nil)
	assert.Empty(t, s, "canonical of nil: %q %v", s, err)
	if assert.ErrorAs(t, err, &ve, "canonical of nil: %q %v", s, err) {
		assert.Equal(t, "establishData", ve.Field, "canonical of nil: %q %v", s, err)
	}
}

func TestCheckSignatureErrors(t *testing.T) {
	good := hmacB64(sha1.New, "k", "m")
	for _, tc := range []struct {
		sig  string
		want error
	}{
		{"", errMissingSignature},
		{"HmacSHA512:", errMissingSignature},
		{"HmacSHA256:" + good, errUnsupportedAlgorithm},
		{"sha1:" + good, errUnsupportedAlgorithm},
		{good[1:], ErrInvalidSignature},
	} {
		err := checkSignature(nil, "k", "m", tc.sig, nil)
		assert.ErrorIs(t, err, tc.want, "%q: %v, want %v", tc.sig, err, tc.want)
	}
	err := checkSignature(&sign.MACCache{}, "k", "m", good, nil)
	assert.NoError(t, err, "good: %v", err)
}

// The signing oracle again, with the separators and encodings the value
// check does not look for (newline, CR, NUL, "?", "#", percent escapes that
// a verifier decodes, full-width look-alikes), in the fields a user types
// and in transactionId and timeZone, for Deferred and Retrieval data (no
// currency or amount to mark it), with both algorithms. Whatever
// SignEstablishData agrees to sign must pass for nothing: not for a
// notification (VerifyNotification, and the webhook handler under every
// Content-Type) and not for a redirect (full URL and query-only).
func TestClient_SignEstablishDataIsNoNotificationOrRedirect(t *testing.T) {
	const inject = "eventId=ev-1%seventType=Completed%sobjectType=Transaction%sobjectId=100258999999999%sstatus=4%screatedAt=1700000000000"
	seps := map[string]string{
		"newline": "\n", "crlf": "\r\n", "nul": "\x00", "question": "?", "hash": "#", "pct26": "%26", "pct3B": "%3B",
		"pct2526": "%2526", "fullwidth": "\uff06", "plus": "+", "tab": "\t", "htmlamp": "&amp;",
	}
	creds := Credentials{AccessID: "AID-1", AccessKey: NewSecret(redirectKey), MerchantID: "M-1"}
	var called, signed int
	h := NewWebhookHandler(creds, func(context.Context, *Event) error { called++; return nil })
	for _, alg := range []signatureAlgorithm{hmacSHA1, hmacSHA512} {
		c := signingClient(t, creds.AccessID, redirectKey, creds.MerchantID, withSignatureAlgorithm(alg))
		for sepName, sep := range seps {
			payload := "Eve" + sep + strings.ReplaceAll(inject, "%s", sep)
			for _, field := range []string{"description", "customer.name", "customer.address.city", "transactionId", "timeZone"} {
				for _, retrieval := range []bool{false, true} {
					d := attackerData("", "")
					if retrieval {
						d.PaymentType, d.Currency, d.Amount = models.PaymentTypeRetrieval, "", ""
					}
					switch field {
					case "transactionId":
						d.TransactionID = payload
					case "timeZone":
						d.TimeZone = payload
					default:
						d = attackerData(field, payload)
						if retrieval {
							d.PaymentType, d.Currency, d.Amount = models.PaymentTypeRetrieval, "", ""
						}
					}
					if err := c.SignEstablishData(d); err != nil {
						continue // refused: nothing signed
					}
					signed++
					msg := sign.EstablishMessage(d)
					name := alg.name() + "/" + sepName + "/" + field
					// As a notification: a body that URL-decodes to the message.
					body := url.QueryEscape(msg)
					auth := "Basic " + base64.StdEncoding.EncodeToString([]byte(creds.AccessID+":"+d.RequestSignature))
					assert.Error(t, verifyErr(VerifyNotification([]byte(body), auth, creds)), name)
					for _, ct := range []string{"", "application/x-www-form-urlencoded", "application/json", "text/plain"} {
						req := httptest.NewRequest(http.MethodPost, "/events", strings.NewReader(body))
						req.Header.Set("Authorization", auth)
						if ct != "" {
							req.Header.Set("Content-Type", ct)
						}
						rec := httptest.NewRecorder()
						h.ServeHTTP(rec, req)
						assert.NotEqual(t, http.StatusOK, rec.Code, "%s %q", name, ct)
					}
					// As a redirect.
					tail := "&requestSignature=" + url.QueryEscape(d.RequestSignature)
					_, err := VerifyRedirect(msg+tail, keyCreds(redirectKey))
					assert.Error(t, err, name)
					_, err = VerifyRedirect("https://shop.example/return?"+msg+tail, keyCreds(redirectKey), RedirectQueryOnly())
					assert.Error(t, err, name)
				}
			}
		}
	}
	assert.Zero(t, called, "no callback ran")
	assert.Greater(t, signed, 200, "most of these values are signed: the verifiers must refuse them")
}
