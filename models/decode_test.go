package models

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Integer fields and codes read a JSON number, a numeric string or a
// whole-valued float alike; an empty string is the zero value.
func TestDecodeTolerantNumbers(t *testing.T) {
	for _, body := range []string{
		`{"status":2,"transactionType":1,"recordVersion":3,"payment":{"paymentType":4,"account":{"type":1}}}`,
		`{"status":"2","transactionType":"1","recordVersion":"3","payment":{"paymentType":"4","account":{"type":"1"}}}`,
		`{"status":2.0,"transactionType":1e0,"recordVersion":"3.00","payment":{"paymentType":4.0,"account":{"type":" 1 "}}}`,
	} {
		var tr Transaction
		require.NoError(t, Decode([]byte(body), &tr), body)
		assert.Equal(t, StatusAuthorized, tr.Status, body)
		assert.Equal(t, TypeAuthorize, tr.TransactionType, body)
		assert.Equal(t, 3, tr.RecordVersion, body)
		assert.Equal(t, PaymentTypeDisbursement, tr.Payment.PaymentType, body)
		assert.Equal(t, 1, tr.Payment.Account.Type, body)
	}
	var c Customer
	require.NoError(t, Decode([]byte(`{"vip":"3","enrollDate":1700000000000}`), &c))
	require.NotNil(t, c.VIP)
	assert.Equal(t, 3, *c.VIP)
	assert.Equal(t, "1700000000000", c.EnrollDate, "a number in a string field is kept as written")
	c = Customer{}
	require.NoError(t, Decode([]byte(`{"vip":""}`), &c))
	assert.Nil(t, c.VIP, "an empty string is no tier")
	var v Verification
	require.NoError(t, Decode([]byte(`{"verified":"true","type":"3","score":"0","thirdPartyScore":"999"}`), &v))
	assert.True(t, v.Verified)
	assert.Equal(t, 3, v.Type)
	require.NotNil(t, v.Score)
	assert.Equal(t, 0, *v.Score, "score 0 is a value, not absent")
	assert.Equal(t, 999, *v.ThirdPartyScore)
}

// A value of the wrong JSON type is a *FieldError naming its JSON path and
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
		var tr Transaction
		err := DecodeAt([]byte(tc.body), &tr, "transaction")
		var fe *FieldError
		require.True(t, errors.As(err, &fe), "%s: %v", tc.body, err)
		assert.Equal(t, tc.path, fe.Path, tc.body)
		assert.Contains(t, err.Error(), tc.path)
		assert.NotContains(t, err.Error(), "123456789", "no value in the message")
		assert.NotContains(t, err.Error(), "checking")
	}
	var sum AccountSummary
	err := Decode([]byte(`{"summary":[{"aggregations":[{"days":7},{"days":"thirty"}]}]}`), &sum)
	var fe *FieldError
	require.True(t, errors.As(err, &fe), "%v", err)
	assert.Equal(t, "summary[0].aggregations[1].days", fe.Path)
	var amt Amount
	err = Decode([]byte(`{}`), &amt)
	require.True(t, errors.As(err, &fe))
	assert.Contains(t, err.Error(), "(answer)")
}

// Unknown fields and unknown enum values never fail.
func TestDecodeUnknownFieldsAndEnums(t *testing.T) {
	var tr Transaction
	require.NoError(t, Decode([]byte(`{"transactionId":"T","status":"99","transactionType":42,"newField":{"x":[1,2]},`+
		`"paymentProviderTransaction":{"status":"ZZ999"},"payment":{"paymentType":77,"odd":true}}`), &tr))
	assert.Equal(t, TransactionStatus(99), tr.Status)
	assert.Equal(t, "TransactionStatus(99)", tr.Status.String())
	assert.Equal(t, TransactionType(42), tr.TransactionType)
	assert.Equal(t, PaymentType(77), tr.Payment.PaymentType)
	assert.Equal(t, ProviderStatus("ZZ999"), tr.PaymentProviderTransaction.Status)
	assert.Equal(t, "", tr.PaymentProviderTransaction.Status.Meaning())
}

func TestDecodeRejectsBadJSON(t *testing.T) {
	var tr Transaction
	for _, body := range []string{``, `{`, `{"a":1}{}`, `nul`} {
		assert.Error(t, Decode([]byte(body), &tr), body)
	}
	assert.Error(t, Decode([]byte(`{}`), tr), "not a pointer")
}

func TestWholeOfDecimal(t *testing.T) {
	for in, want := range map[string]string{"2": "2", "2.0": "2", "2e1": "20", "-1.50e2": "-150", "0.0": "0",
		"-0": "-0", "0e-5": "0", "120e-1": "12", "9223372036854775807": "9223372036854775807"} {
		got, ok := wholeNumber(in)
		assert.True(t, ok, in)
		assert.Equal(t, want, got, in)
	}
	for _, in := range []string{"2.5", "1e-1", "1e31", "1e999999999", "9223372036854775808", "0x10", "1/2", "abc", ".5", "5.", "--1", "1e", "1.e1"} {
		_, ok := wholeNumber(in)
		assert.False(t, ok, in)
	}
}

// The detail's attribute source is a string beside sourceType in the spec
// and an object {name,type} in the OpenAPI; both fill Source and SourceType,
// and it encodes in the spec's shape.
func TestVerifiedAttributeSource(t *testing.T) {
	var spec, oas VerifiedAttribute
	require.NoError(t, Decode([]byte(`{"name":"email","source":"bank","sourceType":1,"verified":true}`), &spec))
	require.NoError(t, Decode([]byte(`{"name":"email","source":{"name":"bank","type":"1"},"verified":true}`), &oas))
	assert.Equal(t, spec, oas)
	assert.Equal(t, "bank", oas.Source)
	assert.Equal(t, 1, oas.SourceType)
	var d VerificationDetail
	err := DecodeAt([]byte(`{"attribute":[{"source":{"type":"x"}}]}`), &d, "detail")
	var fe *FieldError
	require.True(t, errors.As(err, &fe), "%v", err)
	assert.Equal(t, "detail.attribute[0].source.type", fe.Path)
	err = Decode([]byte(`{"attribute":[{"createdAt":[]}]}`), &d)
	require.True(t, errors.As(err, &fe), "%v", err)
	assert.Equal(t, "attribute[0].createdAt", fe.Path)
}

func TestProviderStatusMeaning(t *testing.T) {
	assert.Equal(t, "established", ProviderEstablished.Meaning())
	assert.Equal(t, "payment pending", ProviderACPending.Meaning())
	assert.True(t, strings.HasPrefix(ProviderStatus("UC08").Meaning(), "user canceled"))
	assert.True(t, ProviderStatus("UC08").UserCanceled())
	assert.True(t, ProviderStatus("UC99").UserCanceled(), "an undocumented UC code is still a user cancel")
	assert.False(t, ProviderAuthorizationDenied.UserCanceled())
	assert.Equal(t, "", ProviderStatus("SE99").Meaning())
	assert.Equal(t, "", ProviderStatus("10").Meaning())
	for code, m := range providerMeanings {
		assert.NotEmpty(t, m, code)
	}
}

// FuzzDecodeAgreesWithStrict: Decode never panics, and whatever the strict
// encoding/json reading accepts, Decode accepts with the same result (the
// tolerance only adds readings).
func FuzzDecodeAgreesWithStrict(f *testing.F) {
	f.Add([]byte(`{"transactionId":"T","status":2,"payment":{"paymentType":"Deferred","account":{"type":1}},"amount":"1.00"}`))
	f.Add([]byte(`{"status":"2","recordVersion":3.0,"createdAt":"1700000000000","paymentProviderTransaction":{"status":10}}`))
	f.Add([]byte(`{"STATUS":2,"Amount":12.5,"x":{"y":[1,{}]},"updatedAt":1.7e12}`))
	f.Add([]byte(`{"status":{},"amount":[],"payment":null}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		var strict, tolerant Transaction
		strictErr := json.Unmarshal(body, &strict)
		err := Decode(body, &tolerant)
		if strictErr == nil {
			if err != nil {
				t.Fatalf("strict accepted %s, Decode: %v", body, err)
			}
			if !reflect.DeepEqual(strict, tolerant) {
				t.Fatalf("%s: strict %+v, Decode %+v", body, strict, tolerant)
			}
		}
	})
}
