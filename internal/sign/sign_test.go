package sign

import (
	"crypto/hmac"
	"crypto/sha1"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"hash"
	"net/url"
	"testing"

	"github.com/bankpay/bankpay-go/models"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bankpay/bankpay-go/internal/testmain"
)

// TestMain runs the package's tests without the race detector's exit pause
// (package testmain).
func TestMain(m *testing.M) { testmain.Run(m) }

// mac is the test's own HMAC, so that vectors do not come from the code
// under test.
func mac(h func() hash.Hash, key, msg string) string {
	m := hmac.New(h, []byte(key))
	m.Write([]byte(msg))
	return base64.StdEncoding.EncodeToString(m.Sum(nil))
}

func TestSignKnownVectors(t *testing.T) {
	// RFC 2202 test case 2 (HMAC-SHA1) and RFC 4231 test case 2 (HMAC-SHA512).
	got, want := Sign(SHA1, "Jefe", "what do ya want for nothing?"), "7/zfauXrL6LSdBbV8YTfnCWafHk="
	assert.Equal(t, want, got, "SHA1 = %s, want %s", got, want)
	want512 := "HmacSHA512:" + base64.StdEncoding.EncodeToString(hexBytes(t,
		"164b7a7bfcf819e2e395fbe73b56e0a387bd64222e831fd610270cd7ea2505549758bf75c05a994a6d034f65f8f0e6fdcaeab1a34d4a6b4b636e070a38bce737"))
	got = Sign(SHA512, "Jefe", "what do ya want for nothing?")
	assert.Equal(t, want512, got, "SHA512 = %s, want %s", got, want512)
}

func hexBytes(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	require.NoError(t, err)
	return b
}

// fullEstablishData carries every signed field, and unsigned ones.
func fullEstablishData() *models.EstablishData {
	vip := 2
	return &models.EstablishData{
		AccessID: "AID", MerchantID: "MID", RequestSignature: "ignored",
		Description: "Order 42 for Jane", Currency: models.USD, Amount: "10.00",
		DisplayAmount: "9.00", MinimumBalance: "1.00", MerchantReference: "ref-42",
		PaymentType: models.PaymentTypeDeferred, TimeZone: "America/Chicago",
		ReturnURL: "https://shop.example/return", CancelURL: "https://shop.example/cancel",
		NotificationURL: "https://shop.example/events", KYCType: 1, DeviceType: "web",
		Metadata: &models.Metadata{FlowType: "flow"},
		Recurrence: &models.Recurrence{StartDate: 1700000000000, EndDate: 1800000000000, Frequency: 1,
			FrequencyUnit: 2, FrequencyUnitType: 3, RecurringAmount: "5.00", AutomaticCapture: true},
		Verification: &models.EstablishVerify{Status: 1, VerifyCustomer: true},
		Customer: &models.Customer{CustomerID: "c1", ExternalID: "e1", Name: "Jane Doe", VIP: &vip, TaxID: "123",
			DriverLicense: &models.DriverLicense{Number: "D1", State: "TX"},
			Address:       &models.Address{Address1: "1 Main St", Address2: "Apt 2", City: "Austin", State: "TX", Zip: "78701", Country: "US"},
			Phone:         "+15550100", Email: "jane@example.com", Balance: "100.00", Currency: "USD",
			EnrollDate: "2020-01-01", ExternalTier: "gold", DateOfBirth: "1990-01-01"},
		Beneficiary: &models.Beneficiary{Name: "Bob"},
		Account: &models.Account{NameOnAccount: "Jane Doe", Name: "Checking", Type: 1, Profile: 1,
			AccountNumber: "1000000001", RoutingNumber: "124003116"},
		TransactionID: "T1",
	}
}

func TestEstablishMessageEveryKeyInOrder(t *testing.T) {
	d := fullEstablishData()
	want := "accessId=AID&merchantId=MID&description=Order 42 for Jane&currency=USD&amount=10.00" +
		"&displayAmount=9.00&minimumBalance=1.00&merchantReference=ref-42&paymentType=Deferred&timeZone=America/Chicago" +
		"&recurrence.startDate=1700000000000&recurrence.endDate=1800000000000&recurrence.frequency=1" +
		"&recurrence.frequencyUnit=2&recurrence.frequencyUnitType=3&recurrence.recurringAmount=5.00" +
		"&recurrence.automaticCapture=true&verification.status=1&verification.verifyCustomer=true" +
		"&customer.customerId=c1&customer.externalId=e1&customer.name=Jane Doe&customer.vip=2&customer.taxId=123" +
		"&customer.driverLicense.number=D1&customer.driverLicense.state=TX" +
		"&customer.address.address1=1 Main St&customer.address.address2=Apt 2&customer.address.city=Austin" +
		"&customer.address.state=TX&customer.address.zip=78701&customer.address.country=US" +
		"&customer.phone=+15550100&customer.email=jane@example.com&customer.balance=100.00&customer.currency=USD" +
		"&customer.enrollDate=2020-01-01&customer.externalTier=gold&customer.dateOfBirth=1990-01-01" +
		"&account.nameOnAccount=Jane Doe&account.name=Checking&account.type=1&account.profile=1" +
		"&account.accountNumber=1000000001&account.routingNumber=124003116&transactionId=T1"
	got := EstablishMessage(d)
	assert.Equal(t, want, got, "message:\n got %s\nwant %s", got, want)
}

func TestEstablishMessageLeavesOutEmptyFalseZero(t *testing.T) {
	d := &models.EstablishData{
		AccessID: "AID", MerchantID: "MID", Currency: models.CAD, Amount: "0.00",
		PaymentType: models.PaymentTypeDisbursement,
		Recurrence:  &models.Recurrence{AutomaticCapture: false, Frequency: 0},
		Customer:    &models.Customer{Name: "", Address: &models.Address{City: "", Country: "CA"}},
		Account:     &models.Account{Type: 0, AccountNumber: "1", RoutingNumber: "2"},
	}
	want := "accessId=AID&merchantId=MID&currency=CAD&amount=0.00&paymentType=Disbursement" +
		"&customer.address.country=CA&account.accountNumber=1&account.routingNumber=2"
	got := EstablishMessage(d)
	assert.Equal(t, want, got, "message:\n got %s\nwant %s", got, want)
}

func TestAlgorithmOf(t *testing.T) {
	for _, tc := range []struct {
		sig string
		alg Algorithm
		ok  bool
	}{
		{"abc=", SHA1, true},
		{"", SHA1, true},
		{"HmacSHA512:abc=", SHA512, true},
		{"HmacSHA256:abc=", SHA1, false},
		{"hmacsha512:abc=", SHA1, false},
		{"HmacSHA512:x:y", SHA512, false},
	} {
		alg, ok := AlgorithmOf(tc.sig)
		assert.Equal(t, tc.ok, ok, "AlgorithmOf(%q) = %v, %v; want %v, %v", tc.sig, alg, ok, tc.alg, tc.ok)
		if ok {
			assert.Equal(t, tc.alg, alg, "AlgorithmOf(%q) = %v, %v; want %v, %v", tc.sig, alg, ok, tc.alg, tc.ok)
		}
	}
}

func TestVerify(t *testing.T) {
	msg := "a=1&b=two words"
	s1 := mac(sha1.New, "k", msg)
	s512 := "HmacSHA512:" + mac(sha512.New, "k", msg)
	require.True(t, Verify("k", msg, s1), "valid signatures rejected")
	require.True(t, Verify("k", msg, s512), "valid signatures rejected")
	for _, bad := range []struct{ key, msg, sig string }{
		{"other", msg, s1},
		{"k", msg + "&c=3", s1},
		{"k", msg, "HmacSHA512:" + mac(sha1.New, "k", msg)}, // prefix and algorithm disagree
		{"k", msg, mac(sha512.New, "k", msg)},               // SHA-512 without its prefix
		{"k", msg, ""},
	} {
		assert.False(t, Verify(bad.key, bad.msg, bad.sig), "accepted %+v", bad)
	}
}

func TestRedirectMessage(t *testing.T) {
	raw := "https://shop.example/return?transactionId=1&status=2&requestSignature=abc%3D"
	msg, sig, rest, ok := RedirectMessage(raw, false)
	assert.True(t, ok, "full: %q %q %q %v", msg, sig, rest, ok)
	assert.Equal(t, "https://shop.example/return?transactionId=1&status=2", msg, "full: %q %q %q %v", msg, sig, rest, ok)
	assert.Equal(t, "abc%3D", sig, "full: %q %q %q %v", msg, sig, rest, ok)
	assert.Empty(t, rest, "full: %q %q %q %v", msg, sig, rest, ok)
	msg, sig, rest, ok = RedirectMessage(raw, true)
	assert.True(t, ok, "query only: %q %q %q %v", msg, sig, rest, ok)
	assert.Equal(t, "transactionId=1&status=2", msg, "query only: %q %q %q %v", msg, sig, rest, ok)
	assert.Equal(t, "abc%3D", sig, "query only: %q %q %q %v", msg, sig, rest, ok)
	assert.Empty(t, rest, "query only: %q %q %q %v", msg, sig, rest, ok)
	// The service appends parameters after the signature: they are not signed.
	msg, sig, rest, ok = RedirectMessage(raw+"&instantPayoutAvail=true&x=1", false)
	assert.True(t, ok, "trailing: %q %q %q %v", msg, sig, rest, ok)
	assert.Equal(t, "https://shop.example/return?transactionId=1&status=2", msg, "trailing: %q %q %q %v", msg, sig, rest, ok)
	assert.Equal(t, "abc%3D", sig, "trailing: %q %q %q %v", msg, sig, rest, ok)
	assert.Equal(t, "instantPayoutAvail=true&x=1", rest, "trailing: %q %q %q %v", msg, sig, rest, ok)
	_, _, _, ok = RedirectMessage("https://shop.example/return?transactionId=1", false)
	assert.False(t, ok, "no signature: ok")
	_, _, _, ok = RedirectMessage("https://shop.example/return?requestSignature=abc", false)
	assert.False(t, ok, "signature as the first parameter signs nothing: ok")
}

func TestSplitsPair(t *testing.T) {
	for v, want := range map[string]bool{
		"Barnes & Noble": false, "AT&T": false, "a=b": false, "x=1&": false, "50% off+more": false, "": false,
		"x&eventId=e": true, "&a=": true, "Barnes & Noble = books": true, "a;b=c": true, "a&b&c=d": true,
	} {
		got := SplitsPair(v)
		assert.Equal(t, want, got, "SplitsPair(%q) = %v", v, got)
	}
}

func TestEstablishFieldSplittingPair(t *testing.T) {
	d := &models.EstablishData{AccessID: "a&b=c", MerchantID: "m&x=y", Description: "Barnes & Noble",
		Customer: &models.Customer{Name: "AT&T", Address: &models.Address{City: "x&status=4"}, Email: "e&f=g"}}
	got := EstablishFieldSplittingPair(d)
	assert.Equal(t, "customer.address.city", got, "got %q, want the first bad field, credentials not looked at", got)
	d.Customer.Address.City = "Austin"
	d.Customer.Email = "a@b.example"
	got = EstablishFieldSplittingPair(d)
	assert.Empty(t, got, "clean data: %q", got)
}

// TestIsEstablishKey: every key of the canonical string but the two a
// redirect shares is an establish key; the redirect's own keys are not.
func TestIsEstablishKey(t *testing.T) {
	for _, p := range EstablishPairs(fullEstablishData()) {
		want := p.Key != "merchantReference" && p.Key != "transactionId"
		assert.Equal(t, want, IsEstablishKey(p.Key), "IsEstablishKey(%q) != %v", p.Key, want)
	}
	for _, k := range []string{"status", "transactionType", "payment.paymentType", "panel", "payment.account.verified",
		"payment.paymentProvider.type", "instantPayoutAvailable", "payment.paymentProviderTransaction.status", "order", "customerX"} {
		assert.False(t, IsEstablishKey(k), "IsEstablishKey(%q)", k)
	}
}

func TestSignRedirect(t *testing.T) {
	base := "https://shop.example/return?transactionId=1&status=2"
	got := SignRedirect(SHA1, "k", base, false)
	want := base + "&requestSignature=" + url.QueryEscape(mac(sha1.New, "k", base))
	assert.Equal(t, want, got, "full: %s, want %s", got, want)
	got = SignRedirect(SHA512, "k", base, true)
	want = base + "&requestSignature=" + url.QueryEscape("HmacSHA512:"+mac(sha512.New, "k", "transactionId=1&status=2"))
	assert.Equal(t, want, got, "query only: %s, want %s", got, want)
}

func TestNotification(t *testing.T) {
	body := []byte("eventId=e1&message=two+words&Provider+Report+Status=SUCCESS&x=a%26b")
	msg, err := NotificationMessage(body)
	require.NoError(t, err, "message %q, %v", msg, err)
	require.Equal(t, "eventId=e1&message=two words&Provider Report Status=SUCCESS&x=a&b", msg, "message %q, %v", msg, err)
	h, err := NotificationAuthorization("AID", "k", body)
	require.NoError(t, err)
	want := "Basic " + base64.StdEncoding.EncodeToString([]byte("AID:"+mac(sha1.New, "k", msg)))
	assert.Equal(t, want, h, "header %s, want %s", h, want)
	_, err = NotificationMessage([]byte("a=100%"))
	assert.Error(t, err, "stray %: no error")
	_, err = NotificationAuthorization("AID", "k", []byte("a=%zz"))
	assert.Error(t, err, "bad escape: no error")
}

// TestEstablishMessageChecked: the same string as EstablishMessage, and the
// key of the first splitting value, also when other values hold '&' or ';'
// harmlessly (the second pass) or nothing does (no second pass).
func TestEstablishMessageChecked(t *testing.T) {
	for _, tc := range []struct {
		name, desc, city, key string
	}{
		{"plain", "Order 42", "Austin", ""},
		{"ampersand, no =", "Barnes & Noble", "a=b", ""},
		{"semicolon, no =", "a; b", "Austin", ""},
		{"splitting city", "Barnes & Noble", "x&status=2", "customer.address.city"},
		{"splitting description", "x;eventId=1", "x&status=2", "description"},
	} {
		d := &models.EstablishData{AccessID: "A&x=1", MerchantID: "M", Description: tc.desc,
			Customer: &models.Customer{Address: &models.Address{City: tc.city}}}
		msg, key := EstablishMessageChecked(d)
		assert.Equal(t, EstablishMessage(d), msg, "%s: %q %q, want key %q", tc.name, msg, key, tc.key)
		assert.Equal(t, tc.key, key, "%s: %q %q, want key %q", tc.name, msg, key, tc.key)
	}
}

// The establish message names every payment type as it always has (the
// names the service and the front-end SDKs sign); no paymentType for the
// zero value, an unknown or a negative code.
func TestEstablishMessagePaymentTypeNames(t *testing.T) {
	for code, want := range map[models.PaymentType]string{
		1: "&paymentType=Instant", 2: "&paymentType=Deferred", 3: "&paymentType=Recurring",
		4: "&paymentType=Disbursement", 5: "&paymentType=Verification", 6: "&paymentType=Retrieval",
		0: "", 7: "", -1: "",
	} {
		d := &models.EstablishData{AccessID: "AID", MerchantID: "MID", Currency: models.USD, Amount: "1.00", PaymentType: code}
		assert.Equal(t, "accessId=AID&merchantId=MID&currency=USD&amount=1.00"+want, EstablishMessage(d), "code %d", code)
	}
}
