package tolerant_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bankpay/bankpay-go/internal/wire/tolerant"
	"github.com/bankpay/bankpay-go/models"

	"github.com/bankpay/bankpay-go/internal/testmain"
)

// TestMain runs the package's tests without the race detector's exit pause
// (package testmain).
func TestMain(m *testing.M) { testmain.Run(m) }

// Integer fields and codes read a JSON number, a numeric string or a
// whole-valued float alike; an empty string is the zero value.
func TestDecodeTolerantNumbers(t *testing.T) {
	for _, body := range []string{
		`{"status":2,"transactionType":1,"recordVersion":3,"payment":{"paymentType":4,"account":{"type":1}}}`,
		`{"status":"2","transactionType":"1","recordVersion":"3","payment":{"paymentType":"4","account":{"type":"1"}}}`,
		`{"status":2.0,"transactionType":1e0,"recordVersion":"3.00","payment":{"paymentType":4.0,"account":{"type":" 1 "}}}`,
	} {
		var tr models.Transaction
		require.NoError(t, tolerant.Decode([]byte(body), &tr), body)
		assert.Equal(t, models.StatusAuthorized, tr.Status, body)
		assert.Equal(t, models.TypeAuthorize, tr.TransactionType, body)
		assert.Equal(t, 3, tr.RecordVersion, body)
		assert.Equal(t, models.PaymentTypeDisbursement, tr.Payment.PaymentType, body)
		assert.Equal(t, 1, tr.Payment.Account.Type, body)
	}
	var c models.Customer
	require.NoError(t, tolerant.Decode([]byte(`{"vip":"3","enrollDate":1700000000000}`), &c))
	require.NotNil(t, c.VIP)
	assert.Equal(t, 3, *c.VIP)
	assert.Equal(t, "1700000000000", c.EnrollDate, "a number in a string field is kept as written")
	c = models.Customer{}
	require.NoError(t, tolerant.Decode([]byte(`{"vip":""}`), &c))
	assert.Nil(t, c.VIP, "an empty string is no tier")
	var v models.Verification
	require.NoError(t, tolerant.Decode([]byte(`{"verified":"true","type":"3","score":"0","thirdPartyScore":"999"}`), &v))
	assert.True(t, v.Verified)
	assert.Equal(t, 3, v.Type)
	require.NotNil(t, v.Score)
	assert.Equal(t, 0, *v.Score, "score 0 is a value, not absent")
	assert.Equal(t, 999, *v.ThirdPartyScore)
}

// A value of the wrong JSON type in the identity of a result (a
// transaction's id, type, status, amount) is a *tolerant.FieldError naming
// its JSON path and the kinds, never the value; it is never read as a
// silent zero.
func TestDecodeWrongTypeNamesPath(t *testing.T) {
	for _, tc := range []struct{ body, path string }{
		{`{"status":"abc"}`, "transaction.status"},
		{`{"status":2.5}`, "transaction.status"},
		{`{"status":true}`, "transaction.status"},
		{`{"transactionType":{}}`, "transaction.transactionType"},
		{`{"transactionId":{"id":"123456789"}}`, "transaction.transactionId"},
		{`{"amount":{}}`, "transaction.amount"},
		{`{"amount":["123456789"]}`, "transaction.amount"},
	} {
		var tr models.Transaction
		err := tolerant.DecodeAt([]byte(tc.body), &tr, "transaction")
		var fe *tolerant.FieldError
		require.True(t, errors.As(err, &fe), "%s: %v", tc.body, err)
		assert.Equal(t, tc.path, fe.Path, tc.body)
		assert.Contains(t, err.Error(), tc.path)
		assert.NotContains(t, err.Error(), "123456789", "no value in the message")
	}
	var amt models.Amount
	err := tolerant.Decode([]byte(`{}`), &amt)
	var fe *tolerant.FieldError
	require.True(t, errors.As(err, &fe))
	assert.Contains(t, err.Error(), "(response)")
}

// Every other field whose value the Go type cannot hold is left unset, as
// if the response had not sent it, at the nearest level that can say unset:
// the field itself when its type can (a pointer, a string, a time, a count),
// the object holding it when its zero is a value (wire:"zero": account
// type 0 is Other, verified false is "not verified"). Each is reported
// with its path and the kinds, never the value.
func TestDecodeLeavesUnset(t *testing.T) {
	const id = `"transactionId":"T1","transactionType":4,"status":"2","amount":"5.00",`
	for _, tc := range []struct {
		name, body string
		unset      []string // paths left unset
		check      func(t *testing.T, tr *models.Transaction)
	}{
		{"recordVersion a word", `{` + id + `"recordVersion":"1x","statusMessage":"ok"}`, []string{"transaction.recordVersion"},
			func(t *testing.T, tr *models.Transaction) {
				assert.Equal(t, 0, tr.RecordVersion)
				assert.Equal(t, "ok", tr.StatusMessage)
			}},
		{"huge recordVersion", `{` + id + `"recordVersion":99999999999999999999}`, []string{"transaction.recordVersion"}, nil},
		{"createdAt an object", `{` + id + `"createdAt":{"ms":1},"updatedAt":1700000000000}`, []string{"transaction.createdAt"},
			func(t *testing.T, tr *models.Transaction) {
				assert.Equal(t, models.EpochMillis(0), tr.CreatedAt, "unset: no time")
				assert.Equal(t, models.EpochMillis(1700000000000), tr.UpdatedAt)
			}},
		{"payment an array", `{` + id + `"payment":[]}`, []string{"transaction.payment"},
			func(t *testing.T, tr *models.Transaction) { assert.Nil(t, tr.Payment) }},
		{"account.type an object", `{` + id + `"payment":{"paymentId":"P1","account":{"name":"Main","type":{"code":1}}}}`,
			[]string{"transaction.payment.account"},
			func(t *testing.T, tr *models.Transaction) {
				require.NotNil(t, tr.Payment)
				assert.Equal(t, "P1", tr.Payment.PaymentID)
				assert.Nil(t, tr.Payment.Account, "type 0 is Other: the account is unset, never of type Other")
			}},
		{"account number an object", `{` + id + `"payment":{"account":{"type":1,"accountNumber":{"n":"123456789"}}}}`,
			[]string{"transaction.payment.account.accountNumber"},
			func(t *testing.T, tr *models.Transaction) {
				assert.Equal(t, 1, tr.Payment.Account.Type)
				assert.Equal(t, "", tr.Payment.Account.AccountNumber)
			}},
		{"customer.address a number", `{` + id + `"payment":{"customer":{"name":"Ada","address":42}}}`,
			[]string{"transaction.payment.customer.address"},
			func(t *testing.T, tr *models.Transaction) {
				assert.Equal(t, "Ada", tr.Payment.Customer.Name)
				assert.Nil(t, tr.Payment.Customer.Address)
			}},
		{"authorizationStatus a word", `{` + id + `"payment":{"authorizationStatus":"Authorised"}}`,
			[]string{"transaction.payment.authorizationStatus"},
			func(t *testing.T, tr *models.Transaction) {
				assert.Nil(t, tr.Payment.AuthorizationStatus, "unset, never 0 (New)")
			}},
		{"provider status an object", `{` + id + `"paymentProviderTransaction":{"status":{},"statusMessage":"m"}}`,
			[]string{"transaction.paymentProviderTransaction.status"},
			func(t *testing.T, tr *models.Transaction) {
				assert.Equal(t, models.ProviderStatus(""), tr.PaymentProviderTransaction.Status)
				assert.Equal(t, "m", tr.PaymentProviderTransaction.StatusMessage)
			}},
		{"paid an object", `{` + id + `"paid":{"v":"1.00"},"balance":"4.00"}`, []string{"transaction.paid"},
			func(t *testing.T, tr *models.Transaction) {
				assert.Equal(t, models.Amount(""), tr.Paid)
				assert.Equal(t, models.Amount("4.00"), tr.Balance)
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var tr models.Transaction
			unset, err := tolerant.DecodeUnset([]byte(tc.body), &tr, "transaction")
			require.NoError(t, err)
			assert.Equal(t, "T1", tr.TransactionID)
			assert.Equal(t, models.StatusAuthorized, tr.Status)
			assert.Equal(t, models.TypeRefund, tr.TransactionType)
			assert.Equal(t, models.Amount("5.00"), tr.Amount)
			var paths []string
			for _, u := range unset {
				paths = append(paths, u.Path)
				assert.NotContains(t, u.String(), "123456789")
				assert.NotContains(t, u.String(), "Authorised")
				assert.Contains(t, u.String(), u.Cause.Path)
			}
			assert.Equal(t, tc.unset, paths)
			if tc.check != nil {
				tc.check(t, &tr)
			}
			require.NoError(t, tolerant.Decode([]byte(tc.body), &tr), "Decode agrees")
		})
	}

	// Nested in arrays too: the path names the element.
	var sum models.AccountSummary
	unset, err := tolerant.DecodeUnset([]byte(`{"customerId":"C","summary":[{"aggregations":[{"days":7},{"days":"thirty"}]}]}`), &sum, "")
	require.NoError(t, err)
	assert.Equal(t, "C", sum.CustomerID)
	require.Len(t, unset, 1)
	assert.Equal(t, "summary[0].aggregations[1].days", unset[0].Cause.Path)
	assert.Equal(t, "summary[0].aggregations[1].days", unset[0].Path)
}

// customer.vip is read from any scalar: a whole number (or its text) is the
// tier; any other value leaves VIP unset (nil, never a tier) and is kept as
// received in VIPText.
func TestDecodeVIPAnyScalar(t *testing.T) {
	for body, want := range map[string]struct {
		vip  *int
		text string
	}{
		`{"vip":2}`:          {intp(2), ""},
		`{"vip":"0"}`:        {intp(0), ""},
		`{"vip":"3.0"}`:      {intp(3), ""},
		`{"vip":""}`:         {nil, ""},
		`{"vip":null}`:       {nil, ""},
		`{"vip":"gold"}`:     {nil, "gold"},
		`{"vip":"low risk"}`: {nil, "low risk"},
		`{"vip":2.5}`:        {nil, "2.5"},
		`{"vip":true}`:       {nil, "true"},
		`{"vip":{"tier":1}}`: {nil, ""},
	} {
		var c models.Customer
		require.NoError(t, tolerant.Decode([]byte(body), &c), body)
		assert.Equal(t, want.vip, c.VIP, body)
		assert.Equal(t, want.text, c.VIPText, body)
	}
	var tr models.Transaction
	require.NoError(t, tolerant.Decode([]byte(`{"transactionId":"T","payment":{"customer":{"name":"Ada","vip":"gold"}}}`), &tr))
	assert.Equal(t, "gold", tr.Payment.Customer.VIPText)
	assert.Nil(t, tr.Payment.Customer.VIP)
	assert.Equal(t, "Ada", tr.Payment.Customer.Name)
	b, err := json.Marshal(tr.Payment.Customer)
	require.NoError(t, err)
	assert.Equal(t, `{"name":"Ada"}`, string(b), "VIPText is never sent")

	// In a list, each item keeps its own text.
	var list []models.Customer
	require.NoError(t, tolerant.Decode([]byte(`[{"customerId":"a","vip":1},{"customerId":"b","vip":"gold"},{"customerId":"c","VIP":"silver"}]`), &list))
	require.Len(t, list, 3)
	assert.Equal(t, intp(1), list[0].VIP)
	assert.Equal(t, "", list[0].VIPText)
	assert.Equal(t, "gold", list[1].VIPText)
	assert.Equal(t, "silver", list[2].VIPText, "JSON names match without case, as encoding/json's")
	assert.Nil(t, list[2].VIP)
}

// The bank-held user's name, phone and email items (no type in the
// OpenAPI) are kept whatever their shape.
func TestDecodeBankUserItemsAnyShape(t *testing.T) {
	var u models.BankUser
	require.NoError(t, tolerant.Decode([]byte(`{"name":["Jane Doe",{"first":"Jane","last":"Doe"}],`+
		`"phone":["+15550100",{"number":"+15550101","type":"mobile"},15550102],`+
		`"email":[{"value":"jane@example.com"},"j@example.com",null]}`), &u))
	assert.Equal(t, []string{"Jane Doe", `{"first":"Jane","last":"Doe"}`}, u.Name)
	assert.Equal(t, []string{"+15550100", `{"number":"+15550101","type":"mobile"}`, "15550102"}, u.Phone)
	assert.Equal(t, []string{`{"value":"jane@example.com"}`, "j@example.com", ""}, u.Email)
}

// What was left unset or kept as text inside a value that is itself left
// unset goes with it: one report, no half-object brought back.
func TestDecodeUnsetInsideUnset(t *testing.T) {
	type inner struct {
		Code     int    `json:"code" wire:"zero"`
		Label    string `json:"label"`
		Tier     *int   `json:"tier"`
		TierText string `json:"-" wire:"text=tier"`
	}
	var v struct {
		Name  string `json:"name"`
		Inner *inner `json:"inner"`
	}
	unset, err := tolerant.DecodeUnset([]byte(`{"name":"n","inner":{"label":{},"tier":"gold","code":"x"}}`), &v, "")
	require.NoError(t, err)
	assert.Equal(t, "n", v.Name)
	assert.Nil(t, v.Inner, "no inner brought back by its text")
	require.Len(t, unset, 1)
	assert.Equal(t, "inner", unset[0].Path)
	assert.Equal(t, "inner.code", unset[0].Cause.Path)

	var u models.BankUser
	require.NoError(t, tolerant.Decode([]byte(`{"email":[{"v":"<a&b>"}]}`), &u))
	assert.Equal(t, []string{`{"v":"<a&b>"}`}, u.Email, "kept as written, no HTML escapes")
}

func intp(n int) *int { return &n }

// Unknown fields and unknown enum values never fail.
func TestDecodeUnknownFieldsAndEnums(t *testing.T) {
	var tr models.Transaction
	require.NoError(t, tolerant.Decode([]byte(`{"transactionId":"T","status":"99","transactionType":42,"newField":{"x":[1,2]},`+
		`"paymentProviderTransaction":{"status":"ZZ999"},"payment":{"paymentType":77,"odd":true}}`), &tr))
	assert.Equal(t, models.TransactionStatus(99), tr.Status)
	assert.Equal(t, "TransactionStatus(99)", tr.Status.String())
	assert.Equal(t, models.TransactionType(42), tr.TransactionType)
	assert.Equal(t, models.PaymentType(77), tr.Payment.PaymentType)
	assert.Equal(t, models.ProviderStatus("ZZ999"), tr.PaymentProviderTransaction.Status)
	assert.Equal(t, "", tr.PaymentProviderTransaction.Status.Meaning())
}

func TestDecodeRejectsBadJSON(t *testing.T) {
	var tr models.Transaction
	for _, body := range []string{``, `{`, `{"a":1}{}`, `nul`} {
		assert.Error(t, tolerant.Decode([]byte(body), &tr), body)
	}
	assert.Error(t, tolerant.Decode([]byte(`{}`), tr), "not a pointer")
}

// The detail's attribute source is a string beside sourceType in the spec
// and an object {name,type} in the OpenAPI; both fill Source and SourceType,
// and it encodes in the spec's shape.
func TestVerifiedAttributeSource(t *testing.T) {
	var spec, oas models.VerifiedAttribute
	require.NoError(t, tolerant.Decode([]byte(`{"name":"email","source":"bank","sourceType":1,"verified":true}`), &spec))
	require.NoError(t, tolerant.Decode([]byte(`{"name":"email","source":{"name":"bank","type":"1"},"verified":true}`), &oas))
	assert.Equal(t, spec, oas)
	assert.Equal(t, "bank", oas.Source)
	assert.Equal(t, 1, oas.SourceType)
	var d models.VerificationDetail
	require.NoError(t, tolerant.DecodeAt([]byte(`{"attribute":[{"name":"email","source":{"name":"bank","type":"x"},"createdAt":[]}]}`), &d, "detail"))
	assert.Equal(t, []models.VerifiedAttribute{{Name: "email", Source: "bank"}}, d.Attribute, "type and createdAt left unset")
	// verified false is a value: an attribute whose verified cannot be read
	// is not kept as unverified; the list holding it is left unset.
	unset, err := tolerant.DecodeUnset([]byte(`{"verification":[{"verificationName":"kyc","result":1}],"attribute":[{"name":"email","verified":{}}]}`), &d, "detail")
	require.NoError(t, err)
	assert.Nil(t, d.Attribute)
	assert.Len(t, d.Verification, 1)
	require.Len(t, unset, 1)
	assert.Equal(t, "detail.attribute", unset[0].Path)
	assert.Equal(t, "detail.attribute[0].verified", unset[0].Cause.Path)
}

// FuzzDecodeAgreesWithStrict: tolerant.Decode never panics, and whatever the strict
// encoding/json reading accepts, tolerant.Decode accepts with the same result (the
// tolerance only adds readings).
func FuzzDecodeAgreesWithStrict(f *testing.F) {
	f.Add([]byte(`{"transactionId":"T","status":2,"payment":{"paymentType":"Deferred","account":{"type":1}},"amount":"1.00"}`))
	f.Add([]byte(`{"status":"2","recordVersion":3.0,"createdAt":"1700000000000","paymentProviderTransaction":{"status":10}}`))
	f.Add([]byte(`{"STATUS":2,"Amount":12.5,"x":{"y":[1,{}]},"updatedAt":1.7e12}`))
	f.Add([]byte(`{"status":{},"amount":[],"payment":null}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		var strict, loose models.Transaction
		strictErr := json.Unmarshal(body, &strict)
		err := tolerant.Decode(body, &loose)
		if strictErr == nil {
			require.NoError(t, err, "strict accepted %s, tolerant.Decode: %v", body, err)
			require.Equal(t, strict, loose, "%s: strict %+v, tolerant.Decode %+v", body, strict, loose)
		}
	})
}

// A numeric string with a leading zero or a plus sign is a whole number
// (ParseInt reads it), and reaches an integer field as its canonical
// digits: "02" is status 2, not a failed call ("invalid number literal").
func TestDecodeLeadingZeroAndPlus(t *testing.T) {
	var tx models.Transaction
	require.NoError(t, tolerant.Decode([]byte(`{"transactionId":"1","transactionType":"+1","status":"02"}`), &tx))
	assert.Equal(t, models.StatusAuthorized, tx.Status)
	assert.Equal(t, models.TypeAuthorize, tx.TransactionType)
	var c models.Customer
	require.NoError(t, tolerant.Decode([]byte(`{"vip":"007"}`), &c))
	require.NotNil(t, c.VIP)
	assert.Equal(t, 7, *c.VIP)
}
