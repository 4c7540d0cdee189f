package bankpay

import (
	"context"
	"net/url"
	"testing"

	"github.com/bankpay/bankpay-go/models"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// unsafeReferences are merchantReferences that could smuggle fields into a
// notification signed over its URL-decoded body, or that carry control
// characters.
var unsafeReferences = map[string]string{
	"ampersand":         "ord-1&errorCode=330",
	"equals":            "ord=1",
	"percent":           "ord-1%26errorCode%3D330",
	"plus":              "ord+1",
	"NUL":               "ord\x001",
	"newline":           "ord-1\nstatus=4",
	"tab":               "ord\t1",
	"DEL":               "ord\x7f1",
	"C1 control (NEL)":  "ord\u00851",
	"only an ampersand": "&",
}

func TestCheckMerchantReference(t *testing.T) {
	for name, ref := range unsafeReferences {
		var ve *ValidationError
		err := checkMerchantReference("merchantReference", ref, false)
		if !assert.ErrorAs(t, err, &ve, "%s: %v, want a *ValidationError on merchantReference", name, err) {
			continue
		}
		assert.Equal(t, "merchantReference", ve.Field, "%s: %v, want a *ValidationError on merchantReference", name, err)
		assert.True(t, isValidation(err), "%s: %v, want a *ValidationError on merchantReference", name, err)
		assert.Equal(t, "must not contain '&', '=', '%', '+' or control characters", ve.Reason, "%s: reason %q", name, ve.Reason)
	}
	for _, ref := range []string{"order-42", "m ref", "payout 43/x?y#1", "Zoë-山田_1.2:3", "a;b,c'd\"e"} {
		err := checkMerchantReference("merchantReference", ref, true)
		assert.NoError(t, err, "%q: %v", ref, err)
	}
	err := checkMerchantReference("merchantReference", "", false)
	assert.NoError(t, err, "optional empty: %v", err)
	var ve *ValidationError
	err = checkMerchantReference("merchantReference", "", true)
	if assert.ErrorAs(t, err, &ve, "required empty: %v", err) {
		assert.Equal(t, "is required", ve.Reason, "required empty: %v", err)
	}
}

// TestMerchantReferenceRefusedEverywhere: every merchantReference the SDK
// sends goes through the same check, and nothing is sent or signed.
func TestMerchantReferenceRefusedEverywhere(t *testing.T) {
	for name, ref := range unsafeReferences {
		t.Run(name, func(t *testing.T) {
			t.Run("Deposit", func(t *testing.T) {
				checkRejected(t, "merchantReference", func(c *Client) error {
					_, err := c.Transactions.Deposit(context.Background(), "1", &DepositParams{MerchantReference: ref, Amount: "1.00"})
					return err
				})
			})
			t.Run("Capture", func(t *testing.T) {
				p := fullCaptureParams()
				p.MerchantReference = ref
				checkRejected(t, "merchantReference", func(c *Client) error {
					_, err := c.Transactions.Capture(context.Background(), "1", p)
					return err
				})
			})
			t.Run("Establish", func(t *testing.T) {
				d := validDeferred()
				d.MerchantReference = ref
				checkRejected(t, "merchantReference", func(c *Client) error {
					_, err := c.Transactions.Establish(context.Background(), &d)
					return err
				})
			})
			t.Run("SignEstablishData", func(t *testing.T) {
				d := validDeferred()
				d.MerchantReference = ref
				c := signingClient(t, "AID", "key", "MID")
				var ve *ValidationError
				err := c.SignEstablishData(&d)
				require.ErrorAs(t, err, &ve, "err = %v, want a *ValidationError on merchantReference", err)
				require.Equal(t, "merchantReference", ve.Field, "err = %v, want a *ValidationError on merchantReference", err)
				assert.Empty(t, d.RequestSignature, "signed anyway")
			})
		})
	}
	// Establish data may leave merchantReference out.
	d := validDeferred()
	d.MerchantReference = ""
	err := validateEstablishData(&d)
	assert.NoError(t, err, "no merchantReference: %v", err)
	d.MerchantReference, d.PaymentType = "ok ref", models.PaymentTypeRetrieval
	err = validateEstablishData(&d)
	assert.NoError(t, err, "a safe merchantReference: %v", err)
}

// TestPlainHTTPURL: the URLs merchants give take the one-pass path, with
// url.Parse's RawQuery; anything unusual is left to url.Parse.
func TestPlainHTTPURL(t *testing.T) {
	for raw, query := range map[string]string{
		"https://shop.example/bankpay/return":        "",
		"http://localhost:8080/return?order=42&x=y":  "order=42&x=y",
		"https://Shop-1.example.com":                 "",
		"https://shop.example?":                      "",
		"https://shop.example/a/b;c=d?e=f/g&h=i:j@k": "e=f/g&h=i:j@k",
	} {
		q, ok := plainHTTPURL(raw)
		require.True(t, ok, raw)
		assert.Equal(t, query, q, raw)
		u, err := url.Parse(raw)
		require.NoError(t, err, raw)
		assert.Equal(t, u.RawQuery, q, raw)
	}
	for _, raw := range []string{
		"", "https://", "https:///path", "HTTPS://shop.example", "ftp://shop.example",
		"https://user@shop.example", "https://[::1]:8080/", "https://shop.example:", "https://shop.example:80a",
		"https://shop.example:1234567", "https://:80/", "https://shop.example/a b", "https://shop.example/%41",
		"https://shop.example/#top", "https://shop.example/?a=1?b", "https://shop.example/\x7f", "https://exämple.test/",
	} {
		_, ok := plainHTTPURL(raw)
		assert.False(t, ok, raw)
	}
}

// FuzzPlainHTTPURL: every URL the one-pass path accepts is one url.Parse
// accepts as an absolute http(s) URL with a host, with the same RawQuery.
func FuzzPlainHTTPURL(f *testing.F) {
	for _, s := range []string{
		"https://shop.example/bankpay/return", "http://localhost:8080/r?a=1", "https://a.b:/", "https://a:1:2/",
		"https://a/b?c?d", "http://-/..", "https://a/[x]", "https://a/b\\c", "https://a/;=:@!$'()*,",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		q, ok := plainHTTPURL(raw)
		if !ok {
			return
		}
		u, err := url.Parse(raw)
		require.NoError(t, err, raw)
		assert.NotEmpty(t, u.Host, raw)
		assert.Contains(t, []string{"http", "https"}, u.Scheme, raw)
		assert.Equal(t, u.RawQuery, q, raw)
		assert.NoError(t, checkURL("f", raw, true), raw)
	})
}

func tierPtr(n int) *int { return &n }

// validDeferred is complete establish data for a Deferred authorization.
func validDeferred() models.EstablishData {
	return models.EstablishData{
		Description:       "Account funding",
		Currency:          models.USD,
		Amount:            "0.00",
		MerchantReference: "order-42",
		PaymentType:       models.PaymentTypeDeferred,
		ReturnURL:         "https://merchant.test/return",
		CancelURL:         "https://merchant.test/cancel",
		NotificationURL:   "https://merchant.test/notify",
		Customer:          &models.Customer{ExternalID: "cust-77", Name: "Jane Doe", VIP: tierPtr(0)},
	}
}

// validDisbursement is complete establish data for a Disbursement by
// account and routing number (no return or cancel URL: unused there).
func validDisbursement() models.EstablishData {
	return models.EstablishData{
		Currency:          models.USD,
		Amount:            "0.00",
		MerchantReference: "payout-1",
		PaymentType:       models.PaymentTypeDisbursement,
		Account:           &models.Account{Type: 1, AccountNumber: "1000000001", RoutingNumber: "124003116"},
	}
}

// validMoneyTransfer is Instant establish data with the money-transfer fields.
func validMoneyTransfer() models.EstablishData {
	d := validDeferred()
	d.PaymentType = models.PaymentTypeInstant
	d.Amount = "125.50"
	d.Beneficiary = &models.Beneficiary{Name: "Marie Curie", Address: &models.Address{Country: "FR"}}
	d.BeneficiaryAccount = &models.BeneficiaryAccount{IBAN: "FR7630004000031234567890143"}
	d.Metadata = &models.Metadata{Remittance: &models.Remittance{
		WithdrawalMethod: models.WithdrawalBankDeposit, CountryCorridor: "FR", AccountLastFour: "0143"}}
	return d
}

// establishCase is establish data that validation must reject, and the
// field the error must name.
type establishCase struct {
	name  string
	data  func() models.EstablishData
	field string
}

func establishInvalidCases() []establishCase {
	with := func(base func() models.EstablishData, f func(*models.EstablishData)) func() models.EstablishData {
		return func() models.EstablishData {
			d := base()
			f(&d)
			return d
		}
	}
	def, dis, mt := validDeferred, validDisbursement, validMoneyTransfer
	return []establishCase{
		{"merchantReference with &", with(def, func(d *models.EstablishData) { d.MerchantReference = "ord-1&errorCode=330" }), "merchantReference"},
		{"merchantReference with %", with(dis, func(d *models.EstablishData) { d.MerchantReference = "ord-1%26status%3D4" }), "merchantReference"},
		{"merchantReference with control", with(mt, func(d *models.EstablishData) { d.MerchantReference = "ord\r\n1" }), "merchantReference"},
		{"currency missing", with(def, func(d *models.EstablishData) { d.Currency = "" }), "currency"},
		{"currency EUR", with(def, func(d *models.EstablishData) { d.Currency = "EUR" }), "currency"},
		{"currency lowercase", with(def, func(d *models.EstablishData) { d.Currency = "usd" }), "currency"},
		{"amount missing", with(def, func(d *models.EstablishData) { d.Amount = "" }), "amount"},
		{"amount without places", with(def, func(d *models.EstablishData) { d.Amount = "10" }), "amount"},
		{"amount one place", with(def, func(d *models.EstablishData) { d.Amount = "10.5" }), "amount"},
		{"amount negative", with(def, func(d *models.EstablishData) { d.Amount = "-1.00" }), "amount"},
		{"amount comma", with(def, func(d *models.EstablishData) { d.Amount = "10,00" }), "amount"},
		{"paymentType missing", with(def, func(d *models.EstablishData) { d.PaymentType = 0 }), "paymentType"},
		{"paymentType Recurring", with(def, func(d *models.EstablishData) { d.PaymentType = models.PaymentTypeRecurring }), "paymentType"},
		{"paymentType Verification", with(def, func(d *models.EstablishData) { d.PaymentType = models.PaymentTypeVerification }), "paymentType"},
		{"paymentType unknown", with(def, func(d *models.EstablishData) { d.PaymentType = 99 }), "paymentType"},
		{"displayAmount bad", with(def, func(d *models.EstablishData) { d.DisplayAmount = "1" }), "displayAmount"},
		{"minimumBalance bad", with(def, func(d *models.EstablishData) { d.MinimumBalance = "1.000" }), "minimumBalance"},
		{"returnUrl missing", with(def, func(d *models.EstablishData) { d.ReturnURL = "" }), "returnUrl"},
		{"returnUrl relative", with(def, func(d *models.EstablishData) { d.ReturnURL = "/return" }), "returnUrl"},
		{"returnUrl ftp", with(def, func(d *models.EstablishData) { d.ReturnURL = "ftp://merchant.test/r" }), "returnUrl"},
		{"cancelUrl missing", with(def, func(d *models.EstablishData) { d.CancelURL = "" }), "cancelUrl"},
		{"cancelUrl no host", with(def, func(d *models.EstablishData) { d.CancelURL = "https:///cancel" }), "cancelUrl"},
		{"Instant needs returnUrl", with(mt, func(d *models.EstablishData) { d.ReturnURL = "" }), "returnUrl"},
		{"Retrieval needs cancelUrl", with(def, func(d *models.EstablishData) {
			d.PaymentType = models.PaymentTypeRetrieval
			d.CancelURL = ""
		}), "cancelUrl"},
		{"notificationUrl bad", with(def, func(d *models.EstablishData) { d.NotificationURL = "merchant.test/notify" }), "notificationUrl"},
		{"recurringAmount bad", with(def, func(d *models.EstablishData) {
			d.Recurrence = &models.Recurrence{RecurringAmount: "9.9"}
		}), "recurrence.recurringAmount"},
		{"customer.vip negative", with(def, func(d *models.EstablishData) { d.Customer.VIP = tierPtr(-1) }), "customer.vip"},
		{"Disbursement without account", with(dis, func(d *models.EstablishData) { d.Account = nil }), "account.accountNumber"},
		{"Disbursement without accountNumber", with(dis, func(d *models.EstablishData) { d.Account.AccountNumber = "" }), "account.accountNumber"},
		{"Disbursement without routingNumber", with(dis, func(d *models.EstablishData) { d.Account.RoutingNumber = "" }), "account.routingNumber"},
		{"Disbursement bad returnUrl", with(dis, func(d *models.EstablishData) { d.ReturnURL = "not a url" }), "returnUrl"},
		{"Disbursement bad currency", with(dis, func(d *models.EstablishData) { d.Currency = "GBP" }), "currency"},
		{"beneficiary without name", with(mt, func(d *models.EstablishData) { d.Beneficiary.Name = "" }), "beneficiary.name"},
		{"beneficiary without address", with(mt, func(d *models.EstablishData) { d.Beneficiary.Address = nil }), "beneficiary.address.country"},
		{"beneficiary without country", with(mt, func(d *models.EstablishData) {
			d.Beneficiary.Address = &models.Address{City: "Paris"}
		}), "beneficiary.address.country"},
		{"remittance method unknown", with(mt, func(d *models.EstablishData) { d.Metadata.Remittance.WithdrawalMethod = "Wire" }), "metadata.remittance.withdrawalMethod"},
		{"remittance corridor lower case", with(mt, func(d *models.EstablishData) { d.Metadata.Remittance.CountryCorridor = "fr" }), "metadata.remittance.countryCorridor"},
		{"remittance corridor long", with(mt, func(d *models.EstablishData) { d.Metadata.Remittance.CountryCorridor = "FRA" }), "metadata.remittance.countryCorridor"},
		// Values that would add pairs to the signed canonical string.
		{"customer.name forging an event", with(def, func(d *models.EstablishData) {
			d.Customer.Name = "Jane&eventId=e1&eventType=Completed&objectType=Transaction&objectId=1&status=4&createdAt=1"
		}), "customer.name"},
		{"description forging a redirect", with(def, func(d *models.EstablishData) { d.Description = "x&transactionId=1&status=2" }), "description"},
		{"address1 with ; then =", with(def, func(d *models.EstablishData) {
			d.Customer.Address = &models.Address{Address1: "1 Main St;status=2", Country: "US"}
		}), "customer.address.address1"},
		{"email with & then =", with(def, func(d *models.EstablishData) { d.Customer.Email = "a@b.example&x=1" }), "customer.email"},
		{"nameOnAccount with & then =", with(dis, func(d *models.EstablishData) { d.Account.NameOnAccount = "A & B = C" }), "account.nameOnAccount"},
		{"returnUrl with a redirect parameter", with(def, func(d *models.EstablishData) { d.ReturnURL = "https://merchant.test/r?status=2" }), "returnUrl"},
		{"returnUrl with an establish key", with(def, func(d *models.EstablishData) { d.ReturnURL = "https://merchant.test/r?amount=10.00" }), "returnUrl"},
		{"cancelUrl with a notification key", with(def, func(d *models.EstablishData) { d.CancelURL = "https://merchant.test/c?eventId=1" }), "cancelUrl"},
		{"cancelUrl repeating a parameter", with(def, func(d *models.EstablishData) { d.CancelURL = "https://merchant.test/c?a=1&a=2" }), "cancelUrl"},
		{"returnUrl with a bad query", with(def, func(d *models.EstablishData) { d.ReturnURL = "https://merchant.test/r?a=%zz" }), "returnUrl"},
		{"remittance last four short", with(mt, func(d *models.EstablishData) { d.Metadata.Remittance.AccountLastFour = "143" }), "metadata.remittance.accountLastFour"},
	}
}

func TestValidateEstablishDataRejects(t *testing.T) {
	for _, tc := range establishInvalidCases() {
		t.Run(tc.name, func(t *testing.T) {
			d := tc.data()
			err := validateEstablishData(&d)
			var ve *ValidationError
			require.ErrorAs(t, err, &ve, "err = %v, want *ValidationError", err)
			assert.Equal(t, tc.field, ve.Field, "field = %q, want %q (%v)", ve.Field, tc.field, err)
			assert.True(t, isValidation(err), "err is not a *ValidationError")
		})
	}
}

func TestValidateEstablishDataNil(t *testing.T) {
	var ve *ValidationError
	err := validateEstablishData(nil)
	require.ErrorAs(t, err, &ve, "err = %v", err)
	require.Equal(t, "establishData", ve.Field, "err = %v", err)
}

func TestValidateEstablishDataAccepts(t *testing.T) {
	retrieval := validDeferred()
	retrieval.PaymentType = models.PaymentTypeRetrieval
	cad := validDisbursement()
	cad.Currency, cad.Amount = models.CAD, "1500.00"
	cad.ReturnURL = "http://localhost:8080/return?x=1" // optional for Disbursement, fine when well formed
	vipTier := validDeferred()
	vipTier.Customer.VIP = tierPtr(3)
	noCustomer := validDeferred()
	noCustomer.Customer = nil
	// Ordinary values with '&' or '=' (but not '&' then '='), and the
	// merchant's own query parameters in returnUrl and cancelUrl.
	ampersand := validDeferred()
	ampersand.Description = "Barnes & Noble: 2 books"
	ampersand.Customer.ExternalID = "tier=gold"
	ampersand.Customer.Name = "AT&T Inc."
	ampersand.Customer.Address = &models.Address{Address1: "5th Ave & 42nd St", Country: "US"}
	ampersand.ReturnURL = "https://merchant.test/return?order=42&session=abc"
	ampersand.CancelURL = "https://merchant.test/cancel?order=42"
	for name, d := range map[string]models.EstablishData{
		"Deferred": validDeferred(), "Retrieval": retrieval, "Disbursement": validDisbursement(),
		"Disbursement CAD": cad, "Instant money transfer": validMoneyTransfer(),
		"VIP tier": vipTier, "no customer": noCustomer, "ampersands": ampersand,
	} {
		err := validateEstablishData(&d)
		assert.NoError(t, err, "%s: %v", name, err)
	}
	for _, m := range []string{models.WithdrawalBankDeposit, models.WithdrawalCash, models.WithdrawalDebitCard,
		models.WithdrawalDigitalWallet, models.WithdrawalHomeDelivery} {
		d := validMoneyTransfer()
		d.Metadata.Remittance.WithdrawalMethod = m
		err := validateEstablishData(&d)
		assert.NoError(t, err, "withdrawal method %s: %v", m, err)
	}
	// Remittance fields are all optional.
	d := validMoneyTransfer()
	d.Metadata.Remittance = &models.Remittance{}
	err := validateEstablishData(&d)
	assert.NoError(t, err, "empty remittance: %v", err)
}

func TestValidateEstablishDataDoesNotEchoValues(t *testing.T) {
	d := validDisbursement()
	d.Account.RoutingNumber = ""
	d.Account.AccountNumber = "99887766554433"
	d.Currency = "XYZ"
	err := validateEstablishData(&d)
	require.Error(t, err, "err = %v", err)
	require.NotContains(t, err.Error(), "XYZ", "err = %v", err)
	d = validDisbursement()
	d.Account.RoutingNumber = ""
	d.Account.AccountNumber = "99887766554433"
	err = validateEstablishData(&d)
	require.Error(t, err, "err = %v", err)
	require.NotContains(t, err.Error(), "99887766554433", "err = %v", err)
}

func TestValidateEstablishDataDoesNotModify(t *testing.T) {
	d := validMoneyTransfer()
	require.NoError(t, validateEstablishData(&d))
	want := validMoneyTransfer()
	require.Empty(t, d.AccessID, "validation modified the data: %+v", d)
	require.Empty(t, d.RequestSignature, "validation modified the data: %+v", d)
	require.Empty(t, d.DeviceType, "validation modified the data: %+v", d)
	require.Equal(t, want.Beneficiary.Name, d.Beneficiary.Name, "validation modified the data: %+v", d)
}

func TestValidateEstablishDataRetrievalNeedsNoAmount(t *testing.T) {
	d := &models.EstablishData{PaymentType: models.PaymentTypeRetrieval,
		ReturnURL: "https://merchant.test/return", CancelURL: "https://merchant.test/cancel"}
	err := validateEstablishData(d)
	require.NoError(t, err, "Retrieval without currency and amount: %v", err)
	d.Amount = "1"
	var ve *ValidationError
	err = validateEstablishData(d)
	require.ErrorAs(t, err, &ve, "a malformed amount must still be refused: %v", err)
	require.Equal(t, "amount", ve.Field, "a malformed amount must still be refused: %v", err)
	d.Amount, d.PaymentType = "", models.PaymentTypeDeferred
	err = validateEstablishData(d)
	require.ErrorAs(t, err, &ve, "Deferred without currency: %v", err)
	require.Equal(t, "currency", ve.Field, "Deferred without currency: %v", err)
}

// An establish amount is capped at the OpenAPI's 10 characters (a
// Disbursement's, as the others'): a *ValidationError on amount, nothing
// sent; 10 characters pass.
func TestEstablishAmountChars(t *testing.T) {
	d := validDisbursement()
	d.Amount = "10000000.00"
	checkRejected(t, "amount", func(c *Client) error {
		_, err := c.Transactions.Establish(context.Background(), &d)
		return err
	})
	d.Amount = "9999999.99"
	assert.NoError(t, validateEstablishData(&d))
}
