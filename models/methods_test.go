package models

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bankpay/bankpay-go/internal/wire/tolerant"
)

func TestAggregation(t *testing.T) {
	e := &AccountEntry{Aggregations: []Aggregation{{Days: 7, DepositCount: 1}, {Days: 30, DepositCount: 4}}}
	require.NotNil(t, e.Aggregation(30))
	assert.Equal(t, 4, e.Aggregation(30).DepositCount)
	e.Aggregation(7).DepositCount = 2 // a pointer into the entry
	assert.Equal(t, 2, e.Aggregations[0].DepositCount)
	assert.Nil(t, e.Aggregation(90))
}

func TestVerifiedAttributeSource(t *testing.T) {
	var a VerifiedAttribute
	require.NoError(t, json.Unmarshal([]byte(`{"source":"bank","sourceType":1,"verified":true}`), &a))
	assert.Equal(t, "bank", a.Source)
	assert.True(t, a.Verified)

	a = VerifiedAttribute{}
	require.NoError(t, json.Unmarshal([]byte(`{"source":{"name":"Demo KYC","type":3},"verified":"true"}`), &a))
	assert.Equal(t, "Demo KYC", a.Source)
	assert.Equal(t, 3, a.SourceType)
	assert.True(t, a.Verified)

	a = VerifiedAttribute{Source: "old"}
	require.NoError(t, json.Unmarshal([]byte(`{"source":null}`), &a))
	assert.Equal(t, "", a.Source)

	// A source of another shape is left unset (the attribute is still
	// read); verified, whose false is a value, cannot be.
	a = VerifiedAttribute{}
	require.NoError(t, json.Unmarshal([]byte(`{"name":"email","source":{"name":["x"],"type":2},"verified":true}`), &a))
	assert.Equal(t, VerifiedAttribute{Name: "email", SourceType: 2, Verified: true}, a)
	a = VerifiedAttribute{}
	require.NoError(t, json.Unmarshal([]byte(`{"name":"email","source":[1],"verified":true}`), &a))
	assert.Equal(t, VerifiedAttribute{Name: "email", Verified: true}, a)
	var fe *tolerant.FieldError
	require.ErrorAs(t, json.Unmarshal([]byte(`{"verified":{}}`), &a), &fe)
	assert.Equal(t, "verified", fe.Path)
}

func TestProviderStatusJSON(t *testing.T) {
	for in, want := range map[string]ProviderStatus{
		`"AC100"`: "AC100", `10`: "10", `10.0`: "10", `1e1`: "10", `10.5`: "10.5",
	} {
		var s ProviderStatus
		require.NoError(t, json.Unmarshal([]byte(in), &s), in)
		assert.Equal(t, want, s, in)
	}
	s := ProviderStatus("kept")
	require.NoError(t, json.Unmarshal([]byte(`null`), &s))
	assert.Equal(t, ProviderStatus("kept"), s, "null leaves it unchanged")
	assert.Error(t, json.Unmarshal([]byte(`true`), &s))
	assert.Error(t, json.Unmarshal([]byte(`{}`), &s))
}

func TestPaymentTypeJSON(t *testing.T) {
	for in, want := range map[string]PaymentType{
		`"Deferred"`: PaymentTypeDeferred, `"DISBURSEMENT"`: PaymentTypeDisbursement, `"2"`: PaymentTypeDeferred,
		`"2.0"`: PaymentTypeDeferred, `6`: PaymentTypeRetrieval, `1.0`: PaymentTypeInstant, `""`: 0, `null`: 0,
	} {
		var p PaymentType
		require.NoError(t, json.Unmarshal([]byte(in), &p), in)
		assert.Equal(t, want, p, in)
	}
	for _, bad := range []string{`"Wire"`, `"2.5"`, `true`, `2.5`, `"`} {
		var p PaymentType
		assert.Error(t, json.Unmarshal([]byte(bad), &p), bad)
	}
}

func TestAmountJSONErrors(t *testing.T) {
	var a Amount
	assert.Error(t, a.UnmarshalJSON([]byte(`"unterminated`)))
	assert.Error(t, a.UnmarshalJSON([]byte(`{}`)))
	assert.Error(t, a.UnmarshalJSON([]byte(`"`+string(make([]byte, 100))+`x`)))
}
