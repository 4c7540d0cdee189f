package tolerant_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bankpay/bankpay-go/internal/wire/tolerant"
	"github.com/bankpay/bankpay-go/models"
)

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

// A value of the wrong JSON type is a *tolerant.FieldError naming its JSON path and
// the kinds, never the value; it is never read as a silent zero.
func TestDecodeWrongTypeNamesPath(t *testing.T) {
	for _, tc := range []struct{ body, path string }{
		{`{"status":"abc"}`, "transaction.status"},
		{`{"status":2.5}`, "transaction.status"},
		{`{"status":true}`, "transaction.status"},
		{`{"amount":{}}`, "transaction.amount"},
		{`{"recordVersion":"1x"}`, "transaction.recordVersion"},
		{`{"recordVersion":1e400}`, "transaction.recordVersion"},
		{`{"recordVersion":99999999999999999999}`, "transaction.recordVersion"},
		{`{"createdAt":{}}`, "transaction.createdAt"},
		{`{"payment":[]}`, "transaction.payment"},
		{`{"payment":{"account":{"type":"checking"}}}`, "transaction.payment.account.type"},
		{`{"payment":{"account":{"accountNumber":{"n":"123456789"}}}}`, "transaction.payment.account.accountNumber"},
		{`{"paymentProviderTransaction":{"status":{}}}`, "transaction.paymentProviderTransaction.status"},
	} {
		var tr models.Transaction
		err := tolerant.DecodeAt([]byte(tc.body), &tr, "transaction")
		var fe *tolerant.FieldError
		require.True(t, errors.As(err, &fe), "%s: %v", tc.body, err)
		assert.Equal(t, tc.path, fe.Path, tc.body)
		assert.Contains(t, err.Error(), tc.path)
		assert.NotContains(t, err.Error(), "123456789", "no value in the message")
		assert.NotContains(t, err.Error(), "checking")
	}
	var sum models.AccountSummary
	err := tolerant.Decode([]byte(`{"summary":[{"aggregations":[{"days":7},{"days":"thirty"}]}]}`), &sum)
	var fe *tolerant.FieldError
	require.True(t, errors.As(err, &fe), "%v", err)
	assert.Equal(t, "summary[0].aggregations[1].days", fe.Path)
	var amt models.Amount
	err = tolerant.Decode([]byte(`{}`), &amt)
	require.True(t, errors.As(err, &fe))
	assert.Contains(t, err.Error(), "(response)")
}

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
	err := tolerant.DecodeAt([]byte(`{"attribute":[{"source":{"type":"x"}}]}`), &d, "detail")
	var fe *tolerant.FieldError
	require.True(t, errors.As(err, &fe), "%v", err)
	assert.Equal(t, "detail.attribute[0].source.type", fe.Path)
	err = tolerant.Decode([]byte(`{"attribute":[{"createdAt":[]}]}`), &d)
	require.True(t, errors.As(err, &fe), "%v", err)
	assert.Equal(t, "attribute[0].createdAt", fe.Path)
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
