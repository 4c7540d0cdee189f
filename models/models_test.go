package models

import (
	"encoding/json"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bankpay/bankpay-go/internal/wire/tolerant"

	"github.com/bankpay/bankpay-go/internal/testmain"
)

// TestMain runs the package's tests without the race detector's exit pause
// (package testmain).
func TestMain(m *testing.M) { testmain.Run(m) }

func TestAmountFromCents(t *testing.T) {
	for cents, want := range map[int64]string{0: "0.00", 5: "0.05", 1050: "10.50", 100: "1.00", 123456789: "1234567.89", -150: "-1.50"} {
		assert.Equal(t, Amount(want), AmountFromCents(cents), "cents %d", cents)
	}
	_, err := ParseAmount(string(AmountFromCents(math.MinInt64)))
	assert.Error(t, err, "MinInt64 cents gave a valid amount")
}

func TestParseAmount(t *testing.T) {
	for _, ok := range []string{"0.00", "10.50", "1.00", "999999999.99"} {
		a, err := ParseAmount(ok)
		assert.NoError(t, err, ok)
		assert.Equal(t, Amount(ok), a)
	}
	for _, bad := range []string{"", "10", "10.5", "10.500", ".50", "-1.00", "1,00", "01.00", "1e2.00", " 1.00", "1.0a", "１.00", "12345678901234567890.00"} {
		_, err := ParseAmount(bad)
		assert.ErrorIs(t, err, errInvalidAmount, bad)
	}
}

func TestAmountCents(t *testing.T) {
	c, err := Amount("1234.56").Cents()
	require.NoError(t, err)
	assert.Equal(t, int64(123456), c)
	c, err = Amount("-349.37").Cents()
	require.NoError(t, err)
	assert.Equal(t, int64(-34937), c)
	for _, bad := range []Amount{"--1.00", "99999999999999999.99", "0.125", ""} {
		_, err := bad.Cents()
		assert.ErrorIs(t, err, errInvalidAmount, string(bad))
	}
}

func TestAmountJSON(t *testing.T) {
	var v struct{ A, B, C Amount }
	require.NoError(t, json.Unmarshal([]byte(`{"A":"10.00","B":12.5,"C":null}`), &v))
	assert.Equal(t, Amount("10.00"), v.A)
	assert.Equal(t, Amount("12.50"), v.B)
	assert.Equal(t, Amount(""), v.C)
	assert.Error(t, json.Unmarshal([]byte(`{"A":true}`), &v), "bool amount accepted")
}

// EpochMillis has no decoder of its own: the SDK's tolerant decoder reads
// it as the integer it is, from a number, a numeric string or a whole float.
func TestEpochMillis(t *testing.T) {
	var v struct{ A, B, C, D EpochMillis }
	require.NoError(t, tolerant.Decode([]byte(`{"A":1700000000123,"B":"1700000000123","C":"","D":1.7e12}`), &v))
	want := time.Date(2023, 11, 14, 22, 13, 20, 123e6, time.UTC)
	assert.True(t, v.A.Time().Equal(want), v.A.Time())
	assert.Equal(t, v.A, v.B)
	assert.Equal(t, EpochMillis(0), v.C)
	assert.Equal(t, EpochMillis(1700000000000), v.D)
	assert.True(t, EpochMillis(0).Time().IsZero())
	// A value that is not a time is left unset (zero: "not given"), never
	// an error: EpochMillis says unset with its zero.
	for _, bad := range []string{`{"A":"abc","B":1}`, `{"A":1.5,"B":1}`, `{"A":true,"B":1}`} {
		v.A, v.B = 7, 0
		unset, err := tolerant.DecodeUnset([]byte(bad), &v, "")
		require.NoError(t, err, bad)
		assert.Equal(t, EpochMillis(0), v.A, bad)
		assert.Equal(t, EpochMillis(1), v.B, bad)
		require.Len(t, unset, 1, bad)
		assert.Equal(t, "A", unset[0].Path, bad)
	}
	b, err := json.Marshal(struct{ A EpochMillis }{1})
	require.NoError(t, err)
	assert.Equal(t, `{"A":1}`, string(b))
}

func TestCodes(t *testing.T) {
	assert.Equal(t, "Authorized", StatusAuthorized.String())
	assert.Equal(t, "Reversed", StatusReversed.String())
	assert.Equal(t, "TransactionStatus(9)", TransactionStatus(9).String())
	assert.Equal(t, "Deposit", TypeDeposit.String())
	assert.Equal(t, "TransactionType(99)", TransactionType(99).String())
	assert.Equal(t, "Deferred", PaymentTypeDeferred.String())
	assert.Equal(t, "PaymentType(0)", PaymentType(0).String())
	// Establish data sends the name, and no paymentType for the zero value
	// or an unknown code.
	for p, want := range map[PaymentType]string{PaymentTypeRetrieval: `"paymentType":"Retrieval"`, 0: "", 9: ""} {
		b, err := json.Marshal(EstablishData{PaymentType: p})
		require.NoError(t, err)
		if want == "" {
			assert.NotContains(t, string(b), "paymentType", "%d: %s", p, b)
		} else {
			assert.Contains(t, string(b), want, "%d: %s", p, b)
		}
	}
	assert.Equal(t, "PaymentType(9)", PaymentType(9).String())

	var v struct {
		S TransactionStatus
		T TransactionType
		P PaymentType
		Q PaymentType
		R PaymentType
		U TransactionStatus
	}
	require.NoError(t, tolerant.Decode([]byte(`{"S":"2","T":6.0,"P":"deferred","Q":"4","R":6,"U":99}`), &v))
	assert.Equal(t, StatusAuthorized, v.S)
	assert.Equal(t, TypeDeposit, v.T)
	assert.Equal(t, PaymentTypeDeferred, v.P)
	assert.Equal(t, PaymentTypeDisbursement, v.Q)
	assert.Equal(t, PaymentTypeRetrieval, v.R)
	assert.Equal(t, TransactionStatus(99), v.U, "an unknown code is kept")
	_, err := parsePaymentType("Wire")
	assert.Error(t, err, "unknown payment type name accepted")
	var id struct {
		S TransactionStatus `json:"S" wire:"required"`
	}
	assert.Error(t, tolerant.Decode([]byte(`{"S":"x"}`), &id), "bad required status accepted")
	var p PaymentType
	require.NoError(t, json.Unmarshal([]byte(`"Retrieval"`), &p))
	assert.Equal(t, PaymentTypeRetrieval, p)
}

// A JSON number amount is read as the decimal it is, never through a float:
// every digit is kept, and a figure that is not a whole number of cents is
// kept as written (ParseAmount and Cents then refuse it) rather than rounded.
func TestAmountJSONNumberIsExact(t *testing.T) {
	for in, want := range map[string]Amount{
		`12.5`:                    "12.50",
		`10`:                      "10.00",
		`0`:                       "0.00",
		`-0`:                      "0.00",
		`-349.37`:                 "-349.37",
		`0.1`:                     "0.10",
		`12345678901234567.89`:    "12345678901234567.89", // a float64 gives 12345678901234568.00
		`90071992547409.93`:       "90071992547409.93",
		`1e2`:                     "100.00",
		`1.5E-1`:                  "0.15",
		`2.50e+1`:                 "25.00",
		`100.000`:                 "100.00",
		`0.125`:                   "0.125", // a float64 rounds it to 0.12
		`1.005`:                   "1.005",
		`1e-7`:                    "1e-7",
		`1e999999999`:             "1e999999999", // no huge number is built
		`-0.001`:                  "-0.001",
		`99999999999999999999.99`: "99999999999999999999.99",
	} {
		var a Amount
		if assert.NoError(t, a.UnmarshalJSON([]byte(in)), in) {
			assert.Equal(t, want, a, in)
		}
	}
	var a Amount
	require.NoError(t, a.UnmarshalJSON([]byte(`0.125`)))
	_, err := ParseAmount(string(a))
	assert.Error(t, err, "0.125: a fraction of a cent must not validate")
	_, err = a.Cents()
	assert.Error(t, err, "0.125: Cents accepted")
}
