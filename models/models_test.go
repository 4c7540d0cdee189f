package models

import (
	"encoding/json"
	"errors"
	"math"
	"testing"
	"time"
)

func TestAmountFromCents(t *testing.T) {
	for cents, want := range map[int64]string{0: "0.00", 5: "0.05", 1050: "10.50", 100: "1.00", 123456789: "1234567.89", -150: "-1.50"} {
		if got := AmountFromCents(cents); string(got) != want {
			t.Errorf("AmountFromCents(%d) = %s, want %s", cents, got, want)
		}
	}
	if got := AmountFromCents(math.MinInt64); got.Validate() == nil {
		t.Errorf("MinInt64 cents gave a valid amount %s", got)
	}
}

func TestAmountValidate(t *testing.T) {
	for _, ok := range []string{"0.00", "10.50", "1.00", "999999999.99"} {
		if _, err := ParseAmount(ok); err != nil {
			t.Errorf("ParseAmount(%q) = %v", ok, err)
		}
	}
	for _, bad := range []string{"", "10", "10.5", "10.500", ".50", "-1.00", "1,00", "01.00", "1e2.00", " 1.00", "1.0a", "１.00", "12345678901234567890.00"} {
		if _, err := ParseAmount(bad); !errors.Is(err, ErrInvalidAmount) {
			t.Errorf("ParseAmount(%q) = %v, want ErrInvalidAmount", bad, err)
		}
	}
}

func TestAmountCents(t *testing.T) {
	if c, err := Amount("1234.56").Cents(); err != nil || c != 123456 {
		t.Errorf("Cents = %d, %v", c, err)
	}
	if c, err := Amount("-349.37").Cents(); err != nil || c != -34937 {
		t.Errorf("negative Cents = %d, %v", c, err)
	}
	if _, err := Amount("--1.00").Cents(); err == nil {
		t.Error("double minus accepted")
	}
	if _, err := Amount("99999999999999999.99").Cents(); err == nil {
		t.Error("overflow accepted")
	}
	if !Amount("0.00").IsZero() || Amount("0.01").IsZero() {
		t.Error("IsZero")
	}
}

func TestAmountJSON(t *testing.T) {
	var v struct{ A, B, C Amount }
	if err := json.Unmarshal([]byte(`{"A":"10.00","B":12.5,"C":null}`), &v); err != nil {
		t.Fatal(err)
	}
	if v.A != "10.00" || v.B != "12.50" || v.C != "" {
		t.Errorf("got %+v", v)
	}
	if err := json.Unmarshal([]byte(`{"A":true}`), &v); err == nil {
		t.Error("bool amount accepted")
	}
}

func TestEpochMillis(t *testing.T) {
	var v struct{ A, B, C, D EpochMillis }
	if err := json.Unmarshal([]byte(`{"A":1700000000123,"B":"1700000000123","C":"","D":1.7e12}`), &v); err != nil {
		t.Fatal(err)
	}
	want := time.Date(2023, 11, 14, 22, 13, 20, 123e6, time.UTC)
	if !v.A.Time().Equal(want) || v.B != v.A || !v.C.IsZero() || v.D != 1700000000000 {
		t.Errorf("got %+v", v)
	}
	if v.A.String() != "2023-11-14T22:13:20.123Z" || EpochMillis(0).String() != "" || !EpochMillis(0).Time().IsZero() {
		t.Errorf("String/Time: %q", v.A.String())
	}
	if NewEpochMillis(want) != v.A {
		t.Error("NewEpochMillis")
	}
	for _, bad := range []string{`{"A":"abc"}`, `{"A":1.5}`, `{"A":true}`} {
		if err := json.Unmarshal([]byte(bad), &v); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
	b, _ := json.Marshal(struct{ A EpochMillis }{1})
	if string(b) != `{"A":1}` {
		t.Errorf("marshal %s", b)
	}
}

func TestCodes(t *testing.T) {
	if StatusAuthorized.String() != "Authorized" || StatusReversed.String() != "Reversed" || TransactionStatus(9).String() != "TransactionStatus(9)" {
		t.Error("TransactionStatus.String")
	}
	if TypeDeposit.String() != "Deposit" || TransactionType(99).String() != "TransactionType(99)" {
		t.Error("TransactionType.String")
	}
	if PaymentTypeDeferred.String() != "Deferred" || PaymentType(0).Name() != "" || PaymentType(9).String() != "PaymentType(9)" {
		t.Error("PaymentType.String")
	}
	var v struct {
		S TransactionStatus
		T TransactionType
		P PaymentType
		Q PaymentType
		R PaymentType
	}
	if err := json.Unmarshal([]byte(`{"S":"2","T":6,"P":"deferred","Q":"4","R":6}`), &v); err != nil {
		t.Fatal(err)
	}
	if v.S != StatusAuthorized || v.T != TypeDeposit || v.P != PaymentTypeDeferred || v.Q != PaymentTypeDisbursement || v.R != PaymentTypeRetrieval {
		t.Errorf("got %+v", v)
	}
	if _, err := parsePaymentType("Wire"); err == nil {
		t.Error("unknown payment type name accepted")
	}
	if err := json.Unmarshal([]byte(`{"S":"x"}`), &v); err == nil {
		t.Error("bad status accepted")
	}
	var p PaymentType
	if err := p.UnmarshalText([]byte("Retrieval")); err != nil || p != PaymentTypeRetrieval {
		t.Error("UnmarshalText")
	}
	if !USD.Valid() || !CAD.Valid() || Currency("EUR").Valid() || Currency("usd").Valid() {
		t.Error("Currency.Valid")
	}
}

// A JSON number amount is read as the decimal it is, never through a float:
// every digit is kept, and a figure that is not a whole number of cents is
// kept as written (Validate and Cents then refuse it) rather than rounded.
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
		if err := a.UnmarshalJSON([]byte(in)); err != nil {
			t.Errorf("%s: %v", in, err)
			continue
		}
		if a != want {
			t.Errorf("%s decoded as %q, want %q", in, a, want)
		}
	}
	var a Amount
	if err := a.UnmarshalJSON([]byte(`0.125`)); err != nil || a.Validate() == nil {
		t.Errorf("0.125: %q, %v: a fraction of a cent must not validate", a, err)
	}
	if _, err := a.Cents(); err == nil {
		t.Errorf("0.125: Cents accepted %q", a)
	}
}
